/**
 * The attach gate: one per tmux host, held by the funnel (docs/design.md §7.4). tmux 3.3a (and
 * every later version we know of) crashes when a notification reaches a control client that is
 * still identifying itself: it has no control state yet. Our own control clients therefore attach
 * only while nothing else of ours can make tmux notify control clients — a command that creates,
 * renames, selects or kills something, sets or deletes a buffer, or another of our clients
 * detaching — and such work waits while one of ours is attaching.
 *
 * A fair readers-writer lock: any number of notifying holds at once ("shared"), or one attach
 * ("exclusive"). Waiters are served in arrival order, so a stream of commands cannot starve an
 * attach, and an attach cannot jump ahead of commands that were waiting before it.
 *
 * @example
 * ```ts
 * const gate = new AttachGate();
 * await gate.shared(() => Promise.resolve("kill-session ran"));
 * await gate.exclusive(() => Promise.resolve("attached"));
 * ```
 */
import { ToolError } from "../errors.ts";

interface Waiter {
  exclusive: boolean;
  grant: () => void;
}

/** How long a notifying hold may wait for an attach in progress. */
export interface GateWait {
  /** The caller's cancellation: `cancelled`, nothing run. */
  signal?: AbortSignal;
  /** The call's deadline: `timeout`, nothing run. */
  timeoutMs?: number;
}

/** Counters of a gate, for the debug log, tests and the bench. */
export interface GateStats {
  /** Attaches (exclusive holds) taken since the gate was made. */
  attaches: number;
  /** Detaches of our control clients, counted by whoever detaches (see {@link AttachGate.detached}). */
  detaches: number;
  /** Notifying holds taken. */
  notifying: number;
  /** Holds that had to wait for the other kind. */
  waited: number;
}

/** Orders our attaches against our notifying work; see the module header. */
export class AttachGate {
  #shared = 0;
  #exclusive = false;
  readonly #waiters: Waiter[] = [];
  readonly #stats: GateStats = { attaches: 0, detaches: 0, notifying: 0, waited: 0 };

  /** What the gate has done so far (a copy). */
  stats(): GateStats {
    return { ...this.#stats };
  }

  /** Whether one of our clients is attaching right now. */
  get attaching(): boolean {
    return this.#exclusive;
  }

  /** Count one detach of ours (its notifying hold is taken with {@link shared}). */
  detached(): void {
    this.#stats.detaches++;
  }

  /**
   * Run `work`, which may make tmux notify control clients, once no client of ours is attaching;
   * attaches wait until it has settled, and until `keepUntil` has too when given. Given up while
   * waiting (`wait`), it rejects with `cancelled` or `timeout` and nothing was run.
   */
  async shared<T>(
    work: () => Promise<T>,
    wait: GateWait = {},
    keepUntil?: Promise<unknown>,
  ): Promise<T> {
    await this.#acquire(false, wait);
    this.#stats.notifying++;
    const release = () => {
      this.#shared--;
      this.#pump();
    };
    try {
      return await work();
    } finally {
      // Work whose consequences go on after it returns keeps its hold, without delaying it.
      if (keepUntil) keepUntil.then(release, release);
      else release();
    }
  }

  /** Hold the gate as notifying until `settled` settles (a process we cannot await in place). */
  holdUntil(settled: Promise<unknown>): void {
    this.shared(() => settled.then(() => {}, () => {})).catch(() => {});
  }

  /** Run `attach` alone: no notifying work of ours runs meanwhile, and no other attach. */
  async exclusive<T>(attach: () => Promise<T>): Promise<T> {
    await this.#acquire(true);
    this.#stats.attaches++;
    try {
      return await attach();
    } finally {
      this.#exclusive = false;
      this.#pump();
    }
  }

  #free(exclusive: boolean): boolean {
    if (this.#waiters.length > 0) return false;
    return exclusive ? !this.#exclusive && this.#shared === 0 : !this.#exclusive;
  }

  #take(exclusive: boolean): void {
    if (exclusive) this.#exclusive = true;
    else this.#shared++;
  }

  #acquire(exclusive: boolean, wait: GateWait = {}): Promise<void> {
    const { signal, timeoutMs } = wait;
    if (signal?.aborted) return Promise.reject(cancelled());
    if (this.#free(exclusive)) {
      this.#take(exclusive);
      return Promise.resolve();
    }
    this.#stats.waited++;
    return new Promise<void>((resolve, reject) => {
      const giveUp = (error: ToolError) => {
        const at = this.#waiters.indexOf(waiter);
        if (at < 0) return;
        this.#waiters.splice(at, 1);
        clearTimeout(timer);
        signal?.removeEventListener("abort", onAbort);
        this.#pump();
        reject(error);
      };
      const onAbort = () => giveUp(cancelled());
      const timer = timeoutMs === undefined ? undefined : setTimeout(
        () => giveUp(new ToolError("timeout", `tmux did not answer within ${timeoutMs} ms`)),
        timeoutMs,
      );
      const waiter: Waiter = {
        exclusive,
        grant: () => {
          clearTimeout(timer);
          signal?.removeEventListener("abort", onAbort);
          resolve();
        },
      };
      this.#waiters.push(waiter);
      signal?.addEventListener("abort", onAbort, { once: true });
    });
  }

  /** Grant waiters in order: an exclusive one alone, consecutive shared ones together. */
  #pump(): void {
    while (this.#waiters.length > 0 && !this.#exclusive) {
      const next = this.#waiters[0];
      if (next.exclusive && this.#shared > 0) return;
      this.#waiters.shift();
      this.#take(next.exclusive);
      next.grant();
    }
  }
}

/** A wait for the gate given up by the caller. */
function cancelled(): ToolError {
  return new ToolError("cancelled", "the call was cancelled before it reached tmux");
}
