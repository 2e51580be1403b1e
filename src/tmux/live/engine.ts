/**
 * The live engine: control-mode connections (one per watched session) feeding per-pane streams,
 * each with a headless terminal seeded from tmux's own rendering of the pane (docs/design.md
 * §7.2). Owned by one tmux host (docs/design.md §2.3; no module state); closed with it.
 *
 * Lifetimes (docs/design.md §7.4): a stream lives while its cursor was used in the last `streamTtlMs`
 * (5 minutes) or someone waits on it; a connection lives while it has streams and lingers
 * `idleCloseMs` (10 minutes) after its last one, then detaches. A connection with streams is never
 * closed to make room: past the cap, panes of further sessions are polled (`follow` says why,
 * `join` throws {@link NoRoom}). Every attach and detach goes through the runner's attach gate. Our clients are
 * registered in `ownClientPids`, so listings never count them as people.
 */
import { ToolError } from "../../errors.ts";
import { oversize, type PaneEmulator } from "../../live/emulator.ts";
import { RunMarks } from "../../live/run_marks.ts";
import { PaneStream } from "../../live/stream.ts";
import type { TmuxRunner } from "../core/runner.ts";
import type { TmuxReadContext } from "../core/context.ts";
import { ControlClient } from "../control/client.ts";
import type { PaneSize } from "../core/layout.ts";
import { connectionLost, discontinuity, dropped, endedAnswer, NoRoom } from "./endings.ts";
import { checkPane, type PaneContinuity } from "./pane_check.ts";
import type { LiveOptions, LiveStats, LiveStatus } from "./options.ts";
import { alignRows, seedDone, seedStream } from "./seed.ts";
import { readBack } from "./history_rows.ts";
import type { RowRange, TmuxRows } from "../../live/read_back.ts";
import { snapshot } from "../read/queries.ts";
import { paneNotFound, rethrowPaneMissing } from "../read/not_found.ts";
import { CLOSE_GRACE_MS, settlesWithin } from "../../base/timing.ts";

/** How many ended streams are remembered, so a late cursor learns why its stream ended. */
const ENDED_MEMORY = 256;

/**
 * The subscription by which tmux tells a connection that a pane's process changed (a respawn), so
 * a wait on it ends within about a second rather than when it times out.
 */
const PID_SUBSCRIPTION = "tmux-mcp-pid";

interface Connection {
  client: ControlClient;
  /** When the connection last had no streams (undefined while it has some). */
  idleSince?: number;
  /** When a stream of this connection was last joined or read (for least-recently-used). */
  lastUsed: number;
}

/** Control-mode connections and the pane streams they feed. */
export class LiveEngine implements LiveStatus {
  readonly #runner: TmuxRunner;
  readonly #ctx: TmuxReadContext;
  readonly #ownPids: Set<number>;
  readonly #options: LiveOptions;
  readonly #log: (message: string) => void;
  readonly #connections = new Map<string, Connection>();
  readonly #opening = new Map<string, Promise<Connection>>();
  readonly #byPane = new Map<string, PaneStream>();
  readonly #byId = new Map<string, PaneStream>();
  /** Which connection feeds each stream (by stream id). */
  readonly #feeds = new Map<string, ControlClient>();
  /** Each stream's seeding, by stream id: readers wait for it. */
  readonly #seeds = new Map<string, Promise<void>>();
  /** Why recently ended streams ended, by stream id (oldest first, at most ENDED_MEMORY). */
  readonly #endedWhy = new Map<string, ToolError>();
  #sweeper: ReturnType<typeof setInterval> | undefined;
  #closed = false;
  /**
   * The busy marks: commands run_shell_command framed that are still running, per pane
   * (docs/design.md §6.12). A marked pane's stream is kept while the mark lasts.
   */
  readonly runs: RunMarks = new RunMarks();

  constructor(
    ctx: TmuxReadContext,
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
      attaches: this.#runner.gate.stats().attaches,
      detaches: this.#runner.gate.stats().detaches,
    };
  }

  /**
   * Start or join the pane's stream, seeded and ready to read. An existing stream is reused only
   * if the pane still runs the same process; otherwise a new stream (new id, so old cursors go
   * stale) is started.
   */
  async join(paneId: string, signal?: AbortSignal): Promise<PaneStream> {
    if (this.#closed) throw new ToolError("server_gone", "the live engine is closed");
    const existing = this.#byPane.get(paneId);
    if (existing && !existing.ended) {
      // A check that timed out or was cancelled says nothing about the pane: it fails the call
      // (one deadline per call) rather than dropping the stream and asking tmux again.
      const state = await this.check(existing, signal).catch((error) => {
        if (
          error instanceof ToolError && (error.code === "timeout" || error.code === "cancelled")
        ) {
          throw error;
        }
        return "gone" as const;
      });
      if (state === "same") {
        existing.lastUsed = Date.now();
        return await this.#ready(existing, signal);
      }
      this.#drop(existing, `the pane was ${state}`);
    }
    const row = (await snapshot(this.#ctx, { panes: { windowOf: paneId } }, signal)
      .catch((error) => rethrowPaneMissing(error, paneId))).panes.find((p) => p.paneId === paneId);
    if (!row) throw paneNotFound(paneId);
    // A pane the person made huge is not followed: its terminal would cost gigabytes (§7.2).
    const refused = oversize(paneId, row.width, row.height);
    if (refused) throw refused;
    const connection = await this.#connect(row.sessionId);
    if (this.#closed) throw new ToolError("server_gone", "the live engine is closed");
    // Another call may have started the stream while we connected.
    const raced = this.#byPane.get(paneId);
    if (raced && !raced.ended && raced.generation === row.generation) {
      return await this.#ready(raced, signal);
    }
    const stream = new PaneStream(row, this.#options.scrollbackRows);
    this.#byPane.set(paneId, stream);
    this.#byId.set(stream.id, stream);
    this.#feeds.set(stream.id, connection.client);
    const seeding = this.#seed(stream, connection.client);
    // Each caller awaits it (with its own signal); none may be left to observe a failure.
    seeding.catch(() => {});
    this.#seeds.set(stream.id, seeding);
    connection.idleSince = undefined;
    connection.lastUsed = Date.now();
    return await this.#ready(stream, signal);
  }

  /**
   * {@link join}, or — past the connection cap, when every connection feeds streams in use — why
   * the caller polls the pane instead: the note its polled result carries (docs/design.md §7.1).
   */
  async follow(paneId: string, signal?: AbortSignal): Promise<PaneStream | { polled: string }> {
    try {
      return await this.join(paneId, signal);
    } catch (error) {
      if (error instanceof NoRoom) return { polled: error.note };
      throw error;
    }
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

  /**
   * Why a stream that is no longer alive ended, if it ended recently: what a cursor of it answers
   * now (see {@link endedAnswer}).
   */
  endedReason(streamId: string): ToolError | undefined {
    return endedAnswer(this.#endedWhy.get(streamId));
  }

  /** Whether the stream still describes the pane (see {@link checkPane}). */
  async check(stream: PaneStream, signal?: AbortSignal): Promise<PaneContinuity> {
    return await checkPane(this.#client(stream), stream, signal);
  }

  /**
   * Refuse a stream whose pane is gone (`target_not_found`), was replaced or moved out of the
   * session that feeds it (`stale_cursor`): the stream is ended with that error, so its waiters
   * and later readers get it too.
   */
  async verify(stream: PaneStream, signal?: AbortSignal): Promise<void> {
    const state = await this.check(stream, signal);
    if (state === "same") return;
    const error = discontinuity(stream.paneId, state);
    this.#end(stream, error);
    throw error;
  }

  /**
   * Whether a streamed pane's program asked for bracketed paste (DECSET 2004), as its output
   * showed it; undefined when the pane is not streamed or its stream has not shown it yet.
   */
  bracketedPaste(paneId: string): boolean | undefined {
    const stream = this.#byPane.get(paneId);
    return stream && !stream.ended ? stream.emulator?.bracketedPaste : undefined;
  }

  /**
   * The terminal of a pane's stream and the generation it follows, when the pane is followed and
   * its stream seeded (a screenshot draws its cells, docs/design.md §9); otherwise undefined. It
   * starts no stream.
   */
  terminal(paneId: string): { generation: string; emulator: PaneEmulator } | undefined {
    const stream = this.#byPane.get(paneId);
    const emulator = stream && !stream.ended ? stream.emulator : undefined;
    return emulator && { generation: stream!.generation, emulator };
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
    await settlesWithin(opening, CLOSE_GRACE_MS);
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
        if (stream && this.#feeds.get(stream.id)?.sessionId === sessionId) stream.receive(bytes);
      },
      onLayout: (windowId, panes) => this.#layout(sessionId, windowId, panes),
      onWindowClose: (windowId) => {
        for (const stream of this.#fedBy(sessionId)) {
          if (stream.windowId === windowId) this.#recheck(stream);
        }
      },
      onSubscription: (name, paneId) => {
        const stream = this.#byPane.get(paneId);
        if (name === PID_SUBSCRIPTION && stream && this.#fedBy(sessionId).includes(stream)) {
          this.#recheck(stream);
        }
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
      // Only pids cross the channel; a tmux without subscriptions is still served.
      client.command(["refresh-client", "-B", `${PID_SUBSCRIPTION}:%*:#{pane_pid}`])
        .catch(() => {});
      return connection;
    }).finally(() => this.#opening.delete(sessionId));
    this.#opening.set(sessionId, opening);
    return await opening;
  }

  /**
   * Before opening one more connection at the cap, close one that feeds no stream (the oldest
   * idle one). When every connection feeds streams, refuse with {@link NoRoom}: the caller polls
   * the pane instead, and no reader of a followed session loses its stream.
   */
  #makeRoom(): void {
    const open = this.#connections.size + this.#opening.size;
    if (open < this.#options.maxConnections) return;
    const idle = [...this.#connections.entries()]
      .filter(([, c]) => this.#streamsOf(c.client).length === 0)
      .sort(([, a], [, b]) => a.lastUsed - b.lastUsed);
    if (idle.length === 0) throw new NoRoom(this.#options.maxConnections);
    const [sessionId, connection] = idle[0];
    this.#connections.delete(sessionId);
    this.#detach(connection);
  }

  /**
   * Detach a connection; its client's close takes its turn at the runner's attach gate, so it
   * never overlaps an attach of ours (docs/design.md §7.4).
   */
  #detach(connection: Connection): void {
    connection.client.close().catch(() => {});
  }

  #streamsOf(client: ControlClient): PaneStream[] {
    return [...this.#byId.values()].filter((s) => this.#feeds.get(s.id) === client);
  }

  /** Streams fed by the open connection of a session. */
  #fedBy(sessionId: string): PaneStream[] {
    const connection = this.#connections.get(sessionId);
    return connection ? this.#streamsOf(connection.client) : [];
  }

  /**
   * A window's layout changed: resize the terminals of the panes it holds; a streamed pane that
   * left it may be gone (closed, or killed), so it is checked at once rather than when a wait
   * ends.
   */
  #layout(sessionId: string, windowId: string, panes: Map<string, PaneSize>): void {
    for (const stream of this.#fedBy(sessionId)) {
      const size = panes.get(stream.paneId);
      if (size) {
        stream.windowId = windowId;
        // Grown past the bound: the stream ends (its readers learn why) rather than follow it.
        const refused = oversize(stream.paneId, size.width, size.height);
        if (refused) this.#end(stream, refused);
        else if (stream.resize(size.width, size.height)) this.#align(stream);
      } else if (stream.windowId === windowId) {
        this.#recheck(stream);
      }
    }
  }

  /** After a resize, put the terminal's rows where tmux put them (see {@link alignRows}). */
  #align(stream: PaneStream): void {
    const client = this.#feeds.get(stream.id);
    if (!client || client.closed) return;
    alignRows(client, stream);
  }

  /** Check a stream's pane now; one that is gone or replaced ends its stream and its waits. */
  #recheck(stream: PaneStream): void {
    this.verify(stream).catch(() => {});
  }

  /** Seed a stream's terminal (see {@link seedStream}); a failed seed ends the stream. */
  async #seed(stream: PaneStream, client: ControlClient): Promise<void> {
    try {
      await seedStream(this.#ctx, stream, client);
    } catch (error) {
      this.#end(
        stream,
        error instanceof ToolError ? error : new ToolError("tmux_failed", String(error)),
      );
      throw error;
    }
  }

  /** The stream once seeded; a failed seed fails every caller waiting for it. */
  async #ready(stream: PaneStream, signal?: AbortSignal): Promise<PaneStream> {
    const seeding = this.#seeds.get(stream.id);
    if (seeding) await seedDone(seeding, signal);
    if (stream.ended) throw stream.ended;
    return stream;
  }

  #lost(client: ControlClient, reason: string, byUs: boolean): void {
    // Only the connection that ended: a newer one for the same session may already be mapped.
    if (this.#connections.get(client.sessionId)?.client === client) {
      this.#connections.delete(client.sessionId);
    }
    if (!byUs) this.#log(`live: control connection to ${client.sessionId} ended (${reason})`);
    const error = connectionLost(reason);
    for (const stream of this.#streamsOf(client)) this.#end(stream, error);
    if (this.#connections.size === 0 && this.#sweeper !== undefined) {
      clearInterval(this.#sweeper);
      this.#sweeper = undefined;
    }
  }

  #drop(stream: PaneStream, reason: string): void {
    this.#end(stream, dropped(reason));
  }

  /** Forget a stream, wake its waiters with `error`, and remember why it ended. */
  #end(stream: PaneStream, error: ToolError): void {
    if (this.#byPane.get(stream.paneId) === stream) this.#byPane.delete(stream.paneId);
    this.#byId.delete(stream.id);
    this.#feeds.delete(stream.id);
    this.#seeds.delete(stream.id);
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
      if (!stream.inUse && now - stream.lastUsed > this.#options.streamTtlMs) {
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
        this.#detach(connection);
      }
    }
  }

  /** Read rows that left a stream's terminal back from tmux (src/tmux/live/history_rows.ts). */
  async readBack<T>(
    stream: PaneStream,
    plan: (emulator: PaneEmulator) => { value: T; ranges: RowRange[] },
    signal: AbortSignal,
  ): Promise<{ value: T; rows?: TmuxRows }> {
    return await readBack(this.#ctx, this.#client(stream), stream, plan, signal);
  }
}
