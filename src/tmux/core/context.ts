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

/**
 * One piece of input as sent to a pane: text typed as is (`send-keys -l`, or pasted unchanged), a
 * key name pressed, or a terminal paste (each LF sent as CR, in bracketed-paste markers when the
 * program asked for them).
 */
export type PaneInput = { text: string } | { key: string } | { paste: string };

/** What funnel functions that act on panes take: the read context plus the input queue. */
export interface TmuxContext extends TmuxReadContext {
  /** Serializes input per pane, so two calls never interleave their keys (docs/design.md §6.6). */
  readonly inputQueue: PaneQueue;
  /**
   * Told what is about to be sent to `paneIds`, right before it is sent, with the panes held in
   * the input queue: the recorder's `i` events (docs/design.md §11.2). Present only with
   * `--record`; it never throws.
   */
  readonly beforeInput?: (
    paneIds: readonly string[],
    inputs: readonly PaneInput[],
  ) => Promise<void>;
}

/** The read-only view of a context: a new object without the input queue. */
export function readOnly(ctx: TmuxReadContext): TmuxReadContext {
  return { runner: ctx.runner, caller: ctx.caller, ownClientPids: ctx.ownClientPids };
}
