/** What every funnel query needs: the runner plus who we and our caller are. */
import type { TmuxRunner } from "./command.ts";
import type { PaneQueue } from "./pane_queue.ts";
import type { CallerIdentity } from "./targets.ts";

/** Per-server state handed to funnel queries; one per MCP server instance. */
export interface TmuxContext {
  readonly runner: TmuxRunner;
  /** The pane and server that launched us, when we run inside tmux. */
  readonly caller?: CallerIdentity;
  /** Pids of our own control-mode clients, which never count as people watching. */
  readonly ownClientPids: ReadonlySet<number>;
  /** Serializes input per pane, so two calls never interleave their keys (docs/design.md §6.6). */
  readonly inputQueue: PaneQueue;
}
