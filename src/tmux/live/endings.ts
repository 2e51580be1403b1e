/**
 * Why a pane's stream ends, worded for the agent: the errors the live engine ends streams with,
 * and what a cursor of an ended stream answers later (docs/design.md §7.3–§7.4). Pure.
 */
import { ToolError } from "../../errors.ts";
import type { PaneContinuity } from "./pane_check.ts";
import { paneNotFound } from "../read/not_found.ts";

/**
 * What a cursor of a stream that ended with `why` answers now. A wait in progress when the
 * server went away got `server_gone`; a cursor presented later is `stale_cursor`
 * (docs/design.md §7.3), since a new stream is what the caller needs.
 */
export function endedAnswer(why: ToolError | undefined): ToolError | undefined {
  if (why?.code !== "server_gone") return why;
  return new ToolError("stale_cursor", `the stream ended: ${why.message}`, {
    hint: "Call capture_since without a cursor to follow the pane again (list panes first: " +
      "after a server restart its id may name another pane).",
  });
}

/**
 * A stream whose pane is gone (`target_not_found`), was replaced or moved out of the session
 * that feeds it (`stale_cursor`).
 */
export function discontinuity(
  paneId: string,
  state: Exclude<PaneContinuity, "same">,
): ToolError {
  return state === "gone" ? paneNotFound(paneId) : new ToolError(
    "stale_cursor",
    state === "moved"
      ? `pane ${paneId} moved to another session since this cursor was issued`
      : `pane ${paneId} was replaced since this cursor was issued`,
  );
}

/** A stream the engine stopped following (expired, its pane changed, the server closing). */
export function dropped(reason: string): ToolError {
  return new ToolError("stale_cursor", `the stream ended: ${reason}`);
}

/**
 * Why a pane is not streamed: every one of the `max` connections feeds streams that are in use.
 * Evicting one would cost another attach (each a risk to a tmux 3.3a server, docs/design.md §7.4)
 * and break its readers, so the tools that can poll the pane do so instead, and say why.
 */
export class NoRoom extends ToolError {
  /** The connection cap that was reached. */
  readonly max: number;

  constructor(max: number) {
    super(
      "busy",
      `this server already follows ${max} sessions live, each with streams in use`,
      {
        hint: "Retry when a followed session is no longer read (streams end 5 minutes after " +
          "their last read), or read this pane with capture_pane.",
      },
    );
    this.max = max;
  }

  /** What a polled result says about why it is not live. */
  get note(): string {
    return `this server already follows ${this.max} sessions live (its cap), so this pane's ` +
      "session is polled instead: the screen is looked at, not streamed";
  }
}

/** The streams of a connection closed to make room for another session's. */
export function evicted(max: number): ToolError {
  return new ToolError(
    "stale_cursor",
    `the stream ended: this server follows at most ${max} sessions at once, and this one was ` +
      "the least recently read when another was needed",
  );
}

/** The streams of a control connection that ended without us closing it. */
export function connectionLost(reason: string): ToolError {
  return new ToolError("server_gone", `the tmux session or server went away (${reason})`, {
    hint: "List sessions again; if the pane still exists, call capture_since without a cursor.",
  });
}
