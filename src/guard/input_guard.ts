/**
 * The input guard (docs/design.md §6.2): resolve and check the panes input to a pane would reach
 * from one fresh listing it asks the funnel for (src/tmux/read/guard_listing.ts), with the cohort
 * held in the input queue (§6.6), by the pure rules of src/guard/rules.ts, the busy rule of
 * src/guard/busy.ts (the marks of run_shell_command, §6.12) and paste_text's rules
 * (src/guard/paste.ts). An input tool makes one call, {@link withInputGuard}, and sends inside it.
 */
import { AccessCheck, withConsent } from "./access.ts";
import { busyVerdict, type InputKind, keysKind } from "./busy.ts";
import { COHORT_ATTEMPTS } from "./hold.ts";
import { cohortChangedRefusal, type PasteInput, unbracketedRefusal } from "./paste.ts";
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

/**
 * What an input call sends, as the input guard judges it: send_keys' keys, one or a sequence
 * judged whole (key presses pass a busy pane, §6.12), or paste_text's paste (its own rules). Left
 * out, the input is text (run_shell_command's typed line).
 */
export type SentInput =
  | { keys: string | readonly string[]; literal: boolean }
  | { paste: PasteInput };

/** Text or key presses only, for the busy rule. */
function kindOf(input: SentInput | undefined): InputKind {
  return input !== undefined && "keys" in input ? keysKind(input.keys, input.literal) : "text";
}

/**
 * Apply the busy rule (src/guard/busy.ts) to one pane, from its mark as the marks' own end rules
 * leave it (src/live/run_marks.ts). A key press is noted on the mark: an interrupted command
 * prints no end frame, so the next check may find the shell back instead.
 */
function checkNotBusy(ctx: ActingContext, pane: GuardPane, input: InputKind): void {
  // A pane marked after the listing shows no program: "" keeps the mark (text is refused).
  const run = ctx.live?.runs.pending({ ...pane, currentCommand: pane.currentCommand ?? "" });
  const verdict = busyVerdict(pane.paneId, run !== undefined, input);
  if (verdict instanceof ToolError) throw verdict;
  if (verdict === "note_key" && run) run.keyPressed = true;
}

/**
 * Resolve and check the panes input to `paneId` would reach, from one fresh listing of its window
 * and of who watches what, with only the fields the rules decide on (src/tmux/read/guard_listing.ts).
 * Grants are not pruned here (the listing does not show every pane): a grant covers a pane at
 * one generation only, so a replaced pane is never covered. Throws `target_not_found`,
 * `target_denied` or `busy` (nothing reached tmux: effects none).
 */
async function preflightInput(
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
 * The guard's decision on one input call and the send under it: `send` runs with the preflight
 * passed and every pane of the cohort held in the server's input queue, so no other input call of
 * this server interleaves with it. The preflight runs after the queue is entered; if the cohort
 * turns out larger than what is held (a synchronized window), the queue is re-entered for the
 * whole cohort (in one global order, so callers cannot deadlock) and the preflight repeated. A
 * paste is checked against its receivers once the whole cohort is held.
 */
export async function withInputGuard<T>(
  ctx: ActingContext,
  paneId: string,
  force: boolean,
  send: (target: InputTarget) => Promise<T>,
  input?: SentInput,
): Promise<T> {
  const queue = ctx.tmux.inputQueue;
  const kind = kindOf(input);
  return await withConsent(ctx, async () => {
    let hold = new Set([paneId]);
    for (let attempt = 1;; attempt++) {
      const release = await queue.acquire(hold, ctx.signal);
      try {
        const target = await preflightInput(ctx, paneId, force, kind);
        const missing = target.checkedPaneIds.filter((id) => !hold.has(id));
        if (missing.length === 0) {
          if (input !== undefined && "paste" in input) {
            const refusal = unbracketedRefusal(
              input.paste,
              target.resolvedPaneIds,
              (id) => ctx.live?.bracketedPaste(id),
            );
            if (refusal) throw refusal;
          }
          return await send(target);
        }
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

/**
 * Check the panes again before the Enter that follows a paste after its pause (docs/design.md
 * §6.1), with the cohort still held: the pause is long enough for a person to arrive or a mode to
 * start, and the Enter may reach only the panes the paste reached. A refusal here says the paste
 * already happened (effects possible).
 */
export async function checkBeforeEnter(
  ctx: ActingContext,
  pasted: InputTarget,
  force: boolean,
): Promise<void> {
  try {
    const again = await preflightInput(ctx, pasted.paneId, force);
    const changed = cohortChangedRefusal(pasted.resolvedPaneIds, again.resolvedPaneIds);
    if (changed) throw changed;
  } catch (error) {
    throw error instanceof ToolError ? error.withEffects("possible") : error;
  }
}
