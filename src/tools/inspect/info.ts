/**
 * Metadata inspect tools: server, session, window and pane details, pane by corner, and format
 * variables. Each answers from one tmux invocation.
 */
import { z } from "zod";
import { ToolError } from "../../errors.ts";
import { boundList, clipText, LIST_BYTES, LIST_LIMIT, truncatedFlag } from "../../results.ts";
import {
  readVariables,
  snapshot,
  tmuxVersion,
  VARIABLE_NAME,
  windowWithPanes,
} from "../../tmux/read/queries.ts";
import { checkGeneration } from "../../tmux/read/generation.ts";
import { paneNotFound, rethrowPaneMissing } from "../../tmux/read/not_found.ts";
import { resolveSessionRef } from "../../tmux/read/session_ref.ts";
import { defineTool } from "../../tool_types.ts";
import {
  paneDetailsSchema,
  paneIdSchema,
  paneRowSchema,
  pickShape,
  sessionRowSchema,
  windowFactsSchema,
  windowIdSchema,
  windowRowSchema,
} from "../../rows.ts";
import { generationSchema, sessionRefSchema, tmuxId, tmuxVariables } from "../schemas.ts";

const META = { reach: "none", effects: "observe", output: ["metadata"] } as const;

/** Characters of one variable's value returned at most (a title a program sets can be huge). */
const VARIABLE_VALUE_CHARS = 4096;

/**
 * The tmux variables whose value names an object of the pane's own host (tmux's names): a remote
 * host's answer qualifies them as every id field (docs/design.md §5.15); `sessions` are lists.
 */
const VARIABLE_IDS = {
  pane_id: "pane",
  window_id: "window",
  session_id: "session",
  next_session_id: "session",
  session_name: "session",
  client_session: "session",
  client_last_session: "session",
  hook_pane: "pane",
  hook_window: "window",
  hook_session: "session",
  hook_session_name: "session",
  session_group_list: "sessions",
  window_active_sessions_list: "sessions",
  window_linked_sessions_list: "sessions",
} as const;

/** get_pane_info's answer: the pane row and its details. */
const paneInfoSchema = paneRowSchema.extend(paneDetailsSchema.shape).strict();

const geometrySchema = z.object({
  left: z.int(),
  top: z.int(),
  width: z.int(),
  height: z.int(),
}).strict();

/** The metadata inspect tools' manifest entries. */
export const inspectTools = [
  defineTool({
    name: "get_server_info",
    toolset: "inspect",
    batchable: true,
    title: "tmux server info",
    description: "The tmux server: version, socket, pid, counts of sessions, windows, panes, " +
      "clients and people, and callerPaneId (the pane this MCP server runs in).",
    input: z.object({}).strict(),
    output: z.object({
      version: z.string().describe("tmux's version, e.g. 3.3a."),
      socketPath: z.string().nullable().describe(
        "The server's socket path; null when no server runs on a socket chosen by name or default.",
      ),
      pid: z.int().nullable(),
      alive: z.boolean(),
      sessions: z.int(),
      windows: z.int(),
      panes: z.int(),
      clients: z.int(),
      people: z.int().describe("Attached clients that are not this server's own."),
      insideThisServer: z.boolean(),
      callerPaneId: tmuxId("pane").optional(),
    }).strict(),
    annotations: "inspect",
    capability: META,
    handler: async (_args, ctx) => {
      const version = (await tmuxVersion(ctx.tmux, ctx.signal)).replace(/^tmux\s+/, "");
      try {
        const snap = await snapshot(ctx.tmux, {
          server: true,
          sessions: true,
          windows: true,
          panes: { all: true },
        }, ctx.signal);
        const pid = snap.server?.pid ?? null;
        const inside = ctx.tmux.caller !== undefined && ctx.tmux.caller.serverPid === pid;
        return {
          version,
          socketPath: snap.server?.socketPath ?? null,
          pid,
          alive: true,
          sessions: snap.sessions.length,
          // Linked windows appear once per session in listings; count objects, not links.
          windows: new Set(snap.windows.map((w) => w.windowId)).size,
          panes: new Set(snap.panes.map((p) => p.paneId)).size,
          clients: snap.clients.length,
          people: [...snap.watched.values()].reduce((a, b) => a + b, 0),
          insideThisServer: inside,
          ...(inside && ctx.tmux.caller?.paneId ? { callerPaneId: ctx.tmux.caller.paneId } : {}),
        };
      } catch (error) {
        if (!(error instanceof ToolError && error.code === "server_not_running")) throw error;
        return {
          version,
          // The socket of the host asked (a remote host's own), not the local configuration's.
          socketPath: ctx.tmux.runner.socket.kind === "path" ? ctx.tmux.runner.socket.path : null,
          pid: null,
          alive: false,
          sessions: 0,
          windows: 0,
          panes: 0,
          clients: 0,
          people: 0,
          insideThisServer: false,
        };
      }
    },
  }),
  defineTool({
    name: "get_session_info",
    toolset: "inspect",
    batchable: true,
    title: "Session details",
    description: "One session: name, creation time, people attached, start directory, active " +
      "window and its windows.",
    input: z.object({ session: sessionRefSchema }).strict(),
    output: sessionRowSchema.extend({
      activeWindowId: tmuxId("window"),
      windows: z.array(windowRowSchema),
      windowCount: z.int(),
      truncated: z.boolean().optional().describe(
        `True when windows were left out (over ${LIST_LIMIT} or ${LIST_BYTES} bytes).`,
      ),
    }).strict(),
    annotations: "inspect",
    capability: META,
    handler: async ({ session }, ctx) => {
      const snap = await snapshot(ctx.tmux, { sessions: true, windows: true }, ctx.signal);
      const id = resolveSessionRef(snap.sessions, session);
      const row = snap.sessions.find((s) => s.sessionId === id)!;
      const all = snap.windows.filter((w) => w.sessionId === row.sessionId)
        .map((w) => pickShape(windowRowSchema, w));
      const windows = boundList(all);
      return {
        ...pickShape(sessionRowSchema, row),
        activeWindowId: row.activeWindowId,
        windows: windows.rows,
        windowCount: all.length,
        ...truncatedFlag(windows.dropped > 0),
      };
    },
  }),
  defineTool({
    name: "get_window_info",
    toolset: "inspect",
    batchable: true,
    title: "Window details",
    description: "One window: size, layout string, zoom, active pane and its panes.",
    input: z.object({ windowId: windowIdSchema }).strict(),
    output: windowFactsSchema.extend({
      activePaneId: tmuxId("pane").nullable(),
      panes: z.array(paneRowSchema),
      truncated: z.boolean().optional().describe(
        `True when panes were left out (over ${LIST_LIMIT} or ${LIST_BYTES} bytes).`,
      ),
    }).strict(),
    annotations: "inspect",
    capability: META,
    handler: async ({ windowId }, ctx) => {
      const { window, panes: rows } = await windowWithPanes(ctx.tmux, windowId, ctx.signal);
      const all = rows.map((p) => pickShape(paneRowSchema, p));
      const panes = boundList(all);
      return {
        ...pickShape(windowRowSchema, window),
        layout: clipText(window.layout, 16_384),
        activePaneId: all.find((p) => p.active)?.paneId ?? null,
        panes: panes.rows,
        ...truncatedFlag(panes.dropped > 0),
      };
    },
  }),
  defineTool({
    name: "get_pane_info",
    toolset: "inspect",
    batchable: true,
    title: "Pane details",
    description: "One pane's row plus scrollback size and limit, exit status if dead, and " +
      "whether a full-screen program (alternate screen) is on.",
    input: z.object({ paneId: paneIdSchema, generation: generationSchema.optional() }).strict(),
    output: paneInfoSchema,
    annotations: "inspect",
    capability: META,
    handler: async ({ paneId, generation }, ctx) => {
      const snap = await snapshot(ctx.tmux, { panes: { windowOf: paneId } }, ctx.signal)
        .catch((error) => rethrowPaneMissing(error, paneId));
      const pane = snap.panes.find((p) => p.paneId === paneId);
      if (!pane) throw paneNotFound(paneId);
      checkGeneration(pane, generation);
      return pickShape(paneInfoSchema, pane);
    },
  }),
  defineTool({
    name: "find_pane_by_position",
    toolset: "inspect",
    batchable: true,
    title: "Pane at a window corner",
    description: 'Which pane is at a corner of a window: for "the left pane" or "the ' +
      'bottom-right one".',
    input: z.object({
      windowId: windowIdSchema,
      corner: z.enum(["top-left", "top-right", "bottom-left", "bottom-right"]),
    }).strict(),
    output: z.object({
      found: z.boolean(),
      paneId: tmuxId("pane").optional(),
      generation: z.string().optional(),
      geometry: geometrySchema.optional(),
    }).strict(),
    annotations: "inspect",
    capability: META,
    handler: async ({ windowId, corner }, ctx) => {
      const { window, panes } = await windowWithPanes(ctx.tmux, windowId, ctx.signal);
      const x = corner.endsWith("left") ? 0 : window.width - 1;
      const y = corner.startsWith("top") ? 0 : window.height - 1;
      const pane = window.zoomed
        ? panes.find((p) => p.active)
        : panes.find((p) =>
          x >= p.left && x < p.left + p.width && y >= p.top && y < p.top + p.height
        );
      if (!pane) return { found: false };
      return {
        found: true,
        paneId: pane.paneId,
        generation: pane.generation,
        geometry: { left: pane.left, top: pane.top, width: pane.width, height: pane.height },
      };
    },
  }),
  defineTool({
    name: "get_tmux_variables",
    toolset: "inspect",
    batchable: true,
    title: "Read tmux format variables",
    description: "Resolve tmux format variables by bare name (pane_current_command, not #{…}) " +
      "for a pane or tmux's current one. Environment and secret-looking names are withheld.",
    input: z.object({
      names: z.array(
        z.string().regex(VARIABLE_NAME).max(64),
      ).min(1).max(32),
      paneId: paneIdSchema.optional(),
    }).strict(),
    output: z.object({
      paneId: tmuxId("pane").nullable().describe("The pane the variables were resolved for."),
      values: tmuxVariables(VARIABLE_IDS),
      withheld: z.array(z.string()).describe(
        "Names found in the environment or secret-looking: not returned.",
      ),
      truncated: z.boolean().optional(),
    }).strict(),
    annotations: "inspect",
    capability: META,
    handler: async ({ names, paneId }, ctx) => {
      const read = await readVariables(ctx.tmux, [...new Set(names)], paneId, ctx.signal);
      let truncated = false;
      for (const [name, value] of Object.entries(read.values)) {
        if (value.length > VARIABLE_VALUE_CHARS) {
          read.values[name] = clipText(value, VARIABLE_VALUE_CHARS);
          truncated = true;
        }
      }
      return { ...read, ...truncatedFlag(truncated) };
    },
  }),
];
