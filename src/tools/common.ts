/** Argument schemas shared by many tools, the agent-pattern compiler, and sleep. */
import { RE2JS } from "re2js";
import { z } from "zod";
import { ToolError } from "../errors.ts";
import { clipText, TEXT_LIMITS } from "../results.ts";
import { parseCursor } from "../live/cursor.ts";
import { firstMatch } from "../pattern/find.ts";
import { type MatchBounds, matchInWorker } from "../pattern/pool.ts";
import type { PaneStream } from "../live/stream.ts";
import type { LiveEngine } from "../tmux/live/engine.ts";
import type { ToolContext } from "../tool_types.ts";

// Three argument schemas below carry no description (their names say it; the server instructions
// say once how text is bounded): they appear in most tools, whose schemas the model reads every
// turn. A generation gets a few words, since an agent whose client drops the instructions must
// still know where it comes from (docs/design.md §4).

/** A session reference: `$N` or an exact name (never a prefix or pattern). */
export const sessionRefSchema = z.string().min(1).max(256);

/** A pane generation from list_panes, to refuse a pane that was replaced meanwhile. */
export const generationSchema = z.string().min(1).max(128).describe(
  "From list_panes; stale_target if the pane was replaced.",
);

/**
 * Schemas advertised without their descriptions: the read batch's nested arguments, which
 * repeat input schemas whose own tool entries (always listed beside the batch) already carry
 * the prose (docs/design.md §1.3). The catalog strips them when it renders JSON Schema.
 */
export const PROSE_FREE = z.registry<Record<string, never>>();

/** `maxLines`: keep at most this many of the newest lines (default `TEXT_LIMITS.lines`). */
export const maxLinesSchema = z.int().positive();

/** `maxBytes`: keep at most this many UTF-8 bytes of text, the newest (default `TEXT_LIMITS.bytes`). */
export const maxBytesSchema = z.int().min(1).max(TEXT_LIMITS.maxBytes);

/**
 * The sentence a guarded tool's description ends with: the two rules an agent must plan around
 * (docs/design.md §6.2, §6.9). The rest of the guard is said by its refusals, each of which reads
 * alone, and once in the server instructions, which some clients drop.
 */
export const GUARDED = "Refuses panes a person watches, and your own unless force.";

/** The sentence of the view setters, which only the watched-window rule (§6.8) limits. */
export const VIEW_GUARDED = "Refused where a person watches.";

/** Asking the person (docs/design.md §6.11), for descriptions that mention it. */
export const ASK_TEXT = "A person may be asked to allow it.";

/** What every waiting tool reports about its wait (the ceiling clamps `timeoutMs`, disclosed). */
export const waitShape = {
  elapsedMs: z.int(),
  timeoutMs: z.int(),
  timeoutClamped: z.boolean(),
};

/**
 * Clamp the wait a call asked for (`fallback` when it named none) to the server's ceiling,
 * disclosing the clamp: {@link waitShape}'s `timeoutMs` and `timeoutClamped`.
 */
export function waitBudget(
  asked: number | undefined,
  fallback: number,
  waitMaxMs: number,
): { timeoutMs: number; timeoutClamped: boolean } {
  const wanted = asked ?? fallback;
  return { timeoutMs: Math.min(wanted, waitMaxMs), timeoutClamped: wanted > waitMaxMs };
}

/** The sleep tool calls use: it fails with `cancelled` when the call is (src/timing.ts). */
export { sleep } from "../timing.ts";

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

/**
 * The live stream a cursor (the ltxc1 cursor, docs/design.md §1.6) names and the read offset it
 * carries, once checked: the stream is alive (else why it ended, or `stale_cursor`), belongs to
 * `paneId`, and still describes the pane (docs/design.md §7.3).
 */
export async function cursorStream(
  live: LiveEngine,
  cursor: string,
  paneId: string,
  signal: AbortSignal,
): Promise<{ stream: PaneStream; offset: number }> {
  const { streamId, offset } = parseCursor(cursor);
  const stream = live.find(streamId);
  if (!stream) {
    throw live.endedReason(streamId) ??
      new ToolError(
        "stale_cursor",
        "this cursor's stream is gone (unused for 5 minutes, server restarted, or pane replaced)",
      );
  }
  if (stream.paneId !== paneId) {
    throw new ToolError(
      "stale_cursor",
      `this cursor belongs to ${stream.paneId}'s stream, not ${paneId}'s`,
    );
  }
  await live.verify(stream, signal);
  return { stream, offset };
}

/**
 * A wait's progress notifications: once every `everyMs`, the time waited and the newest line
 * seen (clipped), while the client listens (`ctx.progress` is set only then). Call `stop` when
 * the wait ends.
 */
export function waitProgress(
  progress: ToolContext["progress"],
  started: number,
  totalMs: number,
  everyMs: number,
): { seen: (line: string) => void; stop: () => void } {
  let newest = "";
  const ticker = progress
    ? setInterval(() => {
      const elapsed = Date.now() - started;
      progress({
        progress: elapsed,
        total: totalMs,
        message: `waited ${(elapsed / 1000).toFixed(1)} s` +
          (newest === "" ? "" : `; newest line: ${clipText(newest, 200)}`),
      });
    }, everyMs)
    : undefined;
  return { seen: (line) => newest = line, stop: () => clearInterval(ticker) };
}
