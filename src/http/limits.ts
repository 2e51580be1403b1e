/**
 * The sizes and times of the HTTP server (docs/design.md §2.4): one table of defaults, two of them
 * configurable, every one shortened by tests through `limits`. Pure.
 */
import type { Config } from "../config.ts";

/** Sizes and times of an HTTP server. */
export interface HttpLimits {
  /** A session with no request open for this long is closed. */
  idleMs: number;
  /** Sessions open at once; an `initialize` beyond is answered 503. */
  maxSessions: number;
  /** The largest request body read; a larger one is answered 413. */
  maxBodyBytes: number;
  /**
   * How often an open SSE stream gets a comment line. Besides keeping proxies from timing it out,
   * the write is how a client that vanished without closing is noticed (its session then idles).
   */
  keepAliveMs: number;
  /** A connection whose request headers are not complete this long after it opened is closed. */
  headersTimeoutMs: number;
  /**
   * A request not received in full (headers and body) this long after it began is closed: the
   * body's minimum rate is `maxBodyBytes` over this time. A response may stream for longer.
   */
  requestTimeoutMs: number;
  /** Connections open at once; one beyond is closed as soon as it is accepted. */
  maxConnections: number;
  /**
   * How often the listener is checked to still accept (a connection to itself): an accept that
   * failed for want of descriptors stops the runtime's listener silently, and it is then reopened.
   */
  listenerCheckMs: number;
}

/**
 * docs/design.md §2.4's numbers; `--http-idle-ms` and `--http-max-sessions` change the first two.
 * 256 connections leave room under the common descriptor limit of 1,024 for tmux's pipes.
 */
export const HTTP_LIMITS: HttpLimits = {
  idleMs: 600_000,
  maxSessions: 16,
  maxBodyBytes: 4 * 1024 * 1024,
  keepAliveMs: 15_000,
  headersTimeoutMs: 10_000,
  requestTimeoutMs: 30_000,
  maxConnections: 256,
  listenerCheckMs: 5_000,
};

/** The limits in force: the defaults, then the configuration, then the caller's overrides. */
export function resolveLimits(
  config: Pick<Config, "httpIdleMs" | "httpMaxSessions">,
  overrides: Partial<HttpLimits> = {},
): HttpLimits {
  const limits: HttpLimits = {
    ...HTTP_LIMITS,
    ...(config.httpIdleMs !== undefined ? { idleMs: config.httpIdleMs } : {}),
    ...(config.httpMaxSessions !== undefined ? { maxSessions: config.httpMaxSessions } : {}),
    ...overrides,
  };
  // node:http refuses a header deadline past the request's (the headers are part of it).
  limits.requestTimeoutMs = Math.max(limits.requestTimeoutMs, limits.headersTimeoutMs);
  return limits;
}

/**
 * How often node:http looks for connections past their deadlines: a quarter of the header
 * deadline, between 50 ms and 1 s, so a deadline is enforced at most a quarter late.
 */
export function checkingIntervalMs(limits: Pick<HttpLimits, "headersTimeoutMs">): number {
  return Math.min(1_000, Math.max(50, Math.floor(limits.headersTimeoutMs / 4)));
}

/** `10 min`, `90 s`, `0.4 s`: for log lines. */
export function describeMs(ms: number): string {
  return ms >= 60_000 && ms % 60_000 === 0 ? `${ms / 60_000} min` : `${ms / 1000} s`;
}
