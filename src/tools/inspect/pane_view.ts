/**
 * pane_view_frame: what show_pane's view calls to follow its pane (docs/design.md §10.3). App-only
 * (`_meta.ui.visibility: ["app"]`): listed only to clients that render views, and for anyone who
 * calls it anyway an ordinary read-only tool with the same errors and bounds as reading a pane.
 * Each frame is the whole screen with attributes; a cursor makes the next call wait for a change.
 */
import { z } from "zod";
import { ToolError } from "../../errors.ts";
import { CURSOR_PATTERN, formatCursor } from "../../live/cursor.ts";
import { gridFromBuffer, gridFromCapture } from "../../render/cells.ts";
import { paneIdSchema } from "../../rows.ts";
import { tmuxId } from "../schemas.ts";
import { snapshotPane } from "../../tmux/read/capture.ts";
import { capturePaneCells } from "../../tmux/live/capture_seed.ts";
import { defineTool, type InspectContext } from "../../tool_types.ts";
import { encodeRows, FRAME_LIMITS } from "../../view/styled_rows.ts";
import { PANE_VIEW_URI } from "../../view/resource.ts";
import { waitBudget } from "../../wait/ceiling.ts";
import { cursorStream } from "../../wait/cursor_stream.ts";

const output = z.object({
  paneId: tmuxId("pane"),
  generation: z.string(),
  columns: z.int().describe("The pane's width; rows are cut to the first 400."),
  rows: z.int().describe("The pane's height; the frame holds its first 200 rows."),
  lines: z.array(z.string()).describe("Each row's text with SGR sequences only."),
  styled: z.boolean().describe("False when the rows went plain to stay within 1 MiB."),
  cursorX: z.int(),
  cursorY: z.int(),
  cursorVisible: z.boolean().describe("Whether the program shows the cursor."),
  cursor: tmuxId("cursor").optional().describe(
    "Pass it back to wait for the next change (live only).",
  ),
  changed: z.boolean().describe("False when a wait ended with nothing new."),
  dead: z.boolean().optional().describe("Checked on the first frame and after a quiet wait."),
  exitStatus: z.int().optional(),
  terminalContent: z.literal("data"),
}).strict();

type Frame = z.infer<typeof output>;

/** The pane's life, read with a snapshot (one tmux invocation). */
async function life(ctx: InspectContext, paneId: string) {
  const { state } = await snapshotPane(ctx.tmux, paneId, ctx.signal);
  return {
    dead: state.dead,
    ...(state.exitStatus === undefined ? {} : { exitStatus: state.exitStatus }),
  };
}

/** Without live mode: the screen as tmux captures it now; the view polls. */
async function captured(ctx: InspectContext, paneId: string): Promise<Frame> {
  const cells = await capturePaneCells(ctx.tmux, paneId, {
    historyRows: 0,
    maxScreenRows: FRAME_LIMITS.rows,
    signal: ctx.signal,
  });
  const grid = await gridFromCapture(cells.lines, Math.min(cells.width, FRAME_LIMITS.columns));
  return {
    paneId,
    generation: cells.generation,
    columns: cells.width,
    rows: cells.height,
    ...encodeRows(grid),
    cursorX: cells.cursorX,
    cursorY: cells.cursorY,
    cursorVisible: cells.cursorVisible,
    changed: true,
    ...await life(ctx, paneId),
    terminalContent: "data",
  };
}

/** The app-only tool's manifest entry. */
export const paneViewTools = [
  defineTool({
    name: "pane_view_frame",
    toolset: "inspect",
    title: "Pane view frame",
    description: "For show_pane's view: a pane's screen with attributes; with `cursor`, after " +
      "the next change.",
    input: z.object({
      paneId: paneIdSchema,
      cursor: tmuxId("cursor", z.string().regex(CURSOR_PATTERN)).optional(),
      waitMs: z.int().min(0).max(Number.MAX_SAFE_INTEGER).optional().describe(
        "With cursor: wait this long at most for a change. Default 0.",
      ),
    }).strict(),
    output,
    annotations: "inspect",
    capability: { reach: "none", effects: "observe", output: ["terminal-text"] },
    ui: { resourceUri: PANE_VIEW_URI, visibility: ["app"] },
    summarize: (data) => {
      const d = data as Frame;
      return `frame of ${d.paneId}: ${d.columns}x${d.rows}${d.changed ? "" : ", unchanged"}`;
    },
    handler: async ({ paneId, cursor, waitMs }, ctx) => {
      const live = ctx.live;
      if (!live) return await captured(ctx, paneId);
      // The view is not told of a clamp: it asks again after each frame.
      const timeout = waitBudget(waitMs, 0, ctx.config.waitMaxMs).timeoutMs;
      let stream;
      // A view cursor carries the stream's change count when the frame was taken.
      let seen = -1;
      if (cursor === undefined) {
        // Past the connection cap, the view is drawn from captures, as without live mode.
        const joined = await live.follow(paneId, ctx.signal);
        if ("polled" in joined) return await captured(ctx, paneId);
        stream = joined;
      } else ({ stream, offset: seen } = await cursorStream(live, cursor, paneId, ctx.signal));
      let quiet = false;
      if (stream.changes <= seen && timeout > 0) {
        quiet = await stream.waitForChange(timeout, ctx.signal) === "timeout";
        if (quiet) await live.verify(stream, ctx.signal);
      }
      // tmux knows whether the cursor is shown even when the program hid it before the stream
      // began (a seed cannot carry it): one header read, over the control channel when routed.
      const { cursorVisible } = await capturePaneCells(ctx.tmux, paneId, {
        historyRows: 0,
        maxScreenRows: 1,
        headerOnly: true,
        signal: ctx.signal,
      });
      const emulator = stream.emulator;
      if (!emulator) throw stream.ended ?? new ToolError("stale_cursor", "the stream ended");
      const changes = stream.changes;
      const buffer = emulator.buffer;
      const grid = gridFromBuffer(
        buffer,
        buffer.baseY,
        Math.min(emulator.rows, FRAME_LIMITS.rows),
        Math.min(emulator.cols, FRAME_LIMITS.columns),
      );
      const frame: Frame = {
        paneId,
        generation: stream.generation,
        columns: emulator.cols,
        rows: emulator.rows,
        ...encodeRows(grid),
        cursorX: buffer.cursorX,
        cursorY: buffer.cursorY,
        cursorVisible,
        cursor: formatCursor(stream.id, changes),
        changed: changes > seen,
        ...(cursor === undefined || quiet ? await life(ctx, paneId) : {}),
        terminalContent: "data",
      };
      return frame;
    },
  }),
];
