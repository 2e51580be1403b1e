/**
 * What the rest of the server tells the recorder about one tool call (docs/design.md §11.5): the
 * call's start and end at the call edge (src/server/call.ts), the panes the guard let through
 * (src/guard/access.ts) and the person's answers (src/guard/ask.ts), and — through the funnel
 * context — what is about to be sent to a pane (src/tmux/execute/). Every method returns at once
 * or, for input, once the pane's recording is ready; none throws.
 */
import type { ConsentNote, PaneRef } from "./action_line.ts";
import type { TmuxContext } from "../tmux/core/context.ts";

/** The part of a tool's manifest entry the log reads. */
export interface AuditedTool {
  name: string;
  toolset: string;
  /** Set on a tool whose result mounts the pane view (show_pane): it shows its pane. */
  ui?: unknown;
  capability: { reach: string };
}

/** How a call ended, as the call edge has it (its data before any shaping, or its error). */
export type CallEnd =
  | { data: Record<string, unknown> }
  | { error: { code: string; message: string; effects?: string } };

/** The recorder's view of one tool call on one host. */
export interface CallAudit {
  /** The call starts: an acting call's arguments are logged now, before anything is sent. */
  begin(tool: AuditedTool, args: unknown): void;
  /** The guard let these panes through (their generations as its listing showed them). */
  resolved(panes: readonly PaneRef[]): void;
  /** The call's consent saw an answer or used a grant (docs/design.md §6.11). */
  consent(note: ConsentNote): void;
  /** The funnel context of this call: the host's, telling the recorder before any input. */
  tmux(ctx: TmuxContext): TmuxContext;
  /** The call ended: its log line; a pane it created or showed is recorded from now on. */
  end(ended: CallEnd): void;
}
