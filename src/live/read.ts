/**
 * Reading a pane's rendered rows from a cursor (docs/design.md §7.3): what changed since the read
 * the cursor names, from the first changed row or the row that read ended on, down to the last
 * row holding text; and, with a deadline, a sleep on the stream until something visible changes.
 * Shared by every tool that follows a pane.
 *
 * A read ends on the terminal cursor's row, or on the row below the last text when the cursor is
 * further down. The next read starts there at the latest, so a line still being written comes
 * back whole and a prompt comes back with what was typed since. Rows above it that were still on
 * the screen are fingerprinted, so a line rewritten there since (a progress bar redrawn with
 * cursor movement, a cleared screen) makes the read start at that line instead.
 *
 * Waits for text (docs/design.md §7.7) scan the same rows as logical lines (wrapped rows joined)
 * and may stop inside a read: the cursor they leave resumes after the line they stopped on, so
 * the lines below it are read (and matched) by the next call.
 */
import { ToolError } from "../errors.ts";
import type { PaneEmulator } from "./emulator.ts";
import { type PaneStream, READ_MEMORY } from "./stream.ts";

/** Where a read left a pane's rows: enough to tell what changed since, and where to resume. */
export interface ReadMark {
  /** The row the next read starts from at the latest. */
  resume: number;
  /** The first fingerprinted row: the screen's top then (rows above it no longer change). */
  top: number;
  /** Fingerprints of rows `top` … `last`. */
  prints: Uint32Array;
  /** The last row holding text then. */
  last: number;
  /** Fingerprint of the alternate screen's text, when it was shown. */
  alternate?: number;
}

/** What changed since a mark. */
export interface RowsSince {
  /** Whether anything visible changed. */
  changed: boolean;
  /** Lines from the start row down to the last row with text ("" when nothing changed). */
  text: string;
  /** Rows between the start row and the oldest row still held: they left before being read. */
  missedRows: number;
  /** The alternate screen is shown: `text` is that whole screen. */
  alternateScreen: boolean;
  /** Where this read leaves the rows (the given mark when nothing changed). */
  mark: ReadMark;
}

/** FNV-1a over UTF-16 code units: a row's fingerprint. */
function fingerprint(text: string): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    hash = Math.imul(hash ^ text.charCodeAt(i), 0x01000193);
  }
  return hash >>> 0;
}

/** The alternate screen's rows, blank rows at the bottom left out. */
function alternateText(emulator: PaneEmulator): string {
  return emulator.screenRows().join("\n").replace(/\n+$/, "");
}

/** Where a read made now leaves the rows. */
export function markOf(emulator: PaneEmulator): ReadMark {
  const last = emulator.lastTextRow();
  const top = emulator.screenTop;
  const prints = new Uint32Array(Math.max(0, last - top + 1));
  for (let i = 0; i < prints.length; i++) prints[i] = fingerprint(emulator.rowText(top + i));
  return {
    resume: Math.min(emulator.cursorRow, last + 1),
    top,
    prints,
    last,
    ...(emulator.alternate ? { alternate: fingerprint(alternateText(emulator)) } : {}),
  };
}

/**
 * Lines `start` … the last row with text, the start moved up to the beginning of its line; they
 * end with a newline when the cursor has moved below them (the last line is complete).
 */
function linesFrom(emulator: PaneEmulator, start: number, mark: ReadMark): string {
  let from = Math.max(start, emulator.firstRow);
  while (from > emulator.firstRow && emulator.isWrapped(from)) from--;
  if (mark.last < from) return "";
  return emulator.text(from, mark.last) + (mark.resume > mark.last ? "\n" : "");
}

/** The screen as a first read shows it, and where that read leaves the rows. */
export function screenNow(
  emulator: PaneEmulator,
): { text: string; alternateScreen: boolean; mark: ReadMark } {
  const mark = markOf(emulator);
  if (emulator.alternate) return { text: alternateText(emulator), alternateScreen: true, mark };
  return { text: linesFrom(emulator, emulator.screenTop, mark), alternateScreen: false, mark };
}

/** Whether anything visible changed since `mark`, where a read from it starts, and the mark now. */
interface Change {
  changed: boolean;
  /** The row a read from `mark` starts at (normal screen; before moving up to its line's start). */
  start: number;
  /** Where a read made now leaves the rows. */
  next: ReadMark;
  /** The alternate screen is shown (then `start` means nothing). */
  alternate: boolean;
}

function changeSince(emulator: PaneEmulator, mark: ReadMark): Change {
  const next = markOf(emulator);
  if (emulator.alternate) {
    return {
      changed: next.alternate !== mark.alternate,
      start: mark.resume,
      next,
      alternate: true,
    };
  }
  let start = mark.resume;
  // Leaving the alternate screen is a change even when the program printed nothing after it.
  let changed = mark.alternate !== undefined || next.last > mark.last;
  for (let i = 0; i < mark.prints.length; i++) {
    const row = mark.top + i;
    if (row < emulator.firstRow) continue;
    if (fingerprint(emulator.rowText(row)) !== mark.prints[i]) {
      changed = true;
      start = Math.min(start, row);
      break;
    }
  }
  return { changed, start, next, alternate: false };
}

/** What changed since `mark` (see the header for where a read starts). */
export function rowsSince(emulator: PaneEmulator, mark: ReadMark): RowsSince {
  const change = changeSince(emulator, mark);
  const { changed, next } = change;
  if (change.alternate) {
    return {
      changed,
      text: changed ? alternateText(emulator) : "",
      missedRows: 0,
      alternateScreen: true,
      mark: changed ? next : mark,
    };
  }
  if (!changed) return { changed, text: "", missedRows: 0, alternateScreen: false, mark };
  return {
    changed,
    text: linesFrom(emulator, change.start, next),
    missedRows: Math.max(0, emulator.firstRow - change.start),
    alternateScreen: false,
    mark: next,
  };
}

/** What one {@link readFrom} found. */
export interface RenderedRead {
  /** The lines that changed (see {@link RowsSince}). */
  text: string;
  /** The offset of the new cursor (the given one when nothing changed). */
  offset: number;
  missedRows: number;
  alternateScreen: boolean;
  /**
   * `output`: text was found; `quiet`: text was found, then nothing changed for `quietMs`;
   * `idle`: none and no time to wait; `timeout`: waited, and none came (or, with `quietMs`, the
   * output had not stopped when the wait ended: the text is what arrived).
   */
  outcome: "output" | "quiet" | "idle" | "timeout";
}

/**
 * The read a cursor's offset names; `stale_cursor` for an offset this stream never gave or no
 * longer remembers.
 */
export function recallMark(stream: PaneStream, offset: number): ReadMark {
  const mark = stream.recall(offset);
  if (!mark || !stream.emulator) {
    throw new ToolError(
      "stale_cursor",
      offset > stream.position
        ? "this cursor points past the stream's end"
        : `this cursor's read is no longer remembered (the server keeps the last ${READ_MEMORY} ` +
          "reads of each pane)",
    );
  }
  return mark;
}

/** The stream's terminal, or why the stream ended. */
function terminalOf(stream: PaneStream): PaneEmulator {
  const emulator = stream.emulator;
  if (!emulator) throw stream.ended ?? new ToolError("stale_cursor", "the stream ended");
  return emulator;
}

/**
 * Read what changed since the read `offset` names; while nothing visible changed and `waitMs`
 * has not passed, sleep on the stream. A change that leaves no text (a cleared screen) is not
 * output: the wait goes on. With `quietMs`, once text has come the read waits on until nothing
 * has changed for `quietMs` (a whole burst in one read), or `waitMs` ends. Rejects with
 * `stale_cursor` for an offset this stream never gave or no longer remembers, and when the
 * stream ends or `signal` aborts.
 */
export async function readFrom(
  stream: PaneStream,
  offset: number,
  waitMs: number,
  signal: AbortSignal,
  quietMs?: number,
): Promise<RenderedRead> {
  const deadline = Date.now() + waitMs;
  const mark = recallMark(stream, offset);
  const answer = (rows: RowsSince, outcome: RenderedRead["outcome"]): RenderedRead => ({
    text: rows.text,
    offset: rows.changed ? stream.remember(rows.mark) : offset,
    missedRows: rows.missedRows,
    alternateScreen: rows.alternateScreen,
    outcome,
  });
  for (;;) {
    const rows = rowsSince(terminalOf(stream), mark);
    const left = deadline - Date.now();
    if (rows.changed && rows.text !== "") {
      if (quietMs === undefined) return answer(rows, "output");
      return await quietAfter(stream, mark, deadline, quietMs, signal, answer);
    }
    if (left <= 0) return answer(rows, waitMs > 0 ? "timeout" : "idle");
    await stream.waitForChange(left, signal);
  }
}

/**
 * Output has come: sleep until the stream stays unchanged for `quietMs` (`quiet`) or the
 * deadline passes (`timeout`), then read everything since `mark` once. Each change only wakes
 * the sleep; rows are rendered into text once, at the end.
 */
async function quietAfter(
  stream: PaneStream,
  mark: ReadMark,
  deadline: number,
  quietMs: number,
  signal: AbortSignal,
  answer: (rows: RowsSince, outcome: RenderedRead["outcome"]) => RenderedRead,
): Promise<RenderedRead> {
  for (;;) {
    const left = deadline - Date.now();
    if (left <= 0) return answer(rowsSince(terminalOf(stream), mark), "timeout");
    const waited = await stream.waitForChange(Math.min(quietMs, left), signal);
    if (waited === "timeout") {
      return answer(rowsSince(terminalOf(stream), mark), quietMs <= left ? "quiet" : "timeout");
    }
  }
}

/** A first read: the screen now, and the offset of its cursor. */
export function readScreen(
  stream: PaneStream,
): { text: string; offset: number; alternateScreen: boolean } {
  const emulator = stream.emulator;
  if (!emulator) throw stream.ended ?? new ToolError("stale_cursor", "the stream ended");
  const screen = screenNow(emulator);
  return {
    text: screen.text,
    offset: stream.remember(screen.mark),
    alternateScreen: screen.alternateScreen,
  };
}

/** One logical line of the rendered text: wrapped rows joined, trailing blanks removed. */
export interface LogicalLine {
  text: string;
  /** Its first and last absolute rows (-1 on the alternate screen, which has no history). */
  first: number;
  last: number;
}

/**
 * The logical lines that hold rows `start` … `end`, the first moved up to its beginning when it
 * continues a wrapped one.
 */
export function logicalLines(emulator: PaneEmulator, start: number, end: number): LogicalLine[] {
  let from = Math.max(start, emulator.firstRow);
  while (from > emulator.firstRow && emulator.isWrapped(from)) from--;
  const lines: LogicalLine[] = [];
  for (let row = from; row <= end;) {
    let last = row;
    while (last < end && emulator.isWrapped(last + 1)) last++;
    lines.push({ text: emulator.text(row, last), first: row, last });
    row = last + 1;
  }
  return lines;
}

/**
 * A mark for a read that stopped after logical line `line`: the next read starts below it, and
 * the rows above it that are still on screen are fingerprinted, so a rewrite of one of them
 * (that line itself included) still counts as a change.
 */
function markThrough(emulator: PaneEmulator, line: LogicalLine): ReadMark {
  const now = markOf(emulator);
  const count = Math.max(0, Math.min(now.prints.length, line.last - now.top + 1));
  return {
    resume: line.last + 1,
    top: now.top,
    prints: now.prints.slice(0, count),
    last: line.last,
  };
}

/**
 * The text a read from `from` would return if it ended where `to` leaves the rows: from the
 * start row of `from` down to `to.last`, complete when `to` resumes below its last row.
 */
function textBetween(
  emulator: PaneEmulator,
  from: ReadMark,
  to: ReadMark,
): { text: string; missedRows: number; alternateScreen: boolean } {
  const change = changeSince(emulator, from);
  if (change.alternate) {
    return { text: alternateText(emulator), missedRows: 0, alternateScreen: true };
  }
  return {
    text: linesFrom(emulator, change.start, to),
    missedRows: Math.max(0, emulator.firstRow - change.start),
    alternateScreen: false,
  };
}

/** What {@link waitForLine} is given. */
export interface LineWait<T> {
  /**
   * Tried in order on each new logical line; the first value other than undefined ends the wait
   * there. Several tests (one per pattern) let a long line's matching yield between them.
   */
  tests: readonly ((line: string) => T | undefined)[];
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
export type LineWaitResult<T> =
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

  let scan = start;
  let atEntry = true;
  let sliceEnd = Date.now() + SLICE_MS;
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
        let value: T | undefined;
        // The slice and the deadline are checked before each test, not only each line: a
        // 200,000-character line under 64 patterns held the event loop for a second.
        for (let t = 0; t < wait.tests.length && value === undefined; t++) {
          if (Date.now() >= sliceEnd) {
            await new Promise((resolve) => setTimeout(resolve, 0));
            if (wait.signal.aborted) throw new ToolError("cancelled", "the call was cancelled");
            if (!stream.emulator) return ended(stream.ended);
            sliceEnd = Date.now() + SLICE_MS;
          }
          if (Date.now() > wait.deadline) {
            // Cut inside this look: resume below the last line matched, never past an unread one.
            if (change.alternate || i === 0) return timeout(emulator, scan);
            return timeout(emulator, markThrough(emulator, lines[i - 1]));
          }
          value = wait.tests[t](lines[i].text);
        }
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

/** Keep the newest `max` lines seen: a line looked at again (still being written) replaces itself. */
function keepTail(tail: LogicalLine[], lines: LogicalLine[], max: number): void {
  if (lines.length === 0) return;
  while (tail.length > 0 && tail[tail.length - 1].first >= lines[0].first) tail.pop();
  tail.push(...lines.slice(-max));
  if (tail.length > max) tail.splice(0, tail.length - max);
}
