/**
 * The attach gate: one per tmux host, held by the funnel (docs/design.md §7.4). tmux 3.3a (and
 * every later version we know of) crashes when a notification reaches a control client that is
 * still identifying itself: it has no control state yet. Our own control clients therefore attach
 * only while nothing else of ours can make tmux notify control clients — a command that creates,
 * renames, selects or kills something, sets or deletes a buffer, or another of our clients
 * detaching — and such work waits while one of ours is attaching.
 *
 * Three kinds of hold, each excluding the other two: notifying work (any number at once), our
 * detaches (any number at once: a client on its way out may have lost its control state too, so
 * nothing of ours notifies meanwhile), and one attach at a time. Waiters are served in arrival
 * order, consecutive ones of a shared kind together, so a stream of commands cannot starve an
 * attach, and an attach cannot jump ahead of commands that were waiting before it.
 *
 * @example
 * ```ts
 * const gate = new AttachGate();
 * await gate.notifying(() => Promise.resolve("kill-session ran"));
 * await gate.attaching(() => Promise.resolve("attached"));
 * await gate.detaching(() => Promise.resolve("detached"));
 * ```
 */
import { ToolError } from "../../errors.ts";

/** What a hold is for; holds of different kinds never overlap. */
export type Kind = "notify" | "detach" | "attach";

interface Waiter {
  kind: Kind;
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
  /** Detaches (or kills) of our control clients. */
  detaches: number;
  /** Notifying holds taken. */
  notifying: number;
  /** Holds that had to wait for the other kind. */
  waited: number;
}

/** Orders our attaches against our notifying work and our detaches; see the module header. */
export class AttachGate {
  #holding: Kind | undefined;
  #holders = 0;
  readonly #waiters: Waiter[] = [];
  readonly #stats: GateStats = { attaches: 0, detaches: 0, notifying: 0, waited: 0 };

  /** What the gate has done so far (a copy). */
  stats(): GateStats {
    return { ...this.#stats };
  }

  /** What the gate is held for right now, if anything. */
  get held(): Kind | undefined {
    return this.#holding;
  }

  /**
   * Run `work`, which may make tmux notify control clients, once no client of ours is attaching
   * or detaching; those wait until it has settled, and until `keepUntil` has too when given (work
   * whose consequences go on after it returns keeps its hold without delaying its result). Given
   * up while waiting (`wait`), it rejects with `cancelled` or `timeout` and nothing was run.
   */
  async notifying<T>(
    work: () => Promise<T>,
    wait: GateWait = {},
    keepUntil?: Promise<unknown>,
  ): Promise<T> {
    await this.#acquire("notify", wait);
    this.#stats.notifying++;
    try {
      return await work();
    } finally {
      if (keepUntil) keepUntil.then(() => this.#release(), () => this.#release());
      else this.#release();
    }
  }

  /** Run `detach` (a client of ours detaching or killed) while nothing of ours notifies or attaches. */
  async detaching(detach: () => Promise<void>): Promise<void> {
    await this.#acquire("detach");
    this.#stats.detaches++;
    try {
      await detach();
    } finally {
      this.#release();
    }
  }

  /** Hold the gate as a detach until `settled` settles (a process we cannot await in place). */
  detachUntil(settled: Promise<unknown>): void {
    this.detaching(() => settled.then(() => {}, () => {})).catch(() => {});
  }

  /** Run `attach` alone: nothing else of ours notifies, detaches or attaches meanwhile. */
  async attaching<T>(attach: () => Promise<T>): Promise<T> {
    await this.#acquire("attach");
    this.#stats.attaches++;
    try {
      return await attach();
    } finally {
      this.#release();
    }
  }

  #compatible(kind: Kind): boolean {
    return this.#holding === undefined || (this.#holding === kind && kind !== "attach");
  }

  #take(kind: Kind): void {
    this.#holding = kind;
    this.#holders++;
  }

  #release(): void {
    if (--this.#holders === 0) this.#holding = undefined;
    this.#pump();
  }

  #acquire(kind: Kind, wait: GateWait = {}): Promise<void> {
    const { signal, timeoutMs } = wait;
    if (signal?.aborted) return Promise.reject(cancelled());
    if (this.#waiters.length === 0 && this.#compatible(kind)) {
      this.#take(kind);
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
        kind,
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

  /** Grant waiters in order while their kind fits what is held. */
  #pump(): void {
    while (this.#waiters.length > 0 && this.#compatible(this.#waiters[0].kind)) {
      const next = this.#waiters.shift()!;
      this.#take(next.kind);
      next.grant();
    }
  }
}

/** A wait for the gate given up by the caller. */
function cancelled(): ToolError {
  return new ToolError("cancelled", "the call was cancelled before it reached tmux");
}
