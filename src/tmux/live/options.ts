/**
 * The live engine's knobs and counters (docs/design.md §7.4): what the host configures and what
 * the server shows, apart from the engine so neither needs the engine itself.
 */
import { HISTORY_ROWS } from "../../live/emulator.ts";

/** Timing and size knobs; production uses {@link LIVE_DEFAULTS}, tests shorten them. */
export interface LiveOptions {
  /**
   * How long a connection without streams (and the control route without calls) lingers before
   * it detaches: long, so following panes costs few attaches (docs/design.md §7.4).
   */
  idleCloseMs: number;
  /** How long a stream nobody reads or waits on is kept. */
  streamTtlMs: number;
  /** Rows of history each streamed pane's terminal keeps, besides its screen. */
  scrollbackRows: number;
  /** How often expiry is checked. */
  sweepMs: number;
  /**
   * Control connections open at once. `%output` reaches only clients attached to the pane's
   * session, so each streamed session needs its own; past this many, a connection without
   * streams is closed to make room, and when every one has streams, further sessions are polled
   * (docs/design.md §7.1) rather than a followed one evicted.
   */
  maxConnections: number;
}

/** The numbers of docs/design.md §7.4. */
export const LIVE_DEFAULTS: LiveOptions = {
  idleCloseMs: 600_000,
  streamTtlMs: 300_000,
  scrollbackRows: HISTORY_ROWS,
  sweepMs: 1_000,
  maxConnections: 32,
};

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
  /** Attaches of our control clients on this host so far (the live engine's and the route's). */
  attaches: number;
  /** Detaches of our control clients on this host so far. */
  detaches: number;
}

/** What the engine shows outside the server: its counters. */
export interface LiveStatus {
  /** Open connections, live streams and blocked waiters. */
  stats(): LiveStats;
}
