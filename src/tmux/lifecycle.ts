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
 * - A `-c` directory that does not exist is no error: the shell silently starts in the tmux
 *   server's own working directory (3.3a; later versions fall back to $HOME, then /). So it is
 *   checked first: `load-buffer DIR/.` can only open a directory, reads nothing from it (3.3a
 *   succeeds without creating a buffer; later versions report an I/O error), and fails with
 *   ENOENT, ENOTDIR or EACCES otherwise.
 * - A server started by new-session copies the starting client's environment into its global
 *   environment and spawns the first pane from it during new-session: our configuration variables
 *   are removed by `set-environment -g -u` chained *before* new-session in the same invocation.
 *   Other `TMUX_MCP_*`/`LIBTMUX_*` names can only be listed once the server runs (our
 *   `--allow-env` cannot list our own environment): `show-environment -g` right after, then unset.
 * - `pane_current_path` right after a spawn may still read empty (the child has not taken its
 *   terminal yet), so an empty or unexpected answer is read again.
 */
import { preview, ToolError } from "../errors.ts";
import type { TmuxCommand } from "./argv.ts";
import type { TmuxContext } from "./context.ts";
import { ownVariables } from "./environment.ts";
import { int, literal, nonce, parseRows, rowFormat, separators } from "./format.ts";
import { BUFFER_PREFIX } from "./input.ts";
import {
  generationOf,
  paneArg,
  paneNotFound,
  resolveSessionRef,
  SESSION_ID,
  sessionNotFound,
  windowArg,
  windowNotFound,
} from "./targets.ts";
import { snapshot } from "./queries.ts";

/**
 * The configuration variables this server reads (src/config.ts), removed from the global
 * environment of a tmux server it starts: shells there (and run_shell_command) could print them,
 * and TMUX_MCP_HTTP_TOKEN is a credential.
 */
export const CONFIG_VARIABLES = [
  "TMUX_MCP_SOCKET_NAME",
  "TMUX_MCP_SOCKET_PATH",
  "TMUX_MCP_TOOLSETS",
  "TMUX_MCP_TOOLS",
  "TMUX_MCP_EXCLUDE_TOOLS",
  "TMUX_MCP_WAIT_MAX_MS",
  "TMUX_MCP_LIVE",
  "TMUX_MCP_ALLOW_WATCHED_PANES",
  "TMUX_MCP_ASK",
  "TMUX_MCP_ASK_TIMEOUT_MS",
  "TMUX_MCP_DEBUG",
  "TMUX_MCP_HTTP_TOKEN",
  "TMUX_MCP_HTTP_ALLOWED_HOSTS",
  "TMUX_MCP_HTTP_ALLOWED_ORIGINS",
  "TMUX_MCP_HTTP_IDLE_MS",
  "TMUX_MCP_HTTP_MAX_SESSIONS",
  "LIBTMUX_SOCKET",
  "LIBTMUX_SOCKET_PATH",
  "LIBTMUX_TOOLSETS",
  "LIBTMUX_TOOLS",
  "LIBTMUX_EXCLUDE_TOOLS",
] as const;

/**
 * Unset every other `TMUX_MCP_*`/`LIBTMUX_*` variable from the global environment of a server we
 * just started: later panes and run_shell_command never see them. The first pane was spawned
 * before they could be listed and keeps them (docs/design.md §5.12).
 */
async function scrubStartedServer(ctx: TmuxContext, signal?: AbortSignal): Promise<void> {
  const names = ownVariables(await ctx.runner.run(["show-environment", "-g", "-s"], { signal }));
  if (names.length === 0) return;
  await ctx.runner.run(names.map((name) => ["set-environment", "-g", "-u", name]), {
    signal,
    effects: "possible",
  });
}

/** How long an empty or unexpected `pane_current_path` is read again, at most. */
const PATH_SETTLE_MS = 1000;
const PATH_POLL_MS = 25;

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

const PATH = rowFormat("D", { paneId: "pane_id", path: "pane_current_path" });

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

/** Whether a string holds a C0/C1 control character or DEL. */
function hasControl(value: string): boolean {
  for (let i = 0; i < value.length; i++) {
    const c = value.charCodeAt(i);
    if (c < 0x20 || (c >= 0x7f && c <= 0x9f)) return true;
  }
  return false;
}

/** Refuse what tmux would not store as given (control characters, lone surrogates). */
function checkPrintable(value: string, what: string): void {
  if (hasControl(value)) {
    throw new ToolError("invalid_arguments", `${what} contains a control character`, {
      hint: `Pass a ${what} of printable characters only.`,
    });
  }
  if (!value.isWellFormed()) {
    throw new ToolError("invalid_arguments", `${what} contains a lone surrogate`, {
      hint: `Pass a ${what} of valid Unicode text.`,
    });
  }
}

/**
 * Check a session or window name the agent chose. Session names may not hold what tmux would
 * store differently (":", ".", "\", "$NAME") nor look like a session id (`$3` would make
 * references to the session with that id ambiguous, docs/design.md §5.7).
 */
export function checkName(value: string, what: string, kind: "session" | "window"): string {
  checkPrintable(value, what);
  if (kind === "session" && /[:.]/.test(value)) {
    throw new ToolError("invalid_arguments", `${what} ${preview(value)} contains ":" or "."`, {
      hint: 'tmux would store "_" in their place; choose a session name without ":" and ".".',
    });
  }
  if (kind === "session" && /\\|\$[A-Za-z_{]/.test(value)) {
    throw new ToolError(
      "invalid_arguments",
      `${what} ${preview(value)} holds "\\" or "$" before a letter`,
      {
        hint: 'tmux would store "\\" doubled and "$NAME" as "\\$NAME"; choose a session name ' +
          'without a backslash and without "$" before a letter, "_" or "{".',
      },
    );
  }
  if (kind === "session" && SESSION_ID.test(value)) {
    throw new ToolError("invalid_arguments", `${what} ${preview(value)} looks like a session id`, {
      hint: "Choose a name that is not $ followed by digits: references to sessions by id would " +
        "become ambiguous.",
    });
  }
  return value;
}

/** Check a start directory: absolute, printable, valid Unicode. */
export function checkStartDirectory(value: string): string {
  checkPrintable(value, "startDirectory");
  if (!value.startsWith("/")) {
    throw new ToolError("invalid_arguments", `startDirectory ${preview(value)} is not absolute`, {
      hint: 'Pass an absolute path such as "/home/me/project" (no ~, no relative path).',
    });
  }
  return value;
}

/** A path without empty, "." and trailing components, for comparing with what tmux reads back. */
function lexicalPath(path: string): string {
  const parts = path.split("/").filter((part) => part !== "" && part !== ".");
  return `/${parts.join("/")}`;
}

/** The refusal for a start directory tmux could not start a shell in. */
function directoryError(dir: string, reason: string, effects: "none" | "possible"): ToolError {
  return new ToolError("invalid_arguments", `startDirectory ${preview(dir)} ${reason}`, {
    effects,
    hint: "Pass the absolute path of an existing directory you can enter: tmux would silently " +
      "start the shell somewhere else.",
  });
}

/** The load-buffer command that checks a directory (the buffer is never created). */
function probeCommand(dir: string): TmuxCommand {
  const path = `${literal(dir)}${dir.endsWith("/") ? "" : "/"}.`;
  return ["load-buffer", "-b", `${BUFFER_PREFIX}${nonce()}`, path];
}

/** Undefined when the probe's failure means "a directory" (a read error after the open). */
function probeVerdict(error: ToolError | undefined): string | undefined {
  if (!error) return undefined;
  if (error.code !== "tmux_failed") throw error;
  if (/Input\/output error|Is a directory/.test(error.message)) return undefined;
  return /Permission denied/.test(error.message)
    ? "is not accessible"
    : "does not exist or is not a directory";
}

/**
 * Check that `dir` is a directory, through tmux. Returns false when no server runs (nothing
 * could be checked); throws `invalid_arguments` when it is not a usable directory.
 */
async function checkDirectory(
  ctx: TmuxContext,
  dir: string,
  signal?: AbortSignal,
): Promise<boolean> {
  const result = await ctx.runner.runPartial([probeCommand(dir)], { signal });
  if (result.error?.code === "server_not_running") return false;
  const reason = probeVerdict(result.error);
  if (reason) throw directoryError(dir, reason, "none");
  return true;
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

/** Wait for `ms`, ending early (without error) when `signal` aborts. */
function pause(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      clearTimeout(timer);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal?.addEventListener("abort", done, { once: true });
  });
}

/**
 * The pane's working directory once it has settled: an empty answer (the child has not taken
 * its terminal yet) or one that differs from the directory asked for (a symlink's target, or a
 * read from before the child changed directory) is read again until two reads agree.
 */
async function settledPath(
  ctx: TmuxContext,
  pane: CreatedPane,
  wanted: string | undefined,
  signal?: AbortSignal,
): Promise<string> {
  let previous = pane.path;
  if (previous !== "" && (wanted === undefined || previous === lexicalPath(wanted))) {
    return previous;
  }
  const deadline = Date.now() + PATH_SETTLE_MS;
  while (Date.now() < deadline && !signal?.aborted) {
    await pause(PATH_POLL_MS, signal);
    const sep = separators();
    const out = await ctx.runner.runPartial(
      ["display-message", "-p", "-t", paneArg(pane.paneId), PATH.template(sep)],
      { signal },
    );
    const row = PATH.decode(parseRows(out.stdout, sep))[0];
    // The pane is gone (its program exited at once): report the last reading.
    if (out.error || row?.paneId !== pane.paneId) return previous;
    if (row.path !== "" && row.path === previous) return row.path;
    previous = row.path;
  }
  return previous;
}

/** What create_session asks for. */
export interface SessionSpec {
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
  const name = spec.name === undefined ? undefined : checkName(spec.name, "name", "session");
  const windowName = spec.windowName === undefined
    ? undefined
    : checkName(spec.windowName, "windowName", "window");
  const dir = spec.startDirectory === undefined
    ? undefined
    : checkStartDirectory(spec.startDirectory);
  const running = dir === undefined
    ? await serverRunning(ctx, signal)
    : await checkDirectory(ctx, dir, signal);
  const sep = separators();
  const commands: TmuxCommand[] = running
    ? []
    : CONFIG_VARIABLES.map((variable) => ["set-environment", "-g", "-u", variable]);
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
        hint: "Pick another name, or use that session (list_sessions gives its id).",
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
export interface WindowSpec {
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
  const name = spec.name === undefined ? undefined : checkName(spec.name, "name", "window");
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
        hint: "Pass a window of the same session (list_windows with that session).",
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
export type SplitDirection = typeof SPLIT_DIRECTIONS[number];

/** What split_window asks for. */
export interface SplitSpec {
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
