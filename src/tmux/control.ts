/**
 * The control-mode client: one persistent `tmux -C attach -t $N` per watched session.
 *
 * Control mode parses each input line like a configuration file (`$HOME` expands, `a ; b` runs
 * two commands), so every argument goes through {@link quoteControlArgument}. Replies are
 * `%begin T N F` … `%end T N F` (or `%error`) blocks matched in order; `%output %P data` streams
 * each pane's bytes with octal escapes, which are decoded to raw bytes here (UTF-8 sequences may
 * be split across lines and are reassembled by the reader of the stream). `%layout-change`,
 * `%window-close` and `%subscription-changed` tell the live engine about resizes, closed panes
 * and replaced processes (docs/design.md §7.2–§7.3).
 *
 * A reply read by {@link ControlClient.command} ends at the `%end`/`%error` line that repeats its
 * `%begin`'s "T N F": enough for replies that hold only ids and numbers (docs/design.md §5.11). A
 * reply that may hold text a pane or program controls is read by {@link ControlClient.send}, with
 * a {@link ReplyReader} that decides where it ends (src/tmux/route.ts, docs/design.md §5.14).
 */
import { classifyTmuxFailure, ToolError } from "../errors.ts";
import type { ControlSpawnOptions, TmuxRunner } from "./command.ts";

/**
 * Quote one argument for the control channel so it arrives literally: double quotes, with `\`,
 * `"`, `$` and `~` escaped (tmux expands `$VAR` inside double quotes, and `~` right after the
 * opening quote) and every control character — newline included, which would end the command
 * line — written as an escape tmux decodes inside double quotes. A NUL or a lone surrogate cannot
 * be carried and is refused.
 */
export function quoteControlArgument(arg: string): string {
  if (arg.includes("\0") || !arg.isWellFormed()) {
    throw new ToolError(
      "invalid_arguments",
      "a value holds a NUL or a lone surrogate, which tmux cannot take",
    );
  }
  return `"${arg.replace(CONTROL_SPECIAL, escapeControl)}"`;
}

// deno-lint-ignore no-control-regex
const CONTROL_SPECIAL = /[\\"$~\x00-\x1f\x7f]/g;

function escapeControl(ch: string): string {
  if (ch === "\n") return "\\n";
  if (ch === "\r") return "\\r";
  if (ch === "\t") return "\\t";
  const code = ch.charCodeAt(0);
  return code < 0x20 || code === 0x7f ? `\\${code.toString(8).padStart(3, "0")}` : `\\${ch}`;
}

/** Decode `%output` data: `\ooo` octal escapes become bytes, everything else is already bytes. */
export function decodeOutput(data: Uint8Array): Uint8Array {
  const out = new Uint8Array(data.length);
  let n = 0;
  for (let i = 0; i < data.length; i++) {
    const b = data[i];
    if (
      b === 0x5c && i + 3 < data.length && isOctal(data[i + 1]) && isOctal(data[i + 2]) &&
      isOctal(data[i + 3])
    ) {
      out[n++] = ((data[i + 1] - 48) << 6) | ((data[i + 2] - 48) << 3) | (data[i + 3] - 48);
      i += 3;
    } else {
      out[n++] = b;
    }
  }
  return out.subarray(0, n);
}

function isOctal(b: number | undefined): boolean {
  return b !== undefined && b >= 48 && b <= 55;
}

/** A pane's size in cells. */
export interface PaneSize {
  width: number;
  height: number;
}

/**
 * Pane sizes in tmux layout strings (`csum,WxH,X,Y{…}`, a pane being `WxH,X,Y,N` for pane %N);
 * a later layout wins, so the visible layout of a zoomed window overrides the saved one.
 */
export function layoutPanes(...layouts: string[]): Map<string, PaneSize> {
  const panes = new Map<string, PaneSize>();
  for (const layout of layouts) {
    for (const m of layout.matchAll(/(\d+)x(\d+),\d+,\d+,(\d+)/g)) {
      panes.set(`%${m[3]}`, { width: Number(m[1]), height: Number(m[2]) });
    }
  }
  return panes;
}

/** Callbacks of a control client. */
export interface ControlHandlers {
  /** The tmux client process exists (before it has attached): register it as ours at once. */
  onSpawn?(pid: number): void;
  /** Bytes a pane printed. */
  onOutput(paneId: string, bytes: Uint8Array): void;
  /**
   * A window's layout changed (a resize, a split, a pane closed or moved): the size of every pane
   * it holds now.
   */
  onLayout?(windowId: string, panes: Map<string, PaneSize>): void;
  /** A window closed, or was unlinked from this session. */
  onWindowClose?(windowId: string): void;
  /**
   * The value of a subscription (`refresh-client -B name:%*:format`) changed for a pane; tmux
   * looks about once a second.
   */
  onSubscription?(name: string, paneId: string): void;
  /** The connection became unusable (closed by us, %exit, server death, lost replies). */
  onClose(client: ControlClient, reason: string, byUs: boolean): void;
  /** The tmux client process has exited: it may be forgotten as ours only now. */
  onExit?(pid: number): void;
}

/**
 * Reads one reply made of several blocks, line by line, and decides where it ends; the framing
 * argument of docs/design.md §5.14 lives in its implementation (src/tmux/route.ts).
 */
export interface ReplyReader {
  /** The line is about to be written to tmux: from now on it may have been executed. */
  sent(): void;
  /**
   * One line of the reply, its first `%begin` included. Returns true once the reply is complete;
   * throws a {@link FramingError} when the line cannot belong to it.
   */
  line(text: string): boolean;
}

/**
 * Output on a strict connection that no honest tmux could have sent there: the connection is
 * dropped, since nothing read after it could be trusted.
 */
export class FramingError extends Error {}

/** Options of {@link ControlClient.open}. */
export interface ControlOpenOptions extends ControlSpawnOptions {
  /**
   * Once attached, any block that is not a reply to our own commands (a hook's output) drops the
   * connection: a connection whose replies carry pane text expects nothing else (§5.14).
   */
  strict?: boolean;
}

interface Pending {
  resolve(lines: string[]): void;
  reject(error: Error): void;
  /** Reads the reply instead of the block matcher (see {@link ControlClient.send}). */
  reader?: ReplyReader;
}

interface Block {
  /** "T N F" of the %begin line; the block ends only at `%end`/`%error` with the same triple. */
  key: string;
  ours: boolean;
  lines: string[];
}

const encoder = new TextEncoder();
const decoder = new TextDecoder();
const COMMAND_TIMEOUT_MS = 10_000;
/** How long an open waits for the attach's own block once the channel answers. */
const ATTACH_GRACE_MS = 1_000;
/** How long a detaching client may take to exit before it is killed. */
const CLOSE_GRACE_MS = 1_000;

/** A live control-mode connection to one session. */
export class ControlClient {
  readonly sessionId: string;
  readonly #child: Deno.ChildProcess;
  readonly #writer: WritableStreamDefaultWriter<Uint8Array>;
  readonly #stdout: ReadableStreamDefaultReader<Uint8Array>;
  /** Absent when the client's stderr is not piped (spawnControl discards it). */
  readonly #stderrReader: ReadableStreamDefaultReader<Uint8Array> | undefined;
  readonly #handlers: ControlHandlers;
  readonly #pending: Pending[] = [];
  #block: Block | undefined;
  #closed = false;
  #closing = false;
  #writes: Promise<void> = Promise.resolve();
  #stderr = "";
  /** The last failure tmux reported for a command not ours (e.g. the attach itself). */
  #foreignError = "";
  /** The pending whose reader is reading a reply right now. */
  #reading: Pending | undefined;
  #strict = false;
  /** Blocks that answered no command of ours; the first is the attach itself. */
  #foreignBlocks = 0;
  /** Settles when the attach has been answered (or the connection ended). */
  readonly #attached = Promise.withResolvers<void>();
  readonly #done: Promise<void>;

  private constructor(sessionId: string, child: Deno.ChildProcess, handlers: ControlHandlers) {
    this.sessionId = sessionId;
    this.#child = child;
    this.#writer = child.stdin.getWriter();
    this.#stdout = child.stdout.getReader();
    this.#stderrReader = pipedReader(() => child.stderr);
    this.#handlers = handlers;
    this.#done = Promise.all([this.#readStdout(), this.#readStderr(), child.status]).then(() => {
      this.#lost("the tmux client exited");
      handlers.onExit?.(child.pid);
    });
  }

  /**
   * Attach to a session (by id) and wait until tmux has answered the attach. Fails with the
   * classified tmux error (no server, no such session) and leaves no process behind. Clients of
   * one runner start one at a time (`TmuxRunner.controlStart`).
   */
  static async open(
    runner: TmuxRunner,
    sessionId: string,
    handlers: ControlHandlers,
    options: ControlOpenOptions = {},
  ): Promise<ControlClient> {
    return await runner.controlStart(() =>
      ControlClient.#start(runner, sessionId, handlers, options)
    );
  }

  static async #start(
    runner: TmuxRunner,
    sessionId: string,
    handlers: ControlHandlers,
    options: ControlOpenOptions,
  ): Promise<ControlClient> {
    const child = runner.spawnControl(sessionId, options);
    handlers.onSpawn?.(child.pid);
    const client = new ControlClient(sessionId, child, handlers);
    client.#strict = options.strict ?? false;
    try {
      // A no-op proves the channel answers; the attach is answered by a block of its own, which
      // may come before or after the no-op's (checked: tmux may read our line first), so it is
      // waited for too, briefly: a tmux that never sends it is still served.
      await client.command(["display-message", "-p", ""]);
      let timer: ReturnType<typeof setTimeout> | undefined;
      await Promise.race([
        client.#attached.promise,
        new Promise((r) => timer = setTimeout(r, ATTACH_GRACE_MS)),
      ]);
      clearTimeout(timer);
    } catch (error) {
      await client.close();
      throw error;
    }
    return client;
  }

  /** Pid of the tmux client process (how listings recognise it as ours, not a person). */
  get pid(): number {
    return this.#child.pid;
  }

  /** True once the connection has ended. */
  get closed(): boolean {
    return this.#closed;
  }

  /**
   * Run one tmux command on the channel and return its output lines. Every argument is quoted;
   * format-expanded arguments must still be passed through `literal()` by the caller. `onReply`
   * runs as the reply is read, before any later notification: tmux sends a client's output and
   * replies in order, so it sees the panes exactly as they were when tmux ran the command.
   */
  command(
    args: readonly string[],
    signal?: AbortSignal,
    timeoutMs = COMMAND_TIMEOUT_MS,
    onReply?: (lines: string[]) => void,
  ): Promise<string[]> {
    if (this.#closed) {
      return Promise.reject(new ToolError("server_gone", "the control connection is closed"));
    }
    const line = args.map(quoteControlArgument).join(" ") + "\n";
    return this.#enqueue<string[]>(
      (settled, resolve) => (lines) => {
        if (!settled()) onReply?.(lines);
        resolve(lines);
      },
      undefined,
      () => this.#writer.write(encoder.encode(line)),
      signal,
      timeoutMs,
    );
  }

  /**
   * Write one command line (already quoted by the caller, without its newline) and let `reader`
   * read the reply from its first `%begin` on, until it says the reply is complete. A reader that
   * throws drops the connection: every later reply would be read out of place. As with
   * {@link command}, a call given up (signal) keeps its place, and a reply that does not arrive
   * within `timeoutMs` drops the connection.
   */
  send(
    line: string,
    reader: ReplyReader,
    signal?: AbortSignal,
    timeoutMs = COMMAND_TIMEOUT_MS,
  ): Promise<void> {
    if (this.#closed) {
      return Promise.reject(new ToolError("server_gone", "the control connection is closed"));
    }
    if (line.includes("\n")) throw new Error("internal: a control line holds a newline");
    const bytes = encoder.encode(line + "\n");
    return this.#enqueue<void>(
      (_settled, resolve) => () => resolve(),
      reader,
      () => {
        // Counted as sent before the write: once it starts, tmux may run part of it.
        if (!this.#closed) reader.sent();
        return this.#closed ? undefined : this.#writer.write(bytes);
      },
      signal,
      timeoutMs,
    );
  }

  /**
   * Queue one reply slot and its write. The slot stays queued even if the caller gives up
   * (signal): replies are matched in order. A reply that never comes means the channel lost its
   * place: nothing after it can be trusted, so the whole connection is dropped (its streams end,
   * callers start again) — with no polite detach, since a tmux that does not answer would not
   * take it either.
   */
  #enqueue<T>(
    onLines: (settled: () => boolean, resolve: (value: T) => void) => (lines: string[]) => void,
    reader: ReplyReader | undefined,
    write: () => Promise<void> | undefined,
    signal: AbortSignal | undefined,
    timeoutMs: number,
  ): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      let settled = false;
      const settle = (fn: () => void) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        signal?.removeEventListener("abort", onAbort);
        fn();
      };
      const onAbort = () =>
        settle(() => reject(new ToolError("cancelled", "the call was cancelled")));
      const timer = setTimeout(() => {
        settle(() =>
          reject(new ToolError("timeout", `tmux did not answer within ${timeoutMs} ms`))
        );
        this.#lost("a reply did not arrive in time");
        this.#closing = true;
        this.#terminate();
      }, timeoutMs);
      signal?.addEventListener("abort", onAbort, { once: true });
      const lines = onLines(() => settled, (value) => settle(() => resolve(value)));
      this.#pending.push({
        ...(reader ? { reader } : {}),
        resolve: lines,
        reject: (error) => settle(() => reject(error)),
      });
      this.#writes = this.#writes.then(write).catch(() =>
        this.#lost("could not write to the tmux client")
      );
    });
  }

  /**
   * Detach (end of input makes the client exit) and wait until the process and its pipes are done;
   * whatever is not done within {@link CLOSE_GRACE_MS} is cut off, so closing is bounded whatever
   * tmux does.
   */
  async close(): Promise<void> {
    if (this.#closing) return await this.#done;
    this.#closing = true;
    // Our writes reach the server itself (it holds the client's stdin), so with a stopped server
    // even they may never complete: they are part of the grace period, not waited for after it.
    const detach = this.#writes.then(() => this.#writer.close()).catch(() => {});
    let timer: ReturnType<typeof setTimeout> | undefined;
    const done = await Promise.race([
      Promise.all([detach, this.#done]).then(() => true),
      new Promise<false>((r) => timer = setTimeout(() => r(false), CLOSE_GRACE_MS)),
    ]);
    clearTimeout(timer);
    if (!done) this.#terminate();
    await this.#done;
  }

  /**
   * Kill the client and release our ends of its pipes. Waiting for EOF is not enough: a stopped
   * tmux server holds the client's stdout open (the client hands its fds over), even after the
   * client is dead, so the readers are cancelled. A write still queued is abandoned.
   */
  #terminate(): void {
    try {
      this.#child.kill("SIGKILL");
    } catch {
      // already gone
    }
    this.#writer.abort().catch(() => {});
    this.#stdout.cancel().catch(() => {});
    this.#stderrReader?.cancel().catch(() => {});
  }

  async #readStdout(): Promise<void> {
    let buffer = new Uint8Array(0);
    try {
      while (true) {
        const { done, value: chunk } = await this.#stdout.read();
        if (done) break;
        const joined = new Uint8Array(buffer.length + chunk.length);
        joined.set(buffer);
        joined.set(chunk, buffer.length);
        let start = 0;
        for (let i = 0; i < joined.length; i++) {
          if (joined[i] !== 0x0a) continue;
          this.#line(joined.subarray(start, i));
          start = i + 1;
        }
        buffer = joined.slice(start);
      }
    } catch {
      // the process went away; #lost reports it
    }
  }

  async #readStderr(): Promise<void> {
    if (!this.#stderrReader) return;
    try {
      while (true) {
        const { done, value } = await this.#stderrReader.read();
        if (done) break;
        this.#stderr += decoder.decode(value);
      }
    } catch {
      // ignore
    }
  }

  #line(bytes: Uint8Array): void {
    // Nothing read after the connection ended (or stopped making sense) is trusted.
    if (this.#closed) return;
    if (this.#reading) return this.#read(this.#reading, decoder.decode(bytes));
    if (this.#block) {
      const text = decoder.decode(bytes);
      const end = /^%(end|error) (.*)$/.exec(text);
      if (end && end[2] === this.#block.key) {
        const block = this.#block;
        this.#block = undefined;
        if (!block.ours) this.#attached.resolve();
        if (block.ours) this.#finish(end[1] === "error", block.lines);
        else if (end[1] === "error") this.#foreignError = block.lines.join("\n");
      } else {
        this.#block.lines.push(text);
      }
      return;
    }
    if (startsWith(bytes, "%output ")) {
      const rest = bytes.subarray(8);
      const space = rest.indexOf(0x20);
      if (space > 0) {
        this.#handlers.onOutput(
          decoder.decode(rest.subarray(0, space)),
          decodeOutput(rest.subarray(space + 1)),
        );
      }
      return;
    }
    const text = decoder.decode(bytes);
    const begin = /^%begin (\d+ \d+ (\d+))$/.exec(text);
    if (begin) {
      // Flag 1 marks replies to this client's own commands (the attach block has flag 0).
      const ours = (Number(begin[2]) & 1) === 1;
      if (!ours && ++this.#foreignBlocks > 1 && this.#strict) {
        return this.#broken("output that is not a reply to our commands (a hook?)");
      }
      const head = this.#pending[0];
      // Replies come in the order the commands were written: this one is the oldest pending's.
      if (ours && head?.reader) {
        this.#reading = head;
        return this.#read(head, text);
      }
      if (ours && this.#strict && !head) return this.#broken("a reply nobody asked for");
      this.#block = { key: begin[1], ours, lines: [] };
      return;
    }
    // `%layout-change @W layout visible-layout flags` (the last two since tmux 3.1).
    const layout = /^%layout-change (@\d+) (\S+)(?: (\S+))?/.exec(text);
    if (layout) {
      return this.#handlers.onLayout?.(layout[1], layoutPanes(layout[2], layout[3] ?? ""));
    }
    const closed = /^%(?:unlinked-)?window-close (@\d+)$/.exec(text);
    if (closed) return this.#handlers.onWindowClose?.(closed[1]);
    // `%subscription-changed name $S @W index %P … : value`
    const changed = /^%subscription-changed (\S+) \S+ \S+ \S+ (%\d+) /.exec(text);
    if (changed) return this.#handlers.onSubscription?.(changed[1], changed[2]);
    if (text.startsWith("%exit")) this.#lost(text.slice(5).trim() || "tmux ended the connection");
  }

  /** Hand a line to the reader of the reply in progress; it says when the reply is complete. */
  #read(pending: Pending, text: string): void {
    let done: boolean;
    try {
      done = pending.reader!.line(text);
    } catch (error) {
      return this.#broken(error instanceof Error ? error.message : String(error));
    }
    if (!done) return;
    this.#reading = undefined;
    this.#pending.shift();
    pending.resolve([]);
  }

  /**
   * The output stopped making sense: fail every pending call with a {@link FramingError} and kill
   * the client, reading nothing more from it.
   */
  #broken(reason: string): void {
    if (this.#closed) return;
    this.#closed = true;
    this.#reading = undefined;
    this.#attached.resolve();
    for (const pending of this.#pending.splice(0)) {
      pending.reject(new FramingError(reason));
    }
    this.#closing = true;
    this.#terminate();
    this.#handlers.onClose(this, `framing: ${reason}`, false);
  }

  #finish(failed: boolean, lines: string[]): void {
    const pending = this.#pending.shift();
    if (!pending) return;
    if (!failed) return pending.resolve(lines);
    const { code, message } = classifyTmuxFailure(lines.join("\n"));
    pending.reject(new ToolError(code, message));
  }

  #lost(reason: string): void {
    if (this.#closed) return;
    this.#closed = true;
    this.#reading = undefined;
    // The probe's rejection below says why the attach did not happen.
    this.#attached.resolve();
    const detail = (this.#stderr.trim() || this.#foreignError).trim();
    const failure = detail ? classifyTmuxFailure(detail) : undefined;
    for (const pending of this.#pending.splice(0)) {
      pending.reject(
        failure && failure.code !== "tmux_failed"
          ? new ToolError(failure.code, failure.message)
          : new ToolError("server_gone", `the control connection ended: ${reason}`),
      );
    }
    this.#handlers.onClose(this, reason, this.#closing);
  }
}

/** A reader of a child's pipe, or undefined when that pipe is not piped (Deno throws then). */
function pipedReader(
  stream: () => ReadableStream<Uint8Array>,
): ReadableStreamDefaultReader<Uint8Array> | undefined {
  try {
    return stream().getReader();
  } catch {
    return undefined;
  }
}

function startsWith(bytes: Uint8Array, prefix: string): boolean {
  if (bytes.length < prefix.length) return false;
  for (let i = 0; i < prefix.length; i++) if (bytes[i] !== prefix.charCodeAt(i)) return false;
  return true;
}
