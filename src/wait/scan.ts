/**
 * The live wait (docs/design.md §7.7 rules 3 and 5, §7.10 rule 3): sleep on a pane's stream and,
 * after each change, match the logical lines a read from the previous look would return, until a
 * line matches, a watch (quiet, program change) ends the wait, the deadline passes or the stream
 * ends. Every live wait for text runs here: wait_for_text (src/wait/line_wait.ts) and `waitFor`
 * (src/wait/input_wait.ts). It reads the stream's terminal and never tmux; a watch may look.
 */
import { ToolError } from "../errors.ts";
import type { ReadMark } from "../live/cursor.ts";
import { inputLineNow, type InputSpot, isEcho } from "../live/echo.ts";
import type { PaneEmulator } from "../live/emulator.ts";
import {
  alternateText,
  changeSince,
  type LogicalLine,
  logicalLines,
  markThrough,
} from "../live/row_changes.ts";
import type { PaneStream } from "../live/stream.ts";
import type { MatchBounds } from "../pattern/pool.ts";
import { type LineTest, MatchPace, tryLine } from "./match.ts";

/** What a wait watches beside the lines (the quiet and program-change hooks of §7.10). */
export interface Watch<S> {
  /** The stream changed since the previous look; `rowsChanged`: a read would return rows. */
  changed(emulator: PaneEmulator, rowsChanged: boolean): void;
  /** Whether the wait ends now, and how (it may look at the pane), after each look. */
  check(): Promise<S | undefined>;
  /** When {@link check} next has something to decide (ms since the epoch; Infinity: no hurry). */
  wakeAt(): number;
}

/** What {@link scanStream} is given. */
export interface StreamScan<T, S> {
  /**
   * Tried in order on each new logical line; the first answer other than undefined ends the wait
   * there. Several tests (one per pattern) let a long line's matching yield between them.
   */
  tests: readonly LineTest<T>[];
  /** Where the scan starts: the lines a read from this mark returns are matched first. */
  from: ReadMark;
  /** When to stop waiting (ms since the epoch). */
  deadline: number;
  signal: AbortSignal;
  /** The echo hook: the input's typed lines and where it was typed are never matched (§7.10). */
  echo?: { lines: readonly string[]; spot?: InputSpot };
  /** Told the lines of each look on the normal screen. */
  onLines?: (lines: readonly LogicalLine[]) => void;
  /** Told the newest non-empty line after each look (for progress notifications). */
  onLine?: (line: string) => void;
  watch?: Watch<S>;
}

/** How a {@link scanStream} ended. */
export type ScanEnd<T, S> =
  | {
    outcome: "found";
    value: T;
    line: string;
    /** The line was there before the wait slept (at its start). */
    atEntry: boolean;
    emulator: PaneEmulator;
    /** Where a read that stops after the found line leaves the rows. */
    through: ReadMark;
  }
  | {
    outcome: "timeout";
    emulator: PaneEmulator;
    /** How far the scan got: everything above was matched, nothing below skipped. */
    through: ReadMark;
  }
  | ([S] extends [never] ? never : { outcome: "watched"; value: S })
  /** The stream ended (pane gone or replaced, connection lost, server closing): why. */
  | { outcome: "ended"; error: ToolError };

/** The lines of one look: the alternate screen's rows, or the logical lines since the scan. */
function linesOf(emulator: PaneEmulator, change: ReturnType<typeof changeSince>): LogicalLine[] {
  return change.alternate
    ? alternateText(emulator).split("\n").map((text) => ({ text, first: -1, last: -1 }))
    : logicalLines(emulator, change.start, change.next.last);
}

/**
 * Wait on `stream` for a line passing `scan.tests` or a watch's verdict. Each look matches only
 * the lines a read from the previous look would return (the line the scan stopped on again,
 * until it is complete), so a burst costs time in proportion to its length; the deadline is
 * checked before each test of each line and matching yields by the pace of src/wait/match.ts.
 * A wait cut inside a look answers `timeout` through the last line matched, so nothing is
 * skipped. Cancellation rejects.
 */
export async function scanStream<T, S = never>(
  stream: PaneStream,
  scan: StreamScan<T, S>,
): Promise<ScanEnd<T, S>> {
  const bounds: MatchBounds = { signal: scan.signal, deadline: scan.deadline };
  const pace = new MatchPace();
  const alive = () => stream.emulator !== undefined;
  const ended = (error: unknown): ScanEnd<T, S> => {
    if (error instanceof ToolError && error.code === "cancelled") throw error;
    const why = error instanceof ToolError ? error : new ToolError("stale_cursor", String(error));
    return { outcome: "ended", error: why };
  };
  let from = scan.from;
  let atEntry = true;
  let seen = -1;
  for (;;) {
    const emulator = stream.emulator;
    if (!emulator) return ended(stream.ended ?? "the stream ended");
    // Changes applied while matching yielded are looked at before sleeping again.
    const looked = stream.changes;
    if (looked !== seen) {
      seen = looked;
      const change = changeSince(emulator, from);
      if (change.changed) {
        const lines = linesOf(emulator, change);
        const echo = scan.echo;
        const typedOn = echo?.spot ? inputLineNow(emulator, echo.spot) : undefined;
        for (let i = 0; i < lines.length; i++) {
          if (echo && isEcho(lines[i].text, echo.lines, typedOn)) continue;
          const tried = await tryLine(scan.tests, lines[i].text, bounds, pace, alive);
          if (tried === "ended") return ended(stream.ended ?? "the stream ended");
          if (tried === "late") {
            // Cut inside this look: resume below the last line matched, never past an unread one.
            const through = change.alternate || i === 0
              ? from
              : markThrough(emulator, lines[i - 1]);
            return { outcome: "timeout", emulator, through };
          }
          if (tried.value === undefined) continue;
          return {
            outcome: "found",
            value: tried.value,
            line: lines[i].text,
            atEntry,
            emulator,
            through: change.alternate ? change.next : markThrough(emulator, lines[i]),
          };
        }
        from = change.next;
        if (!change.alternate) scan.onLines?.(lines);
        const newest = lines.findLast((l) => l.text !== "");
        if (newest) scan.onLine?.(newest.text);
      }
      scan.watch?.changed(emulator, change.changed);
    }
    const verdict = await scan.watch?.check();
    if (verdict !== undefined) return { outcome: "watched", value: verdict } as ScanEnd<T, S>;
    const left = scan.deadline - Date.now();
    if (left <= 0) return { outcome: "timeout", emulator, through: from };
    atEntry = false;
    if (stream.changes !== looked) continue;
    const wake = Math.min(left, (scan.watch?.wakeAt() ?? Infinity) - Date.now());
    try {
      await stream.waitForChange(Math.max(1, wake), scan.signal);
    } catch (error) {
      return ended(error);
    }
  }
}
