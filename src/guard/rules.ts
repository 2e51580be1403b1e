/**
 * The guards' rules (docs/design.md §6), decided from the facts of one fresh listing alone — no
 * tmux, no person, no queue: whether input, a respawn, a teardown or a view change may reach a
 * pane. The preflights (src/guard/input_guard.ts, src/guard/preflight.ts) list the server
 * immediately before the action, with the panes held in the input queue, and apply these rules —
 * never to an earlier answer.
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
 * Asking the person (docs/design.md §6.11, src/guard/access.ts), after every rule above was
 * checked:
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
import type { Receivers } from "./preview.ts";
import { ToolError } from "../errors.ts";
import type { PaneFacts, PaneRow, SessionFacts, WindowFacts } from "../rows.ts";
import { checkGeneration } from "../tmux/read/generation.ts";
import { paneNotFound, windowNotFound } from "../tmux/read/not_found.ts";
import { resolveSessionRef } from "../tmux/read/session_ref.ts";

/** What the rules decide from: one fresh listing of the whole server. */
export interface Listing {
  sessions: readonly Pick<SessionFacts, "sessionId" | "sessionName" | "activeWindowId">[];
  windows: readonly Pick<WindowFacts, "windowId" | "sessionId" | "zoomed">[];
  panes: readonly PaneFacts[];
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

/** Refuse a target nothing would read input from, or where a mode would read it instead. */
export function checkReadsInput(
  pane: Pick<PaneFacts, "paneId" | "dead" | "exitStatus" | "inMode" | "inputOff">,
): void {
  if (pane.dead) {
    const status = pane.exitStatus === undefined ? "" : ` with status ${pane.exitStatus}`;
    throw new ToolError(
      "target_denied",
      `pane ${pane.paneId} is dead: its program exited${status}, so nothing reads input`,
      { hint: "Pick a live pane from list_panes, or restart this one with respawn_pane." },
    );
  }
  if (pane.inMode) {
    throw new ToolError(
      "target_denied",
      `pane ${pane.paneId} is in a mode (copy mode or similar): keys would drive the mode, ` +
        "not the program",
      {
        hint: "Pick another pane, or ask the person to leave the mode (q or Escape); " +
          "list_panes shows inMode: false once it is left.",
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
export function checkNotNestedClient(
  pane: Pick<PaneFacts, "paneId" | "hostsTmuxClient">,
  via?: string,
): void {
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

/**
 * One row per pane. A window linked into several sessions is listed once per session; the pane
 * counts as watched if any of those sessions shows it.
 */
export function mergeRows<P extends Pick<PaneFacts, "paneId" | "isAttended">>(
  rows: readonly P[],
): Map<string, P> {
  const panes = new Map<string, P>();
  for (const row of rows) {
    const seen = panes.get(row.paneId);
    panes.set(
      row.paneId,
      seen ? { ...seen, isAttended: seen.isAttended || row.isAttended } : row,
    );
  }
  return panes;
}

/** What synchronized input is decided from. */
type SyncFacts = Pick<PaneFacts, "paneId" | "windowId" | "synchronized" | "dead">;

/**
 * The live panes sharing synchronized input with `pane`: every other pane of its window with
 * `synchronize-panes` on, when `pane` has it on (tmux's skips of the moment included).
 */
export function partnersOf<P extends SyncFacts>(panes: ReadonlyMap<string, P>, pane: P): P[] {
  if (!pane.synchronized) return [];
  return [...panes.values()].filter((p) =>
    p.windowId === pane.windowId && p.paneId !== pane.paneId && p.synchronized && !p.dead
  );
}

/**
 * Where input addressed to each pane goes, by {@link partnersOf}: the pane itself, then its
 * synchronized partners (a pane not listed: itself only). The question's preview picks rows by it.
 */
export function receiversIn(panes: ReadonlyMap<string, SyncFacts>): Receivers {
  return (id) => {
    const pane = panes.get(id);
    return pane ? [id, ...partnersOf(panes, pane).map((p) => p.paneId)] : [id];
  };
}

/**
 * The partners tmux copies keys to right now (tmux 3.3a's window_pane_copy_key): not in a mode,
 * input on, and — in a zoomed window — the active pane only.
 */
export function receivesCopy(
  pane: Pick<PaneFacts, "inMode" | "inputOff" | "active">,
  zoomed: boolean,
): boolean {
  return !pane.inMode && !pane.inputOff && (!zoomed || pane.active);
}

/** What a respawn or teardown addresses: one pane, a window, or a session ($N or exact name). */
export type GuardTarget =
  | { pane: string; generation?: string }
  | { window: string }
  | { session: string };

/** What a respawn or teardown target contains, resolved from one listing. */
interface Contained {
  /** The target's id (`$N` for a session given by name). */
  targetId: string;
  /** For messages: "window @2" or "session $1"; undefined for a pane. */
  within?: string;
  /** Every pane the target contains, in listing order (one row per pane). */
  panes: PaneFacts[];
  /** The windows holding those panes. */
  windowIds: string[];
  /** Every session one of those windows is linked into. */
  sessionIds: string[];
}

/**
 * The panes a target contains (docs/design.md §6.9): the pane itself, every pane of the window,
 * or every pane of every window linked into the session. Throws `target_not_found`,
 * `stale_target` or `invalid_arguments` (ambiguous session).
 */
export function containedIn(listing: Listing, target: GuardTarget): Contained {
  const panes = mergeRows(listing.panes);
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
    if (!listing.windows.some((w) => w.windowId === target.window)) {
      throw windowNotFound(target.window);
    }
    targetId = target.window;
    within = `window ${targetId}`;
    contained = [...panes.values()].filter((p) => p.windowId === targetId);
  } else {
    targetId = resolveSessionRef(listing.sessions, target.session);
    within = `session ${targetId}`;
    const windows = new Set(
      listing.windows.filter((w) => w.sessionId === targetId).map((w) => w.windowId),
    );
    contained = [...panes.values()].filter((p) => windows.has(p.windowId));
  }
  const windowIds = [...new Set(contained.map((p) => p.windowId))];
  const sessionIds = [
    ...new Set(
      listing.windows.filter((w) => windowIds.includes(w.windowId)).map((w) => w.sessionId),
    ),
  ];
  return { targetId, within, panes: contained, windowIds, sessionIds };
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
 * The windows whose view `change` would change, each with the action to name in a refusal.
 * Selecting what is already selected changes nothing. Throws `target_not_found` for a pane or
 * window the change names that the listing lacks.
 */
export function viewChanges(listing: Listing, change: ViewChange): Map<string, string> {
  const paneOf = (paneId: string) => {
    // A window linked into several sessions lists its panes once per session, alike.
    const pane = listing.panes.find((p) => p.paneId === paneId);
    if (!pane) throw paneNotFound(paneId);
    return pane;
  };
  const windowOf = (windowId: string) => {
    if (!listing.windows.some((w) => w.windowId === windowId)) throw windowNotFound(windowId);
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
    const linked = new Set(
      listing.windows.filter((w) => w.windowId === id).map((w) => w.sessionId),
    );
    for (const session of listing.sessions) {
      if (!linked.has(session.sessionId) || session.activeWindowId === id) continue;
      changed.set(
        session.activeWindowId,
        `${change.action} (it replaces window ${session.activeWindowId} on their screen)`,
      );
    }
  }
  return changed;
}
