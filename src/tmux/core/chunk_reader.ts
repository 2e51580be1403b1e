/**
 * Reading a long-lived child's output into one buffer reused for every read, when its stream is a
 * byte stream (a local child's pipe): a default reader allocates a fresh 64 KiB buffer per read,
 * and a control client reads many, so their garbage made most of what a followed session cost the
 * process's RSS (0.4–0.9 MiB per connection; docs/design.md §7.2). Another stream (a remote
 * client's, already transformed) is read as it comes.
 */

/** Bytes read at most at once: what Deno's own reads take. */
const READ_SIZE = 64 * 1024;

/** Reads a stream chunk by chunk; a chunk is valid only until the next read. */
export class ChunkReader {
  readonly #byob: ReadableStreamBYOBReader | undefined;
  readonly #plain: ReadableStreamDefaultReader<Uint8Array> | undefined;
  #buffer: ArrayBuffer = new ArrayBuffer(0);

  constructor(stream: ReadableStream<Uint8Array>) {
    try {
      this.#byob = stream.getReader({ mode: "byob" });
      this.#buffer = new ArrayBuffer(READ_SIZE);
    } catch {
      // Not a byte stream.
      this.#plain = stream.getReader();
    }
  }

  /** The next chunk, or undefined at the end of the stream. */
  async read(): Promise<Uint8Array | undefined> {
    if (!this.#byob) {
      const { done, value } = await this.#plain!.read();
      return done ? undefined : value;
    }
    // The read takes the buffer over and hands it back with the chunk in it.
    const { done, value } = await this.#byob.read(new Uint8Array(this.#buffer, 0, READ_SIZE));
    if (done || !value) return undefined;
    this.#buffer = value.buffer as ArrayBuffer;
    return value;
  }

  /** Stop reading (the stream is cancelled). */
  cancel(): Promise<void> {
    return (this.#byob ?? this.#plain)!.cancel();
  }
}
