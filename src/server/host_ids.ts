/**
 * Host-qualified ids (docs/design.md §5.15): pure rewriting at the edge between the agent and one
 * host's tools. A remote object's id is `NAME:ID` (`box1:%3`, `box1:@2`, `box1:$1`, and so its
 * cursors and runIds); a local one keeps its plain form. Arguments lose the prefix before their
 * schema sees them, and name the host the call goes to; a remote host's results gain it.
 *
 * Only values under known keys are touched, so a text to type that happens to read `box1:%3` is
 * never rewritten. tmux turns `:` in a session name into `_`, so `NAME:` never starts a local
 * session name.
 */
import { preview, ToolError } from "../errors.ts";
import { boundList, LIST_BYTES, LIST_LIMIT } from "../results.ts";

/** Argument keys whose values name an object of one host (or an id of ours on one host). */
const ARG_ID_KEYS: ReadonlySet<string> = new Set([
  "paneId",
  "otherPaneId",
  "windowId",
  "afterWindowId",
  "beforeWindowId",
  "window",
  "session",
  "target",
  "cursor",
  "runId",
]);

/**
 * Argument keys not walked into: the read batch's nested arguments, each routed by its own call.
 */
const NESTED_CALLS: ReadonlySet<string> = new Set(["arguments"]);

/** Result keys whose values (or array items) are ids of the host that answered. */
const RESULT_ID_KEYS: ReadonlySet<string> = new Set([
  "paneId",
  "otherPaneId",
  "windowId",
  "sessionId",
  // A session name is a reference too (`box1:build`): copied back from a row, it must reach that
  // host's session, never a local one of the same name.
  "sessionName",
  "activePaneId",
  "activeWindowId",
  "cursor",
  "runId",
  "resolvedPaneIds",
  "panesEnded",
  "callerPaneId",
  // get_tmux_variables answers under tmux's own variable names: those whose value is an id or a
  // session name (snake_case, so never one of our own keys).
  "pane_id",
  "window_id",
  "session_id",
  "session_name",
  "client_session",
  "client_last_session",
  "hook_pane",
  "hook_window",
  "hook_session",
  "hook_session_name",
]);

/**
 * Result keys whose value is a comma-separated list of session names (tmux variables): each name
 * is qualified.
 */
const RESULT_NAME_LISTS: ReadonlySet<string> = new Set([
  "session_group_list",
  "window_active_sessions_list",
  "window_linked_sessions_list",
]);

/** Result keys that are ids in one tool's result only (elsewhere the key means something else). */
const TOOL_RESULT_ID_KEYS: Readonly<Record<string, readonly string[]>> = {
  // The new session's name (`name` is an option's, a hook's or a window's name elsewhere).
  create_session: ["name"],
};

/**
 * Whether a tool whose arguments are `keys` (`required` of them required) names no object of one
 * host, and so takes {@link HOST_ARG}: no required id, and no rows of its own to route (a batch).
 */
export function namesNoObject(keys: readonly string[], required: readonly string[]): boolean {
  return !keys.includes("operations") && !required.some((key) => ARG_ID_KEYS.has(key));
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
 * Strip host prefixes from a call's arguments and say which host they name. `remotes` are the
 * configured host names; a plain id names the host `host` names, else the local one. Refuses (`invalid_arguments`) an
 * unknown host and ids of two hosts in one call.
 */
export function planHost(args: unknown, remotes: ReadonlySet<string>): HostPlan {
  const named = new Set<string>();
  const known = (name: string) => name === LOCAL || remotes.has(name);
  // `host` makes plain ids (and session names, as listing rows show them) that host's.
  let plain = LOCAL;
  let rest = args;
  if (isRecord(args) && HOST_ARG in args) {
    const { [HOST_ARG]: host, ...others } = args;
    // Nested calls answer for their own hosts: one `host` over them would label their ids wrongly.
    if (holdsNestedCalls(others)) {
      throw new ToolError("invalid_arguments", "a batch of calls takes no host of its own", {
        hint: "Put host (or NAME:%3 ids) in each row's arguments.",
      });
    }
    rest = others;
    // Anything but a name is refused: dropping it would send the call to this machine.
    if (typeof host !== "string" || !known(host)) throw unknownHost(host, remotes);
    named.add(host);
    plain = host;
  }
  const stripped = walkArgs(rest, (value) => {
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
 * A remote host's result with its ids qualified by `host` (symbol keys kept); `tool` adds the keys
 * that are ids in that tool's result only.
 */
export function qualifyResult<T>(data: T, host: string, tool?: string): T {
  const extra = new Set(tool === undefined ? [] : TOOL_RESULT_ID_KEYS[tool] ?? []);
  if (!isRecord(data) || extra.size === 0) return qualify(data, host, "") as T;
  const out: Record<string | symbol, unknown> = { ...data };
  for (const [key, v] of Object.entries(data)) {
    out[key] = qualify(v, host, extra.has(key) ? "id" : kindOf(key));
  }
  return out as T;
}

/** How a value under `key` is qualified: as an id, as a list of names, or not. */
function kindOf(key: string): "id" | "list" | "" {
  return RESULT_ID_KEYS.has(key) ? "id" : RESULT_NAME_LISTS.has(key) ? "list" : "";
}

function qualify(value: unknown, host: string, kind: "id" | "list" | ""): unknown {
  // An empty value (a hook variable outside a hook, a pane with no session) names nothing.
  if (typeof value === "string") {
    if (kind === "" || value === "") return value;
    if (kind === "list") return value.split(",").map((name) => `${host}:${name}`).join(",");
    return `${host}:${value}`;
  }
  if (Array.isArray(value)) return value.map((v) => qualify(v, host, kind));
  if (!isRecord(value)) return value;
  const out: Record<string | symbol, unknown> = { ...value };
  for (const [key, v] of Object.entries(value)) out[key] = qualify(v, host, kindOf(key));
  return out;
}

/** `args` with `edit` applied to every string under an id key (in nested objects and arrays). */
function walkArgs(value: unknown, edit: (id: string) => string, isId = false): unknown {
  if (typeof value === "string") return isId ? edit(value) : value;
  if (Array.isArray(value)) return value.map((v) => walkArgs(v, edit, isId));
  if (!isRecord(value)) return value;
  return Object.fromEntries(
    Object.entries(value).map(([key, v]) => [
      key,
      NESTED_CALLS.has(key) ? v : walkArgs(v, edit, ARG_ID_KEYS.has(key)),
    ]),
  );
}

/** Whether `value` holds a nested call's arguments anywhere (see {@link NESTED_CALLS}). */
function holdsNestedCalls(value: unknown): boolean {
  if (Array.isArray(value)) return value.some(holdsNestedCalls);
  if (!isRecord(value)) return false;
  return Object.entries(value).some(([key, v]) => NESTED_CALLS.has(key) || holdsNestedCalls(v));
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
    if (error) {
      notes.push(
        error.message.startsWith(`host ${host}`) ? error.message : `host ${host}: ${error.message}`,
      );
      continue;
    }
    for (const [key, value] of Object.entries(data ?? {})) {
      if (key === "note") {
        notes.push(host === LOCAL ? String(value) : `host ${host}: ${value}`);
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
