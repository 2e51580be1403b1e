/**
 * The polled wait (docs/design.md §7.6): without live mode, or for a pane past the connection cap,
 * a wait looks at the pane's screen every {@link POLL_MS} instead of sleeping on a stream. Every
 * polled wait (capture_since, wait_for_text, `waitFor`) runs its looks through {@link pollUntil}.
 */
import { capturePane } from "../tmux/read/capture.ts";
import { sleepOrCancel } from "../base/timing.ts";
import type { InspectContext } from "../tool_types.ts";

/** How often a polled wait looks at the screen, and a live one at the pane's program (§7.10). */
export const POLL_MS = 250;

/** Why a wait polls, unless the live engine said otherwise (the connection cap). */
export const NO_LIVE = "live mode is off on this server";

/** What a polled read or wait adds to its note when it was given a cursor. */
export const CURSOR_IGNORED = "; cursors are not kept, so the one you sent was ignored";

/** The sleep tool calls use: it fails with `cancelled` when the call is (src/timing.ts). */
export { sleepOrCancel };

/**
 * Every {@link POLL_MS} until the deadline, sleep, then `look` (the caller took its first look
 * before); the first answer other than undefined ends the wait. Undefined once the deadline passed.
 * Cancellation rejects.
 */
export async function pollUntil<R>(
  deadline: number,
  signal: AbortSignal,
  look: () => Promise<R | undefined>,
): Promise<R | undefined> {
  while (Date.now() < deadline) {
    await sleepOrCancel(Math.min(POLL_MS, deadline - Date.now()), signal);
    const answer = await look();
    if (answer !== undefined) return answer;
  }
  return undefined;
}

/** The pane's screen as a polled wait for text sees it: wrapped rows joined, trailing blanks gone. */
export async function screenLines(
  ctx: InspectContext,
  paneId: string,
): Promise<{ capture: Awaited<ReturnType<typeof capturePane>>; lines: string[] }> {
  const capture = await capturePane(
    ctx.tmux,
    paneId,
    { joinWrapped: true, maxRows: 10_000 },
    ctx.signal,
  );
  return { capture, lines: capture.text.replace(/\n+$/, "").split("\n") };
}
