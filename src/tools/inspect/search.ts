/**
 * search_panes: find text across panes. The pattern never reaches tmux: panes are captured (many
 * per invocation) and matched here, literally or with RE2 (linear time, no catastrophic
 * backtracking), within an aggregate work budget whose every ceiling is disclosed.
 *
 * RE2 is linear in the text but not in the pattern, so the shared compiler bounds the compiled
 * program (`PATTERN_LIMITS` in src/pattern/compile.ts); a deadline is checked line by line, and
 * lines are matched in slices that yield to the event loop, so one search never holds up other
 * calls. One line is still matched in one call: a joined line of n characters costs up to
 * ~0.15 µs × instructions × n.
 */
import { z } from "zod";
import { ToolError } from "../../errors.ts";
import { byteLength } from "../../results.ts";
import { captureMany, planCaptures } from "../../tmux/read/capture_many.ts";
import { listPanes } from "../../tmux/read/queries.ts";
import { resolveSessionRef } from "../../tmux/read/session_ref.ts";
import { hostField, type PaneFacts, pickShape } from "../../rows.ts";
import { defineTool } from "../../tool_types.ts";
import { sessionRefSchema, tmuxId } from "../schemas.ts";
import { compilePattern, type Find, matchText, PATTERN_LIMITS } from "../../pattern/compile.ts";
import { findOnTime, MatchPace } from "../../wait/match.ts";

/** Aggregate ceilings of one search. */
const SEARCH_LIMITS = {
  panes: 200,
  lines: 20_000,
  matchedBytes: 262_144,
  millis: 5_000,
  patternChars: PATTERN_LIMITS.chars,
  /** RE2 instructions of a compiled pattern (see PATTERN_LIMITS). */
  programInstructions: PATTERN_LIMITS.programInstructions,
  matchText: PATTERN_LIMITS.matchText,
  defaultMatchesPerPane: 5,
} as const;

const matchSchema = z.object({
  paneId: tmuxId("pane"),
  sessionName: tmuxId("session"),
  windowIndex: z.int(),
  windowName: z.string(),
  line: z.int().describe(
    "The row the line starts on, as capture_pane counts: 0 = the screen's top, negative = " +
      "history; capture_pane {start: line - 5, end: line + 5} shows it in context.",
  ),
  lineNumber: z.int().describe("Deprecated (use line): 1 = the first line searched."),
  text: z.string().describe(`The matching line (cut to ${SEARCH_LIMITS.matchText} characters).`),
  ...hostField,
}).strict();

/** The search tool's manifest entry. */
export const searchTools = [
  defineTool({
    name: "search_panes",
    toolset: "inspect",
    acrossHosts: true,
    core: true,
    batchable: true,
    title: "Search pane text",
    description:
      "Find which panes show or showed a text: the newest matching lines with pane, window and " +
      "`line` (capture_pane's numbering), from the screens and history of all panes or one " +
      "`session`; bounded, with what was cut disclosed.",
    input: z.object({
      pattern: z.string().min(1).max(SEARCH_LIMITS.patternChars),
      regex: z.boolean().optional().describe("Pattern is RE2 (no backreferences)."),
      ignoreCase: z.boolean().optional(),
      maxMatchesPerPane: z.int().positive().max(1000).optional().describe(
        `Default ${SEARCH_LIMITS.defaultMatchesPerPane}.`,
      ),
      scrollbackLines: z.int().min(0).max(SEARCH_LIMITS.lines).optional().describe(
        "Default: all history, 20,000 lines in all.",
      ),
      session: sessionRefSchema.optional(),
    }).strict(),
    output: z.object({
      matches: z.array(matchSchema),
      panesSearched: z.int(),
      panesMatched: z.int(),
      panesFailed: z.int().describe("Panes that vanished before they could be read."),
      paneLimitClamped: z.boolean(),
      lineLimitClamped: z.boolean(),
      byteLimitClamped: z.boolean(),
      timeLimitClamped: z.boolean(),
      historyLinesLeft: z.int().optional().describe(
        "History lines of the searched panes left out (by scrollbackLines or the line budget); " +
          "absent when none.",
      ),
      note: z.string().optional().describe("Hosts that could not be searched."),
    }).strict(),
    annotations: "inspect",
    capability: { reach: "none", effects: "observe", output: ["terminal-text"] },
    handler: async (args, ctx) => {
      const deadline = Date.now() + SEARCH_LIMITS.millis;
      const find = compilePattern(args.pattern, {
        regex: args.regex ?? false,
        ignoreCase: args.ignoreCase ?? false,
      });
      let panes = await listPanes(ctx.tmux, ctx.signal);
      if (args.session !== undefined) {
        const id = resolveSessionRef(panes, args.session);
        panes = panes.filter((p) => p.sessionId === id);
      }
      // A window linked into two sessions lists its panes twice; search each pane once.
      panes = panes.filter((p, i) => panes.findIndex((q) => q.paneId === p.paneId) === i);
      const paneLimitClamped = panes.length > SEARCH_LIMITS.panes;
      panes = panes.slice(0, SEARCH_LIMITS.panes);

      const plan = planCaptures(panes, args.scrollbackLines, SEARCH_LIMITS.lines);
      const { texts, lineRows, failed, timedOut } = await captureMany(ctx.tmux, plan.items, {
        signal: ctx.signal,
        deadline,
      });
      const captured = plan.items.flatMap((item) => {
        const text = texts.get(item.paneId);
        if (text === undefined) return [];
        const pane = panes.find((p) => p.paneId === item.paneId)!;
        return [{
          pane,
          lines: text.replace(/\n+$/, "").split("\n"),
          rows: lineRows.get(pane.paneId)!,
        }];
      });
      const scan = await scanPanes(captured, find, {
        perPane: args.maxMatchesPerPane ?? SEARCH_LIMITS.defaultMatchesPerPane,
        signal: ctx.signal,
        deadline,
      });
      if (scan.searched === 0 && plan.items.length > 0 && failed.length === plan.items.length) {
        throw new ToolError("target_not_found", "every pane vanished before it could be read", {
          hint: "Call list_panes again.",
        });
      }
      return {
        matches: scan.matches,
        panesSearched: scan.searched,
        panesMatched: new Set(scan.matches.map((m) => m.paneId)).size,
        panesFailed: failed.length,
        paneLimitClamped,
        lineLimitClamped: plan.lineLimitClamped,
        byteLimitClamped: scan.byteLimitClamped,
        timeLimitClamped: timedOut || scan.timeLimitClamped,
        ...(plan.historyLeft > 0 ? { historyLinesLeft: plan.historyLeft } : {}),
      };
    },
  }),
];

/** One captured pane, ready to match: its joined lines and the row each starts on. */
interface Captured {
  pane: PaneFacts;
  lines: string[];
  rows: number[];
}

/** A search's matches and the ceilings that cut it short. */
interface Scan {
  matches: z.infer<typeof matchSchema>[];
  /** Panes whose screen was matched (at least in part). */
  searched: number;
  byteLimitClamped: boolean;
  timeLimitClamped: boolean;
}

/**
 * Match every captured pane's lines, newest first: first the screens of all panes, then their
 * histories, so a ceiling (time, bytes, `perPane`) cuts the oldest lines, never a screen for a
 * history. The matches come back in listing order, each pane's from the top.
 */
async function scanPanes(
  captured: readonly Captured[],
  find: Find,
  options: { perPane: number; signal: AbortSignal; deadline: number },
): Promise<Scan> {
  const { perPane, signal, deadline } = options;
  const found = captured.map(() => [] as { index: number; match: z.infer<typeof matchSchema> }[]);
  const pace = new MatchPace();
  let bytes = 0;
  let searched = 0;
  const done = (clamped: Partial<Scan>): Scan => ({
    matches: found.flatMap((hits) =>
      hits.sort((a, b) => a.index - b.index).map((hit) => hit.match)
    ),
    searched,
    byteLimitClamped: false,
    timeLimitClamped: false,
    ...clamped,
  });
  for (const screen of [true, false]) {
    for (const [p, { pane, lines, rows }] of captured.entries()) {
      if (screen) searched++;
      const top = rows.findIndex((row) => row >= 0);
      const first = top < 0 ? lines.length : top;
      const [from, to] = screen ? [lines.length - 1, first] : [first - 1, 0];
      for (let i = from; i >= to && found[p].length < perPane; i--) {
        if (Date.now() > deadline) return done({ timeLimitClamped: true });
        await pace.breathe(signal, "the search was cancelled");
        const at = await findOnTime(find, lines[i], { signal, deadline });
        if (at === "late") return done({ timeLimitClamped: true });
        if (at < 0) continue;
        const match = pickShape(matchSchema, {
          ...pane,
          line: rows[i],
          lineNumber: i + 1,
          text: matchText(lines[i], at),
        });
        // The budget counts whole matches, names included, not only the matched text.
        const size = byteLength(JSON.stringify(match));
        if (bytes + size > SEARCH_LIMITS.matchedBytes) return done({ byteLimitClamped: true });
        bytes += size;
        found[p].push({ index: i, match });
      }
    }
  }
  return done({});
}
