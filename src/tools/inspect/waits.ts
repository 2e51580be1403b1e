/**
 * wait_for_text: sleep on a pane's live stream until a line matches (docs/design.md §7.7). The
 * patterns never reach tmux: lines are matched here, per logical line of the rendered text, with
 * the shared compiler (literal, or RE2 with its compiled-size bound).
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
import { waitForLine } from "../../wait/line_wait.ts";
import type { MatchBounds } from "../../pattern/pool.ts";
import { readScreen } from "../../live/read.ts";
import { byteLength, TEXT_LIMITS, textResult, textResultShape } from "../../results.ts";
import { paneIdSchema } from "../../rows.ts";
import { capturePane } from "../../tmux/read/capture.ts";
import { paneFate } from "../../tmux/read/queries.ts";
import { checkGeneration } from "../../tmux/read/targets.ts";
import { defineTool, type InspectContext } from "../../tool_types.ts";
import { generationSchema, maxBytesSchema, maxLinesSchema } from "../schemas.ts";
import { compilePattern, type Find, matchText, PATTERN_LIMITS } from "../../pattern/compile.ts";
import {
  cursorStream,
  sleepOrCancel,
  waitBudget,
  waitProgress,
  waitShape,
} from "../../wait/waiting.ts";

/** Bounds of one wait's patterns. */
const WAIT_LIMITS = {
  patterns: 32,
  patternBytes: 4_096,
  totalBytes: 16_384,
  /** Lines of context returned by default (the lines up to the match, newest kept). */
  defaultLines: 20,
  /** How often a waiting call sends a progress notification, when the client asked for them. */
  progressMs: 1_000,
  /** How often the no-live fallback looks at the screen. */
  pollMs: 250,
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
): LineTest[] {
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
    finds.map((find, index): LineTest => (line, bounds) => {
      const at = find(line, bounds);
      return at instanceof Promise
        ? at.then((n) => hit(n, stopped, index))
        : hit(at, stopped, index);
    });
  return [...each(stop, true), ...each(success, false)];
}

/** One pattern's test of a line: at once, or later when a worker matches it (§7.7 rule 10). */
type LineTest = (line: string, bounds: MatchBounds) => Hit | undefined | Promise<Hit | undefined>;

/** The first answer of `tests` on `line`, the tests tried one after another. */
async function firstHit(tests: readonly LineTest[], line: string, bounds: MatchBounds) {
  for (const test of tests) {
    const hit = await test(line, bounds);
    if (hit) return hit;
  }
  return undefined;
}

const patternSchema = z.string().min(1).max(PATTERN_LIMITS.chars);

/** The wait_for_text manifest entry. */
export const waitTools = [
  defineTool({
    name: "wait_for_text",
    toolset: "inspect",
    core: true,
    title: "Wait for text in a pane",
    description: "Wait until a pane shows a line matching `patterns` (matched) or `stop` " +
      "(stopped), instead of polling. Without `cursor`, only lines shown after the call began " +
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
      cursor: z.string().regex(CURSOR_PATTERN).optional().describe(
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
      cursor: z.string().optional().describe(
        "Continue from here with wait_for_text or capture_since (live mode; absent once the " +
          "pane died or the server went away).",
      ),
      paneId: z.string(),
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
      const { timeoutMs, timeoutClamped } = waitBudget(
        args.timeoutMs,
        Math.min(30_000, ctx.config.waitMaxMs),
        ctx.config.waitMaxMs,
      );
      const bounds = {
        lines: args.maxLines ?? WAIT_LIMITS.defaultLines,
        bytes: args.maxBytes ?? TEXT_LIMITS.bytes,
      };
      const answer = (
        outcome: Outcome,
        found: { line: string; hit: Hit; atEntry: boolean } | undefined,
        text: string,
        rest: { paneId: string; generation: string; streaming: boolean; missedRows: number },
      ) => ({
        outcome,
        matchedLine: found ? matchText(found.line, found.hit.at) : null,
        patternIndex: found ? found.hit.index : null,
        matchedAtEntry: found?.atEntry ?? false,
        ...textResult(text, bounds),
        ...rest,
        elapsedMs: Date.now() - started,
        timeoutMs,
        timeoutClamped,
      });

      // Progress: the elapsed time and the newest line, once a second, while the client listens.
      const ticker = waitProgress(ctx.progress, started, timeoutMs, WAIT_LIMITS.progressMs);
      try {
        const live = ctx.live;
        const poll = (why?: string) => {
          const bounds = { signal: ctx.signal, deadline: started + timeoutMs };
          const test = (line: string) => firstHit(tests, line, bounds);
          return polled(args, ctx, test, started + timeoutMs, answer, ticker.seen, why);
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
          deadline: started + timeoutMs,
          signal: ctx.signal,
          includeScreen: args.includeScreen,
          onLine: ticker.seen,
          tailLines: bounds.lines,
        });
        if (waited.outcome === "ended") {
          const { fate } = await paneFate(ctx.tmux, pane.paneId, pane.generation, ctx.signal);
          if (fate === "alive") throw waited.error;
          return answer(fate, undefined, waited.text, { ...pane, missedRows: 0 });
        }
        const found = waited.outcome === "found"
          ? { line: waited.line, hit: waited.value, atEntry: waited.atEntry }
          : undefined;
        if (!found) {
          // A pane whose program exited under remain-on-exit sends no notification.
          const { fate } = await paneFate(ctx.tmux, pane.paneId, pane.generation, ctx.signal);
          if (fate !== "alive") {
            return answer(fate, undefined, waited.text, { ...pane, missedRows: 0 });
          }
        }
        return {
          ...answer(
            found ? (found.hit.stopped ? "stopped" : "matched") : "timeout",
            found,
            waited.text,
            { ...pane, missedRows: waited.missedRows },
          ),
          cursor: formatCursor(stream.id, waited.offset),
          alternateScreen: waited.alternateScreen,
        };
      } finally {
        ticker.stop();
      }
    },
  }),
];

/**
 * Lines of `next` that are new since `prev` (two screens, trailing blank rows removed): the
 * screen scrolled by some rows (the longest overlap wins; the last row of `prev` counts as new
 * when it changed, it was still being written), or rows changed in place.
 */
export function newScreenLines(prev: readonly string[], next: readonly string[]): string[] {
  // A row past the end of `next` is undefined, so an overlap longer than `next` fails.
  const overlaps = (shift: number, upTo: number) => {
    for (let i = shift; i < upTo; i++) if (prev[i] !== next[i - shift]) return false;
    return true;
  };
  for (let shift = 0; shift < prev.length; shift++) {
    // The whole rest of prev is on the new screen: what follows it is new.
    if (overlaps(shift, prev.length)) return next.slice(prev.length - shift);
    // All but its last row: that row was completed (or rewritten) since.
    if (prev.length - shift > 1 && overlaps(shift, prev.length - 1)) {
      return next.slice(prev.length - 1 - shift);
    }
  }
  return next.filter((line, i) => prev[i] !== line);
}

/**
 * Without live mode: look at the screen every 250 ms and match the lines that are new since
 * the previous look (rule 5 explains a pane that vanished). Lines that scroll past between two
 * looks are not seen; the note says so.
 */
async function polled<R>(
  args: { paneId: string; cursor?: string; includeScreen?: boolean; generation?: string },
  ctx: InspectContext,
  test: (line: string) => Promise<Hit | undefined>,
  deadline: number,
  answer: (
    outcome: Outcome,
    found: { line: string; hit: Hit; atEntry: boolean } | undefined,
    text: string,
    rest: { paneId: string; generation: string; streaming: boolean; missedRows: number },
  ) => R,
  onLine: (line: string) => void,
  why = "live mode is off on this server",
): Promise<R & { note: string }> {
  const note = `${why}: the screen was looked at every ` +
    `${WAIT_LIMITS.pollMs} ms, so lines that scrolled past between two looks were not seen` +
    (args.cursor === undefined ? "" : "; cursors are not kept, so the one you sent was ignored");
  const look = async () => {
    const capture = await capturePane(ctx.tmux, args.paneId, {
      joinWrapped: true,
      maxRows: 10_000,
    }, ctx.signal);
    return { capture, lines: capture.text.replace(/\n+$/, "").split("\n") };
  };
  let first = await look();
  checkGeneration(first.capture, args.generation);
  const pane = {
    paneId: first.capture.paneId,
    generation: first.capture.generation,
    streaming: false,
    missedRows: 0,
  };
  const seen: string[] = [];
  const scan = async (lines: string[], atEntry: boolean) => {
    for (const line of lines) {
      seen.push(line);
      let hit;
      try {
        hit = await test(line);
      } catch (error) {
        // A long line still being matched at the deadline: the wait timed out on it.
        if (error instanceof ToolError && error.code === "timeout") return undefined;
        throw error;
      }
      if (hit) return { line, hit, atEntry };
    }
    const last = lines.findLast((l) => l !== "");
    if (last !== undefined) onLine(last);
    return undefined;
  };
  const done = (outcome: Outcome, found?: { line: string; hit: Hit; atEntry: boolean }) => ({
    ...answer(outcome, found, seen.join("\n") + (seen.length > 0 ? "\n" : ""), pane),
    note,
  });
  let found = args.includeScreen ? await scan(first.lines, true) : undefined;
  while (!found && Date.now() < deadline) {
    await sleepOrCancel(Math.min(WAIT_LIMITS.pollMs, deadline - Date.now()), ctx.signal);
    let next;
    try {
      next = await look();
    } catch (error) {
      if (!(error instanceof ToolError)) throw error;
      if (error.code === "target_not_found") return done("pane_died");
      if (error.code === "server_not_running" || error.code === "server_gone") {
        return done("server_gone");
      }
      throw error;
    }
    if (next.capture.generation !== pane.generation) return done("pane_died");
    found = await scan(newScreenLines(first.lines, next.lines), false);
    first = next;
  }
  if (found) return done(found.hit.stopped ? "stopped" : "matched", found);
  const { fate } = await paneFate(ctx.tmux, pane.paneId, pane.generation, ctx.signal);
  return done(fate === "alive" ? "timeout" : fate);
}
