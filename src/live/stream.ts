/**
 * One pane's output stream: the bytes it printed since the stream started, the newest
 * `retainBytes` of them kept, addressed by absolute byte offsets that cursors carry.
 */
import { ToolError } from "../errors.ts";

/** Cursor syntax: `ltxc1.<32 hex stream id>.<byte offset>` (seed 001's pattern, verbatim). */
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
  return Array.from(
    crypto.getRandomValues(new Uint8Array(16)),
    (b) => b.toString(16).padStart(2, "0"),
  )
    .join("");
}

/** Why a wait ended. */
export type WaitOutcome = "output" | "timeout";

/** The retained output of one pane and the callers waiting for more. */
export class PaneStream {
  readonly id: string = newStreamId();
  readonly paneId: string;
  readonly generation: string;
  readonly sessionId: string;
  /** Last time a caller used this stream (ms since epoch). */
  lastUsed: number = Date.now();
  /** Callers blocked in {@link waitForOutput}; a stream with waiters is in use. */
  waiters: number = 0;
  #chunks: Uint8Array[] = [];
  #retained = 0;
  #total = 0;
  readonly #retainBytes: number;
  #wake = new Set<(error?: ToolError) => void>();
  #ended: ToolError | undefined;

  constructor(paneId: string, generation: string, sessionId: string, retainBytes: number) {
    this.paneId = paneId;
    this.generation = generation;
    this.sessionId = sessionId;
    this.#retainBytes = retainBytes;
  }

  /** Bytes received since the stream started (the offset of the next byte). */
  get total(): number {
    return this.#total;
  }

  /** Offset of the oldest byte still retained. */
  get start(): number {
    return this.#total - this.#retained;
  }

  /** Why the stream ended (connection lost…), if it has. */
  get ended(): ToolError | undefined {
    return this.#ended;
  }

  /** Append bytes the pane printed; drop the oldest beyond the retention limit; wake waiters. */
  append(bytes: Uint8Array): void {
    if (bytes.length === 0 || this.#ended) return;
    this.#chunks.push(bytes.slice());
    this.#retained += bytes.length;
    this.#total += bytes.length;
    while (this.#retained - this.#chunks[0].length >= this.#retainBytes) {
      this.#retained -= this.#chunks.shift()!.length;
    }
    if (this.#retained > this.#retainBytes) {
      const extra = this.#retained - this.#retainBytes;
      this.#chunks[0] = this.#chunks[0].subarray(extra);
      this.#retained -= extra;
    }
    for (const wake of this.#wake) wake();
  }

  /** Bytes from `offset` to the end, and how many bytes before them were no longer retained. */
  read(offset: number): { bytes: Uint8Array; missedBytes: number; from: number } {
    const from = Math.max(offset, this.start);
    const out = new Uint8Array(this.#total - from);
    let pos = this.start;
    let n = 0;
    for (const chunk of this.#chunks) {
      const chunkEnd = pos + chunk.length;
      if (chunkEnd > from) {
        const part = chunk.subarray(Math.max(0, from - pos));
        out.set(part, n);
        n += part.length;
      }
      pos = chunkEnd;
    }
    return { bytes: out, missedBytes: Math.max(0, this.start - offset), from };
  }

  /**
   * Wait until output beyond `offset` exists, `ms` pass, or `signal` aborts. Costs nothing while
   * idle: it sleeps on the stream, which the control connection feeds.
   */
  waitForOutput(offset: number, ms: number, signal: AbortSignal): Promise<WaitOutcome> {
    if (this.#ended) return Promise.reject(this.#ended);
    if (this.#total > offset) return Promise.resolve("output");
    if (signal.aborted) return Promise.reject(new ToolError("cancelled", "the call was cancelled"));
    this.waiters++;
    return new Promise<WaitOutcome>((resolve, reject) => {
      const done = (outcome: WaitOutcome | ToolError) => {
        this.#wake.delete(wake);
        clearTimeout(timer);
        signal.removeEventListener("abort", onAbort);
        this.waiters--;
        this.lastUsed = Date.now();
        if (outcome instanceof ToolError) reject(outcome);
        else resolve(outcome);
      };
      const wake = (error?: ToolError) => done(error ?? "output");
      const onAbort = () => done(new ToolError("cancelled", "the call was cancelled"));
      const timer = setTimeout(() => done("timeout"), ms);
      signal.addEventListener("abort", onAbort, { once: true });
      this.#wake.add(wake);
    });
  }

  /** End the stream (connection lost or stream expired): waiters fail with `reason`. */
  end(reason: ToolError): void {
    if (this.#ended) return;
    this.#ended = reason;
    this.#chunks = [];
    this.#retained = 0;
    for (const wake of [...this.#wake]) wake(reason);
  }
}
