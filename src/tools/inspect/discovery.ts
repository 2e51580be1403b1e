/** Listing tools: list_sessions, list_windows, list_panes. */
import { z } from "zod";
import { ToolError } from "../../errors.ts";
import { boundList, LIST_BYTES, LIST_LIMIT } from "../../results.ts";
import { describeSocket } from "../../tmux/core/argv.ts";
import { listPaneRows, listSessions, listWindows } from "../../tmux/read/queries.ts";
import { resolveSessionRef } from "../../tmux/read/session_ref.ts";
import { defineTool, type InspectContext } from "../../tool_types.ts";
import {
  paneRowSchema,
  pickShape,
  sessionRowSchema,
  windowIdSchema,
  windowRowSchema,
} from "../../rows.ts";
import { sessionRefSchema } from "../schemas.ts";

const listingExtras = {
  note: z.string().optional().describe("Why the listing is empty or shortened."),
  truncated: z.boolean().optional().describe(
    `True when rows were left out (more than ${LIST_LIMIT} rows or ${LIST_BYTES} bytes).`,
  ),
};

/**
 * Run a listing; a server that is not running is an empty listing with a note, not an error (naming
 * the socket of the host listed, a remote one's own). Rows beyond {@link LIST_LIMIT} are dropped and
 * disclosed.
 */
async function listing<T>(
  ctx: InspectContext,
  what: string,
  fetch: () => Promise<T[]>,
): Promise<{ rows: T[]; note?: string; truncated?: boolean }> {
  let rows: T[];
  try {
    rows = await fetch();
  } catch (error) {
    // A server that exits while we connect ("server exited unexpectedly") is as good as gone.
    if (
      error instanceof ToolError &&
      (error.code === "server_not_running" || error.code === "server_gone")
    ) {
      return {
        rows: [],
        note: `no tmux server is running on ${describeSocket(ctx.tmux.runner.socket)}`,
      };
    }
    throw error;
  }
  const bounded = boundList(rows);
  if (bounded.dropped === 0) return { rows: bounded.rows };
  return {
    rows: bounded.rows,
    truncated: true,
    note:
      `showing the first ${bounded.rows.length} of ${rows.length} ${what}; filter to see the rest`,
  };
}

function withExtras<K extends string, T>(
  key: K,
  result: { rows: T[]; note?: string; truncated?: boolean },
) {
  return {
    [key]: result.rows,
    ...(result.note !== undefined ? { note: result.note } : {}),
    ...(result.truncated ? { truncated: true } : {}),
  } as { [P in K]: T[] } & { note?: string; truncated?: boolean };
}

/** The listing tools' manifest entries. */
export const discoveryTools = [
  defineTool({
    name: "list_sessions",
    toolset: "inspect",
    acrossHosts: true,
    batchable: true,
    title: "List tmux sessions",
    description: "List sessions ($N): name, window count, people attached, creation time, start " +
      "directory.",
    input: z.object({}).strict(),
    output: z.object({ sessions: z.array(sessionRowSchema), ...listingExtras }).strict(),
    annotations: "inspect",
    capability: { reach: "none", effects: "observe", output: ["metadata"] },
    handler: async (_args, ctx) =>
      withExtras(
        "sessions",
        await listing(
          ctx,
          "sessions",
          async () =>
            (await listSessions(ctx.tmux, ctx.signal)).map((r) => pickShape(sessionRowSchema, r)),
        ),
      ),
  }),
  defineTool({
    name: "list_windows",
    toolset: "inspect",
    acrossHosts: true,
    batchable: true,
    title: "List tmux windows",
    description: "List windows (@N): index, name, session, size, pane count, active and zoomed.",
    input: z.object({
      session: sessionRefSchema.optional(),
    }).strict(),
    output: z.object({ windows: z.array(windowRowSchema), ...listingExtras }).strict(),
    annotations: "inspect",
    capability: { reach: "none", effects: "observe", output: ["metadata"] },
    handler: async ({ session }, ctx) => {
      const result = await listing(ctx, "windows", async () => {
        const rows = (await listWindows(ctx.tmux, ctx.signal)).map((r) =>
          pickShape(windowRowSchema, r)
        );
        if (session === undefined) return rows;
        const id = resolveSessionRef(rows, session);
        return rows.filter((w) => w.sessionId === id);
      });
      return withExtras("windows", result);
    },
  }),
  defineTool({
    name: "list_panes",
    toolset: "inspect",
    acrossHosts: true,
    core: true,
    batchable: true,
    title: "List tmux panes",
    description: "List panes (%N): generation, position and size, command, directory, dead or in " +
      "a mode, isCaller (this server's own pane) and isAttended (a person sees it).",
    input: z.object({
      session: sessionRefSchema.optional(),
      window: windowIdSchema.optional(),
    }).strict(),
    output: z.object({ panes: z.array(paneRowSchema), ...listingExtras }).strict(),
    annotations: "inspect",
    capability: { reach: "none", effects: "observe", output: ["metadata"] },
    handler: async ({ session, window }, ctx) => {
      const result = await listing(ctx, "panes", async () => {
        let rows = (await listPaneRows(ctx.tmux, ctx.signal)).map((r) =>
          pickShape(paneRowSchema, r)
        );
        if (session !== undefined) {
          const id = resolveSessionRef(rows, session);
          rows = rows.filter((p) => p.sessionId === id);
        }
        if (window !== undefined) {
          rows = rows.filter((p) => p.windowId === window);
          if (rows.length === 0) {
            throw new ToolError(
              "target_not_found",
              session === undefined ? `no window ${window}` : `no window ${window} in that session`,
              { hint: "Call list_panes without `window` and use a windowId from its rows." },
            );
          }
        }
        return rows;
      });
      return withExtras("panes", result);
    },
  }),
];
