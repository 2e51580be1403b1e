/**
 * Turns for the event loop during long drawing (docs/design.md §9.5): drawing a 400x200 pane takes
 * hundreds of milliseconds, and every other call of the process waits while one loop holds it.
 */
import { pauseUnlessAborted } from "../base/timing.ts";

/** How long drawing runs before it lets other work run. */
const SLICE_MS = 8;

/** Yields to the event loop once a slice of work has run (call it often, e.g. per row). */
export class Pacer {
  #since = performance.now();

  /** Resolves at once within the slice, else after one turn of the event loop. */
  async breathe(): Promise<void> {
    if (performance.now() - this.#since < SLICE_MS) return;
    await pauseUnlessAborted(0);
    this.#since = performance.now();
  }
}
