/**
 * PNG encoding (docs/design.md §9): 8-bit indexed colour when the picture has at most 256
 * colours (a terminal's usually has: a few colour pairs and 16 coverage levels between them),
 * else 8-bit RGB; no row filters (they made terminal pictures larger, measured); deflated at
 * level 4 (level 6 took half as long again for 5% fewer bytes) with `node:zlib`, Deno's native
 * zlib, several times faster than fast-png's JavaScript deflate. The same pixels always give the
 * same bytes.
 */
import { Pacer } from "./pace.ts";
import { concatBytes } from "../base/utf8.ts";
import type { Raster } from "./raster.ts";

/** What of `node:zlib` the encoder uses (imported on first use by the caller: it loads slowly). */
interface Zlib {
  deflateRawSync(data: Uint8Array, options: { level: number; finishFlush: number }): Uint8Array;
  constants: { Z_SYNC_FLUSH: number; Z_FINISH: number };
}

/** Bytes deflated between two turns of the event loop (some 10–20 ms on a loaded machine). */
const PIECE = 1 << 18;

/** zlib's header for deflate with a 32 KiB window at level 4 (RFC 1950: a multiple of 31). */
const ZLIB_HEADER = [0x78, 0x5e];

/**
 * A zlib stream of `data` (RFC 1950), deflated in pieces with a turn of the event loop between
 * them: each piece ends with a sync flush, so their concatenation is one deflate stream (one
 * deflate call held the loop ~1.7 s for 48 MB; the callback form and CompressionStream block it
 * as long, measured). Pieces share no history, which costs little.
 */
async function zlibStream(data: Uint8Array, zlib: Zlib, pacer: Pacer): Promise<Uint8Array> {
  const parts: Uint8Array[] = [new Uint8Array(ZLIB_HEADER)];
  for (let at = 0; at < data.length || at === 0; at += PIECE) {
    await pacer.breathe();
    const last = at + PIECE >= data.length;
    const flush = last ? zlib.constants.Z_FINISH : zlib.constants.Z_SYNC_FLUSH;
    parts.push(
      new Uint8Array(zlib.deflateRawSync(data.subarray(at, at + PIECE), {
        level: 4,
        finishFlush: flush,
      })),
    );
  }
  const sum = new Uint8Array(4);
  new DataView(sum.buffer).setUint32(0, await adler32(data, pacer));
  parts.push(sum);
  return concatBytes(parts);
}

/** Adler-32 of `data` (RFC 1950), the checksum a zlib stream ends with. */
async function adler32(data: Uint8Array, pacer: Pacer): Promise<number> {
  let a = 1, b = 0;
  // 5552 bytes is the most that can be summed before the modulo without overflowing 2^32.
  for (let at = 0; at < data.length; at += 5552) {
    await pacer.breathe();
    const end = Math.min(at + 5552, data.length);
    for (let i = at; i < end; i++) {
      a += data[i];
      b += a;
    }
    a %= 65521;
    b %= 65521;
  }
  return ((b << 16) | a) >>> 0;
}

const SIGNATURE = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a];

/** CRC-32 (ISO 3309, as PNG chunks use it), table built per call: 256 steps, negligible. */
function crcTable(): Uint32Array {
  const table = new Uint32Array(256);
  for (let n = 0; n < 256; n++) {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    table[n] = c >>> 0;
  }
  return table;
}

/** A PNG chunk; its CRC is summed in pieces, with turns for the event loop (IDAT may be MBs). */
async function chunk(
  type: string,
  body: Uint8Array,
  table: Uint32Array,
  pacer: Pacer,
): Promise<Uint8Array> {
  const out = new Uint8Array(12 + body.length);
  const view = new DataView(out.buffer);
  view.setUint32(0, body.length);
  for (let i = 0; i < 4; i++) out[4 + i] = type.charCodeAt(i);
  out.set(body, 8);
  let crc = 0xffffffff;
  for (let at = 4; at < 8 + body.length; at += PIECE) {
    await pacer.breathe();
    const end = Math.min(at + PIECE, 8 + body.length);
    for (let i = at; i < end; i++) crc = table[(crc ^ out[i]) & 0xff] ^ (crc >>> 8);
  }
  view.setUint32(8 + body.length, (crc ^ 0xffffffff) >>> 0);
  return out;
}

/**
 * The rows of an indexed picture, each led by its filter byte (0), and the palette; undefined
 * when there are more than 256 colours. Colours are numbered in order of first appearance.
 */
async function indexed(
  raster: Raster,
  pacer: Pacer,
): Promise<{ rows: Uint8Array; palette: Uint8Array } | undefined> {
  const { width, height, data } = raster;
  const rows = new Uint8Array((width + 1) * height);
  const colors = new Map<number, number>();
  let last = -1, lastIndex = 0;
  for (let y = 0, p = 0; y < height; y++) {
    await pacer.breathe();
    const start = y * (width + 1) + 1;
    for (let x = 0; x < width; x++, p += 3) {
      const color = (data[p] << 16) | (data[p + 1] << 8) | data[p + 2];
      if (color !== last) {
        let index = colors.get(color);
        if (index === undefined) {
          index = colors.size;
          if (index > 255) return undefined;
          colors.set(color, index);
        }
        last = color;
        lastIndex = index;
      }
      rows[start + x] = lastIndex;
    }
  }
  const palette = new Uint8Array(colors.size * 3);
  for (const [color, index] of colors) {
    palette[index * 3] = color >> 16;
    palette[index * 3 + 1] = (color >> 8) & 0xff;
    palette[index * 3 + 2] = color & 0xff;
  }
  return { rows, palette };
}

/** The raster's rows, each led by its filter byte (0). */
function truecolor(raster: Raster): Uint8Array {
  const stride = raster.width * 3;
  const rows = new Uint8Array((stride + 1) * raster.height);
  for (let y = 0; y < raster.height; y++) {
    rows.set(raster.data.subarray(y * stride, (y + 1) * stride), y * (stride + 1) + 1);
  }
  return rows;
}

/** A PNG of a raster: indexed colour when it has at most 256 colours, else RGB. */
export async function encodePng(raster: Raster, zlib: Zlib): Promise<Uint8Array> {
  const table = crcTable();
  const pacer = new Pacer();
  const pal = await indexed(raster, pacer);
  const header = new Uint8Array(13);
  const view = new DataView(header.buffer);
  view.setUint32(0, raster.width);
  view.setUint32(4, raster.height);
  header[8] = 8; // bit depth
  header[9] = pal ? 3 : 2; // colour type: indexed or RGB
  const data = await zlibStream(pal ? pal.rows : truecolor(raster), zlib, pacer);
  const parts = [
    new Uint8Array(SIGNATURE),
    await chunk("IHDR", header, table, pacer),
    ...(pal ? [await chunk("PLTE", pal.palette, table, pacer)] : []),
    await chunk("IDAT", data, table, pacer),
    await chunk("IEND", new Uint8Array(0), table, pacer),
  ];
  return concatBytes(parts);
}

/** The raster at half its width and height, each pixel the mean of the 2×2 it replaces (paced). */
export async function halve(raster: Raster): Promise<Raster> {
  const pacer = new Pacer();
  const width = Math.max(1, raster.width >> 1), height = Math.max(1, raster.height >> 1);
  const data = new Uint8Array(width * height * 3);
  const src = raster.data, stride = raster.width * 3;
  for (let y = 0; y < height; y++) {
    await pacer.breathe();
    const y0 = Math.min(2 * y, raster.height - 1), y1 = Math.min(2 * y + 1, raster.height - 1);
    for (let x = 0; x < width; x++) {
      const x0 = Math.min(2 * x, raster.width - 1) * 3;
      const x1 = Math.min(2 * x + 1, raster.width - 1) * 3;
      for (let c = 0; c < 3; c++) {
        const sum = src[y0 * stride + x0 + c] + src[y0 * stride + x1 + c] +
          src[y1 * stride + x0 + c] + src[y1 * stride + x1 + c];
        data[(y * width + x) * 3 + c] = (sum + 2) >> 2;
      }
    }
  }
  return { width, height, data };
}
