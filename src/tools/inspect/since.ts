/**
 * capture_since: read only what changed in a pane since your last call, optionally waiting for
 * it. Live mode follows the pane through a control-mode connection and a headless terminal, so
 * reads return rows as the terminal shows them (docs/design.md §7); `--no-live` falls back to
 * plain bounded captures and says so.
 */
import { z } from "zod";
import { ToolError } from "../../errors.ts";
import { readFrom, readScreen } from "../../live/read.ts";
import { CURSOR_PATTERN, formatCursor } from "../../live/cursor.ts";
import { TEXT_LIMITS, textResult, textResultShape } from "../../results.ts";
import { capturePane } from "../../tmux/read/capture.ts";
import { defineTool, type InspectContext } from "../../tool_types.ts";
import { paneIdSchema } from "../../rows.ts";
import { maxBytesSchema, maxLinesSchema, tmuxId } from "../schemas.ts";
import { waitBudget, waitShape } from "../../wait/ceiling.ts";
import { cursorStream } from "../../wait/cursor_stream.ts";
import { CURSOR_IGNORED, NO_LIVE, pollUntil } from "../../wait/poll.ts";
import { QuietTimer } from "../../wait/quiet.ts";

type Outcome = "started" | "output" | "quiet" | "idle" | "timeout";

/**
 * One deadline for the tmux steps of a call (docs/design.md §7.3): joining, checking and reading
 * share the runner's command timeout (plus the wait), so a frozen tmux costs one timeout, not one
 * per step. `run` maps an abort by the deadline to `timeout`, reporting what elapsed.
 */
function callDeadline(ctx: InspectContext, waitMs: number) {
  const started = Date.now();
  const budget = ctx.tmux.runner.defaultTimeoutMs;
  const timer = AbortSignal.timeout(budget + waitMs);
  const signal = AbortSignal.any([ctx.signal, timer]);
  return {
    signal,
    run: async <T>(work: (signal: AbortSignal) => Promise<T>): Promise<T> => {
      try {
        return await work(signal);
      } catch (error) {
        const late = error instanceof ToolError &&
          (error.code === "cancelled" || error.code === "timeout");
        if (!late || ctx.signal.aborted || !(timer.aborted || error.code === "timeout")) {
          throw error;
        }
        throw new ToolError(
          "timeout",
          `tmux did not answer within this call's deadline of ${budget + waitMs} ms ` +
            `(${Date.now() - started} ms elapsed)`,
        );
      }
    },
  };
}

/** The capture_since manifest entry. */
export const sinceTools = [
  defineTool({
    name: "capture_since",
    toolset: "inspect",
    core: true,
    batchable: true,
    title: "Read new pane output",
    description: "Follow a pane: read what changed since your last read, as the terminal shows " +
      "it. Without `cursor`: the screen and a cursor; pass it back to get the changes since and " +
      "a new one. `waitMs` waits for a change (no need to poll); `quietMs` then waits until the " +
      "burst ends. On stale_cursor, call without a cursor.",
    input: z.object({
      paneId: paneIdSchema,
      cursor: tmuxId("cursor", z.string().regex(CURSOR_PATTERN)).optional().describe(
        "From capture_since or wait_for_text.",
      ),
      maxLines: maxLinesSchema.optional(),
      maxBytes: maxBytesSchema.optional(),
      waitMs: z.int().min(0).max(Number.MAX_SAFE_INTEGER).optional().describe("Default 0."),
      quietMs: z.int().min(1).max(Number.MAX_SAFE_INTEGER).optional().describe(
        "With waitMs: answer once output stopped this long.",
      ),
    }).strict(),
    output: z.object({
      ...textResultShape,
      cursor: tmuxId("cursor").optional().describe("Pass it to the next call (live mode only)."),
      paneId: tmuxId("pane"),
      generation: z.string(),
      streaming: z.boolean().describe("True when output is streamed live; false in fallback mode."),
      missedRows: z.int().describe(
        "Rows that left the pane's history (tmux's) before this read could return them.",
      ),
      missedBytes: z.int().describe("Always 0 since reads return rendered rows; see missedRows."),
      alternateScreen: z.boolean().optional().describe(
        "Live mode: a full-screen program shows the alternate screen; text is that whole screen.",
      ),
      seedRace: z.boolean().optional().describe(
        "Live mode: output kept arriving while the stream began, so a few lines may show twice.",
      ),
      outcome: z.enum(["started", "output", "quiet", "idle", "timeout"]).describe(
        "started: first call; output: changed lines returned; quiet (with quietMs): output came " +
          "and then stopped; idle: nothing new and no wait; timeout: waited and nothing visible " +
          "changed (with quietMs: the output had not stopped when the wait ended; text is what " +
          "arrived).",
      ),
      ...waitShape,
      note: z.string().optional(),
    }).strict(),
    annotations: "inspect",
    capability: { reach: "none", effects: "observe", output: ["terminal-text"] },
    handler: async (args, ctx) => {
      const started = Date.now();
      const bounds = {
        lines: args.maxLines ?? TEXT_LIMITS.lines,
        bytes: args.maxBytes ?? TEXT_LIMITS.bytes,
      };
      const { timeoutMs, timeoutClamped } = waitBudget(args.waitMs, 0, ctx.config.waitMaxMs);
      if (args.quietMs !== undefined && timeoutMs === 0) {
        throw new ToolError("invalid_arguments", "quietMs needs waitMs: it ends a wait", {
          hint: "Pass waitMs too (how long to wait at most), e.g. waitMs: 10000, quietMs: 500.",
        });
      }
      const quietMs = args.quietMs === undefined ? undefined : Math.min(args.quietMs, timeoutMs);
      const live = ctx.live;
      const common = (outcome: Outcome) => ({
        outcome,
        elapsedMs: Date.now() - started,
        timeoutMs,
        timeoutClamped,
      });

      const poll = (why?: string) =>
        fallback(args, ctx, bounds, { timeoutMs, quietMs }, common, why);
      if (!live) return await poll();
      return await callDeadline(ctx, timeoutMs).run(async (signal) => {
        if (args.cursor === undefined) {
          // The stream's terminal starts from a one-shot capture (docs/design.md §5.11, §7.2).
          // Past the connection cap, the pane is polled rather than a followed one evicted.
          const stream = await live.follow(args.paneId, signal);
          if ("polled" in stream) return await poll(stream.polled);
          const screen = readScreen(stream);
          return {
            ...textResult(screen.text, bounds),
            cursor: formatCursor(stream.id, screen.offset),
            paneId: stream.paneId,
            generation: stream.generation,
            streaming: true,
            missedRows: 0,
            missedBytes: 0,
            alternateScreen: screen.alternateScreen,
            seedRace: stream.seedRace,
            ...common("started"),
          };
        }

        const { stream, offset } = await cursorStream(live, args.cursor, args.paneId, signal);
        // A pane closed during the wait ends the stream at once (the engine watches layouts).
        // Rows that left the terminal come back from tmux's history while it holds them.
        const read = await readFrom(stream, offset, timeoutMs, signal, quietMs, {
          read: (plan, signal) => live.readBack(stream, plan, signal),
          bounds,
        });
        if (read.outcome === "timeout") await live.verify(stream, signal);
        return {
          ...textResult(read.text, { ...bounds, skippedRows: read.skippedRows }),
          cursor: formatCursor(stream.id, read.offset),
          paneId: stream.paneId,
          generation: stream.generation,
          streaming: true,
          missedRows: read.missedRows,
          missedBytes: 0,
          alternateScreen: read.alternateScreen,
          seedRace: stream.seedRace,
          ...common(read.outcome),
        };
      });
    },
  }),
];

/**
 * Without live mode: a plain bounded capture; a wait polls the screen (src/wait/poll.ts) until it
 * changes (and with `quietMs`, until it then stays the same for `quietMs`).
 */
async function fallback(
  args: { paneId: string; cursor?: string },
  ctx: InspectContext,
  bounds: { lines: number; bytes: number },
  { timeoutMs, quietMs }: { timeoutMs: number; quietMs?: number },
  common: (
    outcome: Outcome,
  ) => { outcome: Outcome; elapsedMs: number; timeoutMs: number; timeoutClamped: boolean },
  why = NO_LIVE,
) {
  const read = () =>
    capturePane(
      ctx.tmux,
      args.paneId,
      { maxRows: Math.min(bounds.lines, bounds.bytes + 1) },
      ctx.signal,
    );
  let capture = await read();
  let outcome: Outcome = args.cursor === undefined ? "started" : "idle";
  if (timeoutMs > 0) {
    const first = capture.text;
    // Any change starts the quiet timer; the wait answers once the screen differs from the first.
    const quiet = new QuietTimer(quietMs ?? 0);
    outcome = await pollUntil(Date.now() + timeoutMs, ctx.signal, async () => {
      const before = capture.text;
      capture = await read();
      if (capture.text !== before) quiet.changed(Date.now());
      if (!quiet.started || capture.text === first) return undefined;
      if (quietMs === undefined) return "output";
      return quiet.quiet(Date.now()) ? "quiet" : undefined;
    }) ?? "timeout";
  }
  return {
    ...textResult(capture.text, { ...bounds, screen: true }),
    paneId: capture.paneId,
    generation: capture.generation,
    streaming: false,
    missedRows: 0,
    missedBytes: 0,
    ...common(outcome),
    note: `${why}: this is the pane's screen, not only new output` +
      (args.cursor === undefined ? "" : CURSOR_IGNORED),
  };
}
