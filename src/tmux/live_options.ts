/**
 * The live engine's knobs and counters (docs/design.md §7.4): what the host configures and what
 * the server shows, apart from the engine so neither needs the engine itself.
 */
import { HISTORY_ROWS } from "../live/emulator.ts";

/** Timing and size knobs; production uses {@link LIVE_DEFAULTS}, tests shorten them. */
export interface LiveOptions {
  /** How long a connection without streams lingers before it detaches. */
  idleCloseMs: number;
  /** How long a stream nobody reads or waits on is kept. */
  streamTtlMs: number;
  /** Rows of history each streamed pane's terminal keeps, besides its screen. */
  scrollbackRows: number;
  /** How often expiry is checked. */
  sweepMs: number;
  /**
   * Control connections open at once. `%output` reaches only clients attached to the pane's
   * session, so each streamed session needs its own; past this many, the least recently used
   * one is closed to make room.
   */
  maxConnections: number;
}

/** The numbers of docs/design.md §7.4. */
export const LIVE_DEFAULTS: LiveOptions = {
  idleCloseMs: 30_000,
  streamTtlMs: 300_000,
  scrollbackRows: HISTORY_ROWS,
  sweepMs: 1_000,
  maxConnections: 8,
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
}

/** What the engine shows outside the server: its counters. */
export interface LiveStatus {
  /** Open connections, live streams and blocked waiters. */
  stats(): LiveStats;
}
