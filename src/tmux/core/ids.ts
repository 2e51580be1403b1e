/**
 * Ids about to reach tmux (docs/design.md §5.7): windows and panes are addressed only by id, and a
 * session by id `$N` or `=name`, so tmux never resolves a prefix or a pattern.
 */
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
