/**
 * A pane's cells as a PNG within bounds (docs/design.md §9). Rules, in the order they apply:
 *
 * 1. at most {@link SHOT_LIMITS}.columns columns (the leftmost) and `.rows` rows are drawn: the
 *    screen's rows first, from its top, then as many of the requested history rows as still fit,
 *    the newest; what was left out is counted;
 * 2. one cell size ({@link CELL}), no padding: the picture is `columns × CELL.width` by
 *    `rows × CELL.height` pixels;
 * 3. while the PNG is over `.bytes`, the picture is halved and encoded again, and the scale
 *    reported;
 * 4. the same cells and options give the same bytes.
 */
import type { IBuffer } from "@xterm/headless";
import { type CellGrid, gridFromBuffer, gridFromCapture } from "./cells.ts";
import { CELL, loadFaces } from "./font.ts";
import { encodePng, halve } from "./png.ts";
import { THEME, type ThemeName } from "./palette.ts";
import { rasterize } from "./raster.ts";

export { CELL };

/** The largest grid drawn and the largest PNG returned. */
export const SHOT_LIMITS = { columns: 400, rows: 200, bytes: 1_048_576 } as const;

/** How to draw. */
interface ShotOptions {
  theme: ThemeName;
  /** Mark the cursor's cell (when `cursor` is given). */
  cursor: boolean;
}

/** A drawn picture and what its bounds left out. */
export interface Shot {
  png: Uint8Array;
  pixelWidth: number;
  pixelHeight: number;
  /** 1, or 1/2, 1/4… when the picture was halved to fit {@link SHOT_LIMITS}.bytes. */
  scale: number;
  /** Columns and rows of cells drawn. */
  columns: number;
  rows: number;
  /** History rows drawn above the screen. */
  historyRows: number;
  /** Columns right of the picture and requested rows that it leaves out. */
  clippedColumns: number;
  clippedRows: number;
  /** Whether the cursor's cell is marked. */
  cursorMarked: boolean;
}

/** Draw and encode a grid, halving it while the PNG is over the byte limit. */
async function encodeGrid(grid: CellGrid, options: ShotOptions): Promise<
  Omit<Shot, "columns" | "rows" | "historyRows" | "clippedColumns" | "clippedRows" | "cursorMarked">
> {
  const [faces, zlib] = await Promise.all([loadFaces(), import("node:zlib")]);
  let raster = await rasterize(grid, faces, THEME[options.theme], options.cursor);
  let png = await encodePng(raster, zlib);
  let scale = 1;
  while (png.length > SHOT_LIMITS.bytes && (raster.width > 1 || raster.height > 1)) {
    raster = await halve(raster);
    scale /= 2;
    png = await encodePng(raster, zlib);
  }
  return { png, pixelWidth: raster.width, pixelHeight: raster.height, scale };
}

/** A pane as `capture-pane -e -N -p` printed it, with the cursor in screen coordinates. */
interface CapturedScreen {
  /** History lines (`historyRows`), then the screen's first `screenRows` rows. */
  lines: readonly string[];
  width: number;
  height: number;
  historyRows: number;
  screenRows: number;
  /** Where the cursor is, when the program shows it; x may equal `width` (a pending wrap). */
  cursor?: { x: number; y: number };
}

/** Draw a captured pane within {@link SHOT_LIMITS}. */
export async function shootCapture(screen: CapturedScreen, options: ShotOptions): Promise<Shot> {
  const columns = Math.max(1, Math.min(screen.width, SHOT_LIMITS.columns));
  // tmux carries attributes from line to line: every line is parsed, then the oldest dropped.
  const parsed = await gridFromCapture(screen.lines, columns);
  const dropped = Math.max(0, parsed.rows - SHOT_LIMITS.rows);
  const rows = parsed.rows - dropped;
  const grid: CellGrid = {
    columns,
    rows,
    cells: parsed.cells.slice(dropped * columns),
  };
  const historyRows = screen.historyRows - dropped;
  const cursor = screen.cursor;
  return await finish(grid, options, {
    cursor: cursor && cursor.y < screen.screenRows && cursor.x <= screen.width ? cursor : undefined,
    width: screen.width,
    historyRows,
    clippedRows: dropped + screen.height - screen.screenRows,
  });
}

/** Mark the cursor (when it is on a drawn cell), encode, and report what was left out. */
async function finish(
  grid: CellGrid,
  options: ShotOptions,
  shown: {
    cursor?: { x: number; y: number };
    width: number;
    historyRows: number;
    clippedRows: number;
  },
): Promise<Shot> {
  const columns = grid.columns;
  if (shown.cursor) {
    const x = Math.min(shown.cursor.x, shown.width - 1);
    if (x < columns) grid.cursor = { x, y: shown.historyRows + shown.cursor.y };
  }
  return {
    ...await encodeGrid(grid, options),
    columns,
    rows: grid.rows,
    historyRows: shown.historyRows,
    clippedColumns: shown.width - columns,
    clippedRows: shown.clippedRows,
    cursorMarked: options.cursor && grid.cursor !== undefined,
  };
}

/** A followed pane's terminal (docs/design.md §7.2), as it is now. */
interface LiveScreen {
  /** The screen shown (normal or alternate), with the history above it. */
  buffer: IBuffer;
  width: number;
  height: number;
  /** History rows wanted above the screen (at most what the terminal holds are drawn). */
  historyRows: number;
  /** Whether the program shows the cursor (tmux's `cursor_flag`). */
  cursorVisible: boolean;
}

/** Draw a followed pane's terminal within {@link SHOT_LIMITS}: the same rules, its own cells. */
export async function shootTerminal(screen: LiveScreen, options: ShotOptions): Promise<Shot> {
  const { buffer } = screen;
  const columns = Math.max(1, Math.min(screen.width, SHOT_LIMITS.columns));
  const screenRows = Math.min(screen.height, SHOT_LIMITS.rows);
  const held = Math.min(screen.historyRows, buffer.baseY);
  const historyRows = Math.min(held, SHOT_LIMITS.rows - screenRows);
  const rows = historyRows + screenRows;
  const grid = gridFromBuffer(buffer, buffer.baseY - historyRows, rows, columns);
  return await finish(grid, options, {
    cursor: screen.cursorVisible && buffer.cursorY < screenRows
      ? { x: buffer.cursorX, y: buffer.cursorY }
      : undefined,
    width: screen.width,
    historyRows,
    clippedRows: held - historyRows + screen.height - screenRows,
  });
}
