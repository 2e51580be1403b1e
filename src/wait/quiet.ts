/**
 * The quiet hook (docs/design.md §7.7, §7.10 rule 4): a wait that ends once output has stopped for
 * `quietMs`. Pure: the caller says when something changed and whether that change may start the
 * timer (after input: only output beyond the input's own line; polling capture_since: any).
 */

/** Time since the last change, once a change that starts it came. */
export class QuietTimer {
  #from: number | undefined;

  constructor(readonly quietMs: number) {}

  /**
   * Something changed at `now`: a started timer restarts; one not yet started starts only when
   * `starts` (the echo of input alone never starts it, §7.10 rule 4).
   */
  changed(now: number, starts = true): void {
    if (this.#from !== undefined || starts) this.#from = now;
  }

  /** Whether a change started the timer. */
  get started(): boolean {
    return this.#from !== undefined;
  }

  /** When the wait is quiet if nothing changes before (Infinity until started). */
  get at(): number {
    return this.#from === undefined ? Infinity : this.#from + this.quietMs;
  }

  /** Whether nothing changed for `quietMs` since the timer started or restarted. */
  quiet(now: number): boolean {
    return now >= this.at;
  }
}
