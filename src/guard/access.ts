/**
 * The access checks of one preflight and asking the person when only they refuse
 * (docs/design.md §6.11): refusals a person may lift (a watched pane, the caller's own pane
 * without `force`) are collected while every other rule still runs, then put to the person
 * through the call's consent (src/guard/ask.ts), and on "allow" the whole guarded step runs again.
 */
import type { Receivers } from "./preview.ts";
import { accessRefusal, type AccessRules } from "./rules.ts";
import { ToolError } from "../errors.ts";
import type { PaneFacts } from "../rows.ts";
import type { AskedPane } from "./ask.ts";
import { paneLabels } from "../tmux/read/guard_listing.ts";
import type { ActingContext } from "../tool_types.ts";

/**
 * What an access check reads of a pane. What a question names besides (session, window, program)
 * the input guard's listing leaves out (src/tmux/read/guard_listing.ts): it is read when asking.
 */
type AccessPane =
  & Pick<PaneFacts, "paneId" | "generation" | "isAttended" | "isCaller">
  & Partial<Pick<PaneFacts, "sessionName" | "windowIndex" | "windowName" | "currentCommand">>;

/**
 * A refusal whose only reasons a person may lift by answering: watched panes, and the caller's
 * own pane without `force`. It carries what the question needs.
 */
class AskableRefusal extends ToolError {
  /** The refusal as it would be reported without asking. */
  readonly refusal: ToolError;
  /** What the call would do, for the question. */
  readonly action: string;
  /** Every pane refused for those reasons. */
  readonly panes: readonly AccessPane[];
  /** Where input addressed to a pane goes, from the same listing (the preview picks rows by it). */
  readonly receivers?: Receivers;

  constructor(
    refusal: ToolError,
    action: string,
    panes: readonly AccessPane[],
    receivers?: Receivers,
  ) {
    super(refusal.code, refusal.message, { hint: refusal.hint });
    this.refusal = refusal;
    this.action = action;
    this.panes = panes;
    this.receivers = receivers;
  }
}

/**
 * The access checks of one preflight. Refusals a person may lift are collected, so the rules
 * after them still run and throw first: a person is never asked about a call that another rule
 * refuses anyway. {@link settle} throws what was collected.
 */
export class AccessCheck {
  readonly #ctx: ActingContext;
  readonly #action: string;
  #first?: ToolError;
  readonly #panes = new Map<string, AccessPane>();
  readonly #receivers?: Receivers;
  /** Every pane checked, with the generation the listing showed: what the recorder logs. */
  readonly #checked = new Map<string, string>();

  /** Checks for one preflight of `action`; `receivers` when the call sends input. */
  constructor(ctx: ActingContext, action: string, receivers?: Receivers) {
    this.#ctx = ctx;
    this.#action = action;
    this.#receivers = receivers;
  }

  /** Check one pane; a pane the person allowed (this call, or a grant) passes. */
  check(pane: AccessPane, rules: AccessRules): void {
    this.#checked.set(pane.paneId, pane.generation);
    const refusal = accessRefusal(pane, rules);
    if (!refusal || this.#ctx.consent?.permits(pane)) return;
    this.#first ??= refusal;
    this.#panes.set(pane.paneId, pane);
  }

  /**
   * Throw the first refusal collected, carrying every pane refused; with none, the panes checked
   * are let through, and the recorder is told which (docs/design.md §11.5).
   */
  settle(): void {
    if (!this.#first) {
      this.#ctx.audit?.resolved(
        [...this.#checked].map(([paneId, generation]) => ({ paneId, generation })),
      );
    }
    if (this.#first) {
      throw new AskableRefusal(
        this.#first,
        this.#action,
        [...this.#panes.values()],
        this.#receivers,
      );
    }
  }
}

/** The panes with what a question names, read now for those whose listing left it out. */
async function labelled(
  ctx: ActingContext,
  panes: readonly AccessPane[],
): Promise<AskedPane[]> {
  const missing = panes.filter((p) => p.currentCommand === undefined || p.sessionName === undefined)
    .map((p) => p.paneId);
  const read = missing.length > 0 ? await paneLabels(ctx.tmux, missing, ctx.signal) : new Map();
  return panes.map((p) => {
    const label = read.get(p.paneId);
    return {
      ...p,
      sessionName: p.sessionName ?? label?.sessionName ?? "?",
      windowIndex: p.windowIndex ?? label?.windowIndex ?? -1,
      windowName: p.windowName ?? label?.windowName ?? "?",
      currentCommand: p.currentCommand ?? label?.currentCommand ?? "?",
    };
  });
}

/**
 * Run a guarded step; when it is refused only for reasons a person may lift and the client can
 * ask them, ask — with nothing held in the input queue, since a person may take minutes — and on
 * "allow" run the whole step again, so every rule is checked afresh after the answer.
 */
export async function withConsent<T>(ctx: ActingContext, step: () => Promise<T>): Promise<T> {
  try {
    return await step();
  } catch (error) {
    if (!(error instanceof AskableRefusal) || !ctx.consent?.canAsk) throw error;
    const panes = await labelled(ctx, error.panes);
    await ctx.consent.ask(error.refusal, error.action, panes, error.receivers);
  }
  try {
    return await step();
  } catch (error) {
    if (!(error instanceof AskableRefusal)) throw error;
    throw new ToolError(error.code, error.message, {
      hint: "The person allowed this call, but the panes changed while they answered (a pane " +
        "was replaced, or a person started watching another one). List the panes again " +
        "before deciding whether to retry.",
    });
  }
}
