/**
 * The control-mode client: one persistent `tmux -C attach -t $N` per watched session, the process
 * and its pipes. What its lines mean is src/tmux/control/syntax.ts; which command a reply answers,
 * src/tmux/control/replies.ts.
 *
 * Control mode parses each input line like a configuration file (`$HOME` expands, `a ; b` runs
 * two commands), so every argument goes through {@link quoteControlArgument}. Replies are
 * `%begin T N F` … `%end T N F` (or `%error`) blocks matched in order; `%output %P data` streams
 * each pane's bytes (UTF-8 sequences may be split across lines and are reassembled by the reader
 * of the stream). `%layout-change`, `%window-close` and `%subscription-changed` tell the live
 * engine about resizes, closed panes and replaced processes (docs/design.md §7.2–§7.3).
 *
 * A reply read by {@link ControlClient.command} ends at the `%end`/`%error` line that repeats its
 * `%begin`'s "T N F": enough for replies that hold only ids and numbers (docs/design.md §5.11). A
 * reply that may hold text a pane or program controls is read by {@link ControlClient.send}, with
 * a {@link ReplyReader} that decides where it ends (src/tmux/control/route_reply.ts, docs/design.md §5.14).
 */
import { classifyTmuxFailure, ToolError } from "../../errors.ts";
import type { ControlSpawnOptions, TmuxRunner } from "../core/runner.ts";
import { ReplyQueue } from "./replies.ts";
import {
  FramingError,
  isOutput,
  LineSplitter,
  parseNotification,
  parseOutput,
  quoteControlArgument,
  type ReplyReader,
} from "./syntax.ts";
import type { PaneSize } from "../core/layout.ts";
import { type ControlChild, pipedReader } from "../core/process.ts";
import { CLOSE_GRACE_MS, settlesWithin } from "../../base/timing.ts";
import { ChunkReader } from "../core/chunk_reader.ts";

/** Callbacks of a control client. */
interface ControlHandlers {
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

/** Options of {@link ControlClient.open}. */
interface ControlOpenOptions extends ControlSpawnOptions {
  /**
   * Once attached, any block that is not a reply to our own commands (a hook's output) drops the
   * connection: a connection whose replies carry pane text expects nothing else (§5.14).
   */
  strict?: boolean;
}

const encoder = new TextEncoder();
const decoder = new TextDecoder();
const COMMAND_TIMEOUT_MS = 10_000;
/** How long an open waits for the attach's own block once the channel answers. */
const ATTACH_GRACE_MS = 1_000;

/** A live control-mode connection to one session. */
export class ControlClient {
  readonly sessionId: string;
  /** The funnel that started it: its detach goes through the runner's attach gate. */
  readonly #runner: TmuxRunner;
  readonly #child: Deno.ChildProcess;
  /** The tmux client's pid on its host, once known (see {@link ControlChild.clientPid}). */
  #pid: number | undefined;
  readonly #writer: WritableStreamDefaultWriter<Uint8Array>;
  readonly #stdout: ChunkReader;
  /** Absent when the client's stderr is not piped (spawnControl discards it). */
  readonly #stderrReader: ReadableStreamDefaultReader<Uint8Array> | undefined;
  readonly #handlers: ControlHandlers;
  readonly #replies: ReplyQueue;
  #closed = false;
  #closing = false;
  #writes: Promise<void> = Promise.resolve();
  #stderr = "";
  /** Settles when the attach has been answered (or the connection ended). */
  readonly #attached = Promise.withResolvers<void>();
  readonly #done: Promise<void>;

  private constructor(
    runner: TmuxRunner,
    sessionId: string,
    spawned: ControlChild,
    handlers: ControlHandlers,
    strict: boolean,
  ) {
    const child = spawned.process;
    this.#runner = runner;
    this.sessionId = sessionId;
    this.#replies = new ReplyQueue(strict, () => this.#attached.resolve());
    this.#child = child;
    this.#writer = child.stdin.getWriter();
    this.#stdout = new ChunkReader(spawned.stdout);
    this.#stderrReader = pipedReader(() => child.stderr);
    this.#handlers = handlers;
    this.#done = Promise.all([this.#readStdout(), this.#readStderr(), child.status]).then(() => {
      this.#lost("the tmux client exited");
      const pid = this.#pid;
      if (pid === undefined) return;
      // A remote client outlives its ssh until the host says it is gone: ours until then.
      if (spawned.gone) void spawned.gone.then(() => handlers.onExit?.(pid));
      else handlers.onExit?.(pid);
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
    const spawned = await runner.spawnControl(sessionId, options);
    const client = new ControlClient(
      runner,
      sessionId,
      spawned,
      handlers,
      options.strict ?? false,
    );
    try {
      // Registered before the attach is answered, so no listing counts it as a person (locally
      // the pid is known at once; a remote client says it before it starts tmux).
      client.#pid = await client.#settled(spawned.clientPid);
      handlers.onSpawn?.(client.#pid);
      // A no-op proves the channel answers; the attach is answered by a block of its own, which
      // may come before or after the no-op's (checked: tmux may read our line first), so it is
      // waited for too, briefly: a tmux that never sends it is still served.
      await client.command(["display-message", "-p", ""]);
      await settlesWithin(client.#attached.promise, ATTACH_GRACE_MS);
    } catch (error) {
      // Still inside the attach's turn of the gate (controlStart): nothing else of ours runs.
      client.#closing = true;
      await client.#detach();
      throw error;
    }
    return client;
  }

  /** Pid of the tmux client process (how listings recognise it as ours, not a person). */
  get pid(): number {
    return this.#pid ?? this.#child.pid;
  }

  /** `value`, or the reason the connection ended first (a remote client that never started). */
  async #settled<T>(value: Promise<T>): Promise<T> {
    let timer: ReturnType<typeof setTimeout> | undefined;
    const ended = Promise.race([
      this.#done.then(() => {
        throw new ToolError("server_gone", "the tmux client exited before it started");
      }),
      new Promise<never>((_, reject) => {
        timer = setTimeout(
          () => reject(new ToolError("timeout", "the tmux client did not start in time")),
          COMMAND_TIMEOUT_MS,
        );
      }),
    ]);
    ended.catch(() => {});
    try {
      return await Promise.race([value, ended]);
    } finally {
      clearTimeout(timer);
    }
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
      this.#replies.push({
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
    // Our detach notifies every control client: never while one of ours is attaching (§7.4).
    await this.#runner.controlStop(() => this.#detach());
  }

  /** Detach now and wait for the process, bounded (see {@link close}). */
  async #detach(): Promise<void> {
    // Our writes reach the server itself (it holds the client's stdin), so with a stopped server
    // even they may never complete: they are part of the grace period, not waited for after it.
    const detach = this.#writes.then(() => this.#writer.close()).catch(() => {});
    const done = await settlesWithin(Promise.all([detach, this.#done]), CLOSE_GRACE_MS);
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
    // Its end notifies every control client too: no attach of ours until it has exited.
    this.#runner.gate.detachUntil(this.#done);
    this.#writer.abort().catch(() => {});
    this.#stdout.cancel().catch(() => {});
    this.#stderrReader?.cancel().catch(() => {});
  }

  async #readStdout(): Promise<void> {
    const lines = new LineSplitter();
    try {
      while (true) {
        const chunk = await this.#stdout.read();
        if (!chunk) break;
        // Copied out at once: the chunk's buffer is read into again.
        for (const line of lines.push(chunk)) this.#line(line);
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
    if (!this.#replies.inReply && isOutput(bytes)) {
      const output = parseOutput(bytes);
      if (output) this.#handlers.onOutput(output.paneId, output.bytes);
      return;
    }
    const text = decoder.decode(bytes);
    try {
      if (this.#replies.line(text)) return;
    } catch (error) {
      if (error instanceof FramingError) return this.#broken(error.message);
      throw error;
    }
    const note = parseNotification(text);
    switch (note?.kind) {
      case "layout":
        return this.#handlers.onLayout?.(note.windowId, note.panes);
      case "window-close":
        return this.#handlers.onWindowClose?.(note.windowId);
      case "subscription":
        return this.#handlers.onSubscription?.(note.name, note.paneId);
      case "exit":
        return this.#lost(note.reason);
    }
  }

  /**
   * The output stopped making sense: fail every pending call with a {@link FramingError} and kill
   * the client, reading nothing more from it.
   */
  #broken(reason: string): void {
    if (this.#closed) return;
    this.#closed = true;
    this.#attached.resolve();
    for (const pending of this.#replies.drain()) {
      pending.reject(new FramingError(reason));
    }
    this.#closing = true;
    this.#terminate();
    this.#handlers.onClose(this, `framing: ${reason}`, false);
  }

  #lost(reason: string): void {
    if (this.#closed) return;
    this.#closed = true;
    // The probe's rejection below says why the attach did not happen.
    this.#attached.resolve();
    const detail = (this.#stderr.trim() || this.#replies.foreignError).trim();
    const failure = detail ? classifyTmuxFailure(detail) : undefined;
    for (const pending of this.#replies.drain()) {
      pending.reject(
        failure && failure.code !== "tmux_failed"
          ? new ToolError(failure.code, failure.message)
          : new ToolError("server_gone", `the control connection ended: ${reason}`),
      );
    }
    this.#handlers.onClose(this, reason, this.#closing);
  }
}
