/**
 * Matching lines inside a wait (docs/design.md §7.7 rules 5 and 10): the two rules every wait and
 * search_panes share. The yield rule: matching hands the event loop a turn once it has run for a
 * slice, checked before each test of each line, so one call's long burst never holds the others.
 * The no-match rule: a line still matched in a worker when the deadline passes is no match, the
 * call's time is up ("late"); a cancellation rejects.
 */
import { ToolError } from "../errors.ts";
import type { Find } from "../pattern/compile.ts";
import type { MatchBounds } from "../pattern/pool.ts";

/** Matching work between two yields to the event loop (each yield costs ~2 ms). */
export const SLICE_MS = 20;

/**
 * One test of a line: an answer at once, or later when a worker matches a long line (§7.7 rule 10),
 * which rejects with `timeout` at the deadline. Undefined: no match.
 */
export type LineTest<T> = (
  line: string,
  bounds: MatchBounds,
) => T | undefined | Promise<T | undefined>;

/** The yield rule: one per call, asked before each test ({@link SLICE_MS} of work per turn). */
export class MatchPace {
  #end: number;

  constructor(private readonly now: () => number = Date.now) {
    this.#end = now() + SLICE_MS;
  }

  /** Whether the slice is used up: the next test waits for a turn of the event loop first. */
  get due(): boolean {
    return this.now() >= this.#end;
  }

  /**
   * Yield when the slice is used up: one turn of the event loop, then a fresh slice. Rejects with
   * `cancelled` when `signal` aborted meanwhile.
   */
  async breathe(signal: AbortSignal, cancelled = "the call was cancelled"): Promise<void> {
    if (!this.due) return;
    await new Promise((resolve) => setTimeout(resolve, 0));
    if (signal.aborted) throw new ToolError("cancelled", cancelled);
    this.#end = this.now() + SLICE_MS;
  }
}

/**
 * The no-match rule, for a test that rejected: `late` when a worker was still matching at the
 * deadline (the time is up, nothing matched); any other failure (`cancelled`, `busy`…) rethrown.
 */
export function missedMatch(error: unknown): "late" {
  if (error instanceof ToolError && error.code === "timeout") return "late";
  throw error;
}

/** Where `line` matches (or -1), or `late` when a worker still matched it at the deadline. */
export async function findOnTime(
  find: Find,
  line: string,
  bounds: MatchBounds,
): Promise<number | "late"> {
  try {
    return await find(line, bounds);
  } catch (error) {
    return missedMatch(error);
  }
}

/**
 * The first answer of `tests` on one line, tried in order, or why it stopped: `late` when the
 * deadline passed (before a test, or while a worker matched the line), `ended` when `alive` says
 * the stream went away while matching yielded or a worker worked. The pace and the deadline are
 * checked before each test, not only each line: a 200,000-character line under 64 patterns held
 * the event loop for a second.
 */
export async function tryLine<T>(
  tests: readonly LineTest<T>[],
  line: string,
  bounds: MatchBounds,
  pace: MatchPace,
  alive: () => boolean = () => true,
): Promise<{ value: T | undefined } | "late" | "ended"> {
  for (const test of tests) {
    if (pace.due) {
      await pace.breathe(bounds.signal);
      if (!alive()) return "ended";
    }
    if (Date.now() > bounds.deadline) return "late";
    let value = test(line, bounds);
    if (value instanceof Promise) {
      try {
        value = await value;
      } catch (error) {
        return missedMatch(error);
      }
      if (!alive()) return "ended";
    }
    if (value !== undefined) return { value };
  }
  return { value: undefined };
}
