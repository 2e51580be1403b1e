/**
 * What changed in a pane's rendered rows since a read (docs/design.md §7.3), pure over the pane's
 * terminal: where a read leaves the rows (its mark), what a read from a mark returns, and the
 * logical lines a wait for text scans.
 *
 * A read ends on the terminal cursor's row, or on the row below the last text when the cursor is
 * further down. The next read starts there at the latest, so a line still being written comes
 * back whole and a prompt comes back with what was typed since. Rows above it that were still on
 * the screen are fingerprinted, so a line rewritten there since (a progress bar redrawn with
 * cursor movement, a cleared screen) makes the read start at that line instead.
 */
import type { PaneEmulator } from "./emulator.ts";
import type { ReadMark } from "./cursor.ts";

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
export function fingerprint(text: string): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    hash = Math.imul(hash ^ text.charCodeAt(i), 0x01000193);
  }
  return hash >>> 0;
}

/** The alternate screen's rows, blank rows at the bottom left out. */
export function alternateText(emulator: PaneEmulator): string {
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
export interface Change {
  changed: boolean;
  /** The row a read from `mark` starts at (normal screen; before moving up to its line's start). */
  start: number;
  /** Where a read made now leaves the rows. */
  next: ReadMark;
  /** The alternate screen is shown (then `start` means nothing). */
  alternate: boolean;
}

/** What changed since `mark` and where a read from it starts (see the header). */
export function changeSince(emulator: PaneEmulator, mark: ReadMark): Change {
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
export function markThrough(emulator: PaneEmulator, line: LogicalLine): ReadMark {
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
export function textBetween(
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
