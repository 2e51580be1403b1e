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
import { captureMany } from "../../tmux/read/capture_many.ts";
import { listPanes } from "../../tmux/read/queries.ts";
import { resolveSessionRef } from "../../tmux/read/session_ref.ts";
import { hostField, pickShape } from "../../rows.ts";
import { defineTool } from "../../tool_types.ts";
import { sessionRefSchema, tmuxId } from "../schemas.ts";
import { compilePattern, matchText, PATTERN_LIMITS } from "../../pattern/compile.ts";
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
      "Find which panes show a text: matching lines with pane, window and `line` (capture_pane's " +
      "numbering), from " +
      "the screens (plus `scrollbackLines` of history) of all panes or one `session`; " +
      "bounded, with what was cut disclosed.",
    input: z.object({
      pattern: z.string().min(1).max(SEARCH_LIMITS.patternChars),
      regex: z.boolean().optional().describe("Pattern is RE2 (no backreferences)."),
      ignoreCase: z.boolean().optional(),
      maxMatchesPerPane: z.int().positive().max(1000).optional().describe(
        `Default ${SEARCH_LIMITS.defaultMatchesPerPane}.`,
      ),
      scrollbackLines: z.int().min(0).max(SEARCH_LIMITS.lines).optional().describe("Default 0."),
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
      note: z.string().optional().describe("Hosts that could not be searched."),
    }).strict(),
    annotations: "inspect",
    capability: { reach: "none", effects: "observe", output: ["terminal-text"] },
    handler: async (args, ctx) => {
      const started = Date.now();
      const deadline = started + SEARCH_LIMITS.millis;
      const find = compilePattern(args.pattern, {
        regex: args.regex ?? false,
        ignoreCase: args.ignoreCase ?? false,
      });
      const perPane = args.maxMatchesPerPane ?? SEARCH_LIMITS.defaultMatchesPerPane;
      const scrollback = args.scrollbackLines ?? 0;

      let panes = await listPanes(ctx.tmux, ctx.signal);
      if (args.session !== undefined) {
        const id = resolveSessionRef(panes, args.session);
        panes = panes.filter((p) => p.sessionId === id);
      }
      // A window linked into two sessions lists its panes twice; search each pane once.
      panes = panes.filter((p, i) => panes.findIndex((q) => q.paneId === p.paneId) === i);
      const paneLimitClamped = panes.length > SEARCH_LIMITS.panes;
      panes = panes.slice(0, SEARCH_LIMITS.panes);

      const { items, lineLimitClamped } = planCaptures(panes, scrollback);

      const { texts, lineRows, failed, timedOut } = await captureMany(ctx.tmux, items, {
        signal: ctx.signal,
        deadline,
      });

      const matches: z.infer<typeof matchSchema>[] = [];
      const matched = new Set<string>();
      let bytes = 0;
      let byteLimitClamped = false;
      let timeLimitClamped = timedOut;
      let searched = 0;
      const pace = new MatchPace();
      const bounds = { signal: ctx.signal, deadline };
      outer: for (const item of items) {
        const text = texts.get(item.paneId);
        if (text === undefined) continue;
        if (Date.now() > deadline) {
          timeLimitClamped = true;
          break;
        }
        searched++;
        const pane = panes.find((p) => p.paneId === item.paneId)!;
        const lines = text.replace(/\n+$/, "").split("\n");
        let found = 0;
        for (let i = 0; i < lines.length && found < perPane; i++) {
          const now = Date.now();
          if (now > deadline) {
            timeLimitClamped = true;
            break outer;
          }
          await pace.breathe(ctx.signal, "the search was cancelled");
          const at = await findOnTime(find, lines[i], bounds);
          if (at === "late") {
            timeLimitClamped = true;
            break outer;
          }
          if (at < 0) continue;
          const match = pickShape(matchSchema, {
            ...pane,
            line: lineRows.get(item.paneId)![i],
            lineNumber: i + 1,
            text: matchText(lines[i], at),
          });
          // The budget counts whole matches, names included, not only the matched text.
          const size = byteLength(JSON.stringify(match));
          if (bytes + size > SEARCH_LIMITS.matchedBytes) {
            byteLimitClamped = true;
            break outer;
          }
          bytes += size;
          found++;
          matched.add(pane.paneId);
          matches.push(match);
        }
      }
      if (searched === 0 && items.length > 0 && failed.length === items.length) {
        throw new ToolError("target_not_found", "every pane vanished before it could be read", {
          hint: "Call list_panes again.",
        });
      }
      return {
        matches,
        panesSearched: searched,
        panesMatched: matched.size,
        panesFailed: failed.length,
        paneLimitClamped,
        lineLimitClamped,
        byteLimitClamped,
        timeLimitClamped,
      };
    },
  }),
];

/**
 * What to capture of each pane: the line budget is spent in listing order, and the pane that
 * crosses it gets less history; past it, panes are left out (`lineLimitClamped`).
 */
function planCaptures(
  panes: readonly { paneId: string; height: number; historyLines: number }[],
  scrollback: number,
): { items: { paneId: string; historyRows: number }[]; lineLimitClamped: boolean } {
  let lineBudget = SEARCH_LIMITS.lines;
  let lineLimitClamped = false;
  const items = [];
  for (const pane of panes) {
    if (lineBudget < pane.height) {
      lineLimitClamped = true;
      break;
    }
    const history = Math.min(scrollback, pane.historyLines);
    const historyRows = Math.min(history, lineBudget - pane.height);
    if (historyRows < history) lineLimitClamped = true;
    lineBudget -= pane.height + historyRows;
    items.push({ paneId: pane.paneId, historyRows });
  }
  return { items, lineLimitClamped };
}
