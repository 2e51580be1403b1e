/**
 * Host-qualified ids (docs/design.md §5.15): pure rewriting at the edge between the agent and one
 * host's tools. A remote object's id is `NAME:ID` (`box1:%3`, `box1:@2`, `box1:$1`, and so its
 * cursors and runIds); a local one keeps its plain form. Arguments lose the prefix before their
 * schema sees them, and name the host the call goes to; a remote host's results gain it.
 *
 * What is an id is the tool's contract: the fields its schemas mark with `tmuxId` (src/id_marks.ts),
 * in nested objects and arrays too. Nothing else is touched, so a text to type that happens to read
 * `box1:%3` is never rewritten. tmux turns `:` in a session name into `_`, so `NAME:` never starts
 * a local session name.
 */
import type { z } from "zod";
import { errorMessage, onHostText, preview, ToolError } from "../errors.ts";
import { anyMark, requiresId, rewriteIds } from "../id_marks.ts";
import { boundList, LIST_BYTES, LIST_LIMIT } from "../results.ts";

/**
 * Whether a tool whose arguments are `input` names no object of one host, and so takes
 * {@link HOST_ARG}: no required id field (its rows' included), and no nested calls of its own to
 * route (a batch).
 */
export function namesNoObject(input: z.ZodType): boolean {
  return !holdsCalls(input) && !requiresId(input);
}

/** Whether `input` holds nested calls' arguments, which route themselves (the read batch). */
function holdsCalls(input: z.ZodType): boolean {
  return anyMark(input, (mark) => "call" in mark);
}

/** The argument that picks a host for a tool that names no object. */
export const HOST_ARG = "host";

/** The local host's name, accepted as a prefix and as `host`. */
const LOCAL = "local";

const QUALIFIED = /^([a-z][a-z0-9-]{0,31}):([\s\S]*)$/;

/** Where a call goes: the host its arguments name (undefined: none), and the arguments on it. */
export interface HostPlan {
  readonly host: string | undefined;
  readonly args: unknown;
}

/**
 * Strip host prefixes from the id fields of a call's arguments (as `input` marks them) and say
 * which host they name. `remotes` are the configured host names; a plain id names the host `host`
 * names, else the local one. Refuses (`invalid_arguments`) an unknown host and ids of two hosts in
 * one call.
 */
export function planHost(input: z.ZodType, args: unknown, remotes: ReadonlySet<string>): HostPlan {
  const named = new Set<string>();
  const known = (name: string) => name === LOCAL || remotes.has(name);
  // `host` makes plain ids (and session names, as listing rows show them) that host's.
  let plain = LOCAL;
  let rest = args;
  if (isRecord(args) && HOST_ARG in args) {
    // Nested calls answer for their own hosts: one `host` over them would label their ids wrongly.
    if (holdsCalls(input)) {
      throw new ToolError("invalid_arguments", "a batch of calls takes no host of its own", {
        hint: "Put host (or NAME:%3 ids) in each row's arguments.",
      });
    }
    const { [HOST_ARG]: host, ...others } = args;
    rest = others;
    // Anything but a name is refused: dropping it would send the call to this machine.
    if (typeof host !== "string" || !known(host)) throw unknownHost(host, remotes);
    named.add(host);
    plain = host;
  }
  const stripped = rewriteIds(input, rest, (value) => {
    const m = QUALIFIED.exec(value);
    if (!m) {
      named.add(plain);
      return value;
    }
    if (!known(m[1])) throw unknownHost(m[1], remotes);
    named.add(m[1]);
    return m[2];
  });
  if (named.size > 1) {
    throw new ToolError(
      "invalid_arguments",
      `one call reaches one host, but this one names ${[...named].sort().join(" and ")}`,
      { hint: "Split the call: one per host." },
    );
  }
  return { host: [...named][0], args: stripped };
}

/**
 * A remote host's result with the id fields `output` marks qualified by `host` (symbol keys kept).
 * An empty value (a hook variable outside a hook, a pane with no session) names nothing.
 */
export function qualifyResult<T>(output: z.ZodType, data: T, host: string): T {
  return rewriteIds(output, data, (id) => id === "" ? id : `${host}:${id}`) as T;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function unknownHost(name: unknown, remotes: ReadonlySet<string>): ToolError {
  const all = [LOCAL, ...remotes].join(", ");
  // The agent's value is echoed only in part: it may be long, or a secret passed by mistake.
  const said = typeof name === "string"
    ? `is named ${preview(name, 40)}`
    : "is named by a non-string";
  return new ToolError("invalid_arguments", `no host ${said}`, {
    hint: `Hosts: ${all}. Use the ids listings return (a remote one reads NAME:%3).`,
  });
}

/**
 * Several hosts' results of one listing as one: row arrays joined (remote rows gain `host`),
 * counts summed, flags joined with or, notes kept with their host, and a note for each host that
 * failed. `results` are in host order, the local one first.
 */
export function mergeListings(
  results: ReadonlyArray<{ host: string; data?: Record<string, unknown>; error?: ToolError }>,
): Record<string, unknown> {
  const merged: Record<string, unknown> = {};
  const notes: string[] = [];
  for (const { host, data, error } of results) {
    const remote = host === LOCAL ? undefined : host;
    if (error) {
      notes.push(errorMessage(error.onHost(remote)));
      continue;
    }
    for (const [key, value] of Object.entries(data ?? {})) {
      if (key === "note") {
        notes.push(onHostText(String(value), remote));
      } else if (Array.isArray(value)) {
        const rows = host === LOCAL ? value : value.map((row) => ({ ...row, host }));
        merged[key] = [...(merged[key] as unknown[] ?? []), ...rows];
      } else if (typeof value === "number") {
        merged[key] = (merged[key] as number ?? 0) + value;
      } else if (typeof value === "boolean") {
        merged[key] = (merged[key] as boolean ?? false) || value;
      } else if (!(key in merged)) {
        merged[key] = value;
      }
    }
  }
  if (notes.length) merged.note = notes.join("; ");
  return merged;
}

/**
 * Joined rows under one listing's bounds again (each host's were bounded alone), what was cut said
 * in `note` and, where the result has one, `truncated`.
 */
export function boundMerged(
  data: Record<string, unknown>,
  truncatable: boolean,
): Record<string, unknown> {
  const notes = data.note === undefined ? [] : [String(data.note)];
  for (const [key, value] of Object.entries(data)) {
    if (!Array.isArray(value)) continue;
    const { rows, dropped } = boundList(value);
    if (dropped === 0) continue;
    data[key] = rows;
    const bound = rows.length === LIST_LIMIT
      ? `at most ${LIST_LIMIT} rows`
      : `at most ${LIST_BYTES} bytes of rows`;
    notes.push(`${dropped} more ${key} across hosts left out (${bound})`);
    if (truncatable) data.truncated = true;
  }
  if (notes.length) data.note = notes.join("; ");
  return data;
}
