/**
 * What funnel functions need: the runner plus who we and our caller are, and — for anything that
 * acts on panes — the input queue. One set per tmux host, shared by every MCP session on it
 * (docs/design.md §2.3).
 */
import type { TmuxRunner } from "./runner.ts";
import type { PaneQueue } from "./pane_queue.ts";
import type { CallerIdentity } from "./caller.ts";

/** What read-only funnel functions take: enough to list and capture, nothing to act with. */
export interface TmuxReadContext {
  readonly runner: TmuxRunner;
  /** The pane and server that launched us, when we run inside tmux. */
  readonly caller?: CallerIdentity;
  /** Pids of our own control-mode clients, which never count as people watching. */
  readonly ownClientPids: ReadonlySet<number>;
}

/** What funnel functions that act on panes take: the read context plus the input queue. */
export interface TmuxContext extends TmuxReadContext {
  /** Serializes input per pane, so two calls never interleave their keys (docs/design.md §6.6). */
  readonly inputQueue: PaneQueue;
}

/** The read-only view of a context: a new object without the input queue. */
export function readOnly(ctx: TmuxReadContext): TmuxReadContext {
  return { runner: ctx.runner, caller: ctx.caller, ownClientPids: ctx.ownClientPids };
}
