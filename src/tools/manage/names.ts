/**
 * Manage setters that change labels and session options, never the view: rename_session,
 * rename_window, set_pane_title, set_mouse_enabled, set_history_limit. They are not refused on
 * watched windows (docs/design.md §6.8): a name or a title is a label, not what a person looks at.
 */
import { z } from "zod";
import { paneIdSchema, pickShape, windowIdSchema } from "../../rows.ts";
import { MAX_NAME_CHARS, MAX_TITLE_CHARS } from "../../tmux/manage/labels.ts";
import {
  MAX_HISTORY_LINES,
  renameSession,
  renameWindow,
  setHistoryLimit,
  setMouse,
  setPaneTitle,
} from "../../tmux/manage/manage.ts";
import { defineTool } from "../../tool_types.ts";
import { sessionRefSchema, tmuxId } from "../schemas.ts";

const META = { reach: "none", effects: "change", output: ["metadata"] } as const;

const nameSchema = z.string().min(1).max(MAX_NAME_CHARS).describe(
  'Literal; not starting with "-".',
);

const sessionOut = z.object({ sessionId: tmuxId("session"), sessionName: tmuxId("session") })
  .strict();
const windowOut = z.object({ windowId: tmuxId("window"), windowName: z.string() }).strict();
const paneOut = z.object({ paneId: tmuxId("pane"), title: z.string() }).strict();

/** Global or one session: the scope a session option was set at. */
const scopeSchema = {
  scope: z.enum(["global", "session"]),
  sessionId: tmuxId("session").nullable().describe("The session it was set on; null when global."),
};

function scopeOf(sessionId: string | null): "global" | "session" {
  return sessionId === null ? "global" : "session";
}

const optionSessionSchema = sessionRefSchema.optional().describe("Default: global.");

/** The manage label and option setters' manifest entries. */
export const manageNameTools = [
  defineTool({
    name: "rename_session",
    toolset: "manage",
    title: "Rename a session",
    description: 'Rename a session. A name with ":" or ".", one like $N or one already taken is ' +
      "refused.",
    input: z.object({ session: sessionRefSchema, name: nameSchema }).strict(),
    output: sessionOut,
    annotations: "setter",
    capability: META,
    handler: async ({ session, name }, ctx) => {
      const renamed = await renameSession(ctx.tmux, session, name, ctx.signal);
      return pickShape(sessionOut, renamed);
    },
  }),
  defineTool({
    name: "rename_window",
    toolset: "manage",
    title: "Rename a window",
    description: "Rename a window (its automatic-rename goes off).",
    input: z.object({ windowId: windowIdSchema, name: nameSchema }).strict(),
    output: windowOut,
    annotations: "setter",
    capability: META,
    handler: async ({ windowId, name }, ctx) => {
      const window = await renameWindow(ctx.tmux, windowId, name, ctx.signal);
      return pickShape(windowOut, window);
    },
  }),
  defineTool({
    name: "set_pane_title",
    toolset: "manage",
    title: "Set a pane's title",
    description: "Set a pane's title; its program may set another later.",
    input: z.object({
      paneId: paneIdSchema,
      title: z.string().min(1).max(MAX_TITLE_CHARS).describe("Literal."),
    }).strict(),
    output: paneOut,
    annotations: "setter",
    capability: META,
    handler: async ({ paneId, title }, ctx) => {
      const pane = await setPaneTitle(ctx.tmux, paneId, title, ctx.signal);
      return pickShape(paneOut, pane);
    },
  }),
  defineTool({
    name: "set_mouse_enabled",
    toolset: "manage",
    title: "Turn tmux mouse support on or off",
    description: "Turn tmux's mouse option on or off, globally or for one session.",
    input: z.object({
      enabled: z.boolean(),
      session: optionSessionSchema,
    }).strict(),
    output: z.object({ ...scopeSchema, enabled: z.boolean() }).strict(),
    annotations: "setter",
    capability: { ...META, output: ["configuration"] },
    handler: async ({ enabled, session }, ctx) => {
      const state = await setMouse(ctx.tmux, enabled, session, ctx.signal);
      return { scope: scopeOf(state.sessionId), ...state };
    },
  }),
  defineTool({
    name: "set_history_limit",
    toolset: "manage",
    title: "Set the scrollback limit",
    description: "Set history-limit (scrollback lines), globally or for one session; only new " +
      "panes get it.",
    input: z.object({
      lines: z.int().min(0).max(MAX_HISTORY_LINES),
      session: optionSessionSchema,
    }).strict(),
    output: z.object({ ...scopeSchema, lines: z.int() }).strict(),
    annotations: "setter",
    capability: { ...META, output: ["configuration"] },
    handler: async ({ lines, session }, ctx) => {
      const state = await setHistoryLimit(ctx.tmux, lines, session, ctx.signal);
      return { scope: scopeOf(state.sessionId), ...state };
    },
  }),
];
