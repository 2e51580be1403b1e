/**
 * Draw a cell grid into RGB pixels (docs/design.md §9), one {@link CELL} per cell, no padding.
 * Per cell, in order: the colours are resolved (default, 16 ANSI colours of the theme, xterm's
 * 256, truecolour; bold brightens ANSI 0–7; inverse swaps; dim mixes the foreground halfway to the
 * background; invisible hides it; the cursor cell is drawn inverted), the background is filled,
 * then the character: its glyph from the atlas (bold face, else emboldened; italic sheared), a
 * wide character centred over its two cells, combining marks over it, and a replacement box when
 * the font lacks the character; then underline, strikethrough and overline.
 */
import {
  ATTR,
  type Cell,
  type CellColor,
  type CellGrid,
  DEFAULT_COLOR,
  RGB_COLOR,
} from "./cells.ts";
import { CELL, type Face, type Faces, GLYPH_BYTES, glyphIndex } from "./font.ts";
import { Pacer } from "./pace.ts";
import { mix, paletteColor, type Theme } from "./palette.ts";

/** Pixels, 3 bytes (R, G, B) each, row-major. */
export interface Raster {
  width: number;
  height: number;
  data: Uint8Array;
}

/** How far italic text leans: pixels right per pixel up. */
const SLANT = 0.2;

function resolve(color: CellColor, theme: Theme, fallback: number, brighten: boolean): number {
  if (color === DEFAULT_COLOR) return fallback;
  if (color & RGB_COLOR) return color & 0xffffff;
  return paletteColor(theme, brighten && color < 8 ? color + 8 : color);
}

/** The foreground and background a cell is drawn with. */
function colors(cell: Cell, theme: Theme, cursor: boolean): [number, number] {
  let fg = resolve(cell.fg, theme, theme.foreground, (cell.attrs & ATTR.bold) !== 0);
  let bg = resolve(cell.bg, theme, theme.background, false);
  if (cell.attrs & ATTR.inverse) [fg, bg] = [bg, fg];
  if (cell.attrs & ATTR.dim) fg = mix(fg, bg, 0.5);
  if (cell.attrs & ATTR.invisible) fg = bg;
  if (cursor) {
    // A block cursor: the cell inverted, or the theme's cursor colour where that would not show.
    [fg, bg] = fg === bg ? [theme.background, theme.cursor] : [bg, fg];
  }
  return [fg, bg];
}

/** Writes into one raster. */
class Painter {
  readonly #raster: Raster;
  /** Coverage of the glyph being drawn (0–255), one cell: as stored, and as drawn. */
  readonly #plain = new Uint8Array(CELL.width * CELL.height);
  readonly #alpha = new Uint8Array(CELL.width * CELL.height);

  constructor(raster: Raster) {
    this.#raster = raster;
  }

  fill(x0: number, y0: number, w: number, h: number, color: number): void {
    const { width, data } = this.#raster;
    const [r, g, b] = [color >> 16, (color >> 8) & 0xff, color & 0xff];
    const x1 = Math.min(x0 + w, width);
    for (let y = y0; y < y0 + h; y++) {
      for (let x = x0, i = (y * width + x0) * 3; x < x1; x++, i += 3) {
        data[i] = r;
        data[i + 1] = g;
        data[i + 2] = b;
      }
    }
  }

  /** Blend `color` over the pixels of a cell-sized box at (x0, y0) by the glyph's coverage. */
  #blend(x0: number, y0: number, color: number): void {
    const { width, data } = this.#raster;
    const r = color >> 16, g = (color >> 8) & 0xff, b = color & 0xff;
    const columns = Math.min(CELL.width, width - x0);
    for (let y = 0; y < CELL.height; y++) {
      for (let x = 0; x < columns; x++) {
        const a = this.#alpha[y * CELL.width + x];
        if (a === 0) continue;
        const i = ((y0 + y) * width + x0 + x) * 3;
        if (a === 255) {
          data[i] = r;
          data[i + 1] = g;
          data[i + 2] = b;
          continue;
        }
        data[i] += Math.round(((r - data[i]) * a) / 255);
        data[i + 1] += Math.round(((g - data[i + 1]) * a) / 255);
        data[i + 2] += Math.round(((b - data[i + 2]) * a) / 255);
      }
    }
  }

  /**
   * Draw glyph `index` of `face` into the cell box at (x0, y0). Emboldening and slanting keep 16
   * coverage levels, so a colour pair never yields more than 16 blends (docs/design.md §9).
   */
  glyph(
    x0: number,
    y0: number,
    face: Face,
    index: number,
    color: number,
    style: { embolden: boolean; italic: boolean },
  ): void {
    const plain = this.#plain, alpha = this.#alpha, w = CELL.width;
    const base = index * GLYPH_BYTES;
    for (let i = 0; i < GLYPH_BYTES; i++) {
      const byte = face.glyphs[base + i];
      plain[2 * i] = (byte >> 4) * 17;
      plain[2 * i + 1] = (byte & 15) * 17;
    }
    if (!style.embolden && !style.italic) {
      alpha.set(plain);
      this.#blend(x0, y0, color);
      return;
    }
    for (let y = 0; y < CELL.height; y++) {
      const shift = style.italic ? (CELL.baseline - y) * SLANT : 0;
      const whole = Math.floor(shift), part = shift - whole;
      const row = y * w;
      for (let x = 0; x < w; x++) {
        const sx = x - whole;
        let a = (sx >= 0 && sx < w ? plain[row + sx] : 0) * (1 - part) +
          (sx >= 1 && sx <= w ? plain[row + sx - 1] : 0) * part;
        if (style.embolden) {
          const bx = sx - 1;
          const b = (bx >= 0 && bx < w ? plain[row + bx] : 0) * (1 - part) +
            (bx >= 1 && bx <= w ? plain[row + bx - 1] : 0) * part;
          if (b > a) a = b;
        }
        alpha[row + x] = Math.round(a / 17) * 17;
      }
    }
    this.#blend(x0, y0, color);
  }

  /** A visible box for a character the font lacks, over `cells` cells. */
  replacement(x0: number, y0: number, cells: number, color: number): void {
    const w = cells * CELL.width;
    const [left, right, top, bottom] = [x0 + 1, x0 + w - 2, y0 + 2, y0 + CELL.height - 3];
    this.fill(left, top, right - left + 1, 1, color);
    this.fill(left, bottom, right - left + 1, 1, color);
    this.fill(left, top, 1, bottom - top + 1, color);
    this.fill(right, top, 1, bottom - top + 1, color);
  }
}

/**
 * Draw `grid` with `theme`; the cursor cell is marked when `cursor` is true and it is shown. The
 * event loop gets a turn between rows once a slice of time is used (docs/design.md §9.5).
 */
export async function rasterize(
  grid: CellGrid,
  faces: Faces,
  theme: Theme,
  cursor: boolean,
): Promise<Raster> {
  const pacer = new Pacer();
  const width = grid.columns * CELL.width, height = grid.rows * CELL.height;
  const raster = { width, height, data: new Uint8Array(width * height * 3) };
  // Every pixel belongs to a cell and is filled with that cell's background below.
  const painter = new Painter(raster);
  const mark = cursor ? grid.cursor : undefined;
  for (let row = 0; row < grid.rows; row++) {
    await pacer.breathe();
    for (let column = 0; column < grid.columns; column++) {
      const cell = grid.cells[row * grid.columns + column];
      if (cell.width === 0) continue; // the right half of a wide character, drawn with it
      const cells = cell.width === 2 ? 2 : 1;
      const onCursor = mark !== undefined && mark.y === row &&
        (mark.x === column || (cells === 2 && mark.x === column + 1));
      const [fg, bg] = colors(cell, theme, onCursor);
      const x0 = column * CELL.width, y0 = row * CELL.height;
      painter.fill(x0, y0, cells * CELL.width, CELL.height, bg);
      drawText(painter, faces, cell, x0, y0, cells, fg);
      const line = (y: number) => painter.fill(x0, y0 + y, cells * CELL.width, 1, fg);
      if (cell.attrs & ATTR.underline) line(CELL.underline);
      if (cell.attrs & ATTR.strikethrough) line(Math.round(CELL.baseline * 0.7));
      if (cell.attrs & ATTR.overline) line(0);
    }
  }
  return raster;
}

/** The character of a cell: glyphs of its code points, or a replacement box for its first. */
function drawText(
  painter: Painter,
  faces: Faces,
  cell: Cell,
  x0: number,
  y0: number,
  cells: number,
  fg: number,
) {
  if (cell.text === "" || cell.text === " ") return;
  const bold = (cell.attrs & ATTR.bold) !== 0;
  const italic = (cell.attrs & ATTR.italic) !== 0;
  // The font's glyphs are one cell wide: a wide character's is centred over its two.
  const x = x0 + (cells - 1) * (CELL.width / 2);
  let first = true;
  for (const char of cell.text) {
    const cp = char.codePointAt(0)!;
    const boldIndex = bold ? glyphIndex(faces.bold, cp) : -1;
    const [face, index] = boldIndex >= 0
      ? [faces.bold, boldIndex]
      : [faces.regular, glyphIndex(faces.regular, cp)];
    if (index >= 0) {
      painter.glyph(x, y0, face, index, fg, { embolden: bold && boldIndex < 0, italic });
    } else if (first) {
      painter.replacement(x0, y0, cells, fg);
    }
    // A mark the font lacks (a variation selector, a joiner) is invisible by design: skipped.
    first = false;
  }
}
