/**
 * The cursor vocabulary shared by a pane's stream and the reads of it (docs/design.md §7.3): the
 * cursor's syntax, stream ids, the read mark a cursor's offset names, and the memory of recent
 * reads that turns an offset back into its mark. Pure: no stream, no terminal.
 */
import { ToolError } from "../errors.ts";
import { randomHex } from "../base/random.ts";

/** Cursor syntax: `ltxc1.<32 hex stream id>.<offset>` (the ltxc1 cursor, docs/design.md §1.6). */
export const CURSOR_PATTERN = /^ltxc1\.[0-9a-f]{32}\.(?:0|[1-9][0-9]*)$/;

/** Format a cursor. */
export function formatCursor(streamId: string, offset: number): string {
  return `ltxc1.${streamId}.${offset}`;
}

/** Parse a cursor (already matched against the schema's pattern). */
export function parseCursor(cursor: string): { streamId: string; offset: number } {
  const m = /^ltxc1\.([0-9a-f]{32})\.(0|[1-9][0-9]*)$/.exec(cursor);
  if (!m || !Number.isSafeInteger(Number(m[2]))) {
    throw new ToolError("stale_cursor", "the cursor is malformed");
  }
  return { streamId: m[1], offset: Number(m[2]) };
}

/** A random 32-hex stream id. */
export function newStreamId(): string {
  return randomHex(16);
}

/** Reads remembered per stream, so several readers can follow one pane (docs/design.md §7.3). */
export const READ_MEMORY = 64;

/** Where a read left a pane's rows: enough to tell what changed since, and where to resume. */
export interface ReadMark {
  /** The row the next read starts from at the latest. */
  resume: number;
  /** The first fingerprinted row: the screen's top then (rows above it no longer change). */
  top: number;
  /** Fingerprints of rows `top` … `last`. */
  prints: Uint32Array;
  /** The last row holding text then. */
  last: number;
  /** Fingerprint of the alternate screen's text, when it was shown. */
  alternate?: number;
}

/**
 * The last {@link READ_MEMORY} reads of one stream, by the offset their cursors carry; the least
 * recently given or recalled is forgotten first.
 */
export class ReadMemory {
  readonly #marks = new Map<number, ReadMark>();
  /** The largest offset a cursor was given. */
  #lastOffset = -1;

  /**
   * Remember where a read left the rows; returns the offset its cursor carries: `position` (the
   * bytes received so far), or — when another read already ended at that position with a
   * different mark (a wait that stopped above the last line, then a read to the end) — the next
   * offset no cursor has, so neither cursor takes the other's place.
   */
  remember(mark: ReadMark, position: number): number {
    let offset = position;
    const held = this.#marks.get(offset);
    if (held !== undefined && held !== mark) offset = Math.max(offset, this.#lastOffset) + 1;
    this.#lastOffset = Math.max(this.#lastOffset, offset);
    this.#marks.delete(offset);
    this.#marks.set(offset, mark);
    while (this.#marks.size > READ_MEMORY) this.#marks.delete(this.#marks.keys().next().value!);
    return offset;
  }

  /** The read a cursor's offset names, if still remembered (using it keeps it longer). */
  recall(offset: number): ReadMark | undefined {
    const mark = this.#marks.get(offset);
    if (mark) {
      this.#marks.delete(offset);
      this.#marks.set(offset, mark);
    }
    return mark;
  }

  /** Forget every read (the stream ended). */
  clear(): void {
    this.#marks.clear();
  }
}
