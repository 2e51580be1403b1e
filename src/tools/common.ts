/** Argument schemas shared by many tools. */
import { z } from "zod";
import { ToolError } from "../errors.ts";
import { TEXT_LIMITS } from "../results.ts";

/** A session reference: `$N` or an exact name (never a prefix or pattern). */
export const sessionRefSchema = z.string().min(1).max(256).describe(
  "Session id ($1) or exact session name.",
);

/** A pane generation from list_panes, to refuse a pane that was replaced meanwhile. */
export const generationSchema = z.string().min(1).max(128).describe(
  "The generation list_panes gave for this pane; if the pane was replaced since, the call fails " +
    "with stale_target instead of describing another process.",
);

/** `maxLines`: keep at most this many of the newest lines. */
export const maxLinesSchema = z.int().positive().describe(
  `Keep at most this many lines, the newest. Default ${TEXT_LIMITS.lines}.`,
);

/** `maxBytes`: keep at most this many UTF-8 bytes of text, the newest. */
export const maxBytesSchema = z.int().min(1).max(TEXT_LIMITS.maxBytes).describe(
  `Keep at most this many UTF-8 bytes of text, the newest. Default ${TEXT_LIMITS.bytes}, ` +
    `at most ${TEXT_LIMITS.maxBytes}.`,
);

/**
 * The sentence every guarded tool's description carries about asking the person
 * (docs/design.md §6.11).
 */
export const ASK_TEXT =
  "If your MCP client supports elicitation, a refusal whose only reason is a " +
  "person watching (or your own pane without force) is first put to that person, and the call " +
  "goes ahead only if they allow it.";

/** Sleep `ms`, ending at once with `cancelled` (carrying `effects`) if the call is cancelled. */
export function sleep(
  ms: number,
  signal: AbortSignal,
  cancelled = "the call was cancelled",
  effects: "none" | "possible" = "none",
): Promise<void> {
  return new Promise((resolve, reject) => {
    const onAbort = () => {
      clearTimeout(timer);
      reject(new ToolError("cancelled", cancelled, { effects }));
    };
    const timer = setTimeout(() => {
      signal.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    if (signal.aborted) return onAbort();
    signal.addEventListener("abort", onAbort, { once: true });
  });
}
