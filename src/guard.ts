/**
 * The guards (docs/design.md §6): the one module that decides whether input, a respawn or a
 * teardown may reach a pane. Each check runs immediately before the action, with the panes held
 * in the input queue, from a fresh listing — never from an earlier answer.
 *
 * Input (send_keys, send_keys_batch rows, paste_text, run_shell_command), in the order the rules
 * are checked:
 * - missing pane → `target_not_found`;
 * - dead pane, pane in a mode (copy mode…), pane with input disabled → `target_denied` (nothing
 *   would read the keys, or a mode would);
 * - pane running a tmux client of this same server (`tmux attach` inside it) → `target_denied`,
 *   whatever `force` says: the keys would reach the pane that client shows and tmux's own key
 *   bindings (prefix, then `:` opens a command prompt that runs shell commands);
 * - pane (or, below, a synchronized partner) still running a command run_shell_command framed →
 *   `busy` for text; key presses (a key name, one character, Enter) always pass, so C-c reaches
 *   the command (docs/design.md §6.12);
 * - synchronized window: the cohort is the target plus every live pane of its window with
 *   `synchronize-panes` on — all of them receive the input (tmux 3.3a copies keys to partners not
 *   in a mode, with input on and visible under zoom; partners it skips right now are still
 *   checked, since a person can bring them back at any moment);
 * - for every member: hosting a tmux client of this server → refused (as above); watched by a
 *   person → refused unless the server runs with
 *   `--allow-watched-panes` (`force` does not override); the caller's own pane → refused unless
 *   `force`.
 *
 * Respawn and teardown (respawn_pane, clear_pane_scrollback, kill_pane, kill_window,
 * kill_session) check "the panes the target contains" — the pane itself, every pane of the
 * window, every pane of every window linked into the session — in this order:
 * - missing target → `target_not_found` (a session by id or exact name only; a name that is
 *   also another session's id → `invalid_arguments`);
 * - a pane's `generation`, when given, differs → `stale_target`;
 * - respawn only: the (live) pane runs a tmux client of this server → refused whatever `force`
 *   says (restarting what runs there is input-like: the client and the pane it shows are a
 *   person's);
 * - for every pane contained: watched by a person → refused unless `--allow-watched-panes`
 *   (`force` does not override); the caller's own pane → refused unless `force`.
 * Dead panes and panes in a mode are not refused here: respawning a dead pane is the point, and a
 * kill or a reset ends the mode anyway.
 *
 * Asking the person (docs/design.md §6.11), after every rule above was checked:
 * - refusals for a watched pane and for the caller's own pane without `force` are collected, not
 *   thrown, so every other rule still runs; any other refusal (missing, stale, dead, in a mode,
 *   input off, nested client) throws first and is never asked about;
 * - a pane the person allowed for this call, or granted to this MCP session, at its current
 *   generation, is not refused for those two reasons;
 * - when only those refusals remain and the client can answer, the person is asked with nothing
 *   held in the input queue, and on "allow" the whole step (queue, listing, every rule) runs again:
 *   the pane may have died, been replaced or entered a mode while they read. A second refusal is
 *   final; decline, dismissal and timeout keep the refusal, with a hint saying so.
 */
import type { Receivers } from "./ask.ts";
import { ToolError } from "./errors.ts";
import type { PaneFacts, PaneRow } from "./rows.ts";
import { snapshot } from "./tmux/queries.ts";
import {
  checkGeneration,
  paneNotFound,
  resolveSessionRef,
  windowNotFound,
} from "./tmux/targets.ts";
import type { ActingContext } from "./tool_spec.ts";

/** What a preflight resolved for one input call. */
export interface InputTarget {
  /** The pane addressed. */
  paneId: string;
  windowId: string;
  /** Panes that receive input sent to `paneId` right now: `paneId` first, then partners. */
  resolvedPaneIds: string[];
  /** Every pane checked: the receivers plus synchronized partners tmux skips at the moment. */
  checkedPaneIds: string[];
  /** The addressed pane as the preflight's listing showed it (its program, generation…). */
  pane: PaneFacts;
}

/** What {@link accessRefusal} enforces for one pane. */
export interface AccessRules {
  /** The call's `force`: allows the caller's own pane. */
  force: boolean;
  /** The server's `--allow-watched-panes`: allows panes a person is watching. */
  allowWatchedPanes: boolean;
  /** What the agent is doing, for messages ("input to it", "killing it"). */
  action: string;
  /** Set when the pane is checked because it shares synchronized input with this pane. */
  via?: string;
  /** Set when the pane is checked because the target contains it ("window @2"). */
  within?: string;
  /** What refusing the caller's own pane protects, for its hint. */
  callerRisk?: string;
}

/**
 * Why the caller may not reach a pane: watched by a person (only `--allow-watched-panes` or the
 * person's answer allows it) or the caller's own pane (`force` or the person's answer allows it).
 * Undefined when neither applies. Shared by input, respawn, teardown and the view guard.
 */
export function accessRefusal(
  pane: Pick<PaneRow, "paneId" | "isCaller" | "isAttended">,
  rules: AccessRules,
): ToolError | undefined {
  const via = rules.via
    ? ` (it is synchronized with ${rules.via}, so it receives the same input)`
    : rules.within
    ? ` (it is in ${rules.within})`
    : "";
  if (pane.isAttended && !rules.allowWatchedPanes) {
    return new ToolError(
      "target_denied",
      `a person is watching pane ${pane.paneId}${via} (an attached client shows it or may ` +
        `type into it): ${rules.action} is refused`,
      {
        hint: "force does not override this rule. Pick another pane, or ask the person: they " +
          "can detach or switch window, or restart this server with --allow-watched-panes " +
          "(TMUX_MCP_ALLOW_WATCHED_PANES=1).",
      },
    );
  }
  if (pane.isCaller && !rules.force) {
    return new ToolError(
      "target_denied",
      `pane ${pane.paneId}${via} is the pane this server was started from (your own ` +
        `terminal): ${rules.action} needs force`,
      {
        hint: `${rules.callerRisk ?? "It would feed your own session."} Pick another pane ` +
          "from list_panes; pass force: true only if you really mean this pane.",
      },
    );
  }
  return undefined;
}

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
  readonly panes: readonly PaneFacts[];
  /** Where input addressed to a pane goes, from the same listing (the preview picks rows by it). */
  readonly receivers?: Receivers;

  constructor(
    refusal: ToolError,
    action: string,
    panes: readonly PaneFacts[],
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
class AccessCheck {
  readonly #ctx: ActingContext;
  readonly #action: string;
  #first?: ToolError;
  readonly #panes = new Map<string, PaneFacts>();
  readonly #receivers?: Receivers;

  constructor(ctx: ActingContext, action: string, receivers?: Receivers) {
    this.#ctx = ctx;
    this.#action = action;
    this.#receivers = receivers;
  }

  /** Check one pane; a pane the person allowed (this call, or a grant) passes. */
  check(pane: PaneFacts, rules: AccessRules): void {
    const refusal = accessRefusal(pane, rules);
    if (!refusal || this.#ctx.consent?.permits(pane)) return;
    this.#first ??= refusal;
    this.#panes.set(pane.paneId, pane);
  }

  /** Throw the first refusal collected, carrying every pane refused. */
  settle(): void {
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

/**
 * Run a guarded step; when it is refused only for reasons a person may lift and the client can
 * ask them, ask — with nothing held in the input queue, since a person may take minutes — and on
 * "allow" run the whole step again, so every rule is checked afresh after the answer.
 */
async function withConsent<T>(ctx: ActingContext, step: () => Promise<T>): Promise<T> {
  try {
    return await step();
  } catch (error) {
    if (!(error instanceof AskableRefusal) || !ctx.consent?.canAsk) throw error;
    await ctx.consent.ask(error.refusal, error.action, error.panes, error.receivers);
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

/** Refuse a target nothing would read input from, or where a mode would read it instead. */
function checkReadsInput(pane: PaneFacts): void {
  if (pane.dead) {
    const status = pane.exitStatus === undefined ? "" : ` with status ${pane.exitStatus}`;
    throw new ToolError(
      "target_denied",
      `pane ${pane.paneId} is dead: its program exited${status}, so nothing reads input`,
      { hint: "Respawn it (respawn_pane) or pick a live pane from list_panes." },
    );
  }
  if (pane.inMode) {
    throw new ToolError(
      "target_denied",
      `pane ${pane.paneId} is in a mode (copy mode or similar): keys would drive the mode, ` +
        "not the program",
      {
        hint: "Pick another pane, or ask the person to leave the mode (q or Escape); " +
          "snapshot_pane shows which mode.",
      },
    );
  }
  if (pane.inputOff) {
    throw new ToolError(
      "target_denied",
      `input to pane ${pane.paneId} is disabled (select-pane -d): tmux drops every key`,
      { hint: "Pick another pane, or ask a person to enable input with `select-pane -e`." },
    );
  }
}

/** Refuse a pane whose keys would drive a tmux client of this server instead of a program. */
function checkNotNestedClient(pane: PaneFacts, via?: string): void {
  if (!pane.hostsTmuxClient) return;
  const shared = via ? ` (it is synchronized with ${via}, so it receives the same input)` : "";
  throw new ToolError(
    "target_denied",
    `pane ${pane.paneId}${shared} runs a tmux client attached to this tmux server: keys typed ` +
      "there would reach the pane that client shows and tmux's own key bindings",
    {
      hint: "force does not override this rule. Send input to the pane that client shows " +
        "directly (find it with list_panes; a person may be watching it), or pick another pane.",
    },
  );
}

/** What an input call sends: text, or only key presses (a key name, one character, Enter). */
export type InputKind = "text" | "keys";

/**
 * Refuse text to a pane where a command run_shell_command framed is still running
 * (docs/design.md §6.12): that command, not the shell, would read it, or the shell would run it
 * after. Key presses pass — C-c must reach the command — and are noted on the mark: an
 * interrupted command prints no end frame, so the next check may find the shell back instead.
 */
function checkNotBusy(ctx: ActingContext, pane: PaneFacts, input: InputKind): void {
  const run = ctx.live?.runs.pending(pane);
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
 * One row per pane. A window linked into several sessions is listed once per session; the pane
 * counts as watched if any of those sessions shows it.
 */
function mergeRows(rows: readonly PaneFacts[]): Map<string, PaneFacts> {
  const panes = new Map<string, PaneFacts>();
  for (const row of rows) {
    const seen = panes.get(row.paneId);
    panes.set(
      row.paneId,
      seen ? { ...seen, isAttended: seen.isAttended || row.isAttended } : row,
    );
  }
  return panes;
}

/**
 * The live panes sharing synchronized input with `pane`: every other pane of its window with
 * `synchronize-panes` on, when `pane` has it on (tmux's skips of the moment included).
 */
function partnersOf(panes: ReadonlyMap<string, PaneFacts>, pane: PaneFacts): PaneFacts[] {
  if (!pane.synchronized) return [];
  return [...panes.values()].filter((p) =>
    p.windowId === pane.windowId && p.paneId !== pane.paneId && p.synchronized && !p.dead
  );
}

/**
 * Resolve and check the panes input to `paneId` would reach, from one fresh listing of the whole
 * server. Throws `target_not_found` or `target_denied` (nothing reached tmux: effects none).
 */
export async function preflightInput(
  ctx: ActingContext,
  paneId: string,
  force: boolean,
  input: InputKind = "text",
): Promise<InputTarget> {
  const snap = await snapshot(ctx.tmux, { windows: true, panes: { all: true } }, ctx.signal);
  const panes = mergeRows(snap.panes);
  const target = panes.get(paneId);
  if (!target) {
    throw paneNotFound(paneId);
  }
  checkReadsInput(target);
  checkNotNestedClient(target);
  checkNotBusy(ctx, target, input);
  const zoomed = snap.windows.some((w) => w.windowId === target.windowId && w.zoomed);
  const partners = partnersOf(panes, target);
  const rules = {
    force,
    allowWatchedPanes: ctx.config.allowWatchedPanes,
    action: "input to it",
  };
  ctx.consent?.seen(panes.values());
  const access = new AccessCheck(
    ctx,
    `input to pane ${paneId}` +
      (partners.length ? ` and the ${partners.length} pane(s) synchronized with it` : ""),
    (id) => {
      const pane = panes.get(id);
      return pane ? [id, ...partnersOf(panes, pane).map((p) => p.paneId)] : [id];
    },
  );
  access.check(target, rules);
  for (const partner of partners) {
    checkNotNestedClient(partner, paneId);
    checkNotBusy(ctx, partner, input);
    access.check(partner, { ...rules, via: paneId });
  }
  access.settle();
  // tmux 3.3a's rule for copying keys to partners (window_pane_copy_key).
  const receives = (p: PaneFacts) => !p.inMode && !p.inputOff && (!zoomed || p.active);
  return {
    paneId,
    windowId: target.windowId,
    resolvedPaneIds: [paneId, ...partners.filter(receives).map((p) => p.paneId)],
    checkedPaneIds: [paneId, ...partners.map((p) => p.paneId)],
    pane: target,
  };
}

/** How often the cohort may grow under our feet before the call gives up with `busy`. */
const COHORT_ATTEMPTS = 3;

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

/**
 * Run `change` on a window with its panes held in the input queue, so input in flight to them (a
 * paste and its Enter) finishes before the window changes under it. See {@link withPanesGuard}.
 */
export async function withWindowGuard<T>(
  ctx: ActingContext,
  windowId: string,
  preflight: () => Promise<string[]>,
  change: (panes: string[]) => Promise<T>,
): Promise<T> {
  return await withPanesGuard(ctx, `the panes of ${windowId}`, preflight, (p) => p, change);
}

/**
 * Run `change` with the panes a preflight names held in the input queue, so input in flight to
 * them (a paste and its Enter) finishes first and none starts meanwhile. The preflight runs
 * before the panes are taken and again once they are held; if the panes changed in between (or
 * one closed during `change`), it starts over, at most {@link COHORT_ATTEMPTS} times. A refusal
 * a person may lift is asked about with nothing held, then the whole guard runs again.
 */
export async function withPanesGuard<P, T>(
  ctx: ActingContext,
  what: string,
  preflight: () => Promise<P>,
  panesOf: (checked: P) => readonly string[],
  change: (checked: P) => Promise<T>,
): Promise<T> {
  return await withConsent(ctx, async () => {
    for (let attempt = 1;; attempt++) {
      const panes = panesOf(await preflight());
      const release = await ctx.tmux.inputQueue.acquire(new Set(panes), ctx.signal);
      try {
        const again = await preflight();
        if (panesOf(again).join() === panes.join()) return await change(again);
        if (attempt >= COHORT_ATTEMPTS) {
          throw new ToolError("busy", `${what} kept changing`, {
            hint: "Panes are being added or closed right now; retry shortly.",
          });
        }
      } catch (error) {
        // A pane closed between the listing and the change: list again.
        const vanished = error instanceof ToolError && error.code === "target_not_found";
        if (!vanished || attempt >= COHORT_ATTEMPTS) throw error;
      } finally {
        release();
      }
    }
  });
}

/** What a respawn or teardown addresses: one pane, a window, or a session ($N or exact name). */
export type GuardTarget =
  | { pane: string; generation?: string }
  | { window: string }
  | { session: string };

/** The panes a target contains and where they live, resolved from one fresh listing. */
export interface ContainedPanes {
  /** The target's id (`$N` for a session given by name). */
  targetId: string;
  /** Every pane the target contains, in listing order. */
  paneIds: string[];
  /** The windows holding those panes. */
  windowIds: string[];
  /** Every session one of those windows is linked into. */
  sessionIds: string[];
}

/** How {@link preflightContained} checks the panes it finds. */
export interface ContainedRules {
  /** The call's `force`: allows the caller's own pane. */
  force: boolean;
  /** The tool, for messages ("kill_window is refused"). */
  action: string;
  /** Refuse a pane running a tmux client of this server, whatever `force` says (respawn). */
  refuseNestedClients?: boolean;
}

/**
 * Resolve a respawn or teardown target (docs/design.md §6.9) from one fresh listing of the whole
 * server and check every pane it contains (the rules of this module's header, in that order).
 * Throws `target_not_found`, `stale_target`, `invalid_arguments` (ambiguous session) or
 * `target_denied`; nothing has reached tmux then (effects none).
 */
export async function preflightContained(
  ctx: ActingContext,
  target: GuardTarget,
  rules: ContainedRules,
): Promise<ContainedPanes> {
  const snap = await snapshot(
    ctx.tmux,
    { sessions: true, windows: true, panes: { all: true } },
    ctx.signal,
  );
  const panes = mergeRows(snap.panes);
  let targetId: string;
  let contained: PaneFacts[];
  let within: string | undefined;
  if ("pane" in target) {
    const pane = panes.get(target.pane);
    if (!pane) throw paneNotFound(target.pane);
    checkGeneration(pane, target.generation);
    targetId = target.pane;
    contained = [pane];
  } else if ("window" in target) {
    if (!snap.windows.some((w) => w.windowId === target.window)) {
      throw windowNotFound(target.window);
    }
    targetId = target.window;
    within = `window ${targetId}`;
    contained = [...panes.values()].filter((p) => p.windowId === targetId);
  } else {
    targetId = resolveSessionRef(snap.sessions, target.session);
    within = `session ${targetId}`;
    const windows = new Set(
      snap.windows.filter((w) => w.sessionId === targetId).map((w) => w.windowId),
    );
    contained = [...panes.values()].filter((p) => windows.has(p.windowId));
  }
  const access = {
    force: rules.force,
    allowWatchedPanes: ctx.config.allowWatchedPanes,
    action: rules.action,
    within,
    callerRisk: "It would end or restart your own terminal.",
  };
  ctx.consent?.seen(panes.values());
  const check = new AccessCheck(
    ctx,
    `${rules.action} on ${within ?? `pane ${targetId}`}` +
      (contained.length > 1 ? ` (${contained.length} panes)` : ""),
  );
  for (const pane of contained) {
    // A dead pane runs nothing; its old tty name may already belong to a new client.
    if (rules.refuseNestedClients && !pane.dead) checkNotNestedClient(pane);
    check.check(pane, access);
  }
  check.settle();
  const windowIds = [...new Set(contained.map((p) => p.windowId))];
  const sessionIds = [
    ...new Set(
      snap.windows.filter((w) => windowIds.includes(w.windowId)).map((w) => w.sessionId),
    ),
  ];
  return { targetId, paneIds: contained.map((p) => p.paneId), windowIds, sessionIds };
}

/**
 * Check a creation with `select: true` against the view guard (docs/design.md §6.8, §6.10): a new
 * window made current replaces the session's current window on a person's screen, and a new pane
 * made active takes the keys a person types in that window. Refused (`target_denied`) when a
 * person watches the window that changes, unless `--allow-watched-panes`.
 */
export async function preflightSelectNew(
  ctx: ActingContext,
  where: { session: string } | { paneId: string },
  action: string,
): Promise<void> {
  if ("paneId" in where) {
    await preflightView(ctx, { action, panes: [where.paneId] });
    return;
  }
  const { sessions } = await snapshot(ctx.tmux, { sessions: true }, ctx.signal);
  const id = resolveSessionRef(sessions, where.session);
  const current = sessions.find((s) => s.sessionId === id)!.activeWindowId;
  await preflightView(ctx, {
    action: `${action} (it would replace window ${current} on their screen)`,
    windows: [current],
  });
}

/**
 * Check a window before `synchronize-panes` is turned on: from then on a person's keystrokes in
 * it reach every pane, and any input reaches theirs. Refused for a window showing a watched pane
 * (unless `--allow-watched-panes`) or holding the caller's own pane (unless `force`). Returns the
 * window's pane ids; `target_not_found` when there is no such window.
 */
export async function preflightSynchronize(
  ctx: ActingContext,
  windowId: string,
  enabling: boolean,
  force: boolean,
): Promise<string[]> {
  const snap = await snapshot(ctx.tmux, { windows: true, panes: { all: true } }, ctx.signal);
  if (!snap.windows.some((w) => w.windowId === windowId)) {
    throw windowNotFound(windowId);
  }
  const all = mergeRows(snap.panes);
  const panes = [...all.values()].filter((p) => p.windowId === windowId);
  if (enabling) {
    const rules = {
      force,
      allowWatchedPanes: ctx.config.allowWatchedPanes,
      action: "synchronizing its window",
    };
    ctx.consent?.seen(all.values());
    const access = new AccessCheck(ctx, `turning on synchronize-panes in window ${windowId}`);
    for (const pane of panes) access.check(pane, rules);
    access.settle();
  }
  return panes.map((p) => p.paneId);
}

/**
 * The view guard (docs/design.md §6.8): a manage setter that would change what a person sees —
 * another window or pane selected, a window resized or re-laid out, a pane resized or zoomed, a
 * pane or window swapped or moved into, out of or within a watched window — is refused unless
 * the server runs with `--allow-watched-panes`. Watched means what it means for input (§6.3),
 * decided per window: a window is watched when one of its panes is (a person's client shows the
 * window; a client keeping its own active pane or a foreign control client shows it whole).
 * Renames and titles change a label, not the view, and are not checked.
 *
 * Rules, in the order they are checked (refusals report effects none):
 * - a pane or window the setter names that does not exist → `target_not_found`;
 * - each window whose view the setter changes, when a person watches it → `target_denied`
 *   (`force` has no say; `--allow-watched-panes` lifts it, or the person's answer for every
 *   watched pane of the window, §6.11).
 */

/** What a view-changing setter would change. */
export interface ViewChange {
  /** What the setter does, for messages ("resizing window @3"). */
  action: string;
  /** Windows changed whatever their state (layout, resize, move). */
  windows?: readonly string[];
  /** Panes resized, zoomed or swapped: their windows change. */
  panes?: readonly string[];
  /** A window made current: in each session it is linked into, the window it replaces changes. */
  selectWindow?: string;
  /** A pane made active: its window changes, unless the pane is active already. */
  selectPane?: string;
}

/**
 * Check a view change from one fresh listing of the whole server (sessions, windows, panes and
 * clients) and return that listing. Selecting what is already selected changes nothing and is
 * allowed anywhere. A change refused only because a person watches may be asked about.
 */
export async function preflightView(
  ctx: ActingContext,
  change: ViewChange,
): Promise<Awaited<ReturnType<typeof snapshot>>> {
  return await withConsent(ctx, () => checkView(ctx, change));
}

async function checkView(
  ctx: ActingContext,
  change: ViewChange,
): Promise<Awaited<ReturnType<typeof snapshot>>> {
  const snap = await snapshot(
    ctx.tmux,
    { sessions: true, windows: true, panes: { all: true } },
    ctx.signal,
  );
  const paneOf = (paneId: string) => {
    // A window linked into several sessions lists its panes once per session, alike.
    const pane = snap.panes.find((p) => p.paneId === paneId);
    if (!pane) throw paneNotFound(paneId);
    return pane;
  };
  const windowOf = (windowId: string) => {
    if (!snap.windows.some((w) => w.windowId === windowId)) throw windowNotFound(windowId);
    return windowId;
  };
  const changed = new Map<string, string>();
  for (const id of change.windows ?? []) changed.set(windowOf(id), change.action);
  for (const id of change.panes ?? []) changed.set(paneOf(id).windowId, change.action);
  if (change.selectPane !== undefined) {
    const pane = paneOf(change.selectPane);
    if (!pane.active) changed.set(pane.windowId, change.action);
  }
  if (change.selectWindow !== undefined) {
    const id = windowOf(change.selectWindow);
    const linked = new Set(snap.windows.filter((w) => w.windowId === id).map((w) => w.sessionId));
    for (const session of snap.sessions) {
      if (!linked.has(session.sessionId) || session.activeWindowId === id) continue;
      changed.set(
        session.activeWindowId,
        `${change.action} (it replaces window ${session.activeWindowId} on their screen)`,
      );
    }
  }
  const panes = mergeRows(snap.panes);
  ctx.consent?.seen(panes.values());
  const access = new AccessCheck(ctx, change.action);
  for (const [windowId, action] of changed) {
    // Every watched pane of the window: a grant for one of them does not cover the others.
    for (const pane of panes.values()) {
      if (pane.windowId !== windowId || !pane.isAttended) continue;
      access.check(pane, { force: true, allowWatchedPanes: ctx.config.allowWatchedPanes, action });
    }
  }
  access.settle();
  return snap;
}
