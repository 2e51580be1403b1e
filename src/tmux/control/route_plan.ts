/**
 * The control route's planner (docs/design.md §5.14 rule 1), pure: which command chains have an
 * output shape a routed reply can be framed by, the control line that carries them, and how many
 * rows a capture prints. Chains it cannot plan are spawned.
 */
import type { TmuxCommand } from "../core/argv.ts";
import { quoteControlArgument } from "./syntax.ts";
import { nonce } from "../core/format.ts";
import { PANE_ID } from "../../rows.ts";

const ID = /^[%@$]\d+$/;
/** Format variables whose value depends on the client asking (ours is attached; a spawned one is not). */
const CLIENT_DEPENDENT =
  /^(client_|session_attached|session_many_attached|session_last_attached|window_active_clients)/;
/** Variables that need no target: the server's own. */
const SERVER_LEVEL = new Set(["version", "socket_path", "pid", "start_time"]);

/** What one block of a routed reply is, and so where it may end. */
export type Shape =
  /** `-F`/`display-message -p` rows, each wrapped in the call's prefix and suffix. */
  | { kind: "rows" }
  /** Ours, right before a capture: the pane's id, history size and height. */
  | { kind: "header" }
  /** `capture-pane -p` without `-J`: exactly as many lines as its range has rows. */
  | { kind: "screen"; start?: string; end?: string }
  /** Prints nothing unless it fails. */
  | { kind: "silent" }
  /** Ours, last: the call's nonce, proving the whole line ran. */
  | { kind: "sentinel" };

/** A routed call: the control line and the shape of each block it answers with. */
export interface RoutePlan {
  line: string;
  shapes: Shape[];
  /** Starts every row of this call's rows blocks. */
  open: string;
  /** Ends every row of this call's rows blocks. */
  close: string;
}

/**
 * The plan for routing `commands`, or undefined when any of them has no shape this route can frame
 * (docs/design.md §5.14): those are spawned.
 */
export function planRoute(
  commands: readonly TmuxCommand[],
  token: string = nonce() + nonce(),
): RoutePlan | undefined {
  const open = `\x1d${token}\x1d`;
  const close = `\x1c${token}\x1c`;
  const wrap = (template: string) => `${open}${template}${close}`;
  const sent: string[][] = [];
  const shapes: Shape[] = [];
  for (const command of commands) {
    const planned = planOne(command, wrap);
    if (!planned) return undefined;
    for (const [args, shape] of planned) {
      sent.push(args);
      shapes.push(shape);
    }
  }
  if (sent.length === 0) return undefined;
  sent.push(["display-message", "-p", wrap("")]);
  shapes.push({ kind: "sentinel" });
  let line: string;
  try {
    line = sent.map((args) => args.map(quoteControlArgument).join(" ")).join(" ; ");
  } catch {
    return undefined; // a NUL or lone surrogate: the spawn path refuses it with its own error
  }
  return { line, shapes, open, close };
}

type Planned = Array<[string[], Shape]>;

/** One command's control arguments and shapes (a capture gets its header first). */
function planOne(command: TmuxCommand, wrap: (t: string) => string): Planned | undefined {
  const [name, ...args] = command;
  if (name === "send-keys") return planSendKeys(args);
  // Only send-keys text may span lines: every other argument could be echoed in an error.
  if (args.some((a) => a.includes("\n") || a.includes("\x1c") || a.includes("\x1d"))) {
    return undefined;
  }
  const opts = getopt(args, "aepsl", "tFSE");
  if (!opts) return undefined;
  const { flags, values, rest } = opts;
  const only = (allowed: string) => [...flags, ...values.keys()].every((f) => allowed.includes(f));
  const target = values.get("t");
  const format = values.get("F");
  switch (name) {
    case "display-message": {
      if (!only("pt") || !flags.has("p") || rest.length !== 1) return undefined;
      if (target !== undefined && !ID.test(target)) return undefined;
      const variables = templateVariables(rest[0]);
      if (!variables || variables.some((v) => CLIENT_DEPENDENT.test(v))) return undefined;
      // Without a target tmux answers for the asking client's session, which differs by path.
      if (target === undefined && variables.some((v) => !SERVER_LEVEL.has(v))) return undefined;
      return [[["display-message", "-p", ...(target ? ["-t", target] : []), wrap(rest[0])], {
        kind: "rows",
      }]];
    }
    case "list-sessions":
    case "list-windows":
    case "list-panes":
    case "list-clients": {
      if (format === undefined || rest.length !== 0) return undefined;
      const scope = name === "list-panes" ? "aFst" : name === "list-windows" ? "aFt" : "F";
      if (!only(scope)) return undefined;
      if (flags.has("a") === (target !== undefined) && scope !== "F") return undefined;
      if (flags.has("s") && target === undefined) return undefined;
      if (target !== undefined && !ID.test(target)) return undefined;
      const variables = templateVariables(format);
      if (!variables) return undefined;
      if (name !== "list-clients" && variables.some((v) => CLIENT_DEPENDENT.test(v))) {
        return undefined;
      }
      const scopeArgs = [
        ...(flags.has("a") ? ["-a"] : []),
        ...(flags.has("s") ? ["-s"] : []),
        ...(target ? ["-t", target] : []),
      ];
      return [[[name, ...scopeArgs, "-F", wrap(format)], { kind: "rows" }]];
    }
    case "capture-pane": {
      if (!only("petSE") || !flags.has("p") || rest.length !== 0) return undefined;
      if (target === undefined || !PANE_ID.test(target)) return undefined;
      const start = values.get("S");
      const end = values.get("E");
      if (![start, end].every((v) => v === undefined || v === "-" || lineNumber(v) !== undefined)) {
        return undefined;
      }
      const header = ["display-message", "-p", "-t", target, wrap(HEADER)];
      const capture = ["capture-pane", "-p", ...(flags.has("e") ? ["-e"] : []), "-t", target];
      if (start !== undefined) capture.push("-S", start);
      if (end !== undefined) capture.push("-E", end);
      return [[header, { kind: "header" }], [capture, { kind: "screen", start, end }]];
    }
    case "has-session":
      if (!only("t") || rest.length !== 0 || target === undefined) return undefined;
      // deno-lint-ignore no-control-regex
      if (!ID.test(target) && !/^=[^\x00-\x1f]*$/.test(target)) return undefined;
      return [[["has-session", "-t", target], { kind: "silent" }]];
    default:
      return undefined;
  }
}

/** `send-keys [-l] -t %N -- text`, or `send-keys -t %N KEY`: prints nothing, echoes no text. */
function planSendKeys(args: readonly string[]): Planned | undefined {
  const dashes = args.indexOf("--");
  const head = dashes < 0 ? args.slice(0, -1) : args.slice(0, dashes);
  const tail = dashes < 0 ? args.slice(-1) : args.slice(dashes + 1);
  const opts = getopt(head, "l", "t");
  if (!opts || opts.rest.length !== 0 || tail.length !== 1) return undefined;
  const target = opts.values.get("t");
  if (target === undefined || !PANE_ID.test(target) || opts.values.size !== 1) return undefined;
  // A key name without `--` must look like one: a flag or a line break would change its meaning.
  if (dashes < 0 && (opts.flags.size > 0 || !BARE_KEY.test(tail[0]))) return undefined;
  const literal = opts.flags.has("l") ? ["-l"] : [];
  const sent = dashes < 0
    ? ["send-keys", "-t", target, tail[0]]
    : ["send-keys", ...literal, "-t", target, "--", tail[0]];
  return [[sent, { kind: "silent" }]];
}

// deno-lint-ignore no-control-regex
const BARE_KEY = /^[^\x00-\x20\x7f-][^\x00-\x20\x7f]*$/;

/** Single-letter flags (`booleans`) and flags with a value (`valued`), each its own argument. */
function getopt(
  args: readonly string[],
  booleans: string,
  valued: string,
): { flags: Set<string>; values: Map<string, string>; rest: string[] } | undefined {
  const flags = new Set<string>();
  const values = new Map<string, string>();
  let i = 0;
  for (; i < args.length; i++) {
    const arg = args[i];
    if (!/^-[A-Za-z]$/.test(arg)) break;
    const letter = arg[1];
    if (flags.has(letter) || values.has(letter)) return undefined;
    if (booleans.includes(letter)) flags.add(letter);
    else if (valued.includes(letter) && i + 1 < args.length) values.set(letter, args[++i]);
    else return undefined;
  }
  const rest = args.slice(i);
  if (rest.some((a) => a.startsWith("-"))) return undefined;
  return { flags, values, rest };
}

/** The `#{name}` variables of a format made of plain text, `##` and `#{name}` only. */
export function templateVariables(template: string): string[] | undefined {
  const names: string[] = [];
  for (let i = 0; i < template.length; i++) {
    if (template[i] !== "#") continue;
    if (template[i + 1] === "#") {
      i++;
      continue;
    }
    const m = /^#\{([A-Za-z@][A-Za-z0-9_-]*)\}/.exec(template.slice(i, i + 80));
    if (!m) return undefined;
    names.push(m[1]);
    i += m[0].length - 1;
  }
  return names;
}

/** A capture line number tmux takes as one (`-S`/`-E`): an integer in [INT_MIN, SHRT_MAX]. */
function lineNumber(value: string): number | undefined {
  if (!/^-?\d{1,10}$/.test(value)) return undefined;
  const n = Number(value);
  return n >= -2_147_483_648 && n <= 32_767 ? n : undefined;
}

/** Ours, before each capture: only ids and numbers. */
const HEADER = "#{pane_id} #{history_size} #{pane_height}";

/**
 * How many lines `capture-pane -p` (without `-J`) prints for a pane with `history` rows of history
 * and `height` rows of screen: tmux 3.3a's clamping of `-S`/`-E` (cmd-capture-pane.c), one line
 * per row of the range.
 */
export function captureRows(
  start: string | undefined,
  end: string | undefined,
  history: number,
  height: number,
): number {
  const last = history + height - 1;
  const row = (value: string | undefined, dash: number, missing: number) => {
    if (value === "-") return dash;
    const n = value === undefined ? undefined : lineNumber(value);
    if (n === undefined) return missing;
    const at = n < 0 && -n > history ? 0 : history + n;
    return Math.min(at, last);
  };
  const top = row(start, 0, history);
  const bottom = row(end, last, last);
  return Math.abs(bottom - top) + 1;
}
