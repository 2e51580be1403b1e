/** Reading pane output: capture_pane and snapshot_pane. Bounded, tail-first, and disclosed. */
import { z } from "zod";
import { ToolError } from "../../errors.ts";
import { TEXT_LIMITS, textResult, textResultShape } from "../../results.ts";
import { capturePane, snapshotPane } from "../../tmux/read/capture.ts";
import { checkGeneration } from "../../tmux/read/generation.ts";
import { defineTool } from "../../tool_types.ts";
import { paneIdSchema, pickShape } from "../../rows.ts";
import { generationSchema, maxBytesSchema, maxLinesSchema, tmuxId } from "../schemas.ts";

const META = { reach: "none", effects: "observe", output: ["terminal-text"] } as const;

/** A line number on tmux's capture scale. */
const lineSchema = z.int().min(-1_000_000_000).max(1_000_000_000);

/**
 * The most lines capture_pane keeps, whatever `maxLines` asks: more than 256 KiB holds unless
 * lines average under 3 bytes. Clamped and disclosed rather than refused, since the batch's
 * nested capture_pane shape (which reuses maxLinesSchema) is published.
 */
const CAPTURE_LINE_CEILING = 100_000;

/** What snapshot_pane reports besides the text. */
const paneSnapshotSchema = z.object({
  paneId: tmuxId("pane"),
  generation: z.string(),
  cursorX: z.int(),
  cursorY: z.int(),
  width: z.int(),
  height: z.int(),
  inMode: z.boolean(),
  mode: z.string().nullable().describe("e.g. copy-mode; null when not in a mode."),
  scrollPosition: z.int().nullable().describe("Lines scrolled back in a mode, else null."),
  alternateOn: z.boolean(),
  currentCommand: z.string(),
  dead: z.boolean(),
  exitStatus: z.int().optional(),
  title: z.string(),
}).strict();

/** The reading tools' manifest entries. */
export const captureTools = [
  defineTool({
    name: "capture_pane",
    toolset: "inspect",
    core: true,
    batchable: true,
    title: "Capture pane text",
    description: "Read a pane's text (no colours), by default its screen. Line 0 is the " +
      "screen's top, negative lines are scrollback (`end: -1` is the line above the screen); " +
      "for the last 500 lines of history plus the screen, pass `start: -500` and no `end`.",
    input: z.object({
      paneId: paneIdSchema,
      start: lineSchema.optional().describe("Default 0."),
      end: lineSchema.optional().describe("Default: the screen's last line."),
      joinWrapped: z.boolean().optional().describe("Join rows tmux wrapped."),
      maxLines: maxLinesSchema.optional(),
      maxBytes: maxBytesSchema.optional(),
      generation: generationSchema.optional(),
    }).strict(),
    output: z.object({
      ...textResultShape,
      paneId: tmuxId("pane"),
      generation: z.string(),
      start: z.int().describe("First line covered (clamped to the scrollback's top)."),
      end: z.int().describe("Last line covered (clamped to the screen's last row)."),
      lineLimitClamped: z.literal(true).optional().describe(
        `Present when maxLines exceeded ${CAPTURE_LINE_CEILING}; lineLimit is what applied.`,
      ),
    }).strict(),
    // Seed 004 requires them, even when they say nothing (docs/design.md §1.5).
    keeps: ["truncated", "lineLimit", "byteLimit", "encoding"],
    annotations: "inspect",
    capability: META,
    handler: async (args, ctx) => {
      const asked = args.maxLines ?? TEXT_LIMITS.lines;
      const lineLimit = Math.min(asked, CAPTURE_LINE_CEILING);
      const byteLimit = args.maxBytes ?? TEXT_LIMITS.bytes;
      if (args.start !== undefined && args.end !== undefined && args.start > args.end) {
        throw new ToolError(
          "invalid_arguments",
          `start (${args.start}) is below end (${args.end})`,
          { hint: "start is the first (upper) line; give start <= end." },
        );
      }
      // Each kept line costs at least one byte, so more rows than bytes can never be shown;
      // joined lines may span several rows, so ask for more of them.
      const maxRows = Math.min(
        args.joinWrapped ? lineLimit * 4 : lineLimit,
        byteLimit + 1,
      );
      const capture = await capturePane(ctx.tmux, args.paneId, {
        start: args.start,
        end: args.end,
        joinWrapped: args.joinWrapped,
        maxRows,
        // Rows older than these budgets can use are never pulled (see capturePane).
        keep: { lines: lineLimit, bytes: byteLimit },
      }, ctx.signal);
      checkGeneration(capture, args.generation);
      return {
        ...textResult(capture.text, {
          lines: lineLimit,
          bytes: byteLimit,
          screen: true,
          skippedRows: capture.skippedRows,
        }),
        paneId: capture.paneId,
        generation: capture.generation,
        start: capture.start,
        end: capture.end,
        ...(asked > lineLimit ? { lineLimitClamped: true as const } : {}),
      };
    },
  }),
  defineTool({
    name: "snapshot_pane",
    toolset: "inspect",
    batchable: true,
    title: "Snapshot a pane",
    description: "A pane's screen plus its state at that instant: cursor, size, mode (copy mode) " +
      "and scroll position, alternate screen, command, exit status, title.",
    input: z.object({ paneId: paneIdSchema, maxLines: maxLinesSchema.optional() }).strict(),
    output: paneSnapshotSchema.extend(textResultShape).strict(),
    annotations: "inspect",
    capability: { ...META, output: ["terminal-text", "metadata"] },
    handler: async ({ paneId, maxLines }, ctx) => {
      const { state, text } = await snapshotPane(ctx.tmux, paneId, ctx.signal);
      return {
        ...textResult(text, {
          lines: maxLines ?? TEXT_LIMITS.lines,
          bytes: TEXT_LIMITS.bytes,
          screen: true,
        }),
        ...pickShape(paneSnapshotSchema, state),
      };
    },
  }),
];
