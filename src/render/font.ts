/**
 * The glyph atlas of src/generated/font_data.ts. Glyphs are looked up by code point; a code point the
 * font lacks has no glyph and the rasterizer draws a replacement box instead (docs/design.md §9).
 *
 * The atlas is decoded for each screenshot (about 5 ms: base64, then zlib's inflate) rather than
 * when the module loads: a server that takes no screenshot pays nothing, and nothing is cached
 * at module level (docs/design.md §2.2). `node:zlib` costs some 60 ms to load, so it is imported
 * on first use, not with the module graph.
 */
import { BOLD, CELL, FONT_NAME, REGULAR } from "../generated/font_data.ts";

export { CELL, FONT_NAME };

/** One face: sorted code points and their 4-bit coverage bitmaps in the same order. */
export interface Face {
  readonly codepoints: Uint32Array;
  /** Two pixels per byte, high nibble first, {@link GLYPH_BYTES} per glyph. */
  readonly glyphs: Uint8Array;
}

/** Both faces; bold covers Latin, Greek, Cyrillic and punctuation only. */
export interface Faces {
  readonly regular: Face;
  readonly bold: Face;
}

/** Bytes of one glyph bitmap. */
export const GLYPH_BYTES = (CELL.width * CELL.height) / 2;

/** zlib's inflate, as `node:zlib` has it. */
type Inflate = (data: Uint8Array) => Uint8Array;

function decode(face: { codepoints: string; glyphs: string }, inflate: Inflate): Face {
  const deltas = new Uint8Array(inflate(Uint8Array.fromBase64(face.codepoints)));
  const view = new DataView(deltas.buffer, deltas.byteOffset, deltas.byteLength);
  const codepoints = new Uint32Array(deltas.byteLength / 4);
  let cp = 0;
  for (let i = 0; i < codepoints.length; i++) codepoints[i] = cp += view.getUint32(i * 4, true);
  const glyphs = new Uint8Array(inflate(Uint8Array.fromBase64(face.glyphs)));
  if (glyphs.length !== codepoints.length * GLYPH_BYTES) throw new Error("corrupt font data");
  return { codepoints, glyphs };
}

/** Decode both faces. */
export async function loadFaces(): Promise<Faces> {
  const { inflateSync } = await import("node:zlib");
  return { regular: decode(REGULAR, inflateSync), bold: decode(BOLD, inflateSync) };
}

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
