/**
 * Options, environment and hooks: read-only queries whose agent-supplied parts (option names,
 * scopes, targets) are validated here before they reach tmux.
 */
import { preview, ToolError } from "../../errors.ts";
import type { TmuxReadContext } from "../core/context.ts";
import { marker, separators, splitSections } from "../core/format.ts";
import { type EnvironmentEntry, parseEnvironment } from "./environment.ts";
import { resolveSession } from "./queries.ts";
import { PANE_ID, WINDOW_ID } from "../../rows.ts";

/** Option scopes, as show_option's input schema (reused by the batch envelope) names them. */
export const OPTION_SCOPES = [
  "server",
  "session",
  "global-session",
  "window",
  "global-window",
  "pane",
] as const;
/** One option scope. */
type OptionScope = typeof OPTION_SCOPES[number];

/** An option name: a tmux option (optionally with an array index) or a user option `@name`. */
export const OPTION_NAME = /^@?[A-Za-z][A-Za-z0-9_-]*(\[\d{1,4}\])?$/;

/** The value of one option at one scope. */
interface OptionValue {
  /** The value in effect at this scope (inherited if not set here); null when unset everywhere. */
  value: string | null;
  /** Whether the option is set at exactly this scope. */
  set: boolean;
}

/** `show-options` flags selecting a scope and its target (a session already resolved to `$N`). */
function scopeArgs(scope: OptionScope, target: string | undefined): string[] {
  const needs = scope === "session" || scope === "window" || scope === "pane";
  if (!needs && target !== undefined) {
    throw new ToolError("invalid_arguments", `scope ${scope} takes no target`, {
      hint: "Omit target for server and global scopes; give it for session, window or pane.",
    });
  }
  if (needs && target === undefined) {
    throw new ToolError("invalid_arguments", `scope ${scope} needs a target`, {
      hint: scope === "session"
        ? "Pass target: a session id ($N) or exact name."
        : scope === "window"
        ? "Pass target: a window id (@N)."
        : "Pass target: a pane id (%N).",
    });
  }
  switch (scope) {
    case "server":
      return ["-s"];
    case "global-session":
      return ["-g"];
    case "global-window":
      return ["-g", "-w"];
    case "session":
      return ["-t", target!];
    case "window":
      if (!WINDOW_ID.test(target!)) throw badTarget("window", "a window id (@N)", target!);
      return ["-w", "-t", target!];
    case "pane":
      if (!PANE_ID.test(target!)) throw badTarget("pane", "a pane id (%N)", target!);
      return ["-p", "-t", target!];
  }
}

function badTarget(scope: string, want: string, got: string): ToolError {
  return new ToolError(
    "invalid_arguments",
    `scope ${scope} needs ${want} as target, got ${preview(got)}`,
  );
}

/** Which option table a scope reads from (tmux keeps pane options in the window table). */
function tableOf(scope: OptionScope): "server" | "session" | "window" {
  if (scope === "server") return "server";
  if (scope === "session" || scope === "global-session") return "session";
  return "window";
}

/** Names of the built-in options of each table, from tmux itself (so any version is right). */
async function optionTables(
  ctx: TmuxReadContext,
  signal?: AbortSignal,
): Promise<Record<"server" | "session" | "window", Set<string>>> {
  const sep = separators();
  const out = await ctx.runner.run([
    marker(sep, "server"),
    ["show-options", "-s"],
    marker(sep, "session"),
    ["show-options", "-g"],
    marker(sep, "window"),
    ["show-options", "-g", "-w"],
  ], { signal });
  const tables = {
    server: new Set<string>(),
    session: new Set<string>(),
    window: new Set<string>(),
  };
  for (const section of splitSections(out, sep)) {
    const table = tables[section.tag as keyof typeof tables];
    for (const line of section.body.split("\n")) {
      const name = /^([A-Za-z][A-Za-z0-9_-]*)/.exec(line)?.[1];
      if (name) table?.add(name);
    }
  }
  return tables;
}

/**
 * Read one option at one scope. tmux would resolve a unique prefix (`buffer-l`) and pick the scope
 * from the option's own table; both are checked here so the answer is for exactly the name and
 * scope asked.
 */
export async function showOption(
  ctx: TmuxReadContext,
  name: string,
  scope: OptionScope,
  target: string | undefined,
  signal?: AbortSignal,
): Promise<OptionValue> {
  if (!OPTION_NAME.test(name)) {
    throw new ToolError("invalid_arguments", `not an option name: ${preview(name)}`, {
      hint: 'Option names look like "status-left", "status-format[0]" or "@user-option".',
    });
  }
  const resolved = scope === "session" && target !== undefined
    ? await resolveSession(ctx, target, signal)
    : target;
  const flags = scopeArgs(scope, resolved);
  if (!name.startsWith("@")) {
    const base = name.replace(/\[\d+\]$/, "");
    const tables = await optionTables(ctx, signal);
    if (!tables[tableOf(scope)].has(base)) {
      const owner = (["server", "session", "window"] as const).find((t) => tables[t].has(base));
      throw new ToolError(
        "invalid_arguments",
        owner
          ? `${base} is a ${owner} option, not a ${scope} option`
          : `${preview(base)} is not a tmux option`,
        {
          hint: owner
            ? `Use scope ${
              owner === "server"
                ? "server"
                : owner === "session"
                ? "session or global-session"
                : "window, global-window or pane"
            }.`
            : "Check the name against `man tmux` (OPTIONS); user options start with @.",
        },
      );
    }
  }
  const sep = separators();
  const global = scope === "server" || scope.startsWith("global-");
  // -q keeps an unset user option from being an error (built-in names were checked above), but
  // it also hides a missing target, so the target is checked first by has-session.
  const guard = resolved === undefined ? [] : [["has-session", "-t", resolved]];
  const out = await ctx.runner.run([
    ...guard,
    marker(sep, "L"),
    ["show-options", ...flags, "-q", "-v", name],
    marker(sep, "A"),
    ["show-options", ...flags, "-q", "-A", "-v", name],
  ], { signal });
  const sections = splitSections(out, sep);
  const body = (tag: string) => sections.find((s) => s.tag === tag)?.body ?? "";
  const local = body("L");
  const effective = body("A");
  const set = local !== "";
  const value = set
    ? local.replace(/\n$/, "")
    : effective !== ""
    ? effective.replace(/\n$/, "")
    : null;
  return { value, set: global ? value !== null : set };
}

export type { EnvironmentEntry };

/** `-g` for the global scope, or `-t $N` for a session resolved exactly from its reference. */
async function sessionScope(
  ctx: TmuxReadContext,
  session: string | undefined,
  signal?: AbortSignal,
): Promise<string[]> {
  return session === undefined ? ["-g"] : ["-t", await resolveSession(ctx, session, signal)];
}

/** The global environment, or one session's (see {@link parseEnvironment}). */
export async function showEnvironment(
  ctx: TmuxReadContext,
  session: string | undefined,
  signal?: AbortSignal,
): Promise<EnvironmentEntry[]> {
  const scope = await sessionScope(ctx, session, signal);
  // -s prints shell syntax whose quoting makes values with newlines unambiguous.
  return parseEnvironment(await ctx.runner.run(["show-environment", "-s", ...scope], { signal }));
}

/** One hook command. */
interface HookEntry {
  name: string;
  index: number;
  command: string;
}

/** Hooks set globally, or on one session. */
export async function showHooks(
  ctx: TmuxReadContext,
  session: string | undefined,
  signal?: AbortSignal,
): Promise<HookEntry[]> {
  const scope = await sessionScope(ctx, session, signal);
  const out = await ctx.runner.run(["show-hooks", ...scope], { signal });
  const hooks: HookEntry[] = [];
  for (const line of out.split("\n")) {
    const m = /^([a-z][a-z-]*)\[(\d+)\] (.*)$/.exec(line);
    if (m) hooks.push({ name: m[1], index: Number(m[2]), command: m[3] });
  }
  return hooks;
}
