/**
 * Typed read queries over the server's objects. Each call is ONE tmux invocation: the listings it
 * needs plus `list-clients`, chained with a bare `;` and decoded with nonce separators, so names
 * and paths holding `:`, tabs or newlines cannot shift a field.
 */
import type { TmuxReadContext } from "../core/context.ts";
import { ToolError } from "../../errors.ts";
import type { PaneFacts, PaneRow, SessionFacts, WindowFacts } from "../../rows.ts";
import { parseEnvironment, SECRET_NAME } from "./environment.ts";
import {
  flag,
  int,
  marker,
  parseRows,
  rowFormat,
  rowTemplate,
  separators,
  splitSections,
  type TaggedRow,
} from "../core/format.ts";
import { type ClientRow, hostsClient, isWatched, watchers } from "./watchers.ts";
import { generationOf } from "./generation.ts";
import { isCallerPane } from "../core/caller.ts";
import { paneArg, windowArg } from "../core/ids.ts";
import { paneNotFound, rethrowWindowMissing, windowNotFound } from "./not_found.ts";
import { resolveSessionRef } from "./session_ref.ts";

const CLIENTS = rowFormat("C", {
  pid: "client_pid",
  sessionId: "session_id",
  windowId: "window_id",
  flags: "client_flags",
  controlMode: "client_control_mode",
  name: "client_name",
  tty: "client_tty",
});

/** Which session each window is linked into: who watches a window is decided per window. */
const LINKS = rowFormat("K", { sessionId: "session_id", windowId: "window_id" });

const SERVER = rowFormat("V", { version: "version", socketPath: "socket_path", pid: "pid" });

const SESSIONS = rowFormat("S", {
  sessionId: "session_id",
  sessionName: "session_name",
  windows: "session_windows",
  created: "session_created",
  path: "session_path",
  activeWindowId: "window_id",
});

/** The window row format: every listing and read-back of a window prints these. */
export const WINDOWS = rowFormat("W", {
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
  layout: "window_layout",
});

/** A window row as {@link WINDOWS} printed it, typed. */
export function decodeWindow(w: ReturnType<typeof WINDOWS.decode>[number]): WindowFacts {
  return {
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
    layout: w.layout,
  };
}

/** What a pane row (list_panes, docs/design.md §3.6) is made of; the bench's floor lists these. */
export const PANE_ROW_FIELDS = {
  paneId: "pane_id",
  panePid: "pane_pid",
  serverPid: "pid",
  sessionId: "session_id",
  sessionName: "session_name",
  windowId: "window_id",
  windowIndex: "window_index",
  windowName: "window_name",
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
  tty: "pane_tty",
} as const;

/** Every pane fact; a listing of rows alone ({@link listPaneRows}) asks for fewer. */
const PANES = rowFormat("P", {
  ...PANE_ROW_FIELDS,
  deadStatus: "pane_dead_status",
  historyLines: "history_size",
  historyLimit: "history_limit",
  alternateOn: "alternate_on",
  synchronized: "synchronize-panes",
  inputOff: "pane_input_off",
});

/**
 * The pane row alone: tmux evaluates every field of every row it prints (a few µs a pane each),
 * so list_panes does not ask for the facts only other tools use.
 */
const PANE_ROWS = rowFormat("R", PANE_ROW_FIELDS);

/** Which panes to list: all, or those of one window (`@N`, or the window holding `%N`). */
type PaneScope = { all: true } | { window: string } | { windowOf: string };

/** What one {@link snapshot} should list. */
interface SnapshotRequest {
  server?: boolean;
  sessions?: boolean;
  windows?: boolean;
  panes?: PaneScope;
}

/** The answer of one {@link snapshot}. */
export interface Snapshot {
  server?: { version: string; socketPath: string; pid: number };
  sessions: SessionFacts[];
  windows: WindowFacts[];
  panes: PaneFacts[];
  clients: ClientRow[];
  /** People attached, by session id (our own control clients excluded). */
  watched: Map<string, number>;
}

/**
 * List what `request` asks for, plus the clients, in one tmux invocation. A pane scope naming a
 * missing window or pane fails with `target_not_found` (tmux stops the chain there).
 */
export async function snapshot(
  ctx: TmuxReadContext,
  request: SnapshotRequest,
  signal?: AbortSignal,
): Promise<Snapshot> {
  const sep = separators();
  const commands: string[][] = [];
  if (request.server) commands.push(["display-message", "-p", SERVER.template(sep)]);
  if (request.sessions) commands.push(["list-sessions", "-F", SESSIONS.template(sep)]);
  if (request.windows) commands.push(["list-windows", "-a", "-F", WINDOWS.template(sep)]);
  // `list-panes -a` prints each pane once per session its window is linked into, so every window
  // link is among its rows; a narrower listing needs them listed.
  const allPanes = request.panes !== undefined && "all" in request.panes;
  if (request.panes) {
    commands.push(["list-panes", ...paneScopeArgs(request.panes), "-F", PANES.template(sep)]);
    if (!allPanes) commands.push(["list-windows", "-a", "-F", LINKS.template(sep)]);
  }
  commands.push(["list-clients", "-F", CLIENTS.template(sep)]);
  const rows = parseRows(await ctx.runner.run(commands, { signal }), sep);

  const clients = decodeClients(rows);
  const paneRows = PANES.decode(rows);
  const links = allPanes ? paneRows : LINKS.decode(rows);
  const seen = watchers(clients, ctx.ownClientPids, links);
  const watched = seen.people;
  const server = SERVER.decode(rows).map((s) => ({ ...s, pid: int(s.pid) }))[0];
  return {
    ...(server ? { server } : {}),
    sessions: SESSIONS.decode(rows).map((s) => ({
      sessionId: s.sessionId,
      sessionName: s.sessionName,
      windows: int(s.windows),
      attached: watched.get(s.sessionId) ?? 0,
      created: new Date(int(s.created) * 1000).toISOString(),
      path: s.path,
      activeWindowId: s.activeWindowId,
    })),
    windows: WINDOWS.decode(rows).map(decodeWindow),
    panes: paneRows.map((p) => {
      const row = decodePaneRow(ctx, p, seen);
      return {
        ...row,
        historyLines: int(p.historyLines),
        historyLimit: int(p.historyLimit),
        ...(row.dead && /^-?\d+$/.test(p.deadStatus) ? { exitStatus: int(p.deadStatus) } : {}),
        alternateOn: flag(p.alternateOn),
        synchronized: flag(p.synchronized),
        inputOff: flag(p.inputOff),
      };
    }),
    clients,
    watched,
  };
}

/**
 * Every pane as list_panes shows it, in one invocation asking tmux for the row's fields only (and
 * the clients, for `isAttended`).
 */
export async function listPaneRows(
  ctx: TmuxReadContext,
  signal?: AbortSignal,
): Promise<PaneRow[]> {
  const sep = separators();
  const rows = parseRows(
    await ctx.runner.run([
      ["list-panes", "-a", "-F", PANE_ROWS.template(sep)],
      ["list-clients", "-F", CLIENTS.template(sep)],
    ], { signal }),
    sep,
  );
  const panes = PANE_ROWS.decode(rows);
  // `list-panes -a` prints each pane once per session its window is linked into: every link.
  const seen = watchers(decodeClients(rows), ctx.ownClientPids, panes);
  return panes.map((p) => decodePaneRow(ctx, p, seen));
}

function decodeClients(rows: readonly TaggedRow[]): ClientRow[] {
  return CLIENTS.decode(rows).map((c) => ({
    pid: int(c.pid),
    sessionId: c.sessionId,
    windowId: c.windowId,
    flags: c.flags,
    controlMode: flag(c.controlMode),
    name: c.name,
    tty: c.tty,
  }));
}

/** A pane row from a {@link PANE_ROWS} (or {@link PANES}) row, with who watches it resolved. */
function decodePaneRow(
  ctx: TmuxReadContext,
  p: Record<keyof typeof PANE_ROW_FIELDS, string>,
  seen: ReturnType<typeof watchers>,
): PaneRow {
  const serverPid = int(p.serverPid);
  const panePid = int(p.panePid);
  const active = flag(p.active);
  const dead = flag(p.dead);
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
    dead,
    inMode: flag(p.inMode),
    title: p.title,
    isCaller: isCallerPane(ctx.caller, serverPid, p.paneId),
    isAttended: isWatched({ windowId: p.windowId, active }, seen),
    // A dead pane's old tty may already belong to a new client.
    hostsTmuxClient: !dead && hostsClient(p.tty, seen),
  };
}

function paneScopeArgs(scope: PaneScope): string[] {
  if ("all" in scope) return ["-a"];
  // Ids only: they are validated patterns, never names, so they cannot be prefix-matched.
  if ("window" in scope) return ["-t", windowArg(scope.window)];
  return ["-t", paneArg(scope.windowOf)];
}

/** Every session of the server. */
export async function listSessions(
  ctx: TmuxReadContext,
  signal?: AbortSignal,
): Promise<SessionFacts[]> {
  return (await snapshot(ctx, { sessions: true }, signal)).sessions;
}

/** Every window of every session (a window linked into two sessions appears once per session). */
export async function listWindows(
  ctx: TmuxReadContext,
  signal?: AbortSignal,
): Promise<WindowFacts[]> {
  return (await snapshot(ctx, { windows: true }, signal)).windows;
}

/** Panes in scope (default: all), with generation, caller and watched flags resolved. */
export async function listPanes(
  ctx: TmuxReadContext,
  signal?: AbortSignal,
  scope: PaneScope = { all: true },
): Promise<PaneFacts[]> {
  return (await snapshot(ctx, { panes: scope }, signal)).panes;
}

/** One window and its panes, from one listing; `target_not_found` when there is no such window. */
export async function windowWithPanes(
  ctx: TmuxReadContext,
  windowId: string,
  signal?: AbortSignal,
): Promise<{ window: WindowFacts; panes: PaneFacts[] }> {
  const snap = await snapshot(ctx, { windows: true, panes: { window: windowId } }, signal)
    .catch((error) => rethrowWindowMissing(error, windowId));
  const window = snap.windows.find((w) => w.windowId === windowId);
  if (!window) throw windowNotFound(windowId);
  return { window, panes: snap.panes };
}

/** tmux's version string (e.g. "tmux 3.3a"); needs no running server. */
export function tmuxVersion(ctx: TmuxReadContext, signal?: AbortSignal): Promise<string> {
  return ctx.runner.version(signal);
}

/** A tmux format variable name: letters, digits, underscore; never format syntax. */
export const VARIABLE_NAME = /^[A-Za-z][A-Za-z0-9_]*$/;

/**
 * Resolve format variables for a pane (or tmux's current pane when omitted) in one invocation.
 * Unknown variables resolve to "". tmux looks a name that is no format variable up in the
 * session and global environments, hidden (`-h`) variables included, so any name found there is
 * withheld (its value is not returned), and so is every secret-looking name: the environment
 * often carries credentials, and show_environment hides them too.
 */
export async function readVariables(
  ctx: TmuxReadContext,
  names: readonly string[],
  paneId: string | undefined,
  signal?: AbortSignal,
): Promise<{ paneId: string | null; values: Record<string, string>; withheld: string[] }> {
  for (const name of names) {
    if (!VARIABLE_NAME.test(name)) throw new Error(`internal: unchecked variable name`);
  }
  const sep = separators();
  const target = paneId === undefined ? [] : ["-t", paneArg(paneId)];
  const out = await ctx.runner.run([
    ["display-message", "-p", ...target, rowTemplate(sep, "V", ["pane_id", ...names])],
    marker(sep, "G"),
    ["show-environment", "-s", "-g"],
    marker(sep, "L"),
    ["show-environment", "-s", ...target],
    // Hidden variables (`set-environment -h`) are left out of the lists above, yet tmux still
    // resolves them as format variables: they are asked for separately.
    marker(sep, "HG"),
    ["show-environment", "-h", "-s", "-g"],
    marker(sep, "HL"),
    ["show-environment", "-h", "-s", ...target],
  ], { signal }).catch((error) => {
    if (error instanceof ToolError && error.code === "target_not_found" && paneId) {
      throw paneNotFound(paneId);
    }
    throw error;
  });
  const sections = splitSections(out, sep);
  const row = sections.find((s) => s.tag === "V")?.fields ?? [];
  const resolved = row[0] ?? "";
  // display-message does not fail for a missing pane: it answers with an empty context.
  if (paneId !== undefined && resolved !== paneId) throw paneNotFound(paneId);
  const environment = new Set(
    sections.filter((s) => ["G", "L", "HG", "HL"].includes(s.tag))
      .flatMap((s) => parseEnvironment(s.body).map((e) => e.name)),
  );
  const values: Record<string, string> = {};
  const withheld: string[] = [];
  names.forEach((name, i) => {
    // A secret-looking name is withheld even when it is not in the environment right now: the
    // value may come from somewhere the lists above do not show.
    if (environment.has(name) || SECRET_NAME.test(name)) withheld.push(name);
    else values[name] = row[i + 1] ?? "";
  });
  return { paneId: resolved === "" ? null : resolved, values, withheld };
}

/** Resolve a session reference (`$N` or exact name) to its id with one listing. */
export async function resolveSession(
  ctx: TmuxReadContext,
  ref: string,
  signal?: AbortSignal,
): Promise<string> {
  return resolveSessionRef(await listSessions(ctx, signal), ref);
}

/** What became of a pane a wait follows (docs/design.md §7.7 rule 5, §7.9). */
export type PaneFate = "alive" | "pane_died" | "server_gone";

/**
 * Whether the pane still runs the process `generation` names: gone, dead (kept by
 * remain-on-exit) or replaced is `pane_died`; no server is `server_gone`. A look that fails for
 * another reason answers `alive` (the pane is not known to be gone; a waiting caller looks
 * again, an ending one reports what it has); cancellation throws. The one answer every wait uses.
 */
export async function paneFate(
  ctx: TmuxReadContext,
  paneId: string,
  generation: string,
  signal?: AbortSignal,
): Promise<{ fate: PaneFate; currentCommand?: string }> {
  try {
    const row = (await snapshot(ctx, { panes: { windowOf: paneId } }, signal)).panes
      .find((p) => p.paneId === paneId);
    if (!row || row.dead || row.generation !== generation) return { fate: "pane_died" };
    return { fate: "alive", currentCommand: row.currentCommand };
  } catch (error) {
    if (!(error instanceof ToolError) || error.code === "cancelled") throw error;
    if (error.code === "server_not_running" || error.code === "server_gone") {
      return { fate: "server_gone" };
    }
    return { fate: error.code === "target_not_found" ? "pane_died" : "alive" };
  }
}
