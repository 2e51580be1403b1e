/**
 * The glyph atlas of src/render/font_data.ts, decoded once when the module loads (about 1 ms;
 * the data is constant, so nothing here changes afterwards). Glyphs are looked up by code point;
 * a code point the font lacks has no glyph and the rasterizer draws a replacement box instead
 * (docs/design.md §9).
 */
import { inflateSync } from "node:zlib";
import { BOLD, CELL, FONT_NAME, REGULAR } from "./font_data.ts";

export { CELL, FONT_NAME };

/** One face: sorted code points and their 4-bit coverage bitmaps in the same order. */
export interface Face {
  readonly codepoints: Uint32Array;
  /** Two pixels per byte, high nibble first, {@link GLYPH_BYTES} per glyph. */
  readonly glyphs: Uint8Array;
}

/** Bytes of one glyph bitmap. */
export const GLYPH_BYTES = (CELL.width * CELL.height) / 2;

function unbase64(text: string): Uint8Array {
  const binary = atob(text);
  const bytes = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
  return bytes;
}

function decode(face: { codepoints: string; glyphs: string }): Face {
  const deltas = new Uint8Array(inflateSync(unbase64(face.codepoints)));
  const view = new DataView(deltas.buffer, deltas.byteOffset, deltas.byteLength);
  const codepoints = new Uint32Array(deltas.byteLength / 4);
  let cp = 0;
  for (let i = 0; i < codepoints.length; i++) codepoints[i] = cp += view.getUint32(i * 4, true);
  const glyphs = new Uint8Array(inflateSync(unbase64(face.glyphs)));
  if (glyphs.length !== codepoints.length * GLYPH_BYTES) throw new Error("corrupt font data");
  return { codepoints, glyphs };
}

/** The two faces; bold covers Latin, Greek, Cyrillic and punctuation only. */
export const FACES: { readonly regular: Face; readonly bold: Face } = Object.freeze({
  regular: decode(REGULAR),
  bold: decode(BOLD),
});

/** The index of `codepoint`'s glyph in `face`, or -1 when the face lacks it. */
export function glyphIndex(face: Face, codepoint: number): number {
  let lo = 0, hi = face.codepoints.length - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    const at = face.codepoints[mid];
    if (at === codepoint) return mid;
    if (at < codepoint) lo = mid + 1;
    else hi = mid - 1;
  }
  return -1;
}
