/**
 * MCP over stdio: newline-delimited JSON-RPC on stdin and stdout.
 *
 * The SDK's StdioServerTransport re-concatenates its whole buffer on every chunk (a 9 MB line took
 * seconds), closes itself on a line over 10 MiB while leaving stdin merely paused (nothing ends
 * the process), and drops unreadable input without a reply. Here each byte is scanned once, and
 * every line passes the JSON-RPC boundary checks of jsonrpc.ts before the server sees it.
 *
 * A line over {@link MAX_LINE_BYTES} is skipped up to its newline without being buffered, reported
 * on stderr and answered with an Invalid Request error (id null: it was never read); serving goes
 * on with the next line. One oversize message is the client's mistake, not a reason to hang up on
 * it. End of input (after at most {@link END_DRAIN_MS} for answers to requests already read), a
 * read error or a failed write close the transport; `closeReason` says which, and the owner
 * decides how to end the process.
 */
import { checkText, type JsonRpcErrorReply, oversizeReply } from "./jsonrpc.ts";
import type { JSONRPCMessage, RequestId, Transport } from "./sdk.ts";

/** The longest input line (one message) read; longer ones are skipped. */
const MAX_LINE_BYTES = 10 * 1024 * 1024;

/** After end of input, how long requests already read may take to be answered before closing. */
const END_DRAIN_MS = 1_000;

/** Why the transport closed; `error` when it was not a normal end. */
export interface CloseReason {
  error: boolean;
  message: string;
}

/** Options of a {@link StdioTransport}; the defaults are the process's stdin and stdout. */
interface StdioTransportOptions {
  input?: ReadableStream<Uint8Array>;
  output?: WritableStream<Uint8Array>;
  maxLineBytes?: number;
  /** One line per refused or skipped input (stderr in main.ts). */
  log?: (message: string) => void;
  /**
   * Writes bytes to the output at once, answering how many were taken (`Deno.stdout.writeSync`
   * when the output is the default): small messages skip the stream's trip through a thread.
   */
  writeSync?: (bytes: Uint8Array) => number;
}

/**
 * Messages up to this size are written synchronously when no other write is in flight (most
 * answers are far smaller): the stream's write hops through a thread, which cost 0.15–0.25 ms
 * a message here and over 1 ms at p90, against 0.04 ms. One such message fits a 64 KiB pipe
 * unless the client has left three quarters of it unread; only then does the write wait for the
 * client, as a blocking write does (docs/design.md §2.4).
 */
const SYNC_WRITE_MAX = 16 * 1024;

const encoder = new TextEncoder();

/**
 * Splits a byte stream into lines. Only new bytes are scanned for `\n`; the pieces of a line
 * spread over several chunks are kept in a list and joined once, when the line ends. A line
 * longer than `max` is dropped as it arrives (constant memory) and reported once.
 */
export class LineSplitter {
  readonly #max: number;
  readonly #onLine: (line: Uint8Array) => void;
  readonly #onOversize: () => void;
  #parts: Uint8Array[] = [];
  #size = 0;
  #skipping = false;

  constructor(max: number, onLine: (line: Uint8Array) => void, onOversize: () => void) {
    this.#max = max;
    this.#onLine = onLine;
    this.#onOversize = onOversize;
  }

  /** Bytes of an unfinished line held so far. */
  get pending(): number {
    return this.#size;
  }

  /** Feed one chunk; complete lines are handed on synchronously, without their `\n`. */
  push(chunk: Uint8Array): void {
    let start = 0;
    while (start <= chunk.length) {
      const newline = chunk.indexOf(0x0a, start);
      const end = newline === -1 ? chunk.length : newline;
      if (!this.#skipping) {
        if (this.#size + end - start > this.#max) {
          this.#parts = [];
          this.#size = 0;
          this.#skipping = true;
          this.#onOversize();
        } else if (newline === -1) {
          // Kept past this call: a copy, in case the reader reuses its buffer.
          if (end > start) this.#parts.push(chunk.slice(start, end));
          this.#size += end - start;
        } else {
          this.#onLine(this.#join(chunk.subarray(start, end)));
        }
      }
      if (newline === -1) return;
      this.#skipping = false;
      start = newline + 1;
    }
  }

  #join(last: Uint8Array): Uint8Array {
    const parts = this.#parts;
    const size = this.#size + last.length;
    this.#parts = [];
    this.#size = 0;
    if (parts.length === 0) return last;
    const line = new Uint8Array(size);
    let at = 0;
    for (const part of [...parts, last]) {
      line.set(part, at);
      at += part.length;
    }
    return line;
  }
}

/** The SDK's Transport over stdin/stdout, with linear reading and JSON-RPC boundary checks. */
export class StdioTransport implements Transport {
  onclose?: Transport["onclose"];
  onerror?: Transport["onerror"];
  onmessage?: Transport["onmessage"];

  readonly #input: ReadableStream<Uint8Array>;
  readonly #output: WritableStream<Uint8Array>;
  readonly #max: number;
  readonly #log: (message: string) => void;
  readonly #writeSync: ((bytes: Uint8Array) => number) | undefined;
  /** Writes handed to the output stream and not done: a synchronous one must not overtake them. */
  #streaming = 0;
  readonly #decoder = new TextDecoder();
  #reader: ReadableStreamDefaultReader<Uint8Array> | undefined;
  #writer: WritableStreamDefaultWriter<Uint8Array> | undefined;
  #reason: CloseReason | undefined;
  /** Requests handed to the server and not answered yet. */
  readonly #unanswered = new Set<RequestId>();
  /** Set once input has ended: closes the transport when the last answer is out. */
  #drained: (() => void) | undefined;

  constructor(options: StdioTransportOptions = {}) {
    this.#input = options.input ?? Deno.stdin.readable;
    this.#output = options.output ?? Deno.stdout.writable;
    this.#max = options.maxLineBytes ?? MAX_LINE_BYTES;
    this.#log = options.log ?? (() => {});
    this.#writeSync = options.writeSync ??
      (options.output ? undefined : (bytes) => Deno.stdout.writeSync(bytes));
  }

  /** Why the transport closed; undefined while it is open. */
  get closeReason(): CloseReason | undefined {
    return this.#reason;
  }

  /** Start reading stdin (called by the SDK's `connect`). */
  start(): Promise<void> {
    if (this.#reader) throw new Error("StdioTransport already started");
    this.#reader = this.#input.getReader();
    this.#writer = this.#output.getWriter();
    void this.#read(this.#reader);
    return Promise.resolve();
  }

  /** Write one message as a line. A failed write closes the transport. */
  async send(message: JSONRPCMessage): Promise<void> {
    try {
      await this.#write(message);
    } finally {
      if ("id" in message && message.id !== undefined && !("method" in message)) {
        this.#unanswered.delete(message.id);
      }
      if (this.#unanswered.size === 0) this.#drained?.();
    }
  }

  /** Stop reading; the owner learns of it through `onclose`. */
  close(): Promise<void> {
    this.#end({ error: false, message: "the server closed the connection" });
    return Promise.resolve();
  }

  async #read(reader: ReadableStreamDefaultReader<Uint8Array>): Promise<void> {
    const lines = new LineSplitter(
      this.#max,
      (line) => this.#line(line),
      () => this.#oversize(),
    );
    try {
      while (this.#reason === undefined) {
        const { done, value } = await reader.read();
        if (done) break;
        lines.push(value);
      }
    } catch (error) {
      this.#end({ error: true, message: `could not read stdin: ${(error as Error).message}` });
      return;
    }
    if (this.#reason !== undefined) return; // closed by the server, not by the input
    if (lines.pending > 0) this.#log(`ignored ${lines.pending} bytes after the last newline`);
    // A client may write its requests and hang up at once (`echo … | tmux-mcp`): what was read
    // is still answered, briefly. Closing first would abort those requests unanswered.
    if (this.#unanswered.size > 0) {
      const drained = Promise.withResolvers<void>();
      this.#drained = drained.resolve;
      const timer = setTimeout(drained.resolve, END_DRAIN_MS);
      await drained.promise;
      clearTimeout(timer);
    }
    this.#end({ error: false, message: "end of input" });
  }

  #line(bytes: Uint8Array): void {
    let text = this.#decoder.decode(bytes);
    if (text.endsWith("\r")) text = text.slice(0, -1);
    if (text.trim() === "") return;
    const checked = checkText(text);
    if (checked.kind === "refused") {
      this.#log(`refused a message: ${checked.reason}`);
      if (checked.reply) this.#write(checked.reply).catch(() => {});
      return;
    }
    const message = checked.message;
    if ("method" in message && "id" in message) this.#unanswered.add(message.id);
    // The SDK sends nothing for a cancelled request, so it is not waited for either.
    if ("method" in message && message.method === "notifications/cancelled") {
      this.#unanswered.delete(message.params?.requestId as RequestId);
    }
    try {
      this.onmessage?.(message);
    } catch (error) {
      this.onerror?.(error as Error);
    }
  }

  #oversize(): void {
    this.#log(
      `skipped an input line over ${this.#max} bytes (the limit of one message); serving goes on`,
    );
    this.#write(oversizeReply(this.#max)).catch(() => {});
  }

  async #write(message: JSONRPCMessage | JsonRpcErrorReply): Promise<void> {
    if (this.#reason !== undefined || !this.#writer) throw new Error("the transport is closed");
    try {
      const bytes = encoder.encode(JSON.stringify(message) + "\n");
      const rest = bytes.length <= SYNC_WRITE_MAX && this.#streaming === 0
        ? this.#writeNow(bytes)
        : bytes;
      if (rest.length === 0) return;
      this.#streaming++;
      try {
        await this.#writer.write(rest);
      } finally {
        this.#streaming--;
      }
    } catch (error) {
      this.#end({ error: true, message: `could not write to stdout: ${(error as Error).message}` });
      throw error;
    }
  }

  /**
   * Write what the output takes at once; the rest (all of it without a synchronous writer, or
   * after a non-blocking output said it would block) goes through the stream.
   */
  #writeNow(bytes: Uint8Array): Uint8Array {
    if (!this.#writeSync) return bytes;
    let at = 0;
    try {
      while (at < bytes.length) at += this.#writeSync(bytes.subarray(at));
    } catch (error) {
      if (!(error instanceof Deno.errors.WouldBlock)) throw error;
    }
    return bytes.subarray(at);
  }

  #end(reason: CloseReason): void {
    if (this.#reason !== undefined) return;
    this.#reason = reason;
    this.#reader?.cancel().catch(() => {});
    this.onclose?.();
  }
}
