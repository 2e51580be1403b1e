/**
 * How many screenshots one host draws at once (docs/design.md §9.5): each holds its cells, its
 * pixels and the PNG (16 at once took 705 MB and 10 s), so at most {@link SHOT_CONCURRENCY}
 * `.running` draw, the next `.waiting` wait their turn in order, and more are refused with `busy`.
 */
import { ToolError } from "../errors.ts";

/** Screenshots drawn at once per host, and how many may wait for a turn. */
const SHOT_CONCURRENCY = { running: 2, waiting: 16 } as const;

/** What the gate holds now, and the most it ever ran at once (for tests and diagnostics). */
interface GateStats {
  running: number;
  waiting: number;
  peak: number;
}

/** A counting gate with a bounded, cancellable queue. One per host (docs/design.md §2.3). */
export class ShotGate {
  readonly #limits: { running: number; waiting: number };
  #running = 0;
  #peak = 0;
  readonly #queue: Array<() => void> = [];

  constructor(limits: { running: number; waiting: number } = SHOT_CONCURRENCY) {
    this.#limits = limits;
  }

  /** Counters now (running, waiting) and the most that ran at once. */
  stats(): GateStats {
    return { running: this.#running, waiting: this.#queue.length, peak: this.#peak };
  }

  /** Run `work` once a turn is free; `signal` ends a wait for one with `cancelled`. */
  async run<T>(work: () => Promise<T>, signal?: AbortSignal): Promise<T> {
    await this.#acquire(signal);
    try {
      return await work();
    } finally {
      this.#running--;
      this.#queue.shift()?.();
    }
  }

  #enter(): void {
    this.#running++;
    this.#peak = Math.max(this.#peak, this.#running);
  }

  #acquire(signal?: AbortSignal): Promise<void> {
    if (signal?.aborted) throw new ToolError("cancelled", "the call was cancelled");
    if (this.#running < this.#limits.running) return Promise.resolve(this.#enter());
    if (this.#queue.length >= this.#limits.waiting) {
      throw new ToolError(
        "busy",
        `${this.#limits.running} screenshots are being drawn and ${this.#limits.waiting} more ` +
          "wait their turn",
        { hint: "Retry when some of your screenshots have returned; take them one at a time." },
      );
    }
    return new Promise((resolve, reject) => {
      const turn = () => {
        signal?.removeEventListener("abort", abort);
        this.#enter();
        resolve();
      };
      const abort = () => {
        const at = this.#queue.indexOf(turn);
        if (at >= 0) this.#queue.splice(at, 1);
        reject(new ToolError("cancelled", "the call was cancelled while it waited to be drawn"));
      };
      signal?.addEventListener("abort", abort, { once: true });
      this.#queue.push(turn);
    });
  }
}
