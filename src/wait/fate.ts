/**
 * What became of the pane a wait follows, told by the funnel's one answer (`paneFate`,
 * src/tmux/read/queries.ts; docs/design.md §7.7 rule 6): every wait explains its end with it.
 */
import { ToolError } from "../errors.ts";
import { paneFate } from "../tmux/read/queries.ts";
import type { InspectContext } from "../tool_types.ts";

/** The pane a wait follows: its id and the process generation it started with. */
export interface FollowedPane {
  paneId: string;
  generation: string;
}

/** Why a pane is no longer there to wait on. */
export type PaneGone = "pane_died" | "server_gone";

/**
 * A wait's deadline passed: `timeout`, unless the pane died meanwhile (a pane whose program exited
 * under remain-on-exit sends no notification) or the server went away.
 */
export async function fateAtTimeout(
  ctx: InspectContext,
  pane: FollowedPane,
): Promise<"timeout" | PaneGone> {
  const { fate } = await paneFate(ctx.tmux, pane.paneId, pane.generation, ctx.signal);
  return fate === "alive" ? "timeout" : fate;
}

/**
 * Explain a failure of the wait (its stream ended, a look at the pane failed) by one look at the
 * pane: gone, dead or replaced is `pane_died`, no server `server_gone`; a pane still there
 * rethrows `error` (moved to another session, engine closing, tmux slow). Cancellation rethrows
 * at once.
 */
export async function goneOrThrow(
  ctx: InspectContext,
  pane: FollowedPane,
  error: unknown,
): Promise<PaneGone> {
  if (!(error instanceof ToolError) || error.code === "cancelled") throw error;
  const { fate } = await paneFate(ctx.tmux, pane.paneId, pane.generation, ctx.signal);
  if (fate === "alive") throw error;
  return fate;
}
