/**
 * Generate src/generated/font_data.ts: DejaVu Sans Mono (regular and bold) rasterized once into a
 * glyph atlas at the screenshot's cell size, so the server draws text with no font parser and no
 * file access (it runs without --allow-read; docs/design.md §9).
 *
 *   deno run --lock=deno.dev.lock --allow-read --allow-write=src/render --allow-env scripts/font_module.ts
 *
 * Every code point the font maps gets one cell-sized coverage bitmap, 4 bits per pixel, drawn
 * with exact area coverage (no hinting). The cell is the font's box-drawing span: x from 0 to the
 * advance, y from the bottom to the top of `█`, so box drawing and block elements tile without
 * gaps; the 1% difference between the horizontal and vertical scale is invisible. Zero-width
 * combining marks are moved onto their cell. Output is deterministic: the same font gives the same
 * module, byte for byte.
 */
import { createRequire } from "node:module";
// deno-lint-ignore no-import-prefix -- dev tooling (deno.dev.lock): a start never fetches it
import opentype from "npm:opentype.js@2.0.0";
import { deflateSync } from "node:zlib";
// Imported so that Deno installs the font package; the fonts are read from it below.
// deno-lint-ignore no-import-prefix -- dev tooling (deno.dev.lock): a start never fetches it
import fontPackage from "npm:dejavu-fonts-ttf@2.37.3/package.json" with { type: "json" };

/** Pixels of one cell. */
const CELL_WIDTH = 10;
const CELL_HEIGHT = 20;

const require = createRequire(import.meta.url);
const out = new URL("../src/generated/", import.meta.url);

interface Command {
  type: "M" | "L" | "Q" | "C" | "Z";
  x?: number;
  y?: number;
  x1?: number;
  y1?: number;
  x2?: number;
  y2?: number;
}

interface Font {
  unitsPerEm: number;
  charToGlyph(
    char: string,
  ): { index: number; advanceWidth?: number; path: { commands: Command[] } };
  tables: {
    cmap: { glyphIndexMap: Record<string, number> };
    post: { underlinePosition: number; underlineThickness: number };
  };
}

/** Flatten a glyph outline into closed polygons in pixel space (y down). */
function polygons(
  commands: Command[],
  map: (x: number, y: number) => [number, number],
): Array<Array<[number, number]>> {
  const result: Array<Array<[number, number]>> = [];
  let current: Array<[number, number]> = [];
  let px = 0, py = 0;
  const steps = 12;
  for (const c of commands) {
    if (c.type === "M") {
      if (current.length > 1) result.push(current);
      current = [map(c.x!, c.y!)];
      [px, py] = [c.x!, c.y!];
    } else if (c.type === "L") {
      current.push(map(c.x!, c.y!));
      [px, py] = [c.x!, c.y!];
    } else if (c.type === "Q") {
      for (let i = 1; i <= steps; i++) {
        const t = i / steps, u = 1 - t;
        current.push(map(
          u * u * px + 2 * u * t * c.x1! + t * t * c.x!,
          u * u * py + 2 * u * t * c.y1! + t * t * c.y!,
        ));
      }
      [px, py] = [c.x!, c.y!];
    } else if (c.type === "C") {
      for (let i = 1; i <= steps; i++) {
        const t = i / steps, u = 1 - t;
        current.push(map(
          u * u * u * px + 3 * u * u * t * c.x1! + 3 * u * t * t * c.x2! + t * t * t * c.x!,
          u * u * u * py + 3 * u * u * t * c.y1! + 3 * u * t * t * c.y2! + t * t * t * c.y!,
        ));
      }
      [px, py] = [c.x!, c.y!];
    } else if (c.type === "Z") {
      if (current.length > 1) result.push(current);
      current = [];
    }
  }
  if (current.length > 1) result.push(current);
  return result;
}

/**
 * Exact-area coverage of polygons clipped to a w×h box (the signed-area accumulation rasterizer
 * of font-rs): each edge adds its signed area to the cells it crosses, a running sum along each
 * row gives the winding-weighted coverage, clamped to [0, 1].
 */
function rasterize(shapes: Array<Array<[number, number]>>, w: number, h: number): Float32Array {
  const stride = w + 2;
  const acc = new Float32Array(stride * h);
  const line = (ax: number, ay: number, bx: number, by: number) => {
    if (ay === by) return;
    const dir = ay < by ? 1 : -1;
    const [x0p, y0p, x1p, y1p] = ay < by ? [ax, ay, bx, by] : [bx, by, ax, ay];
    const dxdy = (x1p - x0p) / (y1p - y0p);
    let x = x0p;
    if (y0p < 0) x -= y0p * dxdy;
    for (let y = Math.max(0, Math.floor(y0p)); y < Math.min(h, Math.ceil(y1p)); y++) {
      const base = y * stride;
      const dy = Math.min(y + 1, y1p) - Math.max(y, y0p);
      const xnext = x + dxdy * dy;
      const d = dy * dir;
      const lo = Math.min(x, xnext), hi = Math.max(x, xnext);
      const x0floor = Math.floor(lo);
      const x0i = x0floor;
      const x1i = Math.ceil(hi);
      if (x1i <= x0i + 1) {
        const xmf = 0.5 * (x + xnext) - x0floor;
        acc[base + x0i] += d - d * xmf;
        acc[base + x0i + 1] += d * xmf;
      } else {
        const s = 1 / (hi - lo);
        const x0f = lo - x0floor;
        const a0 = 0.5 * s * (1 - x0f) * (1 - x0f);
        const x1f = hi - x1i + 1;
        const am = 0.5 * s * x1f * x1f;
        acc[base + x0i] += d * a0;
        if (x1i === x0i + 2) {
          acc[base + x0i + 1] += d * (1 - a0 - am);
        } else {
          const a1 = s * (1.5 - x0f);
          acc[base + x0i + 1] += d * (a1 - a0);
          for (let xi = x0i + 2; xi < x1i - 1; xi++) acc[base + xi] += d * s;
          const a2 = a1 + (x1i - x0i - 3) * s;
          acc[base + x1i - 1] += d * (1 - a2 - am);
        }
        acc[base + x1i] += d * am;
      }
      x = xnext;
    }
  };
  // Points left of the box count as at its edge: the winding change happens before column 0.
  const clampX = (x: number) => Math.min(Math.max(x, 0), w);
  for (const shape of shapes) {
    for (let i = 0; i < shape.length; i++) {
      const [ax, ay] = shape[i];
      const [bx, by] = shape[(i + 1) % shape.length];
      line(clampX(ax), ay, clampX(bx), by);
    }
  }
  const coverage = new Float32Array(w * h);
  for (let y = 0; y < h; y++) {
    let sum = 0;
    for (let x = 0; x < w; x++) {
      sum += acc[y * stride + x];
      coverage[y * w + x] = Math.min(1, Math.abs(sum));
    }
  }
  return coverage;
}

type Shapes = Array<Array<[number, number]>>;

/** A disc as a 16-sided polygon, in pixels. */
function disc(cx: number, cy: number, r: number): Array<[number, number]> {
  return Array.from({ length: 16 }, (_, i) => {
    const t = (i / 16) * 2 * Math.PI;
    return [cx + r * Math.cos(t), cy + r * Math.sin(t)] as [number, number];
  });
}

/**
 * Glyphs the font lacks that terminal programs use a lot, drawn here: braille patterns (graphs
 * in btop and similar; bit k of the code point is dot k+1: dots 1–3 and 7 down the left column,
 * 4–6 and 8 down the right) and the four Powerline separators of shell prompts (private use area).
 */
const DRAWN: Record<number, () => Shapes> = {
  0xe0b0: () => [[[0, 0], [CELL_WIDTH, CELL_HEIGHT / 2], [0, CELL_HEIGHT]]],
  0xe0b2: () => [[[CELL_WIDTH, 0], [CELL_WIDTH, CELL_HEIGHT], [0, CELL_HEIGHT / 2]]],
  0xe0b1: () => [[[0, 0], [CELL_WIDTH, CELL_HEIGHT / 2], [0, CELL_HEIGHT], [0, CELL_HEIGHT - 1.4], [
    CELL_WIDTH - 2,
    CELL_HEIGHT / 2,
  ], [0, 1.4]]],
  0xe0b3: () => [[
    [CELL_WIDTH, 0],
    [CELL_WIDTH, 1.4],
    [2, CELL_HEIGHT / 2],
    [
      CELL_WIDTH,
      CELL_HEIGHT - 1.4,
    ],
    [CELL_WIDTH, CELL_HEIGHT],
    [0, CELL_HEIGHT / 2],
  ]],
};
const DOTS: Array<[number, number]> = [[0, 0], [0, 1], [0, 2], [1, 0], [1, 1], [1, 2], [0, 3], [
  1,
  3,
]];
for (let bits = 0; bits < 256; bits++) {
  DRAWN[0x2800 + bits] = () =>
    DOTS.filter((_, k) => bits & (1 << k)).map(([col, row]) =>
      disc((col + 0.5) * (CELL_WIDTH / 2), (row + 0.5) * (CELL_HEIGHT / 4), CELL_WIDTH * 0.16)
    );
}

/** One face's atlas: sorted code points and their 4-bit bitmaps, two pixels per byte. */
function atlas(
  font: Font,
  only?: Set<number>,
): { codepoints: number[]; glyphs: Uint8Array; baseline: number; underline: number } {
  const full = font.charToGlyph("█");
  const box = full.path.commands.filter((c) => c.y !== undefined).map((c) => c.y!);
  const top = Math.max(...box), bottom = Math.min(...box);
  const advance = full.advanceWidth!;
  const sx = CELL_WIDTH / advance, sy = CELL_HEIGHT / (top - bottom);
  const mapped = Object.keys(font.tables.cmap.glyphIndexMap).map(Number);
  const drawn = only ? [] : Object.keys(DRAWN).map(Number).filter((cp) => !mapped.includes(cp));
  const codepoints = [...mapped, ...drawn]
    .filter((cp) => cp >= 0x20 && !(cp >= 0x7f && cp < 0xa0) && (!only || only.has(cp)))
    .sort((a, b) => a - b);
  const size = (CELL_WIDTH * CELL_HEIGHT) / 2;
  const glyphs = new Uint8Array(codepoints.length * size);
  codepoints.forEach((cp, i) => {
    let shapes = DRAWN[cp]?.();
    if (!shapes) {
      const glyph = font.charToGlyph(String.fromCodePoint(cp));
      // A zero-width combining mark is drawn left of its origin, over the previous character.
      const shift = (glyph.advanceWidth ?? advance) === 0 ? advance : 0;
      shapes = polygons(glyph.path.commands, (x, y) => [(x + shift) * sx, (top - y) * sy]);
    }
    const coverage = rasterize(shapes, CELL_WIDTH, CELL_HEIGHT);
    for (let p = 0; p < coverage.length; p += 2) {
      const a = Math.round(coverage[p] * 15), b = Math.round(coverage[p + 1] * 15);
      glyphs[i * size + p / 2] = (a << 4) | b;
    }
  });
  const underline = font.tables.post.underlinePosition - font.tables.post.underlineThickness / 2;
  return {
    codepoints,
    glyphs,
    baseline: Math.round(top * sy),
    underline: Math.min(CELL_HEIGHT - 1, Math.round((top - underline) * sy)),
  };
}

/** Base64 of deflated bytes, cut into lines that fit the formatter's width. */
function packed(bytes: Uint8Array): string {
  const squeezed = new Uint8Array(deflateSync(bytes, { level: 9 }));
  let binary = "";
  for (const b of squeezed) binary += String.fromCharCode(b);
  const text = btoa(binary);
  const lines: string[] = [];
  for (let i = 0; i < text.length; i += 90) lines.push(`    "${text.slice(i, i + 90)}"`);
  return lines.join(" +\n");
}

/** Code points as little-endian 32-bit deltas (small, so they deflate to almost nothing). */
function deltas(codepoints: number[]): Uint8Array {
  const view = new DataView(new ArrayBuffer(codepoints.length * 4));
  codepoints.forEach((cp, i) => view.setUint32(i * 4, cp - (i ? codepoints[i - 1] : 0), true));
  return new Uint8Array(view.buffer);
}

const dir = require.resolve("dejavu-fonts-ttf/package.json").replace(/package\.json$/, "");
const load = async (file: string) =>
  opentype.parse((await Deno.readFile(`${dir}ttf/${file}`)).buffer) as unknown as Font;
const regular = atlas(await load("DejaVuSansMono.ttf"));
// Bold only where text is usually bold (Latin, Greek, Cyrillic, punctuation); box drawing,
// symbols and the rest are emboldened at run time, as terminals do.
const boldRange = new Set(
  regular.codepoints.filter((cp) => cp < 0x530 || (cp >= 0x1e00 && cp < 0x2070)),
);
const bold = atlas(await load("DejaVuSansMono-Bold.ttf"), boldRange);

const version = (fontPackage as { version: string }).version;
const source = `/**
 * Generated by scripts/font_module.ts from DejaVu Sans Mono ${version} (npm dejavu-fonts-ttf): do
 * not edit. The font's licence is FONT_LICENSE.txt next to this file (docs/design.md §9).
 *
 * Per face: \`codepoints\`, sorted, as deflated little-endian 32-bit deltas; \`glyphs\`, one
 * ${CELL_WIDTH}x${CELL_HEIGHT} coverage bitmap per code point in the same order, 4 bits per pixel (high
 * nibble first), deflated. Both base64.
 */

/** Pixels of one cell, and the rows of its baseline and underline (from the top). */
export const CELL = {
  width: ${CELL_WIDTH},
  height: ${CELL_HEIGHT},
  baseline: ${regular.baseline},
  underline: ${regular.underline},
} as const;

/** The font drawn, for results and docs. */
export const FONT_NAME = "DejaVu Sans Mono ${version}";

/** The regular face: ${regular.codepoints.length} code points. */
export const REGULAR = {
  codepoints:
${packed(deltas(regular.codepoints))},
  glyphs:
${packed(regular.glyphs)},
} as const;

/** The bold face: ${bold.codepoints.length} code points (others are emboldened when drawn). */
export const BOLD = {
  codepoints:
${packed(deltas(bold.codepoints))},
  glyphs:
${packed(bold.glyphs)},
} as const;
`;
await Deno.writeTextFile(new URL("font_data.ts", out), source);
await Deno.copyFile(`${dir}LICENSE`, new URL("FONT_LICENSE.txt", out));
console.log(
  `src/generated/font_data.ts: ${regular.codepoints.length} regular and ${bold.codepoints.length} ` +
    `bold glyphs, ${source.length} bytes`,
);
