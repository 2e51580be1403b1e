/**
 * Rows a read needs that left the pane's terminal, read back from tmux (docs/design.md §7.3). The
 * terminal keeps its screen and a few rows of history; tmux keeps the pane's whole history. So a
 * read from a cursor whose rows left the terminal returns them from tmux while tmux still holds
 * them — in order, without repeats — and only rows tmux no longer holds are `missedRows`.
 *
 * Pure: which rows to ask for, planned on the terminal at a moment when it shows what tmux shows
 * (src/tmux/live/history_rows.ts finds that moment and numbers tmux's rows as the terminal does), and
 * how tmux's rows join the terminal's. tmux's rows are checked before they are used: those the
 * previous read saw against its fingerprints, and tmux's copies of the oldest rows the terminal
 * holds against the terminal's. A read whose rows cannot be trusted is what the terminal alone
 * gives, its gap disclosed as `missedRows`.
 */
import type { ReadMark } from "./cursor.ts";
import type { PaneEmulator } from "./emulator.ts";
import { changeSince, fingerprint, type RowsSince, rowsSince } from "./row_changes.ts";
import { byteLength } from "../base/utf8.ts";

/** Absolute rows [from, to) of a terminal's normal screen. */
export interface RowRange {
  from: number;
  to: number;
}

/** The rows of one asked range that tmux holds. */
export interface TmuxRange {
  /** Its first row: the range's start, or tmux's oldest row when that is further down. */
  from: number;
  /** Each row's cells as text, trailing blanks kept (`capture-pane -N`), down to the range's end. */
  texts: string[];
  /** Whether each row continues on the next one (its line wrapped there). */
  wrapped: boolean[];
}

/** What tmux holds of the asked ranges, numbered as the terminal numbers its rows. */
export interface TmuxRows {
  /** The oldest row tmux holds: the rows above it left tmux's history too. */
  oldest: number;
  /** One per asked range, in order. */
  ranges: TmuxRange[];
}

/**
 * Reads rows back from tmux: runs `plan` at a moment when the pane's terminal shows exactly what
 * tmux shows (all the output tmux had printed applied), and returns what `plan` made of the
 * terminal then, with tmux's rows of the ranges it asked for — unless tmux's numbering of them
 * could not be trusted (a resize or a cleared history meanwhile, a flood that outran every
 * attempt): then without.
 */
export type ReadBack = <T>(
  plan: (emulator: PaneEmulator) => { value: T; ranges: RowRange[] },
  signal: AbortSignal,
) => Promise<{ value: T; rows?: TmuxRows }>;

/** A read once rows were read back. */
export interface BackRead extends RowsSince {
  /** Rows tmux still holds that were not read back, since the read's bounds would drop them. */
  skippedRows: number;
}

/**
 * Rows read above a read's start (and the rows the previous read saw), where the line it starts
 * inside begins: a longer line comes back from the highest of them.
 */
const LINE_LEAD = 64;
/** Rows the terminal still holds whose copies in tmux are compared with them. */
const OVERLAP_ROWS = 8;
/**
 * Rows read back at most by one read: each costs two captures of its cells (about 0.3 KB for a
 * 160-column row), and the read's bounds keep the newest lines.
 */
const MAX_BACK_ROWS = 10_000;

/** A read planned at a moment when the terminal shows what tmux shows. */
export interface BackPlan {
  /** The read as the terminal alone gives it; its text starts at `to`. */
  rows: RowsSince;
  /** The row the read starts at, above the oldest row the terminal holds. */
  start: number;
  /** The oldest row that can be read back (the terminal's history floor, or `start`). */
  from: number;
  /** The first row asked for: the rows from `from` above it would be dropped by the bounds. */
  fetch: number;
  /** The oldest row the terminal holds. */
  to: number;
  /** Text of the terminal's rows `to` … (its history) then, to compare with tmux's. */
  overlap: string[];
  /** Rows above `to` the previous read fingerprinted, above the row it ended on. */
  seen: RowRange | undefined;
  /** Their fingerprints. */
  prints: Uint32Array;
  /** Whether the read needs rows that left the terminal and some can be read back. */
  needed: boolean;
}

/**
 * Whether a read from `mark` needs rows that left the terminal: its start did, or the line it
 * starts in began above the rows the terminal holds.
 */
export function needsBack(emulator: PaneEmulator, mark: ReadMark): boolean {
  const change = changeSince(emulator, mark);
  if (!change.changed || change.alternate) return false;
  let row = change.start;
  while (row > emulator.firstRow && emulator.isWrapped(row)) row--;
  return row <= emulator.firstRow && (row < emulator.firstRow || emulator.isWrapped(row));
}

/** Lines and UTF-8 bytes of a read's text, as its bounds count them. */
function size(text: string): { lines: number; bytes: number } {
  const body = text.endsWith("\n") ? text.slice(0, -1) : text;
  let lines = body === "" && !text.endsWith("\n") ? 0 : 1;
  for (let i = body.indexOf("\n"); i >= 0; i = body.indexOf("\n", i + 1)) lines++;
  return { lines, bytes: byteLength(text) };
}

/**
 * Plan a read from `mark`: the read as the terminal gives it, and, when its start left the
 * terminal, the rows to ask tmux for — those the read needs (no more than `bounds` can keep below
 * the terminal's text), tmux's copies of the terminal's oldest rows, and of rows the previous read
 * saw that left the terminal since.
 */
export function planBack(
  emulator: PaneEmulator,
  mark: ReadMark,
  bounds: { lines: number; bytes: number },
): { value: BackPlan; ranges: RowRange[] } {
  const rows = rowsSince(emulator, mark);
  const to = emulator.firstRow;
  const start = to - rows.missedRows;
  const from = Math.min(to, Math.max(start, emulator.historyFloor));
  const plan: BackPlan = {
    rows,
    start,
    from,
    fetch: to,
    to,
    overlap: [],
    seen: undefined,
    prints: new Uint32Array(0),
    needed: false,
  };
  if (emulator.historyFloor >= to || !needsBack(emulator, mark)) return { value: plan, ranges: [] };
  plan.needed = true;
  const held = size(rows.text);
  const room = Math.max(0, Math.min(bounds.lines - held.lines, bounds.bytes - held.bytes));
  plan.fetch = Math.max(from, to - Math.min(room, MAX_BACK_ROWS));
  const end = Math.min(to + OVERLAP_ROWS, emulator.screenTop);
  for (let row = to; row < end; row++) plan.overlap.push(emulator.rowText(row));
  // Rows on or below the one the previous read ended on may have been written further since.
  const seenFrom = Math.max(mark.top, emulator.historyFloor);
  const seenTo = Math.min(mark.top + mark.prints.length, to, mark.resume);
  if (seenFrom < seenTo) {
    plan.seen = { from: seenFrom, to: seenTo };
    plan.prints = mark.prints.slice(seenFrom - mark.top, seenTo - mark.top);
  }
  if (plan.fetch > from) {
    // Cut for the bounds: one row more above, to tell whether the cut falls inside a line.
    const cut = { from: plan.fetch - 1, to: end };
    return { value: plan, ranges: plan.seen ? [cut, plan.seen] : [cut] };
  }
  // Read from the start, and from rows above it: where the start's line begins when the previous
  // read ended inside it (a read returns such a line again, whole).
  const lead = Math.max(emulator.historyFloor, Math.min(from, seenFrom) - LINE_LEAD);
  return { value: plan, ranges: [{ from: lead, to: end }] };
}

/** A row's text without trailing spaces, as the terminal and `capture-pane -p` give it. */
function trimEnd(text: string): string {
  let end = text.length;
  while (end > 0 && text.charCodeAt(end - 1) === 0x20) end--;
  return end === text.length ? text : text.slice(0, end);
}

/** Whether tmux's rows agree with what the terminal held and the previous read saw. */
function agrees(plan: BackPlan, tmux: TmuxRows): boolean {
  const seen = plan.seen ?? { from: 0, to: 0 };
  for (const range of tmux.ranges) {
    for (let i = 0; i < range.texts.length; i++) {
      const row = range.from + i;
      const text = trimEnd(range.texts[i]);
      if (row >= plan.to && text !== plan.overlap[row - plan.to]) return false;
      if (row >= seen.from && row < seen.to) {
        if (fingerprint(text) !== plan.prints[row - seen.from]) return false;
      }
    }
  }
  return true;
}

/**
 * The read `plan` stands for, with the rows tmux gave back before the terminal's text (without
 * `tmux`, or when its rows disagree with the terminal, the read as the terminal alone gives it).
 * Rows tmux no longer holds, or that cannot be matched with tmux's (above the history floor), are
 * `missedRows`; rows tmux holds that the bounds would drop are `skippedRows`.
 */
export function joinBack(plan: BackPlan, tmux: TmuxRows | undefined): BackRead {
  const { rows, start, from, fetch, to } = plan;
  if (!plan.needed || !tmux || !agrees(plan, tmux)) return { ...rows, skippedRows: 0 };
  const mine = tmux.ranges[0];
  const held = Math.min(to, Math.max(from, tmux.oldest));
  let first = Math.max(fetch, held);
  const wraps = (row: number) => row >= mine.from && mine.wrapped[row - mine.from];
  if (first > held) {
    // Rows left out for the bounds end where a line starts: the rest of a line cut there goes too
    // (the row above the first one asked for was captured for its wrap).
    while (first < to && wraps(first - 1)) first++;
  } else {
    // A start inside a line moves up to its beginning, as far as tmux still holds it.
    while (wraps(first - 1)) first--;
  }
  let text = "";
  let line = "";
  for (let row = first; row < to; row++) {
    const i = row - mine.from;
    line += mine.texts[i];
    if (mine.wrapped[i]) continue;
    text += trimEnd(line) + "\n";
    line = "";
  }
  // A line that goes on in the rows the terminal holds is joined with them.
  return {
    ...rows,
    text: text + line + rows.text,
    missedRows: held - start,
    skippedRows: Math.max(0, first - held),
  };
}
