/**
 * The cell grid a screenshot draws: each cell's text, width and attributes, read from an xterm.js
 * buffer. A pane's `capture-pane -e -N -p` output is turned into one by writing it into a fresh
 * headless terminal of the pane's width, one captured line per row (docs/design.md §9).
 */
import type { IBuffer, IBufferCell, Terminal } from "@xterm/headless";
// As in src/live/emulator.ts: the package's "module" field names a file it does not ship, which
// bundlers follow, so its ESM build is imported by path; the types above are the package's own.
import * as headless from "@xterm/headless/lib-headless/xterm-headless.mjs";
import { Unicode11Addon } from "@xterm/addon-unicode11";

const XTerminal = (headless as unknown as { Terminal: typeof Terminal }).Terminal;

/** Attribute bits of a {@link Cell}. */
export const ATTR = {
  bold: 1,
  dim: 2,
  italic: 4,
  underline: 8,
  inverse: 16,
  invisible: 32,
  strikethrough: 64,
  overline: 128,
} as const;

/** A colour of a cell: {@link DEFAULT_COLOR}, a palette index 0–255, or `RGB_COLOR | 0xRRGGBB`. */
export type CellColor = number;

/** The terminal's default foreground or background. */
export const DEFAULT_COLOR = -1;
/** Marks a truecolour value. */
export const RGB_COLOR = 0x1000000;

/** One cell. */
export interface Cell {
  /** The character with its combining marks; "" for an empty cell. */
  text: string;
  /** 1, 2 for a wide character, 0 for the cell a wide character's right half covers. */
  width: number;
  fg: CellColor;
  bg: CellColor;
  /** {@link ATTR} bits. */
  attrs: number;
}

/** The cells to draw, row by row, and where the cursor is (if it is shown). */
export interface CellGrid {
  columns: number;
  rows: number;
  /** `rows × columns` cells, row-major. */
  cells: Cell[];
  cursor?: { x: number; y: number };
}

function color(mode: "fg" | "bg", cell: IBufferCell): CellColor {
  const [isDefault, isRgb, value] = mode === "fg"
    ? [cell.isFgDefault(), cell.isFgRGB(), cell.getFgColor()]
    : [cell.isBgDefault(), cell.isBgRGB(), cell.getBgColor()];
  if (isDefault) return DEFAULT_COLOR;
  return isRgb ? RGB_COLOR | value : value;
}

/** Rows `top` … `top + rows - 1` of a buffer, its first `columns` columns. */
export function gridFromBuffer(
  buffer: IBuffer,
  top: number,
  rows: number,
  columns: number,
): CellGrid {
  const cells: Cell[] = [];
  const scratch = buffer.getNullCell();
  for (let y = top; y < top + rows; y++) {
    const line = buffer.getLine(y);
    for (let x = 0; x < columns; x++) {
      const cell = line?.getCell(x, scratch);
      if (!cell) {
        cells.push({ text: "", width: 1, fg: DEFAULT_COLOR, bg: DEFAULT_COLOR, attrs: 0 });
        continue;
      }
      const attrs = (cell.isBold() ? ATTR.bold : 0) | (cell.isDim() ? ATTR.dim : 0) |
        (cell.isItalic() ? ATTR.italic : 0) | (cell.isUnderline() ? ATTR.underline : 0) |
        (cell.isInverse() ? ATTR.inverse : 0) | (cell.isInvisible() ? ATTR.invisible : 0) |
        (cell.isStrikethrough() ? ATTR.strikethrough : 0) |
        (cell.isOverline() ? ATTR.overline : 0);
      cells.push({
        text: cell.getChars(),
        width: cell.getWidth(),
        fg: color("fg", cell),
        bg: color("bg", cell),
        attrs,
      });
    }
  }
  return { columns, rows, cells };
}

/**
 * The cells of a capture's lines (`capture-pane -e -N -p`: attributes as escape sequences, their
 * state carried from one line to the next, as tmux prints them), its first `columns` columns.
 * Each line is written at the start of its own row with autowrap off, so nothing scrolls (a
 * scroll would fill the new row with the current background) and a line longer than `columns`
 * spills only into one spare column that is not read.
 */
export async function gridFromCapture(
  lines: readonly string[],
  columns: number,
): Promise<CellGrid> {
  const rows = Math.max(1, lines.length);
  const term = new XTerminal({
    cols: columns + 1,
    rows,
    scrollback: 0,
    allowProposedApi: true,
    logLevel: "off",
  });
  try {
    term.loadAddon(new Unicode11Addon());
    term.unicode.activeVersion = "11";
    const data = "\x1b[?7l" + lines.map((line, y) => `\x1b[${y + 1};1H${line}`).join("");
    await new Promise<void>((resolve) => term.write(data, resolve));
    return gridFromBuffer(term.buffer.active, 0, lines.length, columns);
  } finally {
    term.dispose();
  }
}
