/**
 * The wait ceiling (docs/design.md §4, `--wait-max-ms`): every wait's timeout, asked or defaulted,
 * is clamped to it here, and a clamp of what the call asked is disclosed (`timeoutClamped`), never
 * refused.
 */
import { z } from "zod";

/** The timeout of a wait that names none, when its tool has no other default. */
export const WAIT_DEFAULT_MS = 30_000;

/** What every waiting tool reports about its wait (the ceiling clamps `timeoutMs`, disclosed). */
export const waitShape = {
  elapsedMs: z.int(),
  timeoutMs: z.int(),
  timeoutClamped: z.boolean(),
};

/**
 * Clamp the wait a call asked for (whole milliseconds) to the server's ceiling, disclosing the
 * clamp; a call that asked none waits `fallback`, itself kept under the ceiling without a word
 * (the default is the server's choice, not the caller's).
 */
export function waitBudget(
  asked: number | undefined,
  fallback: number,
  waitMaxMs: number,
): { timeoutMs: number; timeoutClamped: boolean } {
  const wanted = Math.floor(asked ?? Math.min(fallback, waitMaxMs));
  return { timeoutMs: Math.min(wanted, waitMaxMs), timeoutClamped: wanted > waitMaxMs };
}
