/** What waiting tools share: the wait's shape and budget, sleepOrCancel, cursor checks and progress. */
import { z } from "zod";
import { ToolError } from "../errors.ts";
import { clipText } from "../results.ts";
import { parseCursor } from "../live/cursor.ts";
import type { PaneStream } from "../live/stream.ts";
import type { LiveEngine } from "../tmux/live/engine.ts";
import type { InspectContext } from "../tool_types.ts";

/** What every waiting tool reports about its wait (the ceiling clamps `timeoutMs`, disclosed). */
export const waitShape = {
  elapsedMs: z.int(),
  timeoutMs: z.int(),
  timeoutClamped: z.boolean(),
};

/**
 * Clamp the wait a call asked for (`fallback` when it named none) to the server's ceiling,
 * disclosing the clamp: {@link waitShape}'s `timeoutMs` and `timeoutClamped`.
 */
export function waitBudget(
  asked: number | undefined,
  fallback: number,
  waitMaxMs: number,
): { timeoutMs: number; timeoutClamped: boolean } {
  const wanted = asked ?? fallback;
  return { timeoutMs: Math.min(wanted, waitMaxMs), timeoutClamped: wanted > waitMaxMs };
}

/** The sleep tool calls use: it fails with `cancelled` when the call is (src/timing.ts). */
export { sleepOrCancel } from "../timing.ts";

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

/**
 * A wait's progress notifications: once every `everyMs`, the time waited and the newest line
 * seen (clipped), while the client listens (`ctx.progress` is set only then). Call `stop` when
 * the wait ends.
 */
export function waitProgress(
  progress: InspectContext["progress"],
  started: number,
  totalMs: number,
  everyMs: number,
): { seen: (line: string) => void; stop: () => void } {
  let newest = "";
  const ticker = progress
    ? setInterval(() => {
      const elapsed = Date.now() - started;
      progress({
        progress: elapsed,
        total: totalMs,
        message: `waited ${(elapsed / 1000).toFixed(1)} s` +
          (newest === "" ? "" : `; newest line: ${clipText(newest, 200)}`),
      });
    }, everyMs)
    : undefined;
  return { seen: (line) => newest = line, stop: () => clearInterval(ticker) };
}
