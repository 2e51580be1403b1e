/** Argument schemas shared by many tools. */
import { z } from "zod";
import { ToolError } from "../errors.ts";

/** A pane id such as `%3`. */
export const paneIdSchema = z.string().regex(/^%\d+$/).describe("Pane id, e.g. %1.");
/** A window id such as `@2`. */
export const windowIdSchema = z.string().regex(/^@\d+$/).describe("Window id, e.g. @1.");
/** A session reference: `$N` or an exact name (never a prefix or pattern). */
export const sessionRefSchema = z.string().min(1).max(256).describe(
  "Session id ($1) or exact session name.",
);

/** A pane generation from list_panes, to refuse a pane that was replaced meanwhile. */
export const generationSchema = z.string().min(1).max(128).describe(
  "The generation list_panes gave for this pane; if the pane was replaced since, the call fails " +
    "with stale_target instead of describing another process.",
);

/** Copy only the keys a row schema declares (tmux rows carry more facts than some tools show). */
export function pickShape<S extends z.ZodObject>(
  schema: S,
  row: object,
): z.infer<S> {
  const out: Record<string, unknown> = {};
  const source = row as Record<string, unknown>;
  for (const key of Object.keys(schema.shape)) {
    if (source[key] !== undefined) out[key] = source[key];
  }
  return out as z.infer<S>;
}

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
