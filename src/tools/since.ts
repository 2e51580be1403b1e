/**
 * capture_since: read only what changed in a pane since your last call, optionally waiting for
 * it. Live mode follows the pane through a control-mode connection and a headless terminal, so
 * reads return rows as the terminal shows them (docs/design.md §7); `--no-live` falls back to
 * plain bounded captures and says so.
 */
import { z } from "zod";
import { ToolError } from "../errors.ts";
import { readFrom, readScreen } from "../live/read.ts";
import { CURSOR_PATTERN, formatCursor } from "../live/stream.ts";
import { TEXT_LIMITS, textResult, textResultShape } from "../results.ts";
import { capturePane } from "../tmux/capture.ts";
import { defineTool, type ToolContext } from "../tool_spec.ts";
import { paneIdSchema } from "../rows.ts";
import { cursorStream, maxBytesSchema, maxLinesSchema, sleep } from "./common.ts";

/** How often the no-live fallback looks at the screen while waiting. */
const POLL_MS = 250;

type Outcome = "started" | "output" | "quiet" | "idle" | "timeout";

/** Clamp a requested wait to the server's ceiling, disclosing the clamp. */
function waitBudget(waitMs: number | undefined, ctx: ToolContext) {
  const asked = waitMs ?? 0;
  return {
    timeoutMs: Math.min(asked, ctx.config.waitMaxMs),
    timeoutClamped: asked > ctx.config.waitMaxMs,
  };
}

/** The capture_since manifest entry. */
export const sinceTools = [
  defineTool({
    name: "capture_since",
    toolset: "inspect",
    title: "Read new pane output",
    description: "Read only what changed in a pane since your previous call, as the terminal " +
      "shows it. First call (no `cursor`): returns the screen and a `cursor`. Next calls: pass " +
      "that cursor to get the lines that changed since, from the line your previous read ended " +
      "on (a line still being written then comes back whole; progress bars and redrawn prompts " +
      "show their latest state) down to the last line with text, bounded tail-first, and a new " +
      "cursor. Text ending with a newline ends complete; otherwise its last line is where the " +
      "terminal's cursor is, and comes back next time. `missedRows` > 0 means rows scrolled out " +
      "of the history kept per pane before you read them. A full-screen program (vim, less, htop) " +
      "gives `alternateScreen: true` and its whole screen. `waitMs` blocks until something " +
      "visible changes or the wait ends — use it instead of polling; it is clamped to the " +
      "server's ceiling (`timeoutClamped`). Add `quietMs` to get a whole burst in one call: once " +
      "output has come, the call waits on until nothing changed for `quietMs` (`outcome: " +
      "quiet`), or the wait ends (`timeout`, with what arrived). A `stale_cursor` error (pane replaced, stream unused " +
      "for 5 minutes, server restarted, cursor too old) means: call again without a cursor. " +
      "With the server's live mode off, each call is a plain bounded capture (`streaming: " +
      "false`) and cursors are not kept.",
    input: z.object({
      paneId: paneIdSchema,
      cursor: z.string().regex(CURSOR_PATTERN).optional().describe(
        "The cursor from your previous capture_since. Omit on the first call.",
      ),
      maxLines: maxLinesSchema.optional(),
      maxBytes: maxBytesSchema.optional(),
      waitMs: z.int().min(0).max(Number.MAX_SAFE_INTEGER).optional().describe(
        "Wait up to this long for new output before answering. Default 0.",
      ),
      quietMs: z.int().min(1).max(Number.MAX_SAFE_INTEGER).optional().describe(
        "With waitMs: once output has come, wait on until nothing has changed for this long " +
          "(the end of a burst), within waitMs.",
      ),
    }).strict(),
    output: z.object({
      ...textResultShape,
      cursor: z.string().optional().describe("Pass it to the next call (live mode only)."),
      paneId: z.string(),
      generation: z.string(),
      streaming: z.boolean().describe("True when output is streamed live; false in fallback mode."),
      missedRows: z.int().describe(
        "Rows that left the history kept per pane before this read could return them.",
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
      elapsedMs: z.int(),
      timeoutMs: z.int(),
      timeoutClamped: z.boolean(),
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
      const { timeoutMs, timeoutClamped } = waitBudget(args.waitMs, ctx);
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

      if (!live) return await fallback(args, ctx, bounds, { timeoutMs, quietMs }, common);

      if (args.cursor === undefined) {
        // The stream's terminal starts from a one-shot capture (docs/design.md §5.11, §7.2).
        const stream = await live.join(args.paneId, ctx.signal);
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

      const { stream, offset } = await cursorStream(live, args.cursor, args.paneId, ctx.signal);
      // A pane closed during the wait ends the stream at once (the engine watches layouts).
      const read = await readFrom(stream, offset, timeoutMs, ctx.signal, quietMs);
      if (read.outcome === "timeout") await live.verify(stream, ctx.signal);
      return {
        ...textResult(read.text, bounds),
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
    },
  }),
];

/**
 * Without live mode: a plain bounded capture; a wait polls the screen until it changes (and with
 * `quietMs`, until it then stays the same for `quietMs`).
 */
async function fallback(
  args: { paneId: string; cursor?: string },
  ctx: ToolContext,
  bounds: { lines: number; bytes: number },
  { timeoutMs, quietMs }: { timeoutMs: number; quietMs?: number },
  common: (
    outcome: Outcome,
  ) => { outcome: Outcome; elapsedMs: number; timeoutMs: number; timeoutClamped: boolean },
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
    const deadline = Date.now() + timeoutMs;
    outcome = "timeout";
    let changedAt: number | undefined;
    while (Date.now() < deadline) {
      await sleep(Math.min(POLL_MS, deadline - Date.now()), ctx.signal);
      const before = capture.text;
      capture = await read();
      if (capture.text !== before) changedAt = Date.now();
      if (changedAt === undefined || capture.text === first) continue;
      if (quietMs === undefined) {
        outcome = "output";
        break;
      }
      if (Date.now() - changedAt >= quietMs) {
        outcome = "quiet";
        break;
      }
    }
  }
  return {
    ...textResult(capture.text, { ...bounds, screen: true }),
    paneId: capture.paneId,
    generation: capture.generation,
    streaming: false,
    missedRows: 0,
    missedBytes: 0,
    ...common(outcome),
    note: "live mode is off on this server: this is the pane's screen, not only new output" +
      (args.cursor === undefined ? "" : "; cursors are not kept, so the one you sent was ignored"),
  };
}
