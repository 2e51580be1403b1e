/**
 * Teardown: the only code that builds `kill-pane`, `kill-window`, `kill-session`, `clear-history`
 * and `send-keys -R` argv (docs/design.md §5, §6). What ended is read back from tmux afterwards.
 *
 * Facts this relies on (checked on tmux 3.3a, docs/design.md §5.12):
 * - `kill-window` closes the window in every session it is linked into; `kill-session` closes
 *   only the windows linked nowhere else.
 * - When the last session ends the server exits right after the command (unless `exit-empty` is
 *   off); `list-panes -a` in a server without sessions fails with "no current target".
 * - `send-keys -R` resets the pane's terminal, which pushes the visible screen into the history:
 *   it runs BEFORE `clear-history`, or the screen's lines survive in the scrollback.
 */
import { ToolError } from "../../errors.ts";
import type { TmuxContext } from "../core/context.ts";
import { int, parseRows, rowFormat, separators } from "../core/format.ts";
import { paneArg, SESSION_ID, windowArg } from "../core/ids.ts";
import { paneNotFound, sessionNotFound, windowNotFound } from "../read/not_found.ts";
import { pauseUnlessAborted } from "../../base/timing.ts";

/** What a kill addresses, by id. */
export type KillTarget = { pane: string } | { window: string } | { session: string };

/** What a kill may end: the target's panes, their windows and the sessions holding those. */
interface KillScope {
  paneIds: readonly string[];
  windowIds: readonly string[];
  sessionIds: readonly string[];
}

/** What ended, read back from tmux after the kill. */
export interface Ended {
  /** Panes of the scope that no longer exist. */
  panesEnded: string[];
  /** Whether a window of the scope closed. */
  windowEnded: boolean;
  /** Whether a session of the scope ended. */
  sessionEnded: boolean;
  /** Whether the tmux server exited (its last session ended). */
  serverExited: boolean;
}

/** How long to wait for a server without sessions to exit. */
const EXIT_WAIT_MS = 1000;
const EXIT_POLL_MS = 20;

const LEFT_SESSIONS = rowFormat("S", { id: "session_id" });
const LEFT_WINDOWS = rowFormat("W", { id: "window_id" });
const LEFT_PANES = rowFormat("P", { id: "pane_id" });

/** The kill command for a target; ids only, so nothing can match by prefix. */
function killCommand(target: KillTarget): string[] {
  if ("pane" in target) return ["kill-pane", "-t", paneArg(target.pane)];
  if ("window" in target) return ["kill-window", "-t", windowArg(target.window)];
  if (!SESSION_ID.test(target.session)) throw new Error("internal: not a session id");
  return ["kill-session", "-t", target.session];
}

function missing(target: KillTarget): ToolError {
  if ("pane" in target) return paneNotFound(target.pane);
  if ("window" in target) return windowNotFound(target.window);
  return sessionNotFound(target.session);
}

/** What is left on the server; `exited` when no server answers any more. */
async function remaining(
  ctx: TmuxContext,
  signal?: AbortSignal,
): Promise<{ exited: boolean; ids: Set<string> }> {
  const sep = separators();
  const { stdout, error } = await ctx.runner.runPartial([
    ["list-sessions", "-F", LEFT_SESSIONS.template(sep)],
    ["list-windows", "-a", "-F", LEFT_WINDOWS.template(sep)],
    ["list-panes", "-a", "-F", LEFT_PANES.template(sep)],
  ], { signal });
  if (error?.code === "server_not_running" || error?.code === "server_gone") {
    return { exited: true, ids: new Set() };
  }
  const rows = parseRows(stdout, sep);
  const sessions = LEFT_SESSIONS.decode(rows);
  // Without sessions the later listings fail ("no current target"): nothing is left.
  if (error && sessions.length > 0) throw error;
  const ids = [sessions, LEFT_WINDOWS.decode(rows), LEFT_PANES.decode(rows)].flat().map((r) =>
    r.id
  );
  return { exited: false, ids: new Set(ids) };
}

/** Wait until a server without sessions has exited; false if it stays (`exit-empty off`). */
async function serverExits(ctx: TmuxContext, signal?: AbortSignal): Promise<boolean> {
  const deadline = Date.now() + EXIT_WAIT_MS;
  while (true) {
    const { error } = await ctx.runner.runPartial(["list-sessions", "-F", "#{session_id}"], {
      signal,
    });
    if (error?.code === "server_not_running" || error?.code === "server_gone") return true;
    if (Date.now() >= deadline || signal?.aborted) return false;
    await pauseUnlessAborted(EXIT_POLL_MS);
  }
}

/**
 * Kill a pane, window or session (by id) and report what ended within `scope`, read back from
 * tmux. A target that no longer exists is `target_not_found` (nothing was killed).
 */
export async function killTarget(
  ctx: TmuxContext,
  target: KillTarget,
  scope: KillScope,
  signal?: AbortSignal,
): Promise<Ended> {
  await ctx.runner.run(killCommand(target), { signal, effects: "possible" }).catch((error) => {
    if (error instanceof ToolError && error.code === "target_not_found") throw missing(target);
    throw error;
  });
  let left;
  try {
    left = await remaining(ctx, signal);
  } catch (error) {
    throw error instanceof ToolError ? error.withEffects("possible") : error;
  }
  const exited = left.exited || (left.ids.size === 0 && await serverExits(ctx, signal));
  return {
    panesEnded: scope.paneIds.filter((id) => !left.ids.has(id)),
    windowEnded: scope.windowIds.some((id) => !left.ids.has(id)),
    sessionEnded: scope.sessionIds.some((id) => !left.ids.has(id)),
    serverExited: exited,
  };
}

const HISTORY = rowFormat("H", { paneId: "pane_id", lines: "history_size" });

/**
 * Clear a pane's visible screen and its scrollback in one invocation (the reset first, since it
 * pushes the screen into the history). Returns the history size read back afterwards.
 */
export async function clearScrollback(
  ctx: TmuxContext,
  paneId: string,
  signal?: AbortSignal,
): Promise<number> {
  const pane = paneArg(paneId);
  const sep = separators();
  const out = await ctx.runner.run([
    ["send-keys", "-R", "-t", pane],
    ["clear-history", "-t", pane],
    ["display-message", "-p", "-t", pane, HISTORY.template(sep)],
  ], { signal, effects: "possible" }).catch((error) => {
    if (error instanceof ToolError && error.code === "target_not_found") throw paneNotFound(pane);
    throw error;
  });
  const row = HISTORY.decode(parseRows(out, sep))[0];
  if (row?.paneId !== pane) throw paneNotFound(pane);
  return int(row.lines);
}
