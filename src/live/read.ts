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

/** What changed since `mark` (see the header for where a read starts). */
export function rowsSince(emulator: PaneEmulator, mark: ReadMark): RowsSince {
  const next = markOf(emulator);
  if (emulator.alternate) {
    const changed = next.alternate !== mark.alternate;
    return {
      changed,
      text: changed ? alternateText(emulator) : "",
      missedRows: 0,
      alternateScreen: true,
      mark: changed ? next : mark,
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
  if (!changed) return { changed, text: "", missedRows: 0, alternateScreen: false, mark };
  return {
    changed,
    text: linesFrom(emulator, start, next),
    missedRows: Math.max(0, emulator.firstRow - start),
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
  /** `output`: text was found; `idle`: none and no time to wait; `timeout`: waited, none came. */
  outcome: "output" | "idle" | "timeout";
}

/**
 * Read what changed since the read `offset` names; while nothing visible changed and `waitMs`
 * has not passed, sleep on the stream. A change that leaves no text (a cleared screen) is not
 * output: the wait goes on. Rejects with `stale_cursor` for an offset this stream never gave or
 * no longer remembers, and when the stream ends or `signal` aborts.
 */
export async function readFrom(
  stream: PaneStream,
  offset: number,
  waitMs: number,
  signal: AbortSignal,
): Promise<RenderedRead> {
  const deadline = Date.now() + waitMs;
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
  for (;;) {
    const emulator = stream.emulator;
    if (!emulator) throw stream.ended ?? new ToolError("stale_cursor", "the stream ended");
    const rows = rowsSince(emulator, mark);
    const left = deadline - Date.now();
    if ((rows.changed && rows.text !== "") || left <= 0) {
      const outcome = rows.text !== "" ? "output" : waitMs > 0 ? "timeout" : "idle";
      return {
        text: rows.text,
        offset: rows.changed ? stream.remember(rows.mark) : offset,
        missedRows: rows.missedRows,
        alternateScreen: rows.alternateScreen,
        outcome,
      };
    }
    await stream.waitForChange(left, signal);
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
