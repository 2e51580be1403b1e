/**
 * Manage setters that change labels and session options, never the view: rename_session,
 * rename_window, set_pane_title, set_mouse_enabled, set_history_limit. They are not refused on
 * watched windows (docs/design.md §6.8): a name or a title is a label, not what a person looks at.
 */
import { z } from "zod";
import { paneIdSchema, pickShape, windowIdSchema } from "../rows.ts";
import {
  MAX_HISTORY_LINES,
  MAX_NAME_CHARS,
  MAX_TITLE_CHARS,
  renameSession,
  renameWindow,
  setHistoryLimit,
  setMouse,
  setPaneTitle,
} from "../tmux/manage.ts";
import { defineTool } from "../tool_spec.ts";
import { sessionRefSchema } from "./common.ts";

const META = { reach: "none", effects: "change", output: ["metadata"] } as const;

const LITERAL = "Stored literally: #(…), #{…} and a trailing ; are kept as text, never run or " +
  "expanded. Control characters are refused.";

const LABEL_ONLY = "Allowed on a window a person is watching: it changes a label, not the view.";

const nameSchema = (what: string) =>
  z.string().min(1).max(MAX_NAME_CHARS).describe(
    `The new ${what} name (not starting with "-"; at most ${MAX_NAME_CHARS} characters).`,
  );

const sessionOut = z.object({ sessionId: z.string(), sessionName: z.string() }).strict();
const windowOut = z.object({ windowId: z.string(), windowName: z.string() }).strict();
const paneOut = z.object({ paneId: z.string(), title: z.string() }).strict();

/** Global or one session: the scope a session option was set at. */
const scopeSchema = {
  scope: z.enum(["global", "session"]),
  sessionId: z.string().nullable().describe("The session it was set on; null when global."),
};

function scopeOf(sessionId: string | null): "global" | "session" {
  return sessionId === null ? "global" : "session";
}

const optionSessionSchema = sessionRefSchema.optional().describe(
  "Session id ($1) or exact name, to set it for that session only. Omit to set it globally.",
);

/** The manage label and option setters' manifest entries. */
export const manageNameTools = [
  defineTool({
    name: "rename_session",
    toolset: "manage",
    title: "Rename a session",
    description: "Rename a session ($N or exact name) and return its name as tmux now has it. " +
      `${LITERAL} Names holding ":" or "." (tmux would change them to "_"), names like $N ` +
      `and a name another session has are refused. ${LABEL_ONLY}`,
    input: z.object({ session: sessionRefSchema, name: nameSchema("session") }).strict(),
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
    description: "Rename a window (@N) and return its name as tmux now has it; tmux turns the " +
      `window's automatic-rename off, so the running program no longer renames it. ${LITERAL} ` +
      LABEL_ONLY,
    input: z.object({ windowId: windowIdSchema, name: nameSchema("window") }).strict(),
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
    description: "Set a pane's (%N) title and return it as tmux now has it; the active pane does " +
      "not change. The program in the pane can set its own title later (an escape sequence), " +
      `so the title may change again. ${LITERAL} ${LABEL_ONLY}`,
    input: z.object({
      paneId: paneIdSchema,
      title: z.string().min(1).max(MAX_TITLE_CHARS).describe(
        `The new title, at most ${MAX_TITLE_CHARS} characters.`,
      ),
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
    description: "Turn tmux's mouse support (the `mouse` option: click to select panes and " +
      "windows, drag borders, wheel scrolling into copy mode) on or off — globally when " +
      "`session` is omitted, else for that one session ($N or exact name). Returns the value " +
      "read back from that scope. It changes how a person's mouse behaves, not what they see, " +
      "so it is not refused for watched sessions.",
    input: z.object({
      enabled: z.boolean().describe("true: mouse on; false: off."),
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
    description: "Set `history-limit`, the lines of scrollback a pane keeps (0 to " +
      `${
        MAX_HISTORY_LINES.toLocaleString("en-US")
      }) — globally by default, or for one session ($N or exact name). It ` +
      "applies to panes created afterwards: existing panes keep the limit they were created " +
      "with. Returns the value read back from that scope. It changes no one's view.",
    input: z.object({
      lines: z.int().min(0).max(MAX_HISTORY_LINES).describe(
        `Lines of scrollback, 0 to ${MAX_HISTORY_LINES.toLocaleString("en-US")} (tmux's default ` +
          "is 2,000).",
      ),
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
