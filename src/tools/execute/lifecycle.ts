/**
 * Lifecycle tools: create_session, create_window, split_window, respawn_pane — places for an
 * agent to work without disturbing what a person looks at. Each starts the default shell (or, for
 * respawn_pane, the pane's own command); nothing here takes a command or environment argument.
 */
import { z } from "zod";
import { withPanesGuard } from "../../guard/hold.ts";
import { preflightContained, preflightSelectNew } from "../../guard/preflight.ts";
import { paneIdSchema, windowIdSchema } from "../../rows.ts";
import {
  type CreatedPane,
  createSession,
  createWindow,
  respawnPane,
  SPLIT_DIRECTIONS,
  splitWindow,
} from "../../tmux/execute/lifecycle.ts";
import { PANE_LIMITS } from "../../live/emulator.ts";
import { defineTool } from "../../tool_types.ts";
import { generationSchema, sessionRefSchema, tmuxId } from "../schemas.ts";
import { GUARDED } from "../wording.ts";

const META = {
  reach: "configured-process",
  effects: "change",
  output: ["metadata"],
} as const;

const sessionNameSchema = z.string().min(1).max(256);
const windowNameSchema = z.string().min(1).max(256);
const startDirectorySchema = z.string().min(1).max(4096).describe("Existing absolute path.");
const selectSchema = z.boolean().describe("Make it current (not where a person watches).");

const createdShape = {
  paneId: paneIdSchema.describe("The new pane's id."),
  generation: z.string().describe("The new pane's generation (see list_panes)."),
  startDirectory: z.string().describe(
    "The pane's working directory as tmux reads it back (symlinks resolved; empty if tmux " +
      "could not read it).",
  ),
};

/** The fields every creation reports, from what tmux read back. */
function created(pane: CreatedPane) {
  return {
    paneId: pane.paneId,
    generation: pane.generation,
    startDirectory: pane.path,
  };
}

/** The lifecycle tools' manifest entries. */
export const lifecycleTools = [
  defineTool({
    name: "create_session",
    toolset: "execute",
    core: true,
    title: "Create a tmux session",
    description: "Create a detached session: your own place to work, which no person sees (tmux " +
      "starts if needed). Its pane runs your default shell.",
    input: z.object({
      name: sessionNameSchema.optional().describe('Literal; no ":" or ".".'),
      windowName: windowNameSchema.optional(),
      startDirectory: startDirectorySchema.optional(),
      width: z.int().min(1).max(PANE_LIMITS.columns).optional().describe("Default 80."),
      height: z.int().min(1).max(PANE_LIMITS.rows).optional().describe("Default 24."),
    }).strict(),
    output: z.object({
      sessionId: tmuxId("session"),
      name: tmuxId("session").describe("The session's name as tmux stored it."),
      windowId: windowIdSchema,
      ...createdShape,
      serverStarted: z.boolean().describe("True when no tmux server was running before."),
    }).strict(),
    annotations: "ordered",
    capability: META,
    handler: async (args, ctx) => {
      const pane = await createSession(ctx.tmux, args, ctx.signal);
      return {
        sessionId: pane.sessionId,
        name: pane.sessionName,
        windowId: pane.windowId,
        ...created(pane),
        serverStarted: pane.serverStarted,
      };
    },
  }),
  defineTool({
    name: "create_window",
    toolset: "execute",
    core: true,
    title: "Create a window",
    description: "Create a window in a session, in the background.",
    input: z.object({
      session: sessionRefSchema,
      name: windowNameSchema.optional(),
      startDirectory: startDirectorySchema.optional(),
      afterWindowId: windowIdSchema.optional(),
      beforeWindowId: windowIdSchema.optional(),
      select: selectSchema.optional(),
    }).strict(),
    output: z.object({
      sessionId: tmuxId("session"),
      windowId: windowIdSchema,
      windowIndex: z.int(),
      name: z.string().describe("The window's name as tmux stored it."),
      ...createdShape,
    }).strict(),
    annotations: "ordered",
    capability: META,
    handler: async ({ select = false, ...args }, ctx) => {
      if (select) {
        await preflightSelectNew(ctx, { session: args.session }, "create_window with select");
      }
      const pane = await createWindow(ctx.tmux, { ...args, select }, ctx.signal);
      return {
        sessionId: pane.sessionId,
        windowId: pane.windowId,
        windowIndex: pane.windowIndex,
        name: pane.windowName,
        ...created(pane),
      };
    },
  }),
  defineTool({
    name: "split_window",
    toolset: "execute",
    core: true,
    title: "Split a pane",
    description: "Split a pane: a new pane below, above, right or left, not made active.",
    input: z.object({
      paneId: paneIdSchema,
      direction: z.enum(SPLIT_DIRECTIONS),
      size: z.union([
        z.int().min(1).max(PANE_LIMITS.columns),
        z.string().regex(/^[1-9][0-9]?%$/),
      ]).optional(),
      startDirectory: startDirectorySchema.optional(),
      select: selectSchema.optional(),
    }).strict(),
    output: z.object({ ...createdShape, windowId: windowIdSchema }).strict(),
    annotations: "ordered",
    capability: META,
    handler: async ({ paneId, direction, size, startDirectory, select = false }, ctx) => {
      if (select) await preflightSelectNew(ctx, { paneId }, "split_window with select");
      const pane = await splitWindow(ctx.tmux, {
        paneId,
        direction,
        size: size === undefined
          ? undefined
          : typeof size === "number"
          ? { cells: size }
          : { percent: Number(size.slice(0, -1)) },
        startDirectory,
        select,
      }, ctx.signal);
      return { ...created(pane), windowId: pane.windowId };
    },
  }),
  defineTool({
    name: "respawn_pane",
    toolset: "execute",
    title: "Restart a pane",
    description:
      "Restart a pane's program. A live one only with `kill: true`, which ENDS what runs " +
      `there. ${GUARDED}`,
    input: z.object({
      paneId: paneIdSchema,
      generation: generationSchema.optional(),
      startDirectory: startDirectorySchema.optional(),
      kill: z.boolean().optional().describe("End a live program first."),
      force: z.boolean().optional().describe("Allow your own pane."),
    }).strict(),
    output: z.object(createdShape).strict(),
    annotations: "execute",
    capability: { ...META, effects: "delete" },
    handler: async ({ paneId, generation, startDirectory, kill = false, force = false }, ctx) =>
      await withPanesGuard(
        ctx,
        `pane ${paneId}`,
        () =>
          preflightContained(ctx, { pane: paneId, generation }, {
            force,
            action: "respawn_pane",
            refuseNestedClients: true,
          }),
        (checked) => checked.paneIds,
        async () =>
          created(await respawnPane(ctx.tmux, { paneId, startDirectory, kill }, ctx.signal)),
      ),
  }),
];
