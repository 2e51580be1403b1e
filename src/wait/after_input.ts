/**
 * `waitFor` on the input tools (docs/design.md §7.10): a read mark taken just before the input,
 * under the pane's input queue, then a wait until the output is quiet, a line matches, or the
 * foreground program changed; the answer is what capture_since would return for that mark. A
 * shared helper of the input tools, not a tool file.
 *
 * The quiet rule: the timer starts at the first output BELOW the line the input was typed on (or,
 * under a full-screen program, at the first change of its screen); the echo of the input alone
 * does not start it, so a REPL that echoes at once and answers a second later is not cut off on a
 * loaded machine. Each later change restarts it.
 */
import { z } from "zod";
import { ToolError } from "../errors.ts";
import {
  echoLines,
  inputLineNow,
  type InputSpot,
  inputSpot,
  isEcho,
  outputBeyondInput,
} from "../live/echo.ts";
import { formatCursor, type ReadMark } from "../live/cursor.ts";
import { readScreen, recallMark } from "../live/read.ts";
import { rowsSince } from "../live/row_changes.ts";
import type { OutputTap, PaneStream } from "../live/stream.ts";
import { byteLength, TEXT_LIMITS, textResult, textResultShape } from "../results.ts";
import { capturePane } from "../tmux/read/capture.ts";
import { snapshot } from "../tmux/read/queries.ts";
import type { InspectContext } from "../tool_types.ts";
import { compilePattern, type Find, PATTERN_LIMITS } from "../pattern/compile.ts";
import { sleepOrCancel, waitProgress } from "./waiting.ts";

/** Timing of a wait after input. */
const AFTER_INPUT = {
  /** Default timeout, clamped to the wait ceiling. */
  defaultTimeoutMs: 30_000,
  /** How often the foreground program is read (programChange) and the screen polled (no live). */
  pollMs: 250,
  /** How often a progress notification is sent, when the client asked for them. */
  progressMs: 1_000,
} as const;

/**
 * The `waitFor` argument, shared by send_keys, paste_text and send_keys_batch. It carries no
 * prose and no bounds in its schema: it appears in three tools, and send_keys's description says
 * once what it does (every byte here is sent to the model three times). planWait checks the
 * numbers.
 */
export const waitForSchema = z.object({
  quietMs: z.number().optional(),
  pattern: z.string().optional(),
  regex: z.boolean().optional(),
  programChange: z.boolean().optional(),
  timeoutMs: z.number().optional(),
}).strict();

/** The `waitFor` argument as the tools receive it. */
type WaitFor = z.infer<typeof waitForSchema>;

const OUTCOMES = [
  "quiet",
  "matched",
  "program_changed",
  "timeout",
  "pane_died",
  "server_gone",
] as const;
type Outcome = typeof OUTCOMES[number];

/** What a wait after input adds to an input tool's result (all absent without `waitFor`). */
export const waitForShape = {
  ...z.object(textResultShape).partial().shape,
  cursor: z.string().optional().describe("For capture_since or wait_for_text (live mode)."),
  outcome: z.enum(OUTCOMES).optional().describe(
    "With waitFor: quiet, matched, program_changed (see currentCommand), timeout, pane_died, " +
      "server_gone.",
  ),
  currentCommand: z.string().optional().describe("The new foreground program."),
  elapsedMs: z.int().optional(),
  timeoutMs: z.int().optional(),
  timeoutClamped: z.boolean().optional(),
  note: z.string().optional(),
};

/** A checked `waitFor`: its conditions compiled, its timeout clamped. */
export interface WaitPlan {
  quietMs?: number;
  find?: Find;
  programChange: boolean;
  timeoutMs: number;
  timeoutClamped: boolean;
}

/**
 * Check `waitFor` before anything is sent: at least one condition, the pattern through the shared
 * compiler and its limits, the timeout clamped to the wait ceiling (disclosed, never refused).
 */
export function planWait(waitFor: WaitFor | undefined, ctx: InspectContext): WaitPlan | undefined {
  if (waitFor === undefined) return undefined;
  const { quietMs, pattern, regex = false, programChange = false } = waitFor;
  if (quietMs === undefined && pattern === undefined && !programChange) {
    throw new ToolError("invalid_arguments", "waitFor names no condition to wait for", {
      hint: "Pass quietMs (e.g. 500), pattern, or programChange: true; or leave waitFor out.",
    });
  }
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
  const asked = Math.floor(
    waitFor.timeoutMs ?? Math.min(AFTER_INPUT.defaultTimeoutMs, ctx.config.waitMaxMs),
  );
  return {
    quietMs: quietMs === undefined ? undefined : Math.ceil(quietMs),
    find,
    programChange,
    timeoutMs: Math.min(asked, ctx.config.waitMaxMs),
    timeoutClamped: asked > ctx.config.waitMaxMs,
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
  if (!ctx.live) return { ...base, screen: await screenLines(ctx, pane.paneId) };
  const stream = await ctx.live.follow(pane.paneId, ctx.signal);
  if ("polled" in stream) {
    return { ...base, screen: await screenLines(ctx, pane.paneId), polledWhy: stream.polled };
  }
  const { offset } = readScreen(stream);
  return {
    ...base,
    generation: stream.generation,
    live: { stream, offset, mark: recallMark(stream, offset), spot: inputSpot(stream.emulator!) },
  };
}

/** The wait's answer, merged into the input tool's result. */
type WaitAnswer = z.infer<z.ZodObject<typeof waitForShape>>;

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
  const ticker = waitProgress(ctx.progress, started, plan.timeoutMs, AFTER_INPUT.progressMs);
  try {
    const found = start.live
      ? await liveWait(ctx, start, start.live, plan, started, ticker.seen)
      : await polledWait(ctx, start, plan, started, ticker.seen);
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

/**
 * Whether a line of `lines` that is not the input's echo matches, tried in order; a long line
 * still matched in a worker at the deadline (§7.7 rule 10) counts as no match.
 */
async function matchIn(
  lines: readonly string[],
  find: Find,
  echo: readonly string[],
  bounds: { signal: AbortSignal; deadline: number },
  inputLine?: string,
): Promise<boolean> {
  for (const line of lines) {
    if (isEcho(line, echo, inputLine)) continue;
    try {
      if (await find(line, bounds) >= 0) return true;
    } catch (error) {
      if (error instanceof ToolError && error.code === "timeout") return false;
      throw error;
    }
  }
  return false;
}

/** The pane's foreground program now ("" when tmux no longer lists the pane). */
async function programOf(ctx: InspectContext, paneId: string): Promise<string> {
  const rows = (await snapshot(ctx.tmux, { panes: { windowOf: paneId } }, ctx.signal)).panes;
  return rows.find((p) => p.paneId === paneId)?.currentCommand ?? "";
}

/** What became of the pane: its program, or why it is no longer there to ask. */
async function paneNow(
  ctx: InspectContext,
  start: InputStart,
): Promise<{ command: string } | { fate: "pane_died" | "server_gone" }> {
  try {
    const row = (await snapshot(ctx.tmux, { panes: { windowOf: start.paneId } }, ctx.signal))
      .panes.find((p) => p.paneId === start.paneId);
    if (!row || row.dead || row.generation !== start.generation) return { fate: "pane_died" };
    return { command: row.currentCommand };
  } catch (error) {
    if (!(error instanceof ToolError)) throw error;
    if (error.code === "server_not_running" || error.code === "server_gone") {
      return { fate: "server_gone" };
    }
    if (error.code === "target_not_found") return { fate: "pane_died" };
    throw error;
  }
}

type Found = Record<string, unknown> & { outcome: Outcome };

/** The live wait: sleep on the stream, look after each change (docs/design.md §7.10). */
async function liveWait(
  ctx: InspectContext,
  start: InputStart,
  live: NonNullable<InputStart["live"]>,
  plan: WaitPlan,
  started: number,
  onLine: (line: string) => void,
): Promise<Found> {
  const { stream } = live;
  const deadline = started + plan.timeoutMs;
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
  try {
    let scan = live.mark;
    let seen = -1;
    let quietFrom: number | undefined;
    let nextProgramLook = plan.programChange ? Date.now() : Infinity;
    for (;;) {
      const emulator = stream.emulator;
      if (!emulator) break;
      if (stream.changes !== seen) {
        seen = stream.changes;
        const rows = rowsSince(emulator, scan);
        if (rows.changed) {
          scan = rows.mark;
          const lines = rows.text.split("\n");
          const newest = lines.findLast((l) => l !== "");
          if (newest !== undefined) onLine(newest);
          if (plan.find) {
            const typedOn = inputLineNow(emulator, live.spot);
            const bounds = { signal: ctx.signal, deadline };
            if (await matchIn(lines, plan.find, start.echo, bounds, typedOn)) {
              return answer("matched");
            }
          }
        }
        if (quietFrom !== undefined) quietFrom = Date.now();
        else if (
          plan.quietMs !== undefined && outputBeyondInput(emulator, live.spot, rows.changed)
        ) {
          quietFrom = Date.now();
        }
      }
      const now = Date.now();
      if (quietFrom !== undefined && now - quietFrom >= plan.quietMs!) return answer("quiet");
      if (now >= nextProgramLook) {
        const pane = await paneNow(ctx, start);
        if ("fate" in pane) return answer(pane.fate);
        if (pane.command !== start.command) {
          return answer("program_changed", { currentCommand: pane.command });
        }
        nextProgramLook = Date.now() + AFTER_INPUT.pollMs;
      }
      const left = deadline - Date.now();
      if (left <= 0) {
        // A pane whose program exited under remain-on-exit sends no notification.
        const pane = await paneNow(ctx, start);
        return answer("fate" in pane ? pane.fate : "timeout");
      }
      if (stream.changes !== seen) continue;
      const wake = Math.min(
        left,
        quietFrom === undefined ? Infinity : quietFrom + plan.quietMs! - Date.now(),
        nextProgramLook - Date.now(),
      );
      try {
        await stream.waitForChange(Math.max(1, wake), ctx.signal);
      } catch (error) {
        if (error instanceof ToolError && error.code === "cancelled") throw error;
        break;
      }
    }
    // The stream ended (pane gone or replaced, connection lost): one look says which.
    const pane = await paneNow(ctx, start);
    if ("fate" in pane) return answer(pane.fate);
    throw stream.ended ?? new ToolError("stale_cursor", "the stream ended");
  } finally {
    stream.untap(tap);
  }
}

/** The pane's screen without live mode: its lines (wrapped rows joined), trailing blanks gone. */
async function screenLines(ctx: InspectContext, paneId: string): Promise<string[]> {
  const capture = await capturePane(
    ctx.tmux,
    paneId,
    { joinWrapped: true, maxRows: 10_000 },
    ctx.signal,
  );
  return capture.text.replace(/\n+$/, "").split("\n");
}

/**
 * Without live mode: poll the screen. Output beyond the input's line is a change in any line but
 * the last (the input's), or more lines; a line matches when it was not on the screen before.
 */
async function polledWait(
  ctx: InspectContext,
  start: InputStart,
  plan: WaitPlan,
  started: number,
  onLine: (line: string) => void,
): Promise<Found> {
  const before = start.screen ?? [];
  const old = new Set(before);
  const deadline = started + plan.timeoutMs;
  let screen = before;
  let quietFrom: number | undefined;
  const answer = (outcome: Outcome, extra: Record<string, unknown> = {}): Found => ({
    outcome,
    ...textResult(screen.join("\n") + "\n", { ...TEXT_LIMITS, screen: true }),
    ...extra,
    note: `${start.polledWhy ?? "live mode is off on this server"}: text is the pane's ` +
      `screen, polled every ${AFTER_INPUT.pollMs} ms`,
  });
  while (Date.now() < deadline) {
    await sleepOrCancel(Math.min(AFTER_INPUT.pollMs, deadline - Date.now()), ctx.signal);
    let next;
    try {
      next = await screenLines(ctx, start.paneId);
    } catch (error) {
      if (!(error instanceof ToolError)) throw error;
      if (error.code === "target_not_found") return answer("pane_died");
      if (error.code === "server_not_running" || error.code === "server_gone") {
        return answer("server_gone");
      }
      throw error;
    }
    const changed = next.join("\n") !== screen.join("\n");
    screen = next;
    const fresh = next.filter((line) => !old.has(line));
    const newest = fresh.findLast((l) => l !== "");
    if (newest !== undefined) onLine(newest);
    const bounds = { signal: ctx.signal, deadline };
    if (plan.find && await matchIn(fresh, plan.find, start.echo, bounds)) return answer("matched");
    if (plan.quietMs !== undefined) {
      const beyond = next.length > before.length ||
        next.slice(0, -1).some((line, i) => line !== before[i]);
      if (changed && (quietFrom !== undefined || beyond)) quietFrom = Date.now();
      if (quietFrom !== undefined && Date.now() - quietFrom >= plan.quietMs) {
        return answer("quiet");
      }
    }
    if (plan.programChange) {
      const pane = await paneNow(ctx, start);
      if ("fate" in pane) return answer(pane.fate);
      if (pane.command !== start.command) {
        return answer("program_changed", { currentCommand: pane.command });
      }
    }
  }
  const pane = await paneNow(ctx, start);
  return answer("fate" in pane ? pane.fate : "timeout");
}
