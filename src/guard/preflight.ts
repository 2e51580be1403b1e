/**
 * The preflights of respawn, teardown, synchronizing and view changes (docs/design.md §6.5,
 * §6.8–§6.10): each lists the whole server afresh, applies the rules of src/guard/rules.ts to
 * the panes the action reaches and, when only a watched pane or the caller's own pane refuses,
 * may ask the person (§6.11).
 */
import { AccessCheck, withConsent } from "./access.ts";
import {
  checkNotNestedClient,
  containedIn,
  type GuardTarget,
  mergeRows,
  type ViewChange,
  viewChanges,
} from "./rules.ts";
import { snapshot } from "../tmux/read/queries.ts";
import { resolveSessionRef } from "../tmux/read/session_ref.ts";
import { windowNotFound } from "../tmux/read/not_found.ts";
import type { ActingContext } from "../tool_types.ts";

/** The panes a target contains and where they live, resolved from one fresh listing. */
interface ContainedPanes {
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
interface ContainedRules {
  /** The call's `force`: allows the caller's own pane. */
  force: boolean;
  /** The tool, for messages ("kill_window is refused"). */
  action: string;
  /** Refuse a pane running a tmux client of this server, whatever `force` says (respawn). */
  refuseNestedClients?: boolean;
}

/**
 * Resolve a respawn or teardown target (docs/design.md §6.9) from one fresh listing of the whole
 * server and check every pane it contains (the rules of src/guard/rules.ts, in that order).
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
  const found = containedIn(snap, target);
  const access = {
    force: rules.force,
    allowWatchedPanes: ctx.config.allowWatchedPanes,
    action: rules.action,
    within: found.within,
    callerRisk: "It would end or restart your own terminal.",
  };
  ctx.consent?.seen(mergeRows(snap.panes).values());
  const check = new AccessCheck(
    ctx,
    `${rules.action} on ${found.within ?? `pane ${found.targetId}`}` +
      (found.panes.length > 1 ? ` (${found.panes.length} panes)` : ""),
  );
  for (const pane of found.panes) {
    // A dead pane runs nothing; its old tty name may already belong to a new client.
    if (rules.refuseNestedClients && !pane.dead) checkNotNestedClient(pane);
    check.check(pane, access);
  }
  check.settle();
  return {
    targetId: found.targetId,
    paneIds: found.panes.map((p) => p.paneId),
    windowIds: found.windowIds,
    sessionIds: found.sessionIds,
  };
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
 * Check a view change (the view guard, src/guard/rules.ts) from one fresh listing of the whole
 * server (sessions, windows, panes and clients) and return that listing. Selecting what is
 * already selected changes nothing and is allowed anywhere. A change refused only because a
 * person watches may be asked about.
 */
export async function preflightView(
  ctx: ActingContext,
  change: ViewChange,
): Promise<Awaited<ReturnType<typeof snapshot>>> {
  return await withConsent(ctx, async () => {
    const snap = await snapshot(
      ctx.tmux,
      { sessions: true, windows: true, panes: { all: true } },
      ctx.signal,
    );
    const changed = viewChanges(snap, change);
    const panes = mergeRows(snap.panes);
    ctx.consent?.seen(panes.values());
    const access = new AccessCheck(ctx, change.action);
    for (const [windowId, action] of changed) {
      // Every watched pane of the window: a grant for one of them does not cover the others.
      for (const pane of panes.values()) {
        if (pane.windowId !== windowId || !pane.isAttended) continue;
        access.check(pane, {
          force: true,
          allowWatchedPanes: ctx.config.allowWatchedPanes,
          action,
        });
      }
    }
    access.settle();
    return snap;
  });
}
