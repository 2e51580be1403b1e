/**
 * The live engine: control-mode connections (one per watched session) feeding per-pane output
 * streams. Owned by one MCP server (no module state); closed with it.
 *
 * Lifetimes (DESIGN §7): a stream lives while its cursor was used in the last `streamTtlMs`
 * (5 minutes) or someone waits on it; a connection lives while it has streams and lingers
 * `idleCloseMs` (30 s) after its last one, then detaches. Our clients are registered in
 * `ownClientPids`, so listings never count them as people.
 */
import { ToolError } from "../errors.ts";
import { PaneStream } from "../live/stream.ts";
import type { TmuxRunner } from "./command.ts";
import type { TmuxContext } from "./context.ts";
import { ControlClient } from "./control.ts";
import { int, rowTemplate, separators } from "./format.ts";
import { snapshot } from "./queries.ts";
import { generationOf, paneArg, paneNotFound, rethrowPaneMissing } from "./targets.ts";

/** Timing and size knobs; production uses {@link LIVE_DEFAULTS}, tests shorten them. */
export interface LiveOptions {
  /** How long a connection without streams lingers before it detaches. */
  idleCloseMs: number;
  /** How long a stream nobody reads or waits on is kept. */
  streamTtlMs: number;
  /** Bytes of output kept per stream. */
  retainBytes: number;
  /** How often expiry is checked. */
  sweepMs: number;
  /**
   * Control connections open at once. `%output` reaches only clients attached to the pane's
   * session, so each streamed session needs its own; past this many, the least recently used
   * one is closed to make room.
   */
  maxConnections: number;
}

/** DESIGN §7's numbers. */
export const LIVE_DEFAULTS: LiveOptions = {
  idleCloseMs: 30_000,
  streamTtlMs: 300_000,
  retainBytes: 262_144,
  sweepMs: 1_000,
  maxConnections: 8,
};

/** How long closing waits for attaches in flight before leaving them to close themselves. */
const OPENING_GRACE_MS = 1_000;

/** How many ended streams are remembered, so a late cursor learns why its stream ended. */
const ENDED_MEMORY = 256;

interface Connection {
  client: ControlClient;
  /** When the connection last had no streams (undefined while it has some). */
  idleSince?: number;
  /** When a stream of this connection was last joined or read (for least-recently-used). */
  lastUsed: number;
}

/** Counters of the live engine, for tests and diagnostics. */
export interface LiveStats {
  /** Control connections open. */
  connections: number;
  /** Pane streams alive. */
  streams: number;
  /** Calls blocked waiting for output. */
  waiters: number;
  /** Pids of our control clients. */
  clientPids: number[];
}

/** What the engine shows outside the server: its counters. */
export interface LiveStatus {
  /** Open connections, live streams and blocked waiters. */
  stats(): LiveStats;
}

/** Control-mode connections and the pane streams they feed. */
export class LiveEngine implements LiveStatus {
  readonly #runner: TmuxRunner;
  readonly #ctx: TmuxContext;
  readonly #ownPids: Set<number>;
  readonly #options: LiveOptions;
  readonly #log: (message: string) => void;
  readonly #connections = new Map<string, Connection>();
  readonly #opening = new Map<string, Promise<Connection>>();
  readonly #byPane = new Map<string, PaneStream>();
  readonly #byId = new Map<string, PaneStream>();
  /** Which connection feeds each stream (by stream id). */
  readonly #feeds = new Map<string, ControlClient>();
  /** Why recently ended streams ended, by stream id (oldest first, at most ENDED_MEMORY). */
  readonly #endedWhy = new Map<string, ToolError>();
  #sweeper: ReturnType<typeof setInterval> | undefined;
  #closed = false;

  constructor(
    ctx: TmuxContext,
    ownPids: Set<number>,
    options: LiveOptions,
    log: (message: string) => void,
  ) {
    this.#ctx = ctx;
    this.#runner = ctx.runner;
    this.#ownPids = ownPids;
    this.#options = options;
    this.#log = log;
  }

  /** Open connections, live streams and blocked waiters (for tests and diagnostics). */
  stats(): LiveStats {
    const streams = [...this.#byId.values()];
    return {
      connections: this.#connections.size,
      streams: streams.length,
      waiters: streams.reduce((n, s) => n + s.waiters, 0),
      clientPids: [...this.#connections.values()].map((c) => c.client.pid),
    };
  }

  /**
   * Start or join the pane's stream. An existing stream is reused only if the pane still runs
   * the same process; otherwise a new stream (new id, so old cursors go stale) is started.
   */
  async join(paneId: string, signal?: AbortSignal): Promise<PaneStream> {
    if (this.#closed) throw new ToolError("server_gone", "the live engine is closed");
    const existing = this.#byPane.get(paneId);
    if (existing && !existing.ended) {
      const state = await this.check(existing, signal).catch(() => "gone" as const);
      if (state === "same") {
        existing.lastUsed = Date.now();
        return existing;
      }
      this.#drop(existing, `the pane was ${state}`);
    }
    const row = (await snapshot(this.#ctx, { panes: { windowOf: paneId } }, signal)
      .catch((error) => rethrowPaneMissing(error, paneId))).panes.find((p) => p.paneId === paneId);
    if (!row) throw paneNotFound(paneId);
    const connection = await this.#connect(row.sessionId);
    if (this.#closed) throw new ToolError("server_gone", "the live engine is closed");
    // Another call may have started the stream while we connected.
    const raced = this.#byPane.get(paneId);
    if (raced && !raced.ended && raced.generation === row.generation) return raced;
    const stream = new PaneStream(paneId, row.generation, row.sessionId, this.#options.retainBytes);
    this.#byPane.set(paneId, stream);
    this.#byId.set(stream.id, stream);
    this.#feeds.set(stream.id, connection.client);
    connection.idleSince = undefined;
    connection.lastUsed = Date.now();
    return stream;
  }

  /** The stream a cursor names, if it is still alive; marks it used. */
  find(streamId: string): PaneStream | undefined {
    const stream = this.#byId.get(streamId);
    if (!stream || stream.ended) return undefined;
    stream.lastUsed = Date.now();
    const connection = this.#connections.get(stream.sessionId);
    if (connection) connection.lastUsed = stream.lastUsed;
    return stream;
  }

  /** Why a stream that is no longer alive ended, if it ended recently. */
  endedReason(streamId: string): ToolError | undefined {
    return this.#endedWhy.get(streamId);
  }

  /** Forget a stream (its cursors become stale). */
  drop(stream: PaneStream, reason: string): void {
    this.#drop(stream, reason);
  }

  /**
   * Whether the stream still describes the pane: `gone` when the pane no longer exists,
   * `replaced` when another process runs in it (respawn, or an id reused after a restart),
   * `moved` when it left the session whose connection feeds the stream (its output would no
   * longer arrive), else `same`. Only ids and numbers cross the channel here, never pane text.
   */
  async check(
    stream: PaneStream,
    signal?: AbortSignal,
  ): Promise<"same" | "gone" | "replaced" | "moved"> {
    const sep = separators();
    const lines = await this.#client(stream).command(
      [
        "display-message",
        "-p",
        "-t",
        paneArg(stream.paneId),
        rowTemplate(sep, "G", ["pane_id", "pane_pid", "pid", "session_id"]),
      ],
      signal,
    );
    const [, id, panePid, serverPid, sessionId] =
      lines.join("\n").split(sep.row)[1]?.split(sep.field) ?? [];
    if (id !== stream.paneId) return "gone";
    if (generationOf(int(serverPid), int(panePid)) !== stream.generation) return "replaced";
    return sessionId === stream.sessionId ? "same" : "moved";
  }

  /** Detach every connection and end every stream; leaves no tmux process behind. */
  async close(): Promise<void> {
    this.#closed = true;
    if (this.#sweeper !== undefined) clearInterval(this.#sweeper);
    this.#sweeper = undefined;
    for (const stream of [...this.#byId.values()]) this.#drop(stream, "the server is closing");
    // An attach to a frozen server can take the whole command timeout: wait for attaches in
    // flight only briefly; one that completes later is closed as it arrives (see #connect).
    const opening = Promise.all([...this.#opening.values()].map((p) => p.catch(() => undefined)));
    let timer: ReturnType<typeof setTimeout> | undefined;
    await Promise.race([opening, new Promise((r) => timer = setTimeout(r, OPENING_GRACE_MS))]);
    clearTimeout(timer);
    await Promise.all([...this.#connections.values()].map((c) => c.client.close()));
    this.#connections.clear();
  }

  #client(stream: PaneStream): ControlClient {
    const client = this.#feeds.get(stream.id);
    if (!client || client.closed) {
      throw stream.ended ?? new ToolError("server_gone", "the control connection is closed");
    }
    return client;
  }

  async #connect(sessionId: string): Promise<Connection> {
    const open = this.#connections.get(sessionId);
    if (open && !open.client.closed) return open;
    const pending = this.#opening.get(sessionId);
    if (pending) return await pending;
    this.#makeRoom();
    const opening = ControlClient.open(this.#runner, sessionId, {
      // Ours from the moment it exists, so it never counts as a person, not even briefly.
      onSpawn: (pid) => this.#ownPids.add(pid),
      onExit: (pid) => this.#ownPids.delete(pid),
      onOutput: (paneId, bytes) => {
        const stream = this.#byPane.get(paneId);
        if (stream && this.#feeds.get(stream.id)?.sessionId === sessionId) stream.append(bytes);
      },
      onClose: (client, reason, byUs) => this.#lost(client, reason, byUs),
    }).then(async (client) => {
      if (this.#closed) {
        await client.close();
        throw new ToolError("server_gone", "the live engine is closed");
      }
      const connection: Connection = { client, lastUsed: Date.now() };
      this.#connections.set(sessionId, connection);
      this.#ensureSweeper();
      return connection;
    }).finally(() => this.#opening.delete(sessionId));
    this.#opening.set(sessionId, opening);
    return await opening;
  }

  /**
   * Before opening one more connection at the cap, close the least recently used one that no
   * caller is waiting on; its readers learn why from `stale_cursor`. When every connection has
   * a waiter, the new stream is refused with `busy` rather than failing a wait in progress.
   */
  #makeRoom(): void {
    const open = this.#connections.size + this.#opening.size;
    if (open < this.#options.maxConnections) return;
    const idle = [...this.#connections.entries()]
      .filter(([, c]) => !this.#streamsOf(c.client).some((s) => s.waiters > 0))
      .sort(([, a], [, b]) => a.lastUsed - b.lastUsed);
    if (idle.length === 0) {
      throw new ToolError(
        "busy",
        `this server already follows ${this.#options.maxConnections} sessions, each with a ` +
          "wait in progress",
        { hint: "Retry when one of the other capture_since waits has ended." },
      );
    }
    const [sessionId, connection] = idle[0];
    this.#connections.delete(sessionId);
    const error = new ToolError(
      "stale_cursor",
      `the stream ended: this server follows at most ${this.#options.maxConnections} sessions ` +
        "at once, and this one was the least recently read when another was needed",
    );
    for (const stream of this.#streamsOf(connection.client)) this.#end(stream, error);
    connection.client.close().catch(() => {});
  }

  #streamsOf(client: ControlClient): PaneStream[] {
    return [...this.#byId.values()].filter((s) => this.#feeds.get(s.id) === client);
  }

  #lost(client: ControlClient, reason: string, byUs: boolean): void {
    // Only the connection that ended: a newer one for the same session may already be mapped.
    if (this.#connections.get(client.sessionId)?.client === client) {
      this.#connections.delete(client.sessionId);
    }
    if (!byUs) this.#log(`live: control connection to ${client.sessionId} ended (${reason})`);
    const error = new ToolError("server_gone", `the tmux session or server went away (${reason})`, {
      hint: "List sessions again; if the pane still exists, call capture_since without a cursor.",
    });
    for (const stream of this.#streamsOf(client)) this.#end(stream, error);
    if (this.#connections.size === 0 && this.#sweeper !== undefined) {
      clearInterval(this.#sweeper);
      this.#sweeper = undefined;
    }
  }

  #drop(stream: PaneStream, reason: string): void {
    this.#end(stream, new ToolError("stale_cursor", `the stream ended: ${reason}`));
  }

  /** Forget a stream, wake its waiters with `error`, and remember why it ended. */
  #end(stream: PaneStream, error: ToolError): void {
    if (this.#byPane.get(stream.paneId) === stream) this.#byPane.delete(stream.paneId);
    this.#byId.delete(stream.id);
    this.#feeds.delete(stream.id);
    stream.end(error);
    this.#endedWhy.set(stream.id, error);
    if (this.#endedWhy.size > ENDED_MEMORY) {
      this.#endedWhy.delete(this.#endedWhy.keys().next().value!);
    }
  }

  #ensureSweeper(): void {
    if (this.#sweeper !== undefined) return;
    const sweeper = setInterval(() => this.#sweep(), this.#options.sweepMs);
    // A lingering connection must not keep the process alive on its own.
    Deno.unrefTimer(sweeper);
    this.#sweeper = sweeper;
  }

  #sweep(): void {
    const now = Date.now();
    for (const stream of [...this.#byId.values()]) {
      if (stream.waiters === 0 && now - stream.lastUsed > this.#options.streamTtlMs) {
        this.#drop(stream, "it was not used for too long");
      }
    }
    for (const [sessionId, connection] of this.#connections) {
      const used = [...this.#feeds.values()].some((c) => c === connection.client);
      if (used) {
        connection.idleSince = undefined;
        continue;
      }
      connection.idleSince ??= now;
      if (now - connection.idleSince >= this.#options.idleCloseMs) {
        // The pid stays registered as ours until the process has exited (onExit).
        this.#connections.delete(sessionId);
        connection.client.close().catch(() => {});
      }
    }
  }
}
