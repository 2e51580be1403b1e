/** Compiling an agent's pattern (literal or RE2) into a line matcher, bounded. */
import { RE2JS } from "re2js";
import { ToolError } from "../errors.ts";
import { clipText } from "../rows.ts";
import { firstMatch } from "./find.ts";
import { type MatchBounds, matchInWorker } from "./pool.ts";

/**
 * Bounds of agent patterns (search_panes, wait_for_text). RE2 is linear in the text but not in the
 * pattern: its NFA steps every live instruction for each character, so a 1,900-instruction
 * pattern such as `(x{1,30}){1,30}y` costs ~50 ms per 200-column row. Ordinary patterns need a few
 * dozen instructions, counted ones a few hundred (`[a-z]{1,64}@[a-z]{1,64}\.com` 261,
 * `foo.{0,200}bar` 402); at 1,000 a 200-column row costs the NFA ~15–25 ms at worst, and nested
 * counts pass it quickly ((x{1,30}){1,30} 1,862).
 */
export const PATTERN_LIMITS = {
  /** Characters of one pattern. */
  chars: 4_096,
  /** RE2 instructions of one compiled pattern. */
  programInstructions: 1_000,
  /** Characters of a matched line returned (cut around the match beyond it). */
  matchText: 1_024,
} as const;

/**
 * Where a line matches (a UTF-16 index), or -1: at once in this thread, or a promise when the line
 * is matched in a worker (docs/design.md §7.7 rule 10), which rejects with `cancelled` or
 * `timeout` when `bounds` give it up, or `busy`.
 */
export type Find = (line: string, bounds: MatchBounds) => number | Promise<number>;

/**
 * The RE2 work (characters × instructions) a line may cost in this thread: ~0.1 µs a unit at
 * worst on this machine's NFA, so about 25 ms. Lines up to the match-cut length stay here whatever
 * the pattern (the test alone, usually the DFA); longer, costlier lines go to a worker.
 */
const IN_THREAD_COST = 262_144;

/**
 * Compile an agent's pattern for matching lines here (patterns never reach tmux): literal by
 * default, RE2 with `regex`. Refuses invalid RE2 and programs larger than
 * {@link PATTERN_LIMITS.programInstructions} with `invalid_arguments`; `what` names the argument.
 */
export function compilePattern(
  pattern: string,
  options: { regex: boolean; ignoreCase: boolean },
  what = "pattern",
): Find {
  // A case-sensitive literal needs no automaton, and so no bound on its length.
  if (!options.regex && !options.ignoreCase) return (line) => line.indexOf(pattern);
  const source = options.regex ? pattern : RE2JS.quote(pattern);
  const flags = options.ignoreCase ? RE2JS.CASE_INSENSITIVE : 0;
  let re: RE2JS;
  try {
    re = RE2JS.compile(source, flags);
  } catch (error) {
    throw new ToolError(
      "invalid_arguments",
      `${what} is not valid RE2 syntax: ${(error as Error).message.slice(0, 120)}`,
      {
        hint: "Use RE2 syntax (no backreferences or lookaround), or pass regex: false to match " +
          "literally.",
      },
    );
  }
  const size = re.programSize();
  if (size > PATTERN_LIMITS.programInstructions) {
    throw new ToolError(
      "invalid_arguments",
      `${what} compiles to ${size} RE2 instructions, more than the ` +
        `${PATTERN_LIMITS.programInstructions} a pattern may have`,
      {
        hint: "Simplify the repetition counts (nested counts multiply: prefer x+ to " +
          "(x{1,30}){1,30}), shorten the pattern, or match a literal without ignoreCase.",
      },
    );
  }
  // Only a line long enough to be cut around its match needs the match's position.
  return (line, bounds) =>
    line.length <= PATTERN_LIMITS.matchText
      ? firstMatch(re, line, false)
      : line.length * size <= IN_THREAD_COST
      ? firstMatch(re, line, true)
      : matchInWorker(source, flags, line, bounds);
}

/** A matched line, cut around the match (at `at`) when longer than the per-match limit. */
export function matchText(line: string, at: number): string {
  if (line.length <= PATTERN_LIMITS.matchText) return line;
  const from = Math.max(0, Math.min(at - 100, line.length - PATTERN_LIMITS.matchText));
  return clipText(line.slice(from), PATTERN_LIMITS.matchText);
}
