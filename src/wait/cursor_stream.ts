/** The stream a cursor names, for a wait or read that resumes from it (docs/design.md §1.6, §7.3). */
import { ToolError } from "../errors.ts";
import { parseCursor } from "../live/cursor.ts";
import type { PaneStream } from "../live/stream.ts";
import type { LiveEngine } from "../tmux/live/engine.ts";

/**
 * The live stream a cursor (the ltxc1 cursor, docs/design.md §1.6) names and the read offset it
 * carries, once checked: the stream is alive (else why it ended, or `stale_cursor`), belongs to
 * `paneId`, and still describes the pane (docs/design.md §7.3).
 */
export async function cursorStream(
  live: LiveEngine,
  cursor: string,
  paneId: string,
  signal: AbortSignal,
): Promise<{ stream: PaneStream; offset: number }> {
  const { streamId, offset } = parseCursor(cursor);
  const stream = live.find(streamId);
  if (!stream) {
    throw live.endedReason(streamId) ??
      new ToolError(
        "stale_cursor",
        "this cursor's stream is gone (unused for 5 minutes, server restarted, or pane replaced)",
      );
  }
  if (stream.paneId !== paneId) {
    throw new ToolError(
      "stale_cursor",
      `this cursor belongs to ${stream.paneId}'s stream, not ${paneId}'s`,
    );
  }
  await live.verify(stream, signal);
  return { stream, offset };
}
