/**
 * wait_for_text's wait on a pane's stream (docs/design.md §7.7): the live wait of
 * src/wait/scan.ts from a cursor's read, answered as a read: the text from where the read starts
 * down to the line the wait stopped on, and a cursor that resumes below it, so the lines below
 * are read (and matched) by the next call.
 */
import type { ToolError } from "../errors.ts";
import type { ReadMark } from "../live/cursor.ts";
import { recallMark } from "../live/read.ts";
import { type LogicalLine, textBetween } from "../live/row_changes.ts";
import type { PaneStream } from "../live/stream.ts";
import type { LineTest } from "./match.ts";
import { scanStream } from "./scan.ts";

/** What {@link waitForLine} is given. */
interface LineWait<T> {
  /** Tried in order on each new logical line (see src/wait/scan.ts). */
  tests: readonly LineTest<T>[];
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

/** What a read from the start shows down to where the wait stopped. */
interface ReadSoFar {
  text: string;
  /** Cursor offset: the next read starts below the line the wait stopped on. */
  offset: number;
  missedRows: number;
  alternateScreen: boolean;
}

/** How a {@link waitForLine} ended. */
type LineWaitResult<T> =
  | {
    outcome: "found";
    value: T;
    line: string;
    /** The line was there before the wait slept (on the screen, or since the cursor). */
    atEntry: boolean;
  } & ReadSoFar
  | { outcome: "timeout" } & ReadSoFar
  | {
    outcome: "ended";
    /** Why the stream ended (pane gone or replaced, connection lost, server closing). */
    error: ToolError;
    /** The newest lines seen before it ended. */
    text: string;
  };

/**
 * Wait until a logical line written since the read `offset` names passes `wait.tests`. A wait cut
 * inside a look answers `timeout` with a cursor below the last line matched, so nothing is
 * skipped. A stream that ends answers `ended`; cancellation rejects.
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
  const end = await scanStream(stream, {
    tests: wait.tests,
    from: start,
    deadline: wait.deadline,
    signal: wait.signal,
    onLines: (lines) => keepTail(tail, lines, wait.tailLines),
    onLine: wait.onLine,
  });
  if (end.outcome === "ended") {
    return { ...end, text: tail.map((l) => l.text).join("\n") };
  }
  if (end.outcome === "timeout" && end.through === start && start === entry) {
    return { outcome: "timeout", text: "", offset, missedRows: 0, alternateScreen: false };
  }
  const read = {
    ...textBetween(end.emulator, start, end.through),
    offset: stream.remember(end.through),
  };
  if (end.outcome === "timeout") return { outcome: "timeout", ...read };
  return { outcome: "found", value: end.value, line: end.line, atEntry: end.atEntry, ...read };
}

/** Keep the newest `max` lines seen: a line looked at again (still being written) replaces itself. */
function keepTail(tail: LogicalLine[], lines: readonly LogicalLine[], max: number): void {
  if (lines.length === 0) return;
  while (tail.length > 0 && tail[tail.length - 1].first >= lines[0].first) tail.pop();
  tail.push(...lines.slice(-max));
  if (tail.length > max) tail.splice(0, tail.length - max);
}
