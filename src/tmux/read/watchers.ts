/**
 * Exact targets, generations, caller identity and watched panes (docs/design.md §5.7, §6.3, §6.4).
 *
 * tmux resolves `-t name` by prefix and glob (`-t alp` finds `alpha`); here a session is either
 * its id `$N` or an exact name sent as `=name`, and anything else is `target_not_found`.
 */
import { preview, ToolError } from "../../errors.ts";
import { PANE_ID, WINDOW_ID } from "../../rows.ts";
/** Pattern of a session id. */
export const SESSION_ID = /^\$\d+$/;

/** A pane id about to reach tmux; anything else here is a bug of ours, not agent input. */
export function paneArg(paneId: string): string {
  if (!PANE_ID.test(paneId)) throw new Error("internal: not a pane id");
  return paneId;
}

/** A window id about to reach tmux (see {@link paneArg}). */
export function windowArg(windowId: string): string {
  if (!WINDOW_ID.test(windowId)) throw new Error("internal: not a window id");
  return windowId;
}

/** The error for a pane id that names no pane. */
export function paneNotFound(paneId: string): ToolError {
  return new ToolError("target_not_found", `no pane ${paneId}`, {
    hint: "Call list_panes and use a paneId from it.",
  });
}

/** Turn tmux's "can't find pane" for this pane into {@link paneNotFound}; rethrow the rest. */
export function rethrowPaneMissing(error: unknown, paneId: string): never {
  if (error instanceof ToolError && error.code === "target_not_found") throw paneNotFound(paneId);
  throw error;
}

/** The error for a window id that names no window. */
export function windowNotFound(windowId: string): ToolError {
  return new ToolError("target_not_found", `no window ${windowId}`, {
    hint: "Call list_windows and use a windowId from it.",
  });
}

/** Turn tmux's "can't find window" for this window into {@link windowNotFound}; rethrow the rest. */
export function rethrowWindowMissing(error: unknown, windowId: string): never {
  if (error instanceof ToolError && error.code === "target_not_found") {
    throw windowNotFound(windowId);
  }
  throw error;
}

/** What a session reference resolves against: any rows carrying a session's id and name. */
interface SessionKey {
  sessionId: string;
  sessionName: string;
}

/**
 * Resolve a session reference — its id `$N` or its exact name — against listed sessions and
 * return the id. Never a prefix or pattern. tmux lets a session be *named* like an id (`$7`);
 * when such a name and a different session's id collide, the reference is ambiguous and refused.
 */
export function resolveSessionRef(rows: readonly SessionKey[], ref: string): string {
  const byName = rows.find((r) => r.sessionName === ref);
  const byId = SESSION_ID.test(ref) ? rows.find((r) => r.sessionId === ref) : undefined;
  if (byName && byId && byName.sessionId !== byId.sessionId) {
    throw new ToolError(
      "invalid_arguments",
      `${preview(ref)} is both a session id and another session's name`,
      {
        hint: `Pass the sessionId instead: ${byName.sessionId} is the session named ${
          preview(ref)
        }.`,
      },
    );
  }
  const found = byId ?? byName;
  if (!found) throw sessionNotFound(ref);
  return found.sessionId;
}

/** The error for a session reference that matched nothing. */
export function sessionNotFound(ref: string): ToolError {
  return new ToolError(
    "target_not_found",
    `no session ${preview(ref)} (ids and exact names only)`,
    {
      hint: "Call list_sessions and pass a sessionId ($N) or the exact session name.",
    },
  );
}

/**
 * A pane's generation: changes when the pane's process is replaced (respawn, kill and recreate)
 * or the server restarts and reuses ids. Opaque to agents.
 */
export function generationOf(serverPid: number, panePid: number): string {
  return `g${serverPid.toString(36)}.${panePid.toString(36)}`;
}

/** Who called us, from the environment tmux gives its panes (`$TMUX`, `$TMUX_PANE`). */
export interface CallerIdentity {
  /** Socket path of the server the caller lives in. */
  socketPath: string;
  /** That server's pid: compared with the pinned server's pid, not the socket path alone. */
  serverPid: number;
  /** The caller's pane id, when `$TMUX_PANE` is set. */
  paneId?: string;
}

/** Parse `$TMUX` ("socket,pid,session") and `$TMUX_PANE`; undefined outside tmux. */
export function callerIdentity(
  tmux: string | undefined,
  tmuxPane: string | undefined,
): CallerIdentity | undefined {
  if (!tmux) return undefined;
  const match = /^(.*),(\d+),(\d+)$/s.exec(tmux);
  if (!match) return undefined;
  const paneId = tmuxPane && PANE_ID.test(tmuxPane) ? tmuxPane : undefined;
  return { socketPath: match[1], serverPid: Number(match[2]), paneId };
}

/** True when this pane is the caller's own pane on this very server. */
export function isCallerPane(
  caller: CallerIdentity | undefined,
  serverPid: number,
  paneId: string,
): boolean {
  return caller?.paneId !== undefined && caller.serverPid === serverPid &&
    caller.paneId === paneId;
}

/** An attached client as seen by `list-clients`. */
export interface ClientRow {
  pid: number;
  sessionId: string;
  /** The window the client shows (its session's current window). */
  windowId: string;
  controlMode: boolean;
  /** tmux's client flags, e.g. "attached,focused,active-pane,UTF-8". */
  flags: string;
  name: string;
  /** The client's terminal; empty for clients without one (control clients on pipes). */
  tty: string;
}

/** Which window is linked into which session (a window may be linked into several). */
interface WindowLink {
  sessionId: string;
  windowId: string;
}

/** Where people are looking, from the attached clients that are not our own control clients. */
interface Watchers {
  /** People attached, by session id. */
  people: Map<string, number>;
  /** Windows every pane of which a person may be using. */
  wholeWindows: Set<string>;
  /** Windows a plain client shows: their active pane is what the person sees and types into. */
  shownWindows: Set<string>;
  /** Terminals of clients of this server (a pane whose tty is one hosts a nested client). */
  clientTtys: Set<string>;
}

/**
 * Who is watching what, by window, so that every session a window is linked into (grouped
 * sessions, `link-window`) sees the same answer. A plain client shows its session's current
 * window and types into that window's active pane. A client attached with `-f active-pane` keeps
 * its own active pane, which no format reveals, so its whole window counts as watched; a control
 * client that is not ours (iTerm2's `-CC`) shows every window of its session, so each of them
 * counts whole.
 */
export function watchers(
  clients: readonly ClientRow[],
  ownClientPids: ReadonlySet<number>,
  links: readonly WindowLink[],
): Watchers {
  const result: Watchers = {
    people: new Map(),
    wholeWindows: new Set(),
    shownWindows: new Set(),
    clientTtys: new Set(),
  };
  for (const client of clients) {
    if (!isPerson(client, ownClientPids)) continue;
    if (client.tty !== "") result.clientTtys.add(client.tty);
    if (client.sessionId === "") continue;
    result.people.set(client.sessionId, (result.people.get(client.sessionId) ?? 0) + 1);
    if (client.controlMode) continue;
    if (client.flags.split(",").includes("active-pane")) result.wholeWindows.add(client.windowId);
    else result.shownWindows.add(client.windowId);
  }
  const wholeSessions = sessionsShownWhole(clients, ownClientPids);
  for (const link of links) {
    if (wholeSessions.has(link.sessionId)) result.wholeWindows.add(link.windowId);
  }
  return result;
}

/**
 * Sessions every window of which a person sees: those a control client that is not ours is
 * attached to. Only for these does {@link watchers} need to know which windows a session links
 * (the input guard lists the links only when this is not empty).
 */
export function sessionsShownWhole(
  clients: readonly ClientRow[],
  ownClientPids: ReadonlySet<number>,
): Set<string> {
  return new Set(
    clients.filter((c) => c.controlMode && c.sessionId !== "" && isPerson(c, ownClientPids))
      .map((c) => c.sessionId),
  );
}

/**
 * Whether a client may be a person: not one of our own control clients, and not a control client
 * attached with `no-output`, which is sent no pane output and so shows nothing to anyone (another
 * tmux-mcp's command route attaches so).
 */
function isPerson(client: ClientRow, ownClientPids: ReadonlySet<number>): boolean {
  if (ownClientPids.has(client.pid)) return false;
  return !(client.controlMode && client.flags.split(",").includes("no-output"));
}

/** Whether a person may be looking at or typing into this pane. */
export function isWatched(pane: { windowId: string; active: boolean }, seen: Watchers): boolean {
  return seen.wholeWindows.has(pane.windowId) ||
    (pane.active && seen.shownWindows.has(pane.windowId));
}

/**
 * Whether this pane runs a tmux client of this same server (`tmux attach` inside the pane): its
 * terminal is that client's. Keys typed into it drive the pane the client shows, and tmux's own
 * key bindings (the prefix, then `:` opens a command prompt that can run shell commands).
 */
export function hostsClient(paneTty: string, seen: Watchers): boolean {
  return paneTty !== "" && seen.clientTtys.has(paneTty);
}

/** Refuse a pane whose generation differs from the one the agent holds (`stale_target`). */
export function checkGeneration(
  pane: { paneId: string; generation: string },
  expected: string | undefined,
): void {
  if (expected !== undefined && expected !== pane.generation) {
    throw new ToolError(
      "stale_target",
      `pane ${pane.paneId} was replaced since generation ${preview(expected, 32)} was read`,
      { hint: "The id now names another process; call list_panes and decide again." },
    );
  }
}
