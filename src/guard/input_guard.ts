/**
 * The input guard (docs/design.md §6.2): resolve and check the panes input to a pane would reach
 * (the rules of src/guard/rules.ts, plus the busy marks of run_shell_command, §6.12) from one
 * fresh listing, with the cohort held in the input queue (§6.6).
 */
import { AccessCheck, withConsent } from "./access.ts";
import { COHORT_ATTEMPTS } from "./hold.ts";
import {
  checkNotNestedClient,
  checkReadsInput,
  mergeRows,
  partnersOf,
  receiversIn,
  receivesCopy,
} from "./rules.ts";
import { ToolError } from "../errors.ts";
import { guardListing, type GuardPane } from "../tmux/read/guard_listing.ts";
import { paneNotFound } from "../tmux/read/not_found.ts";
import type { ActingContext } from "../tool_types.ts";

/** What a preflight resolved for one input call. */
export interface InputTarget {
  /** The pane addressed. */
  paneId: string;
  windowId: string;
  /** Panes that receive input sent to `paneId` right now: `paneId` first, then partners. */
  resolvedPaneIds: string[];
  /** Every pane checked: the receivers plus synchronized partners tmux skips at the moment. */
  checkedPaneIds: string[];
  /** The addressed pane as the preflight's listing showed it (its generation, state…). */
  pane: GuardPane;
}

/** What an input call sends: text, or only key presses (a key name, one character, Enter). */
type InputKind = "text" | "keys";

/**
 * Refuse text to a pane where a command run_shell_command framed is still running
 * (docs/design.md §6.12): that command, not the shell, would read it, or the shell would run it
 * after. Key presses pass — C-c must reach the command — and are noted on the mark: an
 * interrupted command prints no end frame, so the next check may find the shell back instead.
 */
function checkNotBusy(ctx: ActingContext, pane: GuardPane, input: InputKind): void {
  // A pane marked after the listing shows no program: "" keeps the mark (text is refused).
  const run = ctx.live?.runs.pending({ ...pane, currentCommand: pane.currentCommand ?? "" });
  if (!run) return;
  if (input === "keys") {
    run.keyPressed = true;
    return;
  }
  throw new ToolError(
    "busy",
    `pane ${pane.paneId} is still running a command started by run_shell_command: text sent ` +
      "now would be read by that command",
    {
      hint: "Follow it with capture_since (pass the cursor run_shell_command returned, with " +
        'waitMs) until it ends, or interrupt it with send_keys {keys: "C-c", enter: false}; ' +
        "key names are always let through.",
    },
  );
}

/**
 * Resolve and check the panes input to `paneId` would reach, from one fresh listing of its window
 * and of who watches what, with only the fields the rules decide on (src/tmux/read/guard_listing.ts).
 * Grants are not pruned here (the listing does not show every pane): a grant covers a pane at
 * one generation only, so a replaced pane is never covered. Throws `target_not_found` or `target_denied` (nothing reached tmux: effects none).
 */
export async function preflightInput(
  ctx: ActingContext,
  paneId: string,
  force: boolean,
  input: InputKind = "text",
): Promise<InputTarget> {
  const snap = await guardListing(ctx.tmux, paneId, ctx.live?.runs.marked() ?? [], ctx.signal);
  const panes = mergeRows(snap.panes);
  const target = panes.get(paneId);
  if (!target) {
    throw paneNotFound(paneId);
  }
  checkReadsInput(target);
  checkNotNestedClient(target);
  checkNotBusy(ctx, target, input);
  const zoomed = snap.zoomed;
  const partners = partnersOf(panes, target);
  const rules = {
    force,
    allowWatchedPanes: ctx.config.allowWatchedPanes,
    action: "input to it",
  };
  const access = new AccessCheck(
    ctx,
    `input to pane ${paneId}` +
      (partners.length ? ` and the ${partners.length} pane(s) synchronized with it` : ""),
    receiversIn(panes),
  );
  access.check(target, rules);
  for (const partner of partners) {
    checkNotNestedClient(partner, paneId);
    checkNotBusy(ctx, partner, input);
    access.check(partner, { ...rules, via: paneId });
  }
  access.settle();
  return {
    paneId,
    windowId: target.windowId,
    resolvedPaneIds: [
      paneId,
      ...partners.filter((p) => receivesCopy(p, zoomed)).map((p) => p.paneId),
    ],
    checkedPaneIds: [paneId, ...partners.map((p) => p.paneId)],
    pane: target,
  };
}

/**
 * Run `send` with the preflight passed and every pane of the cohort held in the server's input
 * queue, so no other input call of this server interleaves with it. The preflight runs after the
 * queue is entered; if the cohort turns out larger than what is held (a synchronized window), the
 * queue is re-entered for the whole cohort (in one global order, so callers cannot deadlock) and
 * the preflight repeated.
 */
export async function withInputGuard<T>(
  ctx: ActingContext,
  paneId: string,
  force: boolean,
  send: (target: InputTarget) => Promise<T>,
  input: InputKind = "text",
): Promise<T> {
  const queue = ctx.tmux.inputQueue;
  return await withConsent(ctx, async () => {
    let hold = new Set([paneId]);
    for (let attempt = 1;; attempt++) {
      const release = await queue.acquire(hold, ctx.signal);
      try {
        const target = await preflightInput(ctx, paneId, force, input);
        const missing = target.checkedPaneIds.filter((id) => !hold.has(id));
        if (missing.length === 0) return await send(target);
        if (attempt >= COHORT_ATTEMPTS) {
          throw new ToolError("busy", `the synchronized panes of ${paneId} kept changing`, {
            hint: "Panes are being added to the window or synchronized right now; retry shortly.",
          });
        }
        hold = new Set([...hold, ...missing]);
      } finally {
        release();
      }
    }
  });
}
