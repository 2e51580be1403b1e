/**
 * Typed read queries: each is one tmux invocation (listing plus `list-clients` chained with a
 * bare `;`) decoded with nonce separators, so names and paths holding `:`, tabs or newlines
 * cannot shift a field.
 */
import type { TmuxContext } from "./context.ts";
import { flag, int, parseRows, rowFormat, separators, type TaggedRow } from "./format.ts";
import { type ClientRow, generationOf, isCallerPane, watchedSessions } from "./targets.ts";

/** A pane row with DESIGN §4's canonical keys. */
export interface PaneRow {
  paneId: string;
  generation: string;
  sessionId: string;
  sessionName: string;
  windowId: string;
  windowIndex: number;
  windowName: string;
  paneIndex: number;
  active: boolean;
  width: number;
  height: number;
  left: number;
  top: number;
  currentCommand: string;
  currentPath: string;
  pid: number;
  dead: boolean;
  inMode: boolean;
  title: string;
  isCaller: boolean;
  isAttended: boolean;
}

/** A window row. */
export interface WindowRow {
  windowId: string;
  windowIndex: number;
  windowName: string;
  sessionId: string;
  sessionName: string;
  active: boolean;
  panes: number;
  width: number;
  height: number;
  zoomed: boolean;
}

/** A session row; `attached` counts people, not our own control clients. */
export interface SessionRow {
  sessionId: string;
  sessionName: string;
  windows: number;
  attached: number;
  created: string;
  path: string;
}

const CLIENTS = rowFormat("C", {
  pid: "client_pid",
  sessionId: "session_id",
  controlMode: "client_control_mode",
  name: "client_name",
});

const SESSIONS = rowFormat("S", {
  sessionId: "session_id",
  sessionName: "session_name",
  windows: "session_windows",
  created: "session_created",
  path: "session_path",
});

const WINDOWS = rowFormat("W", {
  windowId: "window_id",
  windowIndex: "window_index",
  windowName: "window_name",
  sessionId: "session_id",
  sessionName: "session_name",
  active: "window_active",
  panes: "window_panes",
  width: "window_width",
  height: "window_height",
  zoomed: "window_zoomed_flag",
});

const PANES = rowFormat("P", {
  paneId: "pane_id",
  panePid: "pane_pid",
  serverPid: "pid",
  sessionId: "session_id",
  sessionName: "session_name",
  windowId: "window_id",
  windowIndex: "window_index",
  windowName: "window_name",
  windowActive: "window_active",
  paneIndex: "pane_index",
  active: "pane_active",
  width: "pane_width",
  height: "pane_height",
  left: "pane_left",
  top: "pane_top",
  currentCommand: "pane_current_command",
  currentPath: "pane_current_path",
  dead: "pane_dead",
  inMode: "pane_in_mode",
  title: "pane_title",
});

/** Run `list-X -a` and `list-clients` in one invocation; return the rows. */
async function listWithClients(
  ctx: TmuxContext,
  listCommand: string,
  template: (sep: ReturnType<typeof separators>) => string,
  signal?: AbortSignal,
): Promise<{ rows: TaggedRow[]; watched: Map<string, number> }> {
  const sep = separators();
  const all = listCommand === "list-sessions" ? [] : ["-a"];
  const stdout = await ctx.runner.run([
    [listCommand, ...all, "-F", template(sep)],
    ["list-clients", "-F", CLIENTS.template(sep)],
  ], { signal });
  const rows = parseRows(stdout, sep);
  const clients: ClientRow[] = CLIENTS.decode(rows).map((c) => ({
    pid: int(c.pid),
    sessionId: c.sessionId,
    controlMode: flag(c.controlMode),
    name: c.name,
  }));
  return { rows, watched: watchedSessions(clients, ctx.ownClientPids) };
}

/** Every session of the server. */
export async function listSessions(ctx: TmuxContext, signal?: AbortSignal): Promise<SessionRow[]> {
  const { rows, watched } = await listWithClients(ctx, "list-sessions", SESSIONS.template, signal);
  return SESSIONS.decode(rows).map((s) => ({
    sessionId: s.sessionId,
    sessionName: s.sessionName,
    windows: int(s.windows),
    attached: watched.get(s.sessionId) ?? 0,
    created: new Date(int(s.created) * 1000).toISOString(),
    path: s.path,
  }));
}

/** Every window of every session (a window linked into two sessions appears once per session). */
export async function listWindows(ctx: TmuxContext, signal?: AbortSignal): Promise<WindowRow[]> {
  const { rows } = await listWithClients(ctx, "list-windows", WINDOWS.template, signal);
  return WINDOWS.decode(rows).map((w) => ({
    windowId: w.windowId,
    windowIndex: int(w.windowIndex),
    windowName: w.windowName,
    sessionId: w.sessionId,
    sessionName: w.sessionName,
    active: flag(w.active),
    panes: int(w.panes),
    width: int(w.width),
    height: int(w.height),
    zoomed: flag(w.zoomed),
  }));
}

/** Every pane of every session, with generation, caller and watched flags resolved. */
export async function listPanes(ctx: TmuxContext, signal?: AbortSignal): Promise<PaneRow[]> {
  const { rows, watched } = await listWithClients(ctx, "list-panes", PANES.template, signal);
  return PANES.decode(rows).map((p) => {
    const serverPid = int(p.serverPid);
    const panePid = int(p.panePid);
    const active = flag(p.active);
    return {
      paneId: p.paneId,
      generation: generationOf(serverPid, panePid),
      sessionId: p.sessionId,
      sessionName: p.sessionName,
      windowId: p.windowId,
      windowIndex: int(p.windowIndex),
      windowName: p.windowName,
      paneIndex: int(p.paneIndex),
      active,
      width: int(p.width),
      height: int(p.height),
      left: int(p.left),
      top: int(p.top),
      currentCommand: p.currentCommand,
      currentPath: p.currentPath,
      pid: panePid,
      dead: flag(p.dead),
      inMode: flag(p.inMode),
      title: p.title,
      isCaller: isCallerPane(ctx.caller, serverPid, p.paneId),
      isAttended: active && flag(p.windowActive) && (watched.get(p.sessionId) ?? 0) > 0,
    };
  });
}

/** tmux's version string (e.g. "tmux 3.3a"); needs no running server. */
export function tmuxVersion(ctx: TmuxContext, signal?: AbortSignal): Promise<string> {
  return ctx.runner.version(signal);
}
