/**
 * Lifecycle tools: create_session, create_window, split_window, respawn_pane — places for an
 * agent to work without disturbing what a person looks at. Each starts the default shell (or, for
 * respawn_pane, the pane's own command); nothing here takes a command or environment argument.
 */
import { z } from "zod";
import { preflightContained, preflightSelectNew, withPanesGuard } from "../guard.ts";
import { paneIdSchema, windowIdSchema } from "../rows.ts";
import {
  type CreatedPane,
  createSession,
  createWindow,
  respawnPane,
  SPLIT_DIRECTIONS,
  splitWindow,
} from "../tmux/lifecycle.ts";
import { defineTool } from "../tool_spec.ts";
import { ASK_TEXT, generationSchema, sessionRefSchema } from "./common.ts";

const META = {
  reach: "configured-process",
  effects: "change",
  output: ["metadata"],
} as const;

const sessionNameSchema = z.string().min(1).max(256).describe(
  'Session name, stored literally (#, #{…} and #(…) stay text). Not ":" or "."; not $ plus digits.',
);
const windowNameSchema = z.string().min(1).max(256).describe(
  "Window name, stored literally (#, #{…} and #(…) stay text).",
);
const startDirectorySchema = z.string().min(1).max(4096).describe(
  "Absolute path of an existing directory for the shell to start in. A directory that does " +
    "not exist is refused (tmux would silently use another one).",
);
const selectSchema = z.boolean().describe(
  "Make the new one current (the window a session shows, the pane a window types into). " +
    "Default false: nobody's view changes. Refused (target_denied) where a person is watching, " +
    `unless the server runs with --allow-watched-panes. ${ASK_TEXT}`,
);

const createdShape = {
  paneId: paneIdSchema.describe("The new pane's id."),
  generation: z.string().describe("The new pane's generation (see list_panes)."),
  startDirectory: z.string().describe(
    "The pane's working directory as tmux reads it back (symlinks resolved; empty if tmux " +
      "could not read it).",
  ),
};

const SHELL_TEXT = "The new pane runs your default shell (tmux's default-command or " +
  "default-shell); use run_shell_command or send_keys to run things in it.";

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
    title: "Create a tmux session",
    description: "Create a new detached session — your own place to work, which no person is " +
      "looking at. Starts the tmux server when none is running (on the configured socket), " +
      "without this server's configuration variables (TMUX_MCP_*, LIBTMUX_*) in its " +
      "environment. Names are stored exactly as given. Returns the new session, window and " +
      `pane ids and the pane's generation, read back from tmux. ${SHELL_TEXT}`,
    input: z.object({
      name: sessionNameSchema.optional().describe(
        "Session name (default: tmux numbers it). Stored literally; must not contain : or . " +
          "and must not look like a session id ($3).",
      ),
      windowName: windowNameSchema.optional(),
      startDirectory: startDirectorySchema.optional(),
      width: z.int().min(1).max(10_000).optional().describe("Columns (default 80)."),
      height: z.int().min(1).max(10_000).optional().describe("Rows (default 24)."),
    }).strict(),
    output: z.object({
      sessionId: z.string(),
      name: z.string().describe("The session's name as tmux stored it."),
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
    title: "Create a window",
    description: "Create a window in a session ($N or exact name), by default in the background " +
      "(`select: false`) so a person's view does not jump. Placed at the session's next free " +
      "index, or right after or before a window of the same session. Returns its ids, index " +
      `and the new pane's generation, read back from tmux. ${SHELL_TEXT}`,
    input: z.object({
      session: sessionRefSchema,
      name: windowNameSchema.optional(),
      startDirectory: startDirectorySchema.optional(),
      afterWindowId: windowIdSchema.optional().describe(
        "Insert right after this window of the session.",
      ),
      beforeWindowId: windowIdSchema.optional().describe(
        "Insert right before this window of the session.",
      ),
      select: selectSchema.optional(),
    }).strict(),
    output: z.object({
      sessionId: z.string(),
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
    title: "Split a pane",
    description: "Split a pane (%N) to make a new pane below, above, right or left of it, by " +
      "default without making it active (`select: false`). `size` is cells (20) or a " +
      'percentage of the pane split ("30%"). Returns the new pane\'s id and generation, read ' +
      `back from tmux. ${SHELL_TEXT}`,
    input: z.object({
      paneId: paneIdSchema.describe("The pane to split."),
      direction: z.enum(SPLIT_DIRECTIONS).describe("Where the new pane goes."),
      size: z.union([
        z.int().min(1).max(10_000),
        z.string().regex(/^[1-9][0-9]?%$/),
      ]).optional().describe('The new pane\'s size: cells (e.g. 20) or a percentage ("30%").'),
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
    description: "Restart the program of a pane (%N): the command it was created with — the " +
      "default shell for panes the create tools made. A dead pane is restarted as it is; a " +
      "live one only with `kill: true`, which ENDS what runs there. Returns the new " +
      "generation. Refused (target_denied) for the pane this server runs in unless " +
      "`force: true`, for a pane a person is watching unless a person started the server with " +
      "--allow-watched-panes (force does not help), and for a pane running a tmux client of " +
      `this server. ${ASK_TEXT}`,
    input: z.object({
      paneId: paneIdSchema,
      generation: generationSchema.optional(),
      startDirectory: startDirectorySchema.optional().describe(
        "Absolute path of an existing directory to restart in (default: where it started).",
      ),
      kill: z.boolean().optional().describe(
        "End the running program first. Default false (only a dead pane is restarted).",
      ),
      force: z.boolean().optional().describe(
        "Allow the pane this server was started from. Does not allow panes a person is watching.",
      ),
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
