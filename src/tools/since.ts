/**
 * capture_since: read only what a pane printed since your last call, optionally waiting for it.
 * Live mode streams output through a control-mode connection (no polling, nothing lost between
 * calls while it is retained); `--no-live` falls back to plain bounded captures and says so.
 */
import { z } from "zod";
import { ToolError } from "../errors.ts";
import { readFrom } from "../live/read.ts";
import { CURSOR_PATTERN, formatCursor, type PaneStream, parseCursor } from "../live/stream.ts";
import { boundText, TEXT_LIMITS } from "../results.ts";
import { capturePane } from "../tmux/capture.ts";
import type { LiveEngine } from "../tmux/live.ts";
import { paneNotFound } from "../tmux/targets.ts";
import { defineTool, type ToolContext } from "../tool_spec.ts";
import { paneIdSchema } from "../rows.ts";
import { maxBytesSchema, maxLinesSchema, sleep } from "./common.ts";

/** How often the no-live fallback looks at the screen while waiting. */
const POLL_MS = 250;

type Outcome = "started" | "output" | "idle" | "timeout";

/** Clamp a requested wait to the server's ceiling, disclosing the clamp. */
function waitBudget(waitMs: number | undefined, ctx: ToolContext) {
  const asked = waitMs ?? 0;
  return {
    timeoutMs: Math.min(asked, ctx.config.waitMaxMs),
    timeoutClamped: asked > ctx.config.waitMaxMs,
  };
}

function bounded(text: string, maxLines: number, maxBytes: number) {
  return {
    ...boundText(text, maxLines, maxBytes),
    lineLimit: maxLines,
    byteLimit: maxBytes,
    encoding: "utf-8" as const,
    terminalContent: "data" as const,
  };
}

/** The capture_since manifest entry. */
export const sinceTools = [
  defineTool({
    name: "capture_since",
    toolset: "inspect",
    title: "Read new pane output",
    description: "Read only what a pane printed since your previous call. First call (no " +
      "`cursor`): returns the screen's recent tail and a `cursor`. Next calls: pass that cursor " +
      "to get just the output after it (escape sequences removed, carriage returns folded, " +
      "bounded tail-first) and a new cursor; `missedBytes` > 0 means output scrolled out of the " +
      "256 KiB kept per pane. `waitMs` blocks until new output arrives or the wait ends — use it " +
      "instead of polling; it is clamped to the server's ceiling (`timeoutClamped`). A " +
      "`stale_cursor` error (pane replaced, stream unused for 5 minutes, server restarted) means: " +
      "call again without a cursor. With the server's live mode off, each call is a plain " +
      "bounded capture (`streaming: false`) and cursors are not kept.",
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
    }).strict(),
    output: z.object({
      text: z.string(),
      cursor: z.string().optional().describe("Pass it to the next call (live mode only)."),
      paneId: z.string(),
      generation: z.string(),
      streaming: z.boolean().describe("True when output is streamed live; false in fallback mode."),
      missedBytes: z.int().describe("Output bytes that fell out of retention before this read."),
      outcome: z.enum(["started", "output", "idle", "timeout"]).describe(
        "started: first call; output: new output returned; idle: nothing new and no wait; " +
          "timeout: waited and nothing arrived.",
      ),
      elapsedMs: z.int(),
      timeoutMs: z.int(),
      timeoutClamped: z.boolean(),
      truncated: z.boolean(),
      truncatedLines: z.int(),
      truncatedBytes: z.int(),
      lineLimit: z.int(),
      byteLimit: z.int(),
      encoding: z.literal("utf-8"),
      terminalContent: z.literal("data"),
      note: z.string().optional(),
    }).strict(),
    annotations: "inspect",
    capability: { reach: "none", effects: "observe", output: ["terminal-text"] },
    handler: async (args, ctx) => {
      const started = Date.now();
      const maxLines = args.maxLines ?? TEXT_LIMITS.lines;
      const maxBytes = args.maxBytes ?? TEXT_LIMITS.bytes;
      const { timeoutMs, timeoutClamped } = waitBudget(args.waitMs, ctx);
      const live = ctx.live;
      const common = (outcome: Outcome) => ({
        outcome,
        elapsedMs: Date.now() - started,
        timeoutMs,
        timeoutClamped,
      });

      if (!live) return await fallback(args, ctx, maxLines, maxBytes, timeoutMs, common);

      if (args.cursor === undefined) {
        const stream = await live.join(args.paneId, ctx.signal);
        // Mark first, capture second: output racing the start may repeat, never vanish. The
        // screen is read by a one-shot tmux call, so no pane text ever crosses the control
        // channel (where it could imitate the channel's own reply lines).
        const mark = stream.total;
        const screen = await capturePane(ctx.tmux, args.paneId, {
          maxRows: Math.min(maxLines, maxBytes + 1),
        }, ctx.signal);
        return {
          ...bounded(screen.text.replace(/\n+$/, ""), maxLines, maxBytes),
          cursor: formatCursor(stream.id, mark),
          paneId: stream.paneId,
          generation: stream.generation,
          streaming: true,
          missedBytes: 0,
          ...common("started"),
        };
      }

      const { streamId, offset } = parseCursor(args.cursor);
      const stream = live.find(streamId);
      if (!stream) {
        throw live.endedReason(streamId) ??
          new ToolError(
            "stale_cursor",
            "this cursor's stream is gone (unused for 5 minutes, server restarted, or pane replaced)",
          );
      }
      if (stream.paneId !== args.paneId) {
        throw new ToolError(
          "stale_cursor",
          `this cursor belongs to ${stream.paneId}'s stream, not ${args.paneId}'s`,
        );
      }
      if (offset > stream.total) {
        throw new ToolError("stale_cursor", "this cursor points past the stream's end");
      }
      await ensureCurrent(live, stream, args.paneId, ctx.signal);

      const read = await readFrom(stream, offset, timeoutMs, ctx.signal);
      // A pane closed while we waited is reported as such, not as a quiet timeout.
      if (read.outcome === "timeout") await ensureCurrent(live, stream, args.paneId, ctx.signal);
      return {
        ...bounded(read.text, maxLines, maxBytes),
        cursor: formatCursor(stream.id, read.next),
        paneId: stream.paneId,
        generation: stream.generation,
        streaming: true,
        missedBytes: read.missedBytes,
        ...common(read.outcome),
      };
    },
  }),
];

/** Refuse a cursor whose pane is gone, was replaced, or moved out of the watched session. */
async function ensureCurrent(
  live: LiveEngine,
  stream: PaneStream,
  paneId: string,
  signal: AbortSignal,
): Promise<void> {
  const state = await live.check(stream, signal);
  if (state === "same") return;
  live.drop(stream, `the pane was ${state}`);
  if (state === "gone") {
    throw paneNotFound(paneId);
  }
  throw new ToolError(
    "stale_cursor",
    state === "moved"
      ? `pane ${paneId} moved to another session since this cursor was issued`
      : `pane ${paneId} was replaced since this cursor was issued`,
  );
}

/** Without live mode: a plain bounded capture; a wait polls the screen until it changes. */
async function fallback(
  args: { paneId: string; cursor?: string },
  ctx: ToolContext,
  maxLines: number,
  maxBytes: number,
  timeoutMs: number,
  common: (
    outcome: Outcome,
  ) => { outcome: Outcome; elapsedMs: number; timeoutMs: number; timeoutClamped: boolean },
) {
  const read = () =>
    capturePane(ctx.tmux, args.paneId, { maxRows: Math.min(maxLines, maxBytes + 1) }, ctx.signal);
  let capture = await read();
  let outcome: Outcome = args.cursor === undefined ? "started" : "idle";
  if (timeoutMs > 0) {
    const first = capture.text;
    const deadline = Date.now() + timeoutMs;
    outcome = "timeout";
    while (Date.now() < deadline) {
      await sleep(Math.min(POLL_MS, deadline - Date.now()), ctx.signal);
      capture = await read();
      if (capture.text !== first) {
        outcome = "output";
        break;
      }
    }
  }
  return {
    ...bounded(capture.text.replace(/\n+$/, ""), maxLines, maxBytes),
    paneId: capture.paneId,
    generation: capture.generation,
    streaming: false,
    missedBytes: 0,
    ...common(outcome),
    note: "live mode is off on this server: this is the pane's screen, not only new output" +
      (args.cursor === undefined ? "" : "; cursors are not kept, so the one you sent was ignored"),
  };
}
