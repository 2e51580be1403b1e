/**
 * Places to work: the only code that builds `new-session`, `new-window`, `split-window` and
 * `respawn-pane` argv (docs/design.md §5). Every result is read back from tmux.
 *
 * Facts this relies on (checked on tmux 3.3a, docs/design.md §5.12):
 * - The `-s`/`-n` names and the `-c` directory of new-session, new-window, split-window and
 *   respawn-pane are format-expanded (`#(…)` runs a shell command), and so is load-buffer's path:
 *   every agent string goes through literal().
 * - A flag's value is the next argv element even when it starts with "-" (`-s -x` names a session
 *   "-x"), so names are passed safely; directories must be absolute anyway.
 * - new-session stores a session name's ":" and "." as "_", "\" as "\\" and "$" before a letter,
 *   "_" or "{" as "\$": refused here, so a name is stored as given. Window names given with `-n`
 *   are stored unchanged (unlike rename-window's).
 * - Start directories are checked before and read back after a spawn (src/tmux/execute/start_directory.ts);
 *   a server we start loses our configuration variables (src/tmux/execute/server_scrub.ts).
 */
import { preview, ToolError } from "../../errors.ts";
import type { TmuxCommand } from "../core/argv.ts";
import type { TmuxContext } from "../core/context.ts";
import { int, literal, parseRows, rowFormat, separators } from "../core/format.ts";
import { checkName, checkSessionName } from "../manage/labels.ts";
import { scrubStartedServer, unsetConfigVariables } from "./server_scrub.ts";
import {
  checkDirectory,
  checkStartDirectory,
  directoryError,
  probeCommand,
  probeVerdict,
  settledPath,
} from "./start_directory.ts";
import { generationOf } from "../read/generation.ts";
import { paneArg, windowArg } from "../core/ids.ts";
import { paneNotFound, sessionNotFound, windowNotFound } from "../read/not_found.ts";
import { resolveSessionRef } from "../read/session_ref.ts";
import { snapshot } from "../read/queries.ts";

const CREATED = rowFormat("N", {
  serverPid: "pid",
  sessionId: "session_id",
  sessionName: "session_name",
  windowId: "window_id",
  windowIndex: "window_index",
  windowName: "window_name",
  paneId: "pane_id",
  panePid: "pane_pid",
  path: "pane_current_path",
});

/** A pane just created or respawned, as tmux reports it. */
export interface CreatedPane {
  sessionId: string;
  sessionName: string;
  windowId: string;
  windowIndex: number;
  windowName: string;
  paneId: string;
  generation: string;
  /** The pane's working directory, symlinks resolved; "" when tmux could not read it. */
  path: string;
}

/** Whether a server listens on the pinned socket. */
async function serverRunning(ctx: TmuxContext, signal?: AbortSignal): Promise<boolean> {
  const { error } = await ctx.runner.runPartial(["list-sessions", "-F", "#{session_id}"], {
    signal,
  });
  if (error === undefined) return true;
  if (error.code === "server_not_running") return false;
  throw error;
}

/** Decode the row a `-P -F` creation (or a read after respawn) printed. */
function decodeCreated(stdout: string, sep: ReturnType<typeof separators>) {
  const row = CREATED.decode(parseRows(stdout, sep))[0];
  if (!row) return undefined;
  return {
    sessionId: row.sessionId,
    sessionName: row.sessionName,
    windowId: row.windowId,
    windowIndex: int(row.windowIndex),
    windowName: row.windowName,
    paneId: row.paneId,
    generation: generationOf(int(row.serverPid), int(row.panePid)),
    path: row.path,
  };
}

/** What create_session asks for. */
interface SessionSpec {
  name?: string;
  windowName?: string;
  startDirectory?: string;
  width?: number;
  height?: number;
}

/**
 * Create a detached session, starting the server when none runs (then without our
 * configuration variables in its global environment). A start directory that turns out not to
 * be a directory after the server was started undoes the session (and with it the server).
 */
export async function createSession(
  ctx: TmuxContext,
  spec: SessionSpec,
  signal?: AbortSignal,
): Promise<CreatedPane & { serverStarted: boolean }> {
  const name = spec.name === undefined ? undefined : checkSessionName(spec.name, "name");
  const windowName = spec.windowName === undefined
    ? undefined
    : checkName(spec.windowName, "windowName");
  const dir = spec.startDirectory === undefined
    ? undefined
    : checkStartDirectory(spec.startDirectory);
  const running = dir === undefined
    ? await serverRunning(ctx, signal)
    : await checkDirectory(ctx, dir, signal);
  const sep = separators();
  const commands: TmuxCommand[] = running ? [] : unsetConfigVariables();
  commands.push([
    "new-session",
    "-d",
    "-P",
    "-F",
    CREATED.template(sep),
    ...(name === undefined ? [] : ["-s", literal(name)]),
    ...(windowName === undefined ? [] : ["-n", literal(windowName)]),
    ...(dir === undefined ? [] : ["-c", literal(dir)]),
    ...(spec.width === undefined ? [] : ["-x", String(spec.width)]),
    ...(spec.height === undefined ? [] : ["-y", String(spec.height)]),
  ]);
  // Without a server the directory could not be checked first: check it in the same invocation.
  if (!running && dir !== undefined) commands.push(probeCommand(dir));
  const { stdout, error } = await ctx.runner.runPartial(commands, {
    signal,
    effects: "possible",
  });
  const created = decodeCreated(stdout, sep);
  if (!created) {
    if (error && /^duplicate session/.test(error.message)) {
      throw new ToolError("invalid_arguments", `a session named ${preview(name ?? "")} exists`, {
        hint: "Pick another name, or use that session (list_panes shows its sessionId).",
      });
    }
    throw error ?? new ToolError("tmux_failed", "new-session printed no session");
  }
  if (!running) await scrubStartedServer(ctx, signal);
  const reason = probeVerdict(error);
  if (reason && dir !== undefined) {
    await ctx.runner.runPartial(["kill-session", "-t", created.sessionId], { signal });
    throw directoryError(dir, reason, "possible");
  }
  const path = await settledPath(ctx, created, dir, signal);
  return { ...created, path, serverStarted: !running };
}

/** What create_window asks for. */
interface WindowSpec {
  /** Session id or exact name. */
  session: string;
  name?: string;
  startDirectory?: string;
  afterWindowId?: string;
  beforeWindowId?: string;
  /** Make it the session's current window (a person attached to the session sees it). */
  select: boolean;
}

/** Create a window in a session (by default detached, at the next free index). */
export async function createWindow(
  ctx: TmuxContext,
  spec: WindowSpec,
  signal?: AbortSignal,
): Promise<CreatedPane> {
  const name = spec.name === undefined ? undefined : checkName(spec.name, "name");
  const dir = spec.startDirectory === undefined
    ? undefined
    : checkStartDirectory(spec.startDirectory);
  if (spec.afterWindowId !== undefined && spec.beforeWindowId !== undefined) {
    throw new ToolError(
      "invalid_arguments",
      "afterWindowId and beforeWindowId exclude each other",
      {
        hint: "Pass at most one of them.",
      },
    );
  }
  const snap = await snapshot(ctx, { sessions: true, windows: true }, signal);
  const sessionId = resolveSessionRef(snap.sessions, spec.session);
  const anchor = spec.afterWindowId ?? spec.beforeWindowId;
  if (anchor !== undefined) {
    const links = snap.windows.filter((w) => w.windowId === anchor);
    if (links.length === 0) throw windowNotFound(anchor);
    if (!links.some((w) => w.sessionId === sessionId)) {
      throw new ToolError("invalid_arguments", `window ${anchor} is not in session ${sessionId}`, {
        hint: "Pass a window of the same session (list_panes with that session shows them).",
      });
    }
  }
  if (dir !== undefined) await checkDirectory(ctx, dir, signal);
  const sep = separators();
  const target = anchor === undefined ? `${sessionId}:` : `${sessionId}:${windowArg(anchor)}`;
  const out = await ctx.runner.run([
    "new-window",
    ...(spec.select ? [] : ["-d"]),
    ...(spec.afterWindowId !== undefined ? ["-a"] : []),
    ...(spec.beforeWindowId !== undefined ? ["-b"] : []),
    "-t",
    target,
    "-P",
    "-F",
    CREATED.template(sep),
    ...(name === undefined ? [] : ["-n", literal(name)]),
    ...(dir === undefined ? [] : ["-c", literal(dir)]),
  ], { signal, effects: "possible" }).catch((error) => {
    if (error instanceof ToolError && error.code === "target_not_found") {
      throw sessionNotFound(spec.session);
    }
    throw error;
  });
  const created = decodeCreated(out, sep);
  if (!created) throw new ToolError("tmux_failed", "new-window printed no window");
  return { ...created, path: await settledPath(ctx, created, dir, signal) };
}

/** Where split_window puts the new pane, relative to the pane split. */
export const SPLIT_DIRECTIONS = ["below", "above", "right", "left"] as const;
/** One split direction. */
type SplitDirection = typeof SPLIT_DIRECTIONS[number];

/** What split_window asks for. */
interface SplitSpec {
  paneId: string;
  direction: SplitDirection;
  /** The new pane's size: cells, or a percentage of the pane split. */
  size?: { cells: number } | { percent: number };
  startDirectory?: string;
  /** Make the new pane its window's active pane. */
  select: boolean;
}

const DIRECTION_FLAGS: Record<SplitDirection, string[]> = {
  below: ["-v"],
  above: ["-v", "-b"],
  right: ["-h"],
  left: ["-h", "-b"],
};

/** Split a pane; the new pane starts the default shell. */
export async function splitWindow(
  ctx: TmuxContext,
  spec: SplitSpec,
  signal?: AbortSignal,
): Promise<CreatedPane> {
  const dir = spec.startDirectory === undefined
    ? undefined
    : checkStartDirectory(spec.startDirectory);
  if (dir !== undefined) await checkDirectory(ctx, dir, signal);
  const size = spec.size === undefined
    ? []
    : ["-l", "cells" in spec.size ? String(spec.size.cells) : `${spec.size.percent}%`];
  const sep = separators();
  const out = await ctx.runner.run([
    "split-window",
    ...(spec.select ? [] : ["-d"]),
    ...DIRECTION_FLAGS[spec.direction],
    ...size,
    "-t",
    paneArg(spec.paneId),
    "-P",
    "-F",
    CREATED.template(sep),
    ...(dir === undefined ? [] : ["-c", literal(dir)]),
  ], { signal, effects: "possible" }).catch((error) => {
    if (error instanceof ToolError && error.code === "target_not_found") {
      throw paneNotFound(spec.paneId);
    }
    if (error instanceof ToolError && /no space for new pane|size missing/.test(error.message)) {
      throw new ToolError("invalid_arguments", `pane ${spec.paneId} is too small to split so`, {
        hint: "Ask for a smaller size or the other direction, or split a larger pane.",
      });
    }
    throw error;
  });
  const created = decodeCreated(out, sep);
  if (!created) throw new ToolError("tmux_failed", "split-window printed no pane");
  return { ...created, path: await settledPath(ctx, created, dir, signal) };
}

/**
 * Restart a pane's program (the command it was created with; the default shell for panes these
 * tools create). A live pane is restarted only with `kill`. Returns the pane as read back, with
 * its new generation.
 */
export async function respawnPane(
  ctx: TmuxContext,
  spec: { paneId: string; startDirectory?: string; kill: boolean },
  signal?: AbortSignal,
): Promise<CreatedPane> {
  const paneId = paneArg(spec.paneId);
  const dir = spec.startDirectory === undefined
    ? undefined
    : checkStartDirectory(spec.startDirectory);
  // A respawn cannot be undone, so the directory is always checked first.
  if (dir !== undefined && !await checkDirectory(ctx, dir, signal)) {
    throw new ToolError("server_not_running", "no tmux server is running");
  }
  const sep = separators();
  const out = await ctx.runner.run([
    [
      "respawn-pane",
      ...(spec.kill ? ["-k"] : []),
      ...(dir === undefined ? [] : ["-c", literal(dir)]),
      "-t",
      paneId,
    ],
    ["display-message", "-p", "-t", paneId, CREATED.template(sep)],
  ], { signal, effects: "possible" }).catch((error) => {
    if (error instanceof ToolError && error.code === "target_not_found") throw paneNotFound(paneId);
    if (error instanceof ToolError && /still active/.test(error.message)) {
      throw new ToolError("invalid_arguments", `pane ${paneId} is still running its program`, {
        hint: "Pass kill: true to end what runs there and restart it, or respawn a dead pane.",
      });
    }
    throw error;
  });
  const created = decodeCreated(out, sep);
  if (!created || created.paneId !== paneId) throw paneNotFound(paneId);
  return { ...created, path: await settledPath(ctx, created, dir, signal) };
}
