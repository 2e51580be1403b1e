/**
 * What a framed command printed since an earlier answer (docs/design.md §7.9): wait_for_command
 * gives only the output that is new since the previous answer for its runId, or since a cursor
 * the agent passes back, so its answers put together are the whole output.
 *
 * Where an answer left the output is a {@link RunPosition}. On the normal screen: the row the last
 * line given starts on and that line's text as given, so a line still being written is continued
 * exactly (`"abc"`, then `"def\n1"`); and fingerprints of the rows above it that were still on the
 * screen, which a program can rewrite (rows in the history cannot change). When one of them, or
 * the last line given, no longer reads as it did (a progress bar redrawn with `\r` or cursor
 * movement), the next answer starts again at the first line given that changed and says how many
 * lines given it replaces (`redrawn`); when the output's start moved (a cleared screen), the
 * terminal was resized or the alternate screen is involved, it replaces them all. Rows that left
 * the history before they were given are counted as missed. This module neither spawns nor speaks
 * tmux.
 */
import type { PaneEmulator } from "./emulator.ts";
import { fingerprint } from "./row_changes.ts";
import { lastOutputRow, normalRows, type OutputView } from "./run_output.ts";

/** The output since an earlier answer. */
export interface RunDelta {
  /** The text: it continues the last line given, or starts anew after `redrawn` lines. */
  text: string;
  /** Rows that left the history before they could be given. */
  missedRows: number;
  /** Lines already given, counted from the last, that `text` gives again (redrawn since). */
  redrawn: number;
}

/** Where an answer left the output: what the next answer starts after. */
export type RunPosition =
  /** Nothing given yet: the next answer gives the whole output. */
  | { kind: "none" }
  | RowsPosition
  /** The alternate screen's text, as given. */
  | { kind: "screen"; text: string; lines: number };

/** A place on the normal screen (see the module's header). */
interface RowsPosition {
  kind: "rows";
  /** The output's first row then, and the terminal's resizes then (a resize reflows the rows). */
  start: number;
  resizes: number;
  /** The row the last line given starts on, and its last row. */
  lineRow: number;
  last: number;
  /** The last line's text as given. */
  head: string;
  /** Fingerprints of rows `checkFrom` … `lineRow - 1`: those above it that were on the screen. */
  checkFrom: number;
  prints: Uint32Array;
  /** The rows lines given start on, from the one holding `checkFrom` to `lineRow`. */
  starts: number[];
  /** Lines given in all (rows that left the history counted as lines). */
  lines: number;
}

const NOTHING: RunDelta = { text: "", missedRows: 0, redrawn: 0 };

/** The whole output as `view` shows it. */
function whole(view: OutputView): { text: string; missedRows: number } {
  return "text" in view
    ? { text: view.text, missedRows: 0 }
    : normalRows(view.emulator, view.start);
}

/** Lines given in all by a position (0 for none). */
export function linesGiven(position: RunPosition): number {
  return position.kind === "none" ? 0 : position.lines;
}

/** Where an answer that gives the output up to now leaves it. */
export function positionOf(view: OutputView): RunPosition {
  if ("text" in view) {
    const { text } = view;
    return text === "" ? { kind: "none" } : {
      kind: "screen",
      text,
      lines: text.split("\n").length,
    };
  }
  const { emulator, start } = view;
  const last = lastOutputRow(emulator);
  const from = Math.max(start, emulator.firstRow);
  if (last < from) return { kind: "none" };
  let lineRow = last;
  while (lineRow > from && emulator.isWrapped(lineRow)) lineRow--;
  const checkFrom = Math.max(from, emulator.screenTop);
  const prints = new Uint32Array(Math.max(0, lineRow - checkFrom));
  for (let i = 0; i < prints.length; i++) prints[i] = fingerprint(emulator.rowText(checkFrom + i));
  let first = Math.min(checkFrom, lineRow);
  while (first > from && emulator.isWrapped(first)) first--;
  const starts = [first];
  for (let row = first + 1; row <= lineRow; row++) if (!emulator.isWrapped(row)) starts.push(row);
  let lines = from - start + 1;
  for (let row = from + 1; row <= last; row++) if (!emulator.isWrapped(row)) lines++;
  return {
    kind: "rows",
    start,
    resizes: emulator.resizes,
    lineRow,
    last,
    head: emulator.text(lineRow, last),
    checkFrom,
    prints,
    starts,
    lines,
  };
}

/** The output `view` shows that is new since `position` (see the module's header). */
export function deltaSince(view: OutputView, position: RunPosition): RunDelta {
  if (position.kind === "none") return { ...whole(view), redrawn: 0 };
  if ("text" in view) {
    if (position.kind === "screen" && view.text.startsWith(position.text)) {
      return { text: view.text.slice(position.text.length), missedRows: 0, redrawn: 0 };
    }
    return { text: view.text, missedRows: 0, redrawn: position.lines };
  }
  const { emulator } = view;
  if (
    position.kind !== "rows" || position.start !== view.start ||
    position.resizes !== emulator.resizes
  ) {
    return { ...whole(view), redrawn: position.lines };
  }
  const last = lastOutputRow(emulator);
  const first = emulator.firstRow;
  let changed = firstChanged(emulator, position);
  if (changed === undefined && position.lineRow >= first) {
    const rest = position.lineRow <= last ? emulator.text(position.lineRow, last) : undefined;
    if (rest?.startsWith(position.head)) {
      return { text: rest.slice(position.head.length), missedRows: 0, redrawn: 0 };
    }
    changed = position.lineRow;
  }
  if (changed === undefined) {
    // The last line given left the history: what is still held after it.
    const next = Math.max(position.last + 1, first);
    const missedRows = next - position.last - 1;
    if (next > last) return { ...NOTHING, missedRows };
    const text = (emulator.isWrapped(next) ? "" : "\n") + emulator.text(next, last);
    return { text, missedRows, redrawn: 0 };
  }
  const { starts } = position;
  let k = starts.length - 1;
  while (k > 0 && starts[k] > changed) k--;
  const from = Math.max(starts[k], first);
  const redrawn = starts.length - k;
  const missedRows = from - starts[k];
  return { text: from > last ? "" : emulator.text(from, last), missedRows, redrawn };
}

/** The first row above the last line given that was on the screen and reads otherwise now. */
function firstChanged(emulator: PaneEmulator, position: RowsPosition): number | undefined {
  for (let i = 0; i < position.prints.length; i++) {
    const row = position.checkFrom + i;
    if (row < emulator.firstRow) continue;
    if (fingerprint(emulator.rowText(row)) !== position.prints[i]) return row;
  }
  return undefined;
}
