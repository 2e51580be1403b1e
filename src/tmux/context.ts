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
  /**
   * Serializes input per pane (DESIGN §6). `createTmuxMcpServer` always creates one; contexts
   * built for read-only queries (tests) may leave it out, and input then refuses to run.
   */
  readonly inputQueue?: PaneQueue;
}
