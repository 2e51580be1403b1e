/**
 * Progress notifications of a wait (docs/design.md §7.7 rule 7), sent only while the client listens
 * (`ctx.progress` is set only then): the time waited and the newest line seen.
 */
import { clipText } from "../results.ts";
import type { InspectContext } from "../tool_types.ts";

/** How often a waiting call sends a progress notification. */
export const PROGRESS_MS = 1_000;

/**
 * A wait's progress notifications: once every `everyMs`, the time waited and the newest line
 * seen (clipped). Call `stop` when the wait ends.
 */
export function waitProgress(
  progress: InspectContext["progress"],
  started: number,
  totalMs: number,
  everyMs = PROGRESS_MS,
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

/**
 * Progress while a framed command runs (its wait is the funnel's, src/tmux/execute/run.ts, which
 * calls this with the elapsed time and the command's newest line); undefined when nobody listens.
 */
export function runProgress(
  progress: InspectContext["progress"],
  totalMs: number,
): ((elapsedMs: number, newestRow: string) => void) | undefined {
  return progress &&
    ((elapsedMs, newestRow) =>
      progress({
        progress: elapsedMs,
        total: totalMs,
        message: `running for ${(elapsedMs / 1000).toFixed(1)} s` +
          (newestRow ? `; newest line: ${newestRow.slice(0, 200)}` : ""),
      }));
}
