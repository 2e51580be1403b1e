/**
 * Who watches what (docs/design.md §6.3, §6.4), from the clients `list-clients` shows: which
 * clients are people, which windows they see (decided per window, so every session a window is
 * linked into sees the same answer), and which panes host a nested client of this server. Every
 * listing reports it (list_panes' `isAttended` and `hostsTmuxClient`, list_sessions' `attached`),
 * and the guards refuse from those very fields (src/guard/rules.ts), so what an agent is shown and
 * what a guard decides cannot differ.
 */

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
