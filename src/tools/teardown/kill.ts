/**
 * Teardown tools: kill_pane, kill_window, kill_session, clear_pane_scrollback. Off by default
 * (toolset `teardown`). Every call passes the guard over the panes its target contains
 * (src/guard/, docs/design.md §6) while they are held in the input queue, and reports what
 * ended as read back from tmux. There is no kill_server.
 */
import { z } from "zod";
import { preview } from "../../errors.ts";
import { withPanesGuard } from "../../guard/hold.ts";
import { preflightContained } from "../../guard/preflight.ts";
import type { GuardTarget } from "../../guard/rules.ts";
import { paneIdSchema, windowIdSchema } from "../../rows.ts";
import { clearScrollback, type KillTarget, killTarget } from "../../tmux/teardown/teardown.ts";
import { type ActingContext, defineTool } from "../../tool_types.ts";
import { generationSchema, sessionRefSchema, tmuxId } from "../schemas.ts";
import { GUARDED } from "../wording.ts";

const META = { reach: "none", effects: "delete", output: ["metadata"] } as const;

const forceSchema = z.boolean().describe("Allow one holding your own pane.");

const endedShape = {
  panesEnded: z.array(paneIdSchema).describe("Panes that no longer exist."),
  windowEnded: z.boolean().describe("A window closed (the pane was its window's last)."),
  sessionEnded: z.boolean().describe("A session ended (it lost its last window)."),
  serverExited: z.boolean().describe(
    "The tmux server exited: that was its last session. A create_session starts a new one.",
  ),
};

/** Check the target's panes, hold them, kill, and report what ended. */
async function kill(
  ctx: ActingContext,
  target: GuardTarget,
  action: string,
  force: boolean,
) {
  return await withPanesGuard(
    ctx,
    "pane" in target
      ? `pane ${target.pane}`
      : "window" in target
      ? `the panes of ${target.window}`
      : `the panes of session ${preview(target.session)}`,
    () => preflightContained(ctx, target, { force, action }),
    (checked) => checked.paneIds,
    async (checked) => {
      const id: KillTarget = "pane" in target
        ? { pane: checked.targetId }
        : "window" in target
        ? { window: checked.targetId }
        : { session: checked.targetId };
      return { id: checked.targetId, ...await killTarget(ctx.tmux, id, checked, ctx.signal) };
    },
  );
}

/** The teardown tools' manifest entries. */
export const teardownTools = [
  defineTool({
    name: "kill_pane",
    toolset: "teardown",
    title: "Kill a pane",
    description: "Close a pane and its program; an emptied window, session or server closes too. " +
      GUARDED,
    input: z.object({
      paneId: paneIdSchema,
      generation: generationSchema.optional(),
      force: forceSchema.optional(),
    }).strict(),
    output: z.object({ paneId: paneIdSchema, ...endedShape }).strict(),
    annotations: "teardown",
    capability: META,
    handler: async ({ paneId, generation, force = false }, ctx) => {
      const { id, ...ended } = await kill(ctx, { pane: paneId, generation }, "kill_pane", force);
      return { paneId: id, ...ended };
    },
  }),
  defineTool({
    name: "kill_window",
    toolset: "teardown",
    title: "Kill a window",
    description: "Close a window and its panes. " + GUARDED,
    input: z.object({ windowId: windowIdSchema, force: forceSchema.optional() }).strict(),
    output: z.object({ windowId: windowIdSchema, ...endedShape }).strict(),
    annotations: "teardown",
    capability: META,
    handler: async ({ windowId, force = false }, ctx) => {
      const { id, ...ended } = await kill(ctx, { window: windowId }, "kill_window", force);
      return { windowId: id, ...ended };
    },
  }),
  defineTool({
    name: "kill_session",
    toolset: "teardown",
    title: "Kill a session",
    description: "End a session; the server exits with its last. " + GUARDED,
    input: z.object({ session: sessionRefSchema, force: forceSchema.optional() }).strict(),
    output: z.object({ sessionId: tmuxId("session"), ...endedShape }).strict(),
    annotations: "teardown",
    capability: META,
    handler: async ({ session, force = false }, ctx) => {
      const { id, ...ended } = await kill(ctx, { session }, "kill_session", force);
      return { sessionId: id, ...ended };
    },
  }),
  defineTool({
    name: "clear_pane_scrollback",
    toolset: "teardown",
    title: "Clear a pane's screen and scrollback",
    description: "Erase a pane's scrollback and screen; its program runs on. " + GUARDED,
    input: z.object({ paneId: paneIdSchema, force: forceSchema.optional() }).strict(),
    output: z.object({
      paneId: paneIdSchema,
      historyLines: z.int().describe("Lines left in the scrollback, read back from tmux."),
    }).strict(),
    annotations: "teardown",
    capability: META,
    handler: async ({ paneId, force = false }, ctx) =>
      await withPanesGuard(
        ctx,
        `pane ${paneId}`,
        () => preflightContained(ctx, { pane: paneId }, { force, action: "clear_pane_scrollback" }),
        (checked) => checked.paneIds,
        async () => ({
          paneId,
          historyLines: await clearScrollback(ctx.tmux, paneId, ctx.signal),
        }),
      ),
  }),
];
