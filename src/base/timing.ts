/**
 * Timers every layer shares: the two sleeps (one gives way to a cancellation, one fails with it),
 * a bounded wait for a promise, and the grace period of closing. It imports only src/errors.ts, so
 * the funnel, the live engine and the transports may all use it (docs/design.md §2).
 */
import { ToolError } from "../errors.ts";

/**
 * How long closing waits for what a frozen tmux (or a stuck HTTP client) may never finish —
 * control clients detaching, attaches in flight, channel waiters, open connections — before
 * cutting it off: well inside the 2 s main.ts gives the whole shutdown.
 */
export const CLOSE_GRACE_MS = 1_000;

/**
 * Wait `ms`, or less: resolves (never rejects) as soon as `signal` aborts. For loops that check
 * `signal` themselves and end with what they have.
 */
export function pauseUnlessAborted(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      clearTimeout(timer);
      signal?.removeEventListener("abort", done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    if (signal?.aborted) return done();
    signal?.addEventListener("abort", done, { once: true });
  });
}

/**
 * Wait `ms`; rejects at once with a `cancelled` {@link ToolError} (message `cancelled`, carrying
 * `effects`) when `signal` aborts, before or during the wait. For a tool call that must stop.
 */
export function sleepOrCancel(
  ms: number,
  signal: AbortSignal,
  cancelled = "the call was cancelled",
  effects: "none" | "possible" = "none",
): Promise<void> {
  return new Promise((resolve, reject) => {
    const onAbort = () => {
      clearTimeout(timer);
      reject(new ToolError("cancelled", cancelled, { effects }));
    };
    const timer = setTimeout(() => {
      signal.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    if (signal.aborted) return onAbort();
    signal.addEventListener("abort", onAbort, { once: true });
  });
}

/**
 * Wait for `promise` at most `ms`: true when it fulfilled in time, false when the time ran out
 * (it goes on unobserved). A rejection in time rejects; the timer never outlives the call.
 */
export async function settlesWithin(promise: Promise<unknown>, ms: number): Promise<boolean> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  try {
    return await Promise.race([
      promise.then(() => true),
      new Promise<false>((resolve) => timer = setTimeout(() => resolve(false), ms)),
    ]);
  } finally {
    clearTimeout(timer);
  }
}
