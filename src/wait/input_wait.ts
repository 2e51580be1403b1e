/**
 * The waits after input (docs/design.md §7.10 rules 3–7), live and polled, on the engine's parts:
 * the stream scan (src/wait/scan.ts) or the poller (src/wait/poll.ts), the echo rules
 * (src/live/echo.ts), the quiet, readiness and program-change hooks (src/wait/input_watch.ts,
 * src/wait/prompt.ts) and the pane's fate (src/wait/fate.ts). Each answers what capture_since
 * would return for the input's mark.
 */
import type { ReadMark } from "../live/cursor.ts";
import { formatCursor } from "../live/cursor.ts";
import { type InputSpot, isEcho, leftOfCursor, outputBeyondInput } from "../live/echo.ts";
import { rowsSince } from "../live/row_changes.ts";
import type { OutputTap, PaneStream } from "../live/stream.ts";
import type { Find } from "../pattern/compile.ts";
import type { MatchBounds } from "../pattern/pool.ts";
import { TEXT_LIMITS, textResult } from "../results.ts";
import { snapshotPane } from "../tmux/read/capture.ts";
import type { InspectContext } from "../tool_types.ts";
import { fateAtTimeout, goneOrThrow } from "./fate.ts";
import { type InputVerdict, InputWatch } from "./input_watch.ts";
import { type LineTest, MatchPace, tryLine } from "./match.ts";
import { NO_LIVE, POLL_MS, pollUntil, screenLines } from "./poll.ts";
import { leftOfColumn, type Readiness, readiness } from "./prompt.ts";
import { scanStream } from "./scan.ts";
import { beyondInput, linesNotIn } from "./screen_lines.ts";

/** How a wait after input ends. */
export const OUTCOMES = [
  "prompt",
  "quiet",
  "matched",
  "program_changed",
  "timeout",
  "pane_died",
  "server_gone",
] as const;
type Outcome = typeof OUTCOMES[number];

/** A checked `waitFor`: its conditions compiled, its timeout clamped. */
export interface WaitPlan {
  quietMs?: number;
  find?: Find;
  programChange: boolean;
  /** The default, when no condition is named: until the program waits for input (rule 5). */
  ready: boolean;
  timeoutMs: number;
  timeoutClamped: boolean;
}

/** Where the pane stood just before the input: its stream and mark, or (no live) its screen. */
export interface InputStart {
  paneId: string;
  generation: string;
  /** The foreground program when the input was sent. */
  command: string;
  /** The input's echo: its non-empty lines as typed (none for a key press). */
  echo: string[];
  live?: {
    stream: PaneStream;
    offset: number;
    mark: ReadMark;
    /** Where the input is typed. */
    spot: InputSpot;
  };
  /** Without live mode: the screen's lines, trailing blank ones removed. */
  screen?: string[];
  /** Why the screen is polled although live mode is on (the connection cap). */
  polledWhy?: string;
}

type Found = Record<string, unknown> & { outcome: Outcome };

/** The pattern as the engine's line tests: none without one. */
function testsOf(plan: WaitPlan): LineTest<true>[] {
  const find = plan.find;
  if (!find) return [];
  return [(line, bounds) => {
    const at = find(line, bounds);
    return at instanceof Promise ? at.then((n) => n >= 0 || undefined) : at >= 0 || undefined;
  }];
}

/** How a polled look ends the wait: a hook's verdict, or a match. */
type Verdict = InputVerdict | { outcome: "matched" };

/** What a verdict adds to the answer: the new program, for a program change. */
function verdictExtra(verdict: Verdict): Record<string, unknown> {
  return "currentCommand" in verdict ? { currentCommand: verdict.currentCommand } : {};
}

/** The live wait: sleep on the stream, look after each change (§7.10 rule 3). */
export async function liveWait(
  ctx: InspectContext,
  start: InputStart,
  live: NonNullable<InputStart["live"]>,
  plan: WaitPlan,
  deadline: number,
  onLine: (line: string) => void,
): Promise<Found> {
  const { stream } = live;
  // The rows as they were when the stream ended, for an answer about a pane that died.
  let last = "";
  const tap: OutputTap = {
    scan: () => [],
    ended: (_reason, emulator) => {
      if (emulator) last = rowsSince(emulator, live.mark).text;
    },
  };
  stream.tap(tap);
  const answer = (outcome: Outcome, extra: Record<string, unknown> = {}): Found => {
    const emulator = stream.emulator;
    if (!emulator) return { outcome, ...textResult(last, TEXT_LIMITS), ...extra };
    const read = rowsSince(emulator, live.mark);
    const offset = read.changed ? stream.remember(read.mark) : live.offset;
    return {
      outcome,
      ...textResult(read.text, TEXT_LIMITS),
      cursor: formatCursor(stream.id, offset),
      ...extra,
    };
  };
  const watch = new InputWatch(ctx, start, plan, () => {
    const emulator = stream.emulator;
    if (!emulator) return undefined;
    return readiness(emulator.alternate, leftOfCursor(emulator) ?? "");
  });
  const tests = testsOf(plan);
  try {
    const end = await scanStream(stream, {
      tests,
      from: live.mark,
      deadline,
      signal: ctx.signal,
      echo: tests.length > 0 ? { lines: start.echo, spot: live.spot } : undefined,
      onLine,
      watch: {
        changed: (emulator, rowsChanged) =>
          watch.changed(() => outputBeyondInput(emulator, live.spot, rowsChanged)),
        check: () => watch.check(),
        wakeAt: () => watch.wakeAt(),
      },
    });
    switch (end.outcome) {
      case "found":
        return answer("matched");
      case "watched":
        return answer(end.value.outcome, verdictExtra(end.value));
      case "timeout":
        // A pane whose program exited under remain-on-exit sends no notification.
        return answer(await fateAtTimeout(ctx, start));
      case "ended":
        // The stream ended (pane gone or replaced, connection lost): one look says which.
        return answer(await goneOrThrow(ctx, start, end.error));
    }
  } finally {
    stream.untap(tap);
  }
}

/** Whether a line of `lines` that is not the input's echo passes `tests` (late: no match). */
async function matchesIn(
  lines: readonly string[],
  tests: readonly LineTest<true>[],
  echo: readonly string[],
  bounds: MatchBounds,
  pace: MatchPace,
): Promise<boolean> {
  for (const line of lines) {
    if (isEcho(line, echo)) continue;
    const tried = await tryLine(tests, line, bounds, pace);
    if (tried === "late") return false;
    if (tried !== "ended" && tried.value) return true;
  }
  return false;
}

/**
 * Without live mode: poll the screen (§7.10 rule 7). Output beyond the input's line is a change in
 * any line but the last (the input's), or more lines; a line matches when it was not on the
 * screen before.
 */
export async function polledWait(
  ctx: InspectContext,
  start: InputStart,
  plan: WaitPlan,
  deadline: number,
  onLine: (line: string) => void,
): Promise<Found> {
  const before = start.screen ?? [];
  const old = new Set(before);
  let screen = before;
  const answer = (outcome: Outcome, extra: Record<string, unknown> = {}): Found => ({
    outcome,
    ...textResult(screen.join("\n") + "\n", { ...TEXT_LIMITS, screen: true }),
    ...extra,
    note: `${start.polledWhy ?? NO_LIVE}: text is the pane's screen, polled every ${POLL_MS} ms`,
  });
  const watch = new InputWatch(ctx, start, plan, () => polledReadiness(ctx, start.paneId));
  const tests = testsOf(plan);
  const bounds = { signal: ctx.signal, deadline };
  const pace = new MatchPace();
  const verdict = await pollUntil(deadline, ctx.signal, async (): Promise<Verdict | undefined> => {
    let next;
    try {
      next = (await screenLines(ctx, start.paneId)).lines;
    } catch (error) {
      return { outcome: await goneOrThrow(ctx, start, error) };
    }
    const changed = next.join("\n") !== screen.join("\n");
    screen = next;
    const fresh = linesNotIn(old, next);
    const newest = fresh.findLast((l) => l !== "");
    if (newest !== undefined) onLine(newest);
    if (await matchesIn(fresh, tests, start.echo, bounds, pace)) return { outcome: "matched" };
    if (changed) watch.changed(() => beyondInput(before, next));
    return await watch.check();
  });
  if (verdict) return answer(verdict.outcome, verdictExtra(verdict));
  return answer(await fateAtTimeout(ctx, start));
}

/**
 * Without live mode, where the cursor rests: one snapshot of the pane (its cursor, whether the
 * alternate screen is on, its rows). A look that fails is no answer; the poll explains a pane gone.
 */
async function polledReadiness(ctx: InspectContext, paneId: string): Promise<Readiness> {
  try {
    const { state, text } = await snapshotPane(ctx.tmux, paneId, ctx.signal);
    const row = text.split("\n")[state.cursorY] ?? "";
    return readiness(state.alternateOn, leftOfColumn(row, state.cursorX));
  } catch (error) {
    if (ctx.signal.aborted) throw error;
    return undefined;
  }
}
