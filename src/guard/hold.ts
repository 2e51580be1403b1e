/**
 * Holding panes in the input queue (docs/design.md §6.6) around a respawn, teardown or window
 * change: the preflight runs before the panes are taken and again once they are held, and a
 * refusal a person may lift is asked about with nothing held (§6.11).
 */
import { withConsent } from "./access.ts";
import { ToolError } from "../errors.ts";
import type { ActingContext } from "../tool_types.ts";

/** How often the cohort may grow under our feet before the call gives up with `busy`. */
export const COHORT_ATTEMPTS = 3;

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
