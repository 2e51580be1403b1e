/**
 * Manage setters that change what is shown: select_window, select_pane, select_layout,
 * resize_window, resize_pane, move_window, swap_pane. Each runs the view guard first
 * (docs/design.md §6.8): a change a person watching would see is refused unless the server runs
 * with --allow-watched-panes.
 */
import { z } from "zod";
import { ToolError } from "../../errors.ts";
import { preflightView } from "../../guard/preflight.ts";
import { paneIdSchema, pickShape, windowIdSchema } from "../../rows.ts";
import { checkLayout, MAX_LAYOUT_CHARS, NAMED_LAYOUTS } from "../../tmux/core/layout.ts";
import {
  moveWindow,
  resizePane,
  resizeWindow,
  selectLayout,
  selectPane,
  selectWindow,
  swapPanes,
} from "../../tmux/manage/manage.ts";
import { PANE_LIMITS } from "../../live/emulator.ts";
import { defineTool } from "../../tool_types.ts";
import { sessionRefSchema, tmuxId } from "../schemas.ts";
import { VIEW_GUARDED } from "../wording.ts";

const META = { reach: "none", effects: "change", output: ["metadata"] } as const;

// Sizes stop at the largest pane this server follows (docs/design.md §7.2).
const columnsSchema = z.int().min(1).max(PANE_LIMITS.columns);
const rowsSchema = z.int().min(1).max(PANE_LIMITS.rows);
const percentSchema = z.string().regex(/^(100|[1-9]\d?)%$/);

const windowOut = z.object({
  windowId: tmuxId("window"),
  sessionId: tmuxId("session"),
  sessionName: tmuxId("session"),
  windowIndex: z.int(),
  active: z.boolean().describe("It is its session's current window."),
  width: z.int(),
  height: z.int(),
  zoomed: z.boolean(),
  layout: z.string().describe("tmux layout string, usable with select_layout."),
}).strict();

const paneOut = z.object({
  paneId: tmuxId("pane"),
  windowId: tmuxId("window"),
  paneIndex: z.int(),
  active: z.boolean().describe("It is its window's active pane."),
  width: z.int(),
  height: z.int(),
  left: z.int(),
  top: z.int(),
  zoomed: z.boolean().describe("Its window is zoomed."),
}).strict();

/** Refuse a resize that names no size (and, for panes, no zoom). */
function needsOne(given: boolean, what: string): void {
  if (!given) {
    throw new ToolError("invalid_arguments", `pass ${what}`, {
      hint: `Give ${what}; omitted ones stay as they are.`,
    });
  }
}

/** The manage view setters' manifest entries. */
export const manageViewTools = [
  defineTool({
    name: "select_window",
    toolset: "manage",
    title: "Select a window",
    description: "Make a window its session's current window. " + VIEW_GUARDED,
    input: z.object({ windowId: windowIdSchema }).strict(),
    output: windowOut,
    annotations: "setter",
    capability: META,
    handler: async ({ windowId }, ctx) => {
      await preflightView(ctx, { action: `selecting window ${windowId}`, selectWindow: windowId });
      return pickShape(windowOut, await selectWindow(ctx.tmux, windowId, ctx.signal));
    },
  }),
  defineTool({
    name: "select_pane",
    toolset: "manage",
    title: "Select a pane",
    description: "Make a pane its window's active pane (unzooming it). " + VIEW_GUARDED,
    input: z.object({ paneId: paneIdSchema }).strict(),
    output: paneOut,
    annotations: "setter",
    capability: META,
    handler: async ({ paneId }, ctx) => {
      await preflightView(ctx, { action: `selecting pane ${paneId}`, selectPane: paneId });
      return pickShape(paneOut, await selectPane(ctx.tmux, paneId, ctx.signal));
    },
  }),
  defineTool({
    name: "select_layout",
    toolset: "manage",
    title: "Arrange a window's panes",
    description:
      "Arrange a window's panes by a named layout, or a layout string from list_windows " +
      "to restore one. " + VIEW_GUARDED,
    input: z.object({
      windowId: windowIdSchema,
      layout: z.string().min(1).max(MAX_LAYOUT_CHARS).describe(
        `${NAMED_LAYOUTS.join(", ")}, or a layout string.`,
      ),
    }).strict(),
    output: windowOut,
    annotations: "setter",
    capability: META,
    handler: async ({ windowId, layout }, ctx) => {
      checkLayout(layout);
      await preflightView(ctx, { action: `re-laying out window ${windowId}`, windows: [windowId] });
      return pickShape(windowOut, await selectLayout(ctx.tmux, windowId, layout, ctx.signal));
    },
  }),
  defineTool({
    name: "resize_window",
    toolset: "manage",
    title: "Resize a window",
    description: "Set a window's size in cells; it then stops following clients. " + VIEW_GUARDED,
    input: z.object({
      windowId: windowIdSchema,
      width: columnsSchema.optional(),
      height: rowsSchema.optional(),
    }).strict(),
    output: windowOut,
    annotations: "setter",
    capability: META,
    handler: async ({ windowId, width, height }, ctx) => {
      needsOne(width !== undefined || height !== undefined, "width, height or both");
      await preflightView(ctx, { action: `resizing window ${windowId}`, windows: [windowId] });
      const window = await resizeWindow(ctx.tmux, windowId, { width, height }, ctx.signal);
      return pickShape(windowOut, window);
    },
  }),
  defineTool({
    name: "resize_pane",
    toolset: "manage",
    title: "Resize or zoom a pane",
    description: 'Resize a pane (cells or "50%") and/or zoom it. ' + VIEW_GUARDED,
    input: z.object({
      paneId: paneIdSchema,
      width: z.union([columnsSchema, percentSchema]).optional(),
      height: z.union([rowsSchema, percentSchema]).optional(),
      zoom: z.boolean().optional().describe("false unzooms."),
    }).strict(),
    output: paneOut,
    annotations: "setter",
    capability: META,
    handler: async ({ paneId, width, height, zoom }, ctx) => {
      needsOne(
        width !== undefined || height !== undefined || zoom !== undefined,
        "width, height or zoom",
      );
      await preflightView(ctx, { action: `resizing pane ${paneId}`, panes: [paneId] });
      const pane = await resizePane(ctx.tmux, paneId, { width, height, zoom }, ctx.signal);
      return pickShape(paneOut, pane);
    },
  }),
  defineTool({
    name: "move_window",
    toolset: "manage",
    title: "Move a window to a session",
    description: "Move a window to a session (or an index of its own) without selecting it. " +
      VIEW_GUARDED,
    input: z.object({
      windowId: windowIdSchema,
      session: sessionRefSchema.describe("Destination."),
      index: z.int().min(0).max(999_999).optional().describe("Default: the next free one."),
    }).strict(),
    output: windowOut,
    annotations: "ordered",
    capability: META,
    handler: async ({ windowId, session, index }, ctx) => {
      const listing = await preflightView(ctx, {
        action: `moving window ${windowId}`,
        windows: [windowId],
      });
      const window = await moveWindow(ctx.tmux, listing, windowId, session, index, ctx.signal);
      return pickShape(windowOut, window);
    },
  }),
  defineTool({
    name: "swap_pane",
    toolset: "manage",
    title: "Swap two panes",
    description: "Swap two panes' places. " + VIEW_GUARDED,
    input: z.object({ paneId: paneIdSchema, otherPaneId: paneIdSchema }).strict(),
    output: z.object({ panes: z.array(paneOut) }).strict(),
    annotations: "ordered",
    capability: META,
    handler: async ({ paneId, otherPaneId }, ctx) => {
      await preflightView(ctx, {
        action: `swapping panes ${paneId} and ${otherPaneId}`,
        panes: [paneId, otherPaneId],
      });
      const panes = await swapPanes(ctx.tmux, paneId, otherPaneId, ctx.signal);
      return { panes: panes.map((p) => pickShape(paneOut, p)) };
    },
  }),
];
