/**
 * Manage setters that change what is shown: select_window, select_pane, select_layout,
 * resize_window, resize_pane, move_window, swap_pane. Each runs the view guard first
 * (docs/design.md §6.8): a change a person watching would see is refused unless the server runs
 * with --allow-watched-panes.
 */
import { z } from "zod";
import { ToolError } from "../errors.ts";
import { preflightView } from "../guard.ts";
import { paneIdSchema, pickShape, windowIdSchema } from "../rows.ts";
import {
  checkLayout,
  MAX_CELLS,
  MAX_LAYOUT_CHARS,
  moveWindow,
  NAMED_LAYOUTS,
  resizePane,
  resizeWindow,
  selectLayout,
  selectPane,
  selectWindow,
  swapPanes,
} from "../tmux/manage.ts";
import { defineTool } from "../tool_spec.ts";
import { ASK_TEXT, sessionRefSchema } from "./common.ts";

const META = { reach: "none", effects: "change", output: ["metadata"] } as const;

const GUARDED = "Refused (target_denied) when a person is watching the window (an attached " +
  `client shows it), unless the server runs with --allow-watched-panes. ${ASK_TEXT}`;

const cellsSchema = z.int().min(1).max(MAX_CELLS);
const paneSizeSchema = z.union([
  cellsSchema,
  z.string().regex(/^(100|[1-9]\d?)%$/),
]).describe(`Cells (1 to ${MAX_CELLS}) or a percentage of the window, e.g. "50%".`);

const windowOut = z.object({
  windowId: z.string(),
  sessionId: z.string(),
  sessionName: z.string(),
  windowIndex: z.int(),
  active: z.boolean().describe("It is its session's current window."),
  width: z.int(),
  height: z.int(),
  zoomed: z.boolean(),
  layout: z.string().describe("tmux layout string, usable with select_layout."),
}).strict();

const paneOut = z.object({
  paneId: z.string(),
  windowId: z.string(),
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
    description: "Make a window (@N) its session's current window and return the window as tmux " +
      "now shows it (tmux picks the session when the window is linked into several). Refused " +
      "(target_denied) when it would replace a window a person is watching, unless the server " +
      "runs with --allow-watched-panes; selecting the current window is always allowed. " +
      ASK_TEXT,
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
    description: "Make a pane (%N) its window's active pane (a zoomed window is unzoomed) and " +
      "return the pane as tmux now has it. The session's current window does not change. " +
      "Refused (target_denied) when a person is watching that window — their keys would go " +
      "to the new pane — unless the server runs with --allow-watched-panes; selecting the " +
      `active pane is always allowed. ${ASK_TEXT}`,
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
    description: "Arrange a window's (@N) panes with a named layout " +
      `(${NAMED_LAYOUTS.join(", ")}) or a layout string exactly as get_window_info or ` +
      "list_windows print it (checksum,WxH,X,Y{…}/[…]) to restore an earlier arrangement. " +
      "Layout strings are checked (grammar, checksum, sizes) before tmux sees them; a custom " +
      "layout also sets the window to its size. Returns the layout tmux now has. " + GUARDED,
    input: z.object({
      windowId: windowIdSchema,
      layout: z.string().min(1).max(MAX_LAYOUT_CHARS).describe(
        `One of ${NAMED_LAYOUTS.join(", ")}, or a window_layout string.`,
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
    description: "Set a window's (@N) width and/or height in cells and return the size tmux now " +
      "has. tmux then keeps that size (it sets the window's window-size option to manual) " +
      "instead of following the clients' terminals. " + GUARDED,
    input: z.object({
      windowId: windowIdSchema,
      width: cellsSchema.optional().describe(`Columns, 1 to ${MAX_CELLS}.`),
      height: cellsSchema.optional().describe(`Rows, 1 to ${MAX_CELLS}.`),
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
    description: "Resize a pane (%N) to a width and/or height in cells or percent of its window " +
      '("50%"), and/or zoom it (`zoom: true` fills the window with this pane, `false` ' +
      "unzooms). A resize unzooms the window first. tmux fits sizes to the window; the result " +
      "is the size read back. " + GUARDED,
    input: z.object({
      paneId: paneIdSchema,
      width: paneSizeSchema.optional(),
      height: paneSizeSchema.optional(),
      zoom: z.boolean().optional().describe(
        "true: zoom this pane (after any resize); false: unzoom its window.",
      ),
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
    description: "Move a window (@N) to a session ($N or exact name) — another one, or its own " +
      "to change its index — at `index` or the next free index, without selecting it. Returns " +
      "where it is now. An index in use is refused, and so is moving a session's only window " +
      "out (that would end the session). " + GUARDED,
    input: z.object({
      windowId: windowIdSchema,
      session: sessionRefSchema.describe("Destination session id ($1) or exact name."),
      index: z.int().min(0).max(999_999).optional().describe(
        "Destination window index; omit for the next free one.",
      ),
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
    description: "Swap the places of two panes (%N), in one window or across windows; the active " +
      "pane stays where it is on screen. Returns both panes as tmux now has them. Refused " +
      "(target_denied) when a person is watching either window, unless the server runs with " +
      `--allow-watched-panes. ${ASK_TEXT}`,
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
