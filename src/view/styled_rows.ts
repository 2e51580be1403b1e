/**
 * A frame of the pane view (docs/design.md §10.3): each row of a cell grid (src/render/cells.ts)
 * as text with SGR sequences, which the page writes into its terminal. Pure: no tmux, no I/O.
 *
 * The rows carry only printable text and `ESC [ … m`: a cell's text comes from a terminal's
 * buffer, and any control character that reached one is replaced, so a pane cannot make the
 * view's terminal do anything but show coloured text.
 */
import {
  ATTR,
  type Cell,
  type CellColor,
  type CellGrid,
  DEFAULT_COLOR,
  RGB_COLOR,
} from "../render/cells.ts";

/** The most of a pane a frame shows: the screenshot's bounds, and at most 1 MiB of rows. */
export const FRAME_LIMITS = { columns: 400, rows: 200, bytes: 1_048_576 } as const;

/** SGR codes of the attribute bits, in {@link ATTR}'s order. */
const ATTR_CODES: ReadonlyArray<[number, number]> = [
  [ATTR.bold, 1],
  [ATTR.dim, 2],
  [ATTR.italic, 3],
  [ATTR.underline, 4],
  [ATTR.inverse, 7],
  [ATTR.invisible, 8],
  [ATTR.strikethrough, 9],
  [ATTR.overline, 53],
];

/** Attributes that show on a blank cell, so a trailing blank carrying one is kept. */
const VISIBLE_ON_BLANK = ATTR.inverse | ATTR.underline | ATTR.strikethrough | ATTR.overline;

function colorCodes(color: CellColor, base: number): number[] {
  if (color === DEFAULT_COLOR) return [];
  if (color >= RGB_COLOR) {
    const rgb = color & 0xffffff;
    return [base + 8, 2, rgb >> 16, (rgb >> 8) & 0xff, rgb & 0xff];
  }
  if (color < 8) return [base + color];
  if (color < 16) return [base + 60 + color - 8];
  return [base + 8, 5, color];
}

/** The SGR sequence that sets exactly a cell's attributes and colours from a reset. */
function sgr(cell: Cell): string {
  const codes = [0];
  for (const [bit, code] of ATTR_CODES) if (cell.attrs & bit) codes.push(code);
  codes.push(...colorCodes(cell.fg, 30), ...colorCodes(cell.bg, 40));
  return `\x1b[${codes.join(";")}m`;
}

function plain(cell: Cell): boolean {
  return cell.attrs === 0 && cell.fg === DEFAULT_COLOR && cell.bg === DEFAULT_COLOR;
}

function blank(cell: Cell): boolean {
  return (cell.text === "" || cell.text === " ") && cell.bg === DEFAULT_COLOR &&
    (cell.attrs & VISIBLE_ON_BLANK) === 0;
}

/** A cell's text with C0, DEL and C1 controls replaced (they never belong in a cell). */
function printable(text: string): string {
  if (text === "") return " ";
  // deno-lint-ignore no-control-regex -- the controls are what is replaced
  return text.replace(/[\x00-\x1f\x7f-\x9f]/g, "\ufffd");
}

/** One row: its cells up to the last one that shows, each run of equal style behind one SGR. */
function encodeRow(cells: readonly Cell[], withStyle: boolean): string {
  let end = cells.length;
  while (end > 0 && blank(cells[end - 1])) end--;
  let out = "";
  let style = "";
  for (let x = 0; x < end; x++) {
    const cell = cells[x];
    if (cell.width === 0) continue; // the right half of a wide character
    if (withStyle) {
      const next = plain(cell) ? "" : sgr(cell);
      if (next !== style) out += next === "" ? "\x1b[0m" : next;
      style = next;
    }
    out += printable(cell.text);
  }
  return style === "" ? out : out + "\x1b[0m";
}

/** A grid's rows as text with SGR sequences; `styled` is false when they had to go plain. */
export function encodeRows(grid: CellGrid): { lines: string[]; styled: boolean } {
  const rowsOf = (withStyle: boolean) => {
    const rows: string[] = [];
    for (let y = 0; y < grid.rows; y++) {
      const from = y * grid.columns;
      rows.push(encodeRow(grid.cells.slice(from, from + grid.columns), withStyle));
    }
    return rows;
  };
  const styled = rowsOf(true);
  const size = styled.reduce((n, row) => n + row.length, 0);
  // UTF-16 units bound the bytes within 3x; a frame with colours over the budget goes plain.
  if (size * 3 <= FRAME_LIMITS.bytes || utf8(styled) <= FRAME_LIMITS.bytes) {
    return { lines: styled, styled: true };
  }
  return { lines: rowsOf(false), styled: false };
}

const encoder = new TextEncoder();

function utf8(rows: readonly string[]): number {
  return rows.reduce((n, row) => n + encoder.encode(row).length, 0);
}
