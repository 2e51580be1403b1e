/**
 * asciicast v2, the format `asciinema play` and `asciinema cat` read (docs/design.md §11.2): a
 * header line, then one event a line, `[seconds, code, data]`. Pure: the recorder decides what
 * to write and when; this module only spells it.
 *
 * Output bytes become text the way a terminal reads them: valid UTF-8 exactly, each invalid byte
 * as U+FFFD, a sequence split across two reads joined (one decoder per pane, streaming).
 */
import { jsonLine } from "./json_line.ts";

/** What the header of one recording file says. */
export interface CastHeader {
  /** The pane's size when the file began. */
  width: number;
  height: number;
  /** When the file began, in seconds since the epoch. */
  timestamp: number;
  /** Which pane this is, for the person replaying it. */
  title: string;
}

/** The event codes of asciicast v2: output, input, marker, resize. */
export type CastCode = "o" | "i" | "m" | "r";

/** The header line of a recording file. */
export function castHeader(header: CastHeader): string {
  return jsonLine({
    version: 2,
    width: header.width,
    height: header.height,
    timestamp: Math.floor(header.timestamp),
    title: header.title,
  });
}

/**
 * One event line. `seconds` is the time since the file's header, kept to microseconds (as
 * asciinema writes it) and never negative.
 */
export function castEvent(seconds: number, code: CastCode, data: string): string {
  return jsonLine([Math.max(0, Math.round(seconds * 1e6) / 1e6), code, data]);
}

/** A resize event's data: `COLSxROWS`. */
export function castSize(cols: number, rows: number): string {
  return `${cols}x${rows}`;
}

/**
 * A pane's output bytes as text, read after read: each call returns what the bytes so far
 * complete, holding an unfinished UTF-8 sequence for the next read.
 */
export class OutputText {
  #decoder = new TextDecoder("utf-8", { fatal: false, ignoreBOM: true });

  /** The text `bytes` complete (an unfinished sequence at their end waits for the next read). */
  decode(bytes: Uint8Array): string {
    return this.#decoder.decode(bytes, { stream: true });
  }

  /** Whatever is held, as U+FFFD (the stream ended inside a sequence); starts afresh. */
  flush(): string {
    const rest = this.#decoder.decode();
    this.#decoder = new TextDecoder("utf-8", { fatal: false, ignoreBOM: true });
    return rest;
  }
}
