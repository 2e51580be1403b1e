/**
 * Reading a pane's rendered rows from a cursor (docs/design.md §7.3): what changed since the read
 * the cursor names, from the first changed row or the row that read ended on, down to the last
 * row holding text (src/live/row_changes.ts), with the rows that left the terminal read back from
 * tmux (src/live/read_back.ts); and, with a deadline, a sleep on the stream until something
 * visible changes. Shared by every tool that follows a pane.
 */
import { ToolError } from "../errors.ts";
import { READ_MEMORY, type ReadMark } from "./cursor.ts";
import type { PaneEmulator } from "./emulator.ts";
import { type BackRead, joinBack, needsBack, planBack, type ReadBack } from "./read_back.ts";
import { rowsSince, screenNow } from "./row_changes.ts";
import type { PaneStream } from "./stream.ts";

/** How a read reaches the rows that left the terminal: tmux, and the bounds the read keeps. */
export interface ReadBackOptions {
  read: ReadBack;
  bounds: { lines: number; bytes: number };
}

/** What one {@link readFrom} found. */
interface RenderedRead {
  /** The lines that changed (see src/live/row_changes.ts), rows read back from tmux first. */
  text: string;
  /** The offset of the new cursor (the given one when nothing changed). */
  offset: number;
  missedRows: number;
  /** Rows tmux still holds that were left out, since the read's bounds would drop them. */
  skippedRows: number;
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
 * What changed since `mark`, now. When the read starts above the rows the terminal holds and
 * `back` is given, those rows are read back from tmux, the whole read taken at one moment.
 */
async function rowsNow(
  stream: PaneStream,
  mark: ReadMark,
  signal: AbortSignal,
  back?: ReadBackOptions,
): Promise<BackRead> {
  const emulator = terminalOf(stream);
  if (!back || !needsBack(emulator, mark)) return { ...rowsSince(emulator, mark), skippedRows: 0 };
  const { value, rows: tmux } = await back.read(
    (emulator) => planBack(emulator, mark, back.bounds),
    signal,
  );
  return joinBack(value, tmux);
}

/**
 * Read what changed since the read `offset` names; while nothing visible changed and `waitMs`
 * has not passed, sleep on the stream. A change that leaves no text (a cleared screen) is not
 * output: the wait goes on. With `quietMs`, once text has come the read waits on until nothing
 * has changed for `quietMs` (a whole burst in one read), or `waitMs` ends. With `back`, rows
 * that left the terminal are read back from tmux while it holds them. Rejects with
 * `stale_cursor` for an offset this stream never gave or no longer remembers, and when the
 * stream ends or `signal` aborts.
 */
export async function readFrom(
  stream: PaneStream,
  offset: number,
  waitMs: number,
  signal: AbortSignal,
  quietMs?: number,
  back?: ReadBackOptions,
): Promise<RenderedRead> {
  const deadline = Date.now() + waitMs;
  const mark = recallMark(stream, offset);
  const answer = async (outcome: RenderedRead["outcome"]): Promise<RenderedRead> => {
    const rows = await rowsNow(stream, mark, signal, back);
    return {
      text: rows.text,
      offset: rows.changed ? stream.remember(rows.mark) : offset,
      missedRows: rows.missedRows,
      skippedRows: rows.skippedRows,
      alternateScreen: rows.alternateScreen,
      outcome,
    };
  };
  for (;;) {
    const rows = rowsSince(terminalOf(stream), mark);
    const left = deadline - Date.now();
    // Rows that left the terminal unread are news, even when what it still holds has no text.
    if (rows.changed && (rows.text !== "" || rows.missedRows > 0)) {
      if (quietMs === undefined) return await answer("output");
      return await quietAfter(stream, deadline, quietMs, signal, answer);
    }
    if (left <= 0) return await answer(waitMs > 0 ? "timeout" : "idle");
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
  deadline: number,
  quietMs: number,
  signal: AbortSignal,
  answer: (outcome: RenderedRead["outcome"]) => Promise<RenderedRead>,
): Promise<RenderedRead> {
  for (;;) {
    const left = deadline - Date.now();
    if (left <= 0) return await answer("timeout");
    const waited = await stream.waitForChange(Math.min(quietMs, left), signal);
    if (waited === "timeout") return await answer(quietMs <= left ? "quiet" : "timeout");
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
