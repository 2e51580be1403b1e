/**
 * wait_for_text: sleep on a pane's live stream until a line matches (docs/design.md §7.7). The
 * patterns never reach tmux: lines are matched here, per logical line of the rendered text, with
 * the shared compiler (literal, or RE2 with its compiled-size bound). The wait is the wait
 * engine's (src/wait/: line_wait.ts live, line_poll.ts polled); this file holds the contract.
 *
 * Rules, in the order they are checked:
 *
 * 1. patterns: 1 to 32 success patterns and at most 32 stop patterns, each at most 4 KiB and
 *    16 KiB in all (UTF-8), each compiling within the RE2 bound; `includeScreen` only without a
 *    `cursor` (lines since a cursor are matched anyway);
 * 2. the timeout is clamped to the server's wait ceiling and the clamp disclosed, never refused;
 * 3. the stream is joined (or the cursor's stream found and checked) before the screen is read,
 *    so output printed between the call and the wait is not missed; `generation` is compared;
 * 4. in each line, a stop pattern wins over a success pattern; the first line that matches
 *    either ends the wait, and the cursor returned resumes just below it;
 * 5. a stream that ends (pane killed or replaced, connection lost) is explained by one look at
 *    the pane: gone, dead or replaced is `pane_died`, no server `server_gone`; so is a timeout on
 *    a pane whose program exited while tmux kept it (remain-on-exit).
 */
import { z } from "zod";
import { ToolError } from "../../errors.ts";
import { CURSOR_PATTERN, formatCursor } from "../../live/cursor.ts";
import { readScreen } from "../../live/read.ts";
import { byteLength, TEXT_LIMITS, textResult, textResultShape } from "../../results.ts";
import { paneIdSchema } from "../../rows.ts";
import { checkGeneration } from "../../tmux/read/generation.ts";
import { defineTool } from "../../tool_types.ts";
import { generationSchema, maxBytesSchema, maxLinesSchema, tmuxId } from "../schemas.ts";
import { compilePattern, type Find, matchText, PATTERN_LIMITS } from "../../pattern/compile.ts";
import { WAIT_DEFAULT_MS, waitBudget, waitShape } from "../../wait/ceiling.ts";
import { cursorStream } from "../../wait/cursor_stream.ts";
import { fateAtTimeout, goneOrThrow } from "../../wait/fate.ts";
import { waitForLine } from "../../wait/line_wait.ts";
import { pollForLine } from "../../wait/line_poll.ts";
import type { LineTest } from "../../wait/match.ts";
import { CURSOR_IGNORED, NO_LIVE, POLL_MS } from "../../wait/poll.ts";
import { waitProgress } from "../../wait/progress.ts";

/** Bounds of one wait's patterns. */
const WAIT_LIMITS = {
  patterns: 32,
  patternBytes: 4_096,
  totalBytes: 16_384,
  /** Lines of context returned by default (the lines up to the match, newest kept). */
  defaultLines: 20,
} as const;

const OUTCOMES = ["matched", "stopped", "timeout", "pane_died", "server_gone"] as const;
type Outcome = typeof OUTCOMES[number];

/** Which pattern a line matched, and where. */
interface Hit {
  stopped: boolean;
  index: number;
  at: number;
}

/**
 * Check the patterns' sizes and compile them into line tests, one per pattern, stop patterns
 * first (rule 1, rule 4): the first that answers wins.
 */
function lineTests(
  args: { patterns: string[]; stop?: string[]; regex?: boolean; ignoreCase?: boolean },
): LineTest<Hit>[] {
  const all = [...args.patterns, ...(args.stop ?? [])];
  const sizes = all.map(byteLength);
  if (sizes.some((n) => n > WAIT_LIMITS.patternBytes)) {
    throw new ToolError(
      "invalid_arguments",
      `a pattern is longer than ${WAIT_LIMITS.patternBytes} bytes`,
      { hint: "Wait for a shorter, distinctive part of the line." },
    );
  }
  const total = sizes.reduce((a, b) => a + b, 0);
  if (total > WAIT_LIMITS.totalBytes) {
    throw new ToolError(
      "invalid_arguments",
      `the patterns hold ${total} bytes, more than the ${WAIT_LIMITS.totalBytes} a wait takes`,
      { hint: "Use fewer or shorter patterns; one regex alternation can replace several." },
    );
  }
  const options = { regex: args.regex ?? false, ignoreCase: args.ignoreCase ?? false };
  const success = args.patterns.map((p, i) => compilePattern(p, options, `patterns[${i}]`));
  const stop = (args.stop ?? []).map((p, i) => compilePattern(p, options, `stop[${i}]`));
  const hit = (at: number, stopped: boolean, index: number) =>
    at >= 0 ? { stopped, index, at } : undefined;
  const each = (finds: Find[], stopped: boolean) =>
    finds.map((find, index): LineTest<Hit> => (line, bounds) => {
      const at = find(line, bounds);
      return at instanceof Promise
        ? at.then((n) => hit(n, stopped, index))
        : hit(at, stopped, index);
    });
  return [...each(stop, true), ...each(success, false)];
}

/** What a polled wait says of itself (rule 8 of docs/design.md §7.7). */
function polledNote(why: string, cursor: string | undefined): string {
  return `${why}: the screen was looked at every ${POLL_MS} ms, so lines that scrolled past ` +
    "between two looks were not seen" + (cursor === undefined ? "" : CURSOR_IGNORED);
}

const patternSchema = z.string().min(1).max(PATTERN_LIMITS.chars);

/** The wait_for_text manifest entry. */
export const waitTools = [
  defineTool({
    name: "wait_for_text",
    toolset: "inspect",
    core: true,
    title: "Wait for text in a pane",
    description: "Wait (at most {waitMax}) until a pane shows a line matching `patterns` " +
      "(matched) or `stop` (stopped), instead of polling; lines match as rendered, trailing " +
      "blanks trimmed. Without `cursor`, only lines shown after the call began " +
      'count. ECHO TRAP: typed commands are echoed, so after send_keys "make; echo BUILD-OK" ' +
      'BUILD-OK matches at once: type "make; echo BUILD-$((1))-OK" and wait for BUILD-1-OK, or ' +
      "use run_shell_command.",
    input: z.object({
      paneId: paneIdSchema,
      patterns: z.array(patternSchema).min(1).max(WAIT_LIMITS.patterns),
      stop: z.array(patternSchema).max(WAIT_LIMITS.patterns).optional().describe(
        'Failure text, like "error".',
      ),
      regex: z.boolean().optional().describe("Patterns are RE2 (no backreferences)."),
      ignoreCase: z.boolean().optional(),
      timeoutMs: z.int().min(0).max(Number.MAX_SAFE_INTEGER).optional().describe("Default 30000."),
      cursor: tmuxId("cursor", z.string().regex(CURSOR_PATTERN)).optional().describe(
        "From capture_since or wait_for_text: match all shown since.",
      ),
      includeScreen: z.boolean().optional().describe("Also match the screen as it is."),
      maxLines: maxLinesSchema.optional().describe(`Default ${WAIT_LIMITS.defaultLines}.`),
      maxBytes: maxBytesSchema.optional(),
      generation: generationSchema.optional(),
    }).strict(),
    output: z.object({
      outcome: z.enum(OUTCOMES).describe(
        "matched: a line matched `patterns`; stopped: a line matched `stop`; timeout: none " +
          "within timeoutMs; pane_died: the pane was killed, replaced or its program exited; " +
          "server_gone: the tmux server went away.",
      ),
      matchedLine: z.string().nullable().describe(
        `The line that matched (cut around the match beyond ${PATTERN_LIMITS.matchText} characters).`,
      ),
      patternIndex: z.int().nullable().describe(
        "Index of the pattern that matched, in `patterns` (matched) or `stop` (stopped).",
      ),
      matchedAtEntry: z.boolean().describe(
        "The line was already there when the wait began (on screen, or since your cursor).",
      ),
      ...textResultShape,
      cursor: tmuxId("cursor").optional().describe(
        "Continue from here with wait_for_text or capture_since (live mode; absent once the " +
          "pane died or the server went away).",
      ),
      paneId: tmuxId("pane"),
      generation: z.string(),
      streaming: z.boolean().describe("True when the pane is streamed live; false when polled."),
      missedRows: z.int().describe(
        "Rows that left the history kept per pane before they could be matched.",
      ),
      alternateScreen: z.boolean().optional().describe(
        "A full-screen program shows the alternate screen; its rows were matched as they are.",
      ),
      ...waitShape,
      note: z.string().optional(),
    }).strict(),
    annotations: "inspect",
    capability: { reach: "none", effects: "observe", output: ["terminal-text"] },
    handler: async (args, ctx) => {
      const started = Date.now();
      const tests = lineTests(args);
      if (args.cursor !== undefined && args.includeScreen) {
        throw new ToolError("invalid_arguments", "includeScreen applies only without a cursor", {
          hint: "Lines printed since your cursor's read are matched anyway; drop includeScreen.",
        });
      }
      const max = ctx.config.waitMaxMs;
      const { timeoutMs, timeoutClamped } = waitBudget(args.timeoutMs, WAIT_DEFAULT_MS, max);
      const deadline = started + timeoutMs;
      const bounds = {
        lines: args.maxLines ?? WAIT_LIMITS.defaultLines,
        bytes: args.maxBytes ?? TEXT_LIMITS.bytes,
      };
      const answer = (
        outcome: Outcome,
        found: { line: string; value: Hit; atEntry: boolean } | undefined,
        text: string,
        rest: { paneId: string; generation: string; streaming: boolean; missedRows: number },
      ) => ({
        outcome,
        matchedLine: found ? matchText(found.line, found.value.at) : null,
        patternIndex: found ? found.value.index : null,
        matchedAtEntry: found?.atEntry ?? false,
        ...textResult(text, bounds),
        ...rest,
        elapsedMs: Date.now() - started,
        timeoutMs,
        timeoutClamped,
      });
      const matched = (hit: Hit): Outcome => hit.stopped ? "stopped" : "matched";

      // Progress: the elapsed time and the newest line, once a second, while the client listens.
      const ticker = waitProgress(ctx.progress, started, timeoutMs);
      try {
        const live = ctx.live;
        // Without live mode, or past the connection cap: the screen is polled (rule 8).
        const poll = async (why = NO_LIVE) => {
          const { outcome, found, text, ...pane } = await pollForLine(ctx, {
            paneId: args.paneId,
            generation: args.generation,
            includeScreen: args.includeScreen,
            tests,
            deadline,
            onLine: ticker.seen,
          });
          return {
            ...answer(
              outcome === "found" ? matched(found!.value) : outcome,
              found,
              text,
              { ...pane, streaming: false, missedRows: 0 },
            ),
            note: polledNote(why, args.cursor),
          };
        };
        if (!live) return await poll();
        let stream;
        let offset: number;
        if (args.cursor === undefined) {
          // Joined before the screen is read, so nothing printed from here on is missed.
          // Past the connection cap, the pane is polled rather than a followed one evicted.
          const joined = await live.follow(args.paneId, ctx.signal);
          if ("polled" in joined) return await poll(joined.polled);
          stream = joined;
          offset = readScreen(stream).offset;
        } else {
          ({ stream, offset } = await cursorStream(live, args.cursor, args.paneId, ctx.signal));
        }
        checkGeneration(stream, args.generation);
        const pane = { paneId: stream.paneId, generation: stream.generation, streaming: true };
        const waited = await waitForLine(stream, offset, {
          tests,
          deadline,
          signal: ctx.signal,
          includeScreen: args.includeScreen,
          onLine: ticker.seen,
          tailLines: bounds.lines,
        });
        if (waited.outcome === "ended") {
          const gone = await goneOrThrow(ctx, pane, waited.error);
          return answer(gone, undefined, waited.text, { ...pane, missedRows: 0 });
        }
        const found = waited.outcome === "found" ? waited : undefined;
        // A pane whose program exited under remain-on-exit sends no notification (rule 5).
        const outcome = found ? matched(found.value) : await fateAtTimeout(ctx, pane);
        if (outcome === "pane_died" || outcome === "server_gone") {
          return answer(outcome, undefined, waited.text, { ...pane, missedRows: 0 });
        }
        return {
          ...answer(outcome, found, waited.text, { ...pane, missedRows: waited.missedRows }),
          cursor: formatCursor(stream.id, waited.offset),
          alternateScreen: waited.alternateScreen,
        };
      } finally {
        ticker.stop();
      }
    },
  }),
];
