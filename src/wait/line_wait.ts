/**
 * Waits for text on a pane's stream (docs/design.md §7.7). They scan the rows a read would return
 * as logical lines (wrapped rows joined) and may stop inside a read: the cursor they leave resumes
 * after the line they stopped on, so the lines below it are read (and matched) by the next call.
 */
import { ToolError } from "../errors.ts";
import type { ReadMark } from "../live/cursor.ts";
import type { PaneEmulator } from "../live/emulator.ts";
import type { MatchBounds } from "../pattern/pool.ts";
import { recallMark } from "../live/read.ts";
import {
  alternateText,
  changeSince,
  type LogicalLine,
  logicalLines,
  markThrough,
  textBetween,
} from "../live/row_changes.ts";
import type { PaneStream } from "../live/stream.ts";

/** What {@link waitForLine} is given. */
interface LineWait<T> {
  /**
   * Tried in order on each new logical line; the first value other than undefined ends the wait
   * there. Several tests (one per pattern) let a long line's matching yield between them. A test
   * may answer later (a long line matched in a worker, §7.7 rule 10); the wait awaits it before the
   * next test, so lines are still tried in order. Its `timeout` rejection cuts the wait there.
   */
  tests: readonly ((line: string, bounds: MatchBounds) => T | undefined | Promise<T | undefined>)[];
  /** When to stop waiting (ms since the epoch). */
  deadline: number;
  signal: AbortSignal;
  /** Match the whole screen as it is when the wait begins, not only what changes after. */
  includeScreen?: boolean;
  /** Told the newest non-empty line after each look (for progress notifications). */
  onLine?: (line: string) => void;
  /** Lines of context kept for the answer when the stream ends mid-wait. */
  tailLines: number;
}

/** How a {@link waitForLine} ended. */
type LineWaitResult<T> =
  | {
    outcome: "found";
    value: T;
    line: string;
    /** The line was there before the wait slept (on the screen, or since the cursor). */
    atEntry: boolean;
    /** From where the start read ends down to the found line (complete, so it ends with "\n"). */
    text: string;
    /** Cursor offset: the next read starts below the found line. */
    offset: number;
    missedRows: number;
    alternateScreen: boolean;
  }
  | {
    outcome: "timeout";
    text: string;
    offset: number;
    missedRows: number;
    alternateScreen: boolean;
  }
  | {
    outcome: "ended";
    /** Why the stream ended (pane gone or replaced, connection lost, server closing). */
    error: ToolError;
    /** The newest lines seen before it ended. */
    text: string;
  };

/** Matching work between two yields to the event loop (each yield costs ~2 ms). */
const SLICE_MS = 20;

/**
 * Wait until a logical line written since the read `offset` names passes `wait.test`, sleeping
 * on the stream between changes. Each look matches only the lines a read from the previous look
 * would return (the line the cursor is on again, until it is complete), so a burst costs time in
 * proportion to its length. The deadline is checked before each test of each line and matching
 * yields every 20 ms; a wait cut inside a look answers `timeout` with a cursor below the last line matched,
 * so nothing is skipped. A stream that ends answers `ended`; cancellation rejects.
 */
export async function waitForLine<T>(
  stream: PaneStream,
  offset: number,
  wait: LineWait<T>,
): Promise<LineWaitResult<T>> {
  const entry = recallMark(stream, offset);
  // With includeScreen, the wait starts as if nothing had been read of the screen yet.
  const start: ReadMark = wait.includeScreen && entry.alternate === undefined
    ? { resume: entry.top, top: entry.top, prints: new Uint32Array(0), last: entry.top - 1 }
    : wait.includeScreen
    ? { ...entry, alternate: -1 }
    : entry;
  const tail: LogicalLine[] = [];
  const ended = (error: unknown): LineWaitResult<T> => {
    if (error instanceof ToolError && error.code === "cancelled") throw error;
    const why = error instanceof ToolError ? error : new ToolError("stale_cursor", String(error));
    return { outcome: "ended", error: why, text: tail.map((l) => l.text).join("\n") };
  };
  const timeout = (emulator: PaneEmulator, through: ReadMark): LineWaitResult<T> => {
    if (through === start && start === entry) {
      return { outcome: "timeout", text: "", offset, missedRows: 0, alternateScreen: false };
    }
    return {
      outcome: "timeout",
      ...textBetween(emulator, start, through),
      offset: stream.remember(through),
    };
  };

  const bounds: MatchBounds = { signal: wait.signal, deadline: wait.deadline };
  let scan = start;
  let atEntry = true;
  const slice = { end: Date.now() + SLICE_MS };
  for (;;) {
    if (!stream.emulator) return ended(stream.ended);
    const emulator = stream.emulator;
    // Changes applied while matching yielded are looked at before sleeping again.
    const looked = stream.changes;
    const change = changeSince(emulator, scan);
    if (change.changed) {
      const lines = change.alternate
        ? alternateText(emulator).split("\n").map((text) => ({ text, first: -1, last: -1 }))
        : logicalLines(emulator, change.start, change.next.last);
      for (let i = 0; i < lines.length; i++) {
        const tried = await testLine(stream, wait, bounds, lines[i].text, slice);
        if (tried === "ended") return ended(stream.ended);
        if (tried === "late") {
          // Cut inside this look: resume below the last line matched, never past an unread one.
          if (change.alternate || i === 0) return timeout(emulator, scan);
          return timeout(emulator, markThrough(emulator, lines[i - 1]));
        }
        const value = tried.value;
        if (value === undefined) continue;
        const through = change.alternate ? change.next : markThrough(emulator, lines[i]);
        return {
          outcome: "found",
          value,
          line: lines[i].text,
          atEntry,
          ...textBetween(emulator, start, through),
          offset: stream.remember(through),
        };
      }
      scan = change.next;
      if (!change.alternate) keepTail(tail, lines, wait.tailLines);
      const newest = lines.findLast((l) => l.text !== "");
      if (newest) wait.onLine?.(newest.text);
    }
    const left = wait.deadline - Date.now();
    if (left <= 0) return timeout(emulator, scan);
    atEntry = false;
    if (stream.changes !== looked) continue;
    try {
      await stream.waitForChange(left, wait.signal);
    } catch (error) {
      return ended(error);
    }
  }
}

/**
 * The first answer of `wait.tests` on one line, tried in order, or why it stopped: the deadline
 * passed (before a test, or while a worker matched the line) or the stream ended. The slice and
 * the deadline are checked before each test, not only each line: a 200,000-character line under
 * 64 patterns held the event loop for a second.
 */
async function testLine<T>(
  stream: PaneStream,
  wait: LineWait<T>,
  bounds: MatchBounds,
  line: string,
  slice: { end: number },
): Promise<{ value: T | undefined } | "late" | "ended"> {
  for (const test of wait.tests) {
    if (Date.now() >= slice.end) {
      await new Promise((resolve) => setTimeout(resolve, 0));
      if (wait.signal.aborted) throw new ToolError("cancelled", "the call was cancelled");
      if (!stream.emulator) return "ended";
      slice.end = Date.now() + SLICE_MS;
    }
    if (Date.now() > wait.deadline) return "late";
    let value = test(line, bounds);
    if (value instanceof Promise) {
      try {
        value = await value;
      } catch (error) {
        if (error instanceof ToolError && error.code === "timeout") return "late";
        throw error;
      }
      if (!stream.emulator) return "ended";
    }
    if (value !== undefined) return { value };
  }
  return { value: undefined };
}

/** Keep the newest `max` lines seen: a line looked at again (still being written) replaces itself. */
function keepTail(tail: LogicalLine[], lines: LogicalLine[], max: number): void {
  if (lines.length === 0) return;
  while (tail.length > 0 && tail[tail.length - 1].first >= lines[0].first) tail.pop();
  tail.push(...lines.slice(-max));
  if (tail.length > max) tail.splice(0, tail.length - max);
}
