/**
 * `waitFor` on the input tools (docs/design.md §7.10): a read mark taken just before the input,
 * under the pane's input queue, then a wait until the program waits for input (the default), the
 * output is quiet, a line matches, or the foreground program changed; the answer is what
 * capture_since would return for that mark. The input tools' entry to the wait engine: the plan
 * and the mark here, the waits in src/wait/input_wait.ts (over src/wait/scan.ts live,
 * src/wait/poll.ts without), the quiet, readiness and program-change hooks in
 * src/wait/input_watch.ts and src/wait/prompt.ts, the echo rules in src/live/echo.ts.
 */
import { z } from "zod";
import { ToolError } from "../errors.ts";
import { echoLines, inputSpot } from "../live/echo.ts";
import { readScreen, recallMark } from "../live/read.ts";
import { byteLength, textResultShape } from "../results.ts";
import { tmuxId } from "../id_marks.ts";
import { snapshot } from "../tmux/read/queries.ts";
import type { InspectContext } from "../tool_types.ts";
import { compilePattern, PATTERN_LIMITS } from "../pattern/compile.ts";
import { WAIT_DEFAULT_MS, waitBudget } from "./ceiling.ts";
import { type InputStart, liveWait, OUTCOMES, polledWait, type WaitPlan } from "./input_wait.ts";
import { screenLines } from "./poll.ts";
import { waitProgress } from "./progress.ts";

/**
 * The `waitFor` argument, shared by send_keys, paste_text and send_keys_batch. Its fields are
 * described once, on send_keys; the other two advertise it without prose
 * (src/tools/execute/input.ts: every byte here would be sent to the model three times). No bounds
 * in the schema: planWait checks the numbers.
 */
export const waitForSchema = z.object({
  quietMs: z.number().optional().describe("Or: once output stopped this long."),
  pattern: z.string().optional().describe("Or: at a line matching this (literal unless regex)."),
  regex: z.boolean().optional().describe("pattern is RE2."),
  programChange: z.boolean().optional().describe("Or: once the foreground program changes."),
  timeoutMs: z.number().optional().describe("Default 30 s, at most {waitMax}."),
}).strict();

export type { InputStart, WaitPlan };

/** The `waitFor` argument as the tools receive it. */
type WaitFor = z.infer<typeof waitForSchema>;

/** What a wait after input adds to an input tool's result (all absent without `waitFor`). */
export const waitForShape = {
  ...z.object(textResultShape).partial().shape,
  cursor: tmuxId("cursor").optional().describe("For capture_since or wait_for_text (live mode)."),
  outcome: z.enum(OUTCOMES).optional().describe(
    "With waitFor: prompt (waitFor: {}), quiet, matched, program_changed (see currentCommand), timeout, pane_died, " +
      "server_gone.",
  ),
  currentCommand: z.string().optional().describe("The new foreground program."),
  elapsedMs: z.int().optional(),
  timeoutMs: z.int().optional(),
  timeoutClamped: z.boolean().optional(),
  note: z.string().optional(),
};

/**
 * Check `waitFor` before anything is sent: the pattern through the shared compiler and its
 * limits, the timeout clamped to the wait ceiling (disclosed, never refused). Naming no condition
 * asks for the default: until the program waits for input (docs/design.md §7.10 rule 5).
 */
export function planWait(waitFor: WaitFor | undefined, ctx: InspectContext): WaitPlan | undefined {
  if (waitFor === undefined) return undefined;
  const { quietMs, pattern, regex = false, programChange = false } = waitFor;
  const ready = quietMs === undefined && pattern === undefined && !programChange;
  atLeast("quietMs", quietMs, 1);
  atLeast("timeoutMs", waitFor.timeoutMs, 0);
  if (pattern !== undefined && (pattern === "" || byteLength(pattern) > PATTERN_LIMITS.chars)) {
    throw new ToolError(
      "invalid_arguments",
      `waitFor.pattern must hold 1 to ${PATTERN_LIMITS.chars} bytes`,
      { hint: "Wait for a shorter, distinctive part of the line." },
    );
  }
  const find = pattern === undefined
    ? undefined
    : compilePattern(pattern, { regex, ignoreCase: false }, "waitFor.pattern");
  return {
    quietMs: quietMs === undefined ? undefined : Math.ceil(quietMs),
    find,
    programChange,
    ready,
    ...waitBudget(waitFor.timeoutMs, WAIT_DEFAULT_MS, ctx.config.waitMaxMs),
  };
}

/** Refuse a `waitFor` duration below `least` (the schema leaves bounds out, see above). */
function atLeast(name: string, value: number | undefined, least: number): void {
  if (value !== undefined && !(value >= least)) {
    throw new ToolError("invalid_arguments", `waitFor.${name} must be ${least} or more`, {
      hint: "Pass milliseconds, e.g. quietMs: 500.",
    });
  }
}

/**
 * Take the mark a wait after input starts from; call it with the pane held in the input queue,
 * after the preflight and before the input, so nothing of ours interleaves.
 */
export async function markBeforeInput(
  ctx: InspectContext,
  pane: { paneId: string; generation: string; currentCommand?: string },
  typed: string | undefined,
): Promise<InputStart> {
  // The guard's listing leaves out the /proc-read foreground program (docs/design.md §6.13):
  // read it here, before the input, so a program change is judged against the right one.
  const command = pane.currentCommand ?? await programOf(ctx, pane.paneId);
  const base = { ...pane, command, echo: echoLines(typed) };
  if (!ctx.live) return { ...base, screen: (await screenLines(ctx, pane.paneId)).lines };
  const stream = await ctx.live.follow(pane.paneId, ctx.signal);
  if ("polled" in stream) {
    const screen = (await screenLines(ctx, pane.paneId)).lines;
    return { ...base, screen, polledWhy: stream.polled };
  }
  const { offset } = readScreen(stream);
  return {
    ...base,
    generation: stream.generation,
    live: { stream, offset, mark: recallMark(stream, offset), spot: inputSpot(stream.emulator!) },
  };
}

/** The wait's answer, merged into the input tool's result. */
export type WaitAnswer = z.infer<z.ZodObject<typeof waitForShape>>;

/**
 * Wait after the input for `plan`'s first condition and answer what capture_since would return
 * for the mark `start` took. An error after the input says the input may have been sent.
 */
export async function waitAfterInput(
  ctx: InspectContext,
  start: InputStart,
  plan: WaitPlan,
): Promise<WaitAnswer> {
  const started = Date.now();
  const deadline = started + plan.timeoutMs;
  const ticker = waitProgress(ctx.progress, started, plan.timeoutMs);
  try {
    const found = start.live
      ? await liveWait(ctx, start, start.live, plan, deadline, ticker.seen)
      : await polledWait(ctx, start, plan, deadline, ticker.seen);
    return {
      ...found as WaitAnswer,
      elapsedMs: Date.now() - started,
      timeoutMs: plan.timeoutMs,
      timeoutClamped: plan.timeoutClamped,
    };
  } catch (error) {
    throw error instanceof ToolError ? error.withEffects("possible") : error;
  } finally {
    ticker.stop();
  }
}

/** The pane's foreground program now ("" when tmux no longer lists the pane). */
async function programOf(ctx: InspectContext, paneId: string): Promise<string> {
  const rows = (await snapshot(ctx.tmux, { panes: { windowOf: paneId } }, ctx.signal)).panes;
  return rows.find((p) => p.paneId === paneId)?.currentCommand ?? "";
}
