/**
 * The errors for a pane, window or session that is not there (`target_not_found`), each with a
 * hint naming the listing to call, and the turning of tmux's own "can't find" into them.
 */
import { preview, ToolError } from "../../errors.ts";

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
    hint: "Call list_panes and use a windowId from its rows.",
  });
}

/** Turn tmux's "can't find window" for this window into {@link windowNotFound}; rethrow the rest. */
export function rethrowWindowMissing(error: unknown, windowId: string): never {
  if (error instanceof ToolError && error.code === "target_not_found") {
    throw windowNotFound(windowId);
  }
  throw error;
}

/** The error for a session reference that matched nothing. */
export function sessionNotFound(ref: string): ToolError {
  return new ToolError(
    "target_not_found",
    `no session ${preview(ref)} (ids and exact names only)`,
    {
      hint: "Call list_panes and pass a sessionId ($N) or the exact sessionName from its rows.",
    },
  );
}
