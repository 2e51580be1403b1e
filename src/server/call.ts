/**
 * One tool call from validated input to its result (docs/design.md §3.3), and the progress
 * notifications of one request: the parts of a session that do not speak the protocol.
 */
import type { z } from "zod";
import { ToolError } from "../errors.ts";
import { errorResult, successResult, type ToolResult } from "../results.ts";
import { readOnly } from "../tmux/context.ts";
import type { ActingContext, ToolSpec } from "../tool_types.ts";

/**
 * Validate, run and wrap one call; every failure becomes a typed error result. A throw that is
 * not a {@link ToolError} is a bug of ours, not tmux's: `internal_error` (docs/design.md §3.3).
 */
export async function callTool(
  spec: ToolSpec,
  rawArgs: unknown,
  ctx: ActingContext,
  log: (message: string) => void,
): Promise<ToolResult> {
  const parsed = spec.input.safeParse(rawArgs);
  if (!parsed.success) {
    return errorResult(new ToolError("invalid_arguments", describeIssues(parsed.error)));
  }
  try {
    // Inspect handlers get a context without the input queue, at run time as in their types.
    const narrowed = spec.toolset === "inspect" ? { ...ctx, tmux: readOnly(ctx.tmux) } : ctx;
    const data = await spec.handler(parsed.data, narrowed as ActingContext);
    return successResult(data as Record<string, unknown>, spec.summarize?.(data));
  } catch (error) {
    if (error instanceof ToolError) return errorResult(error);
    log(`internal error in ${spec.name}: ${(error as Error)?.stack ?? error}`);
    return errorResult(
      new ToolError(
        "internal_error",
        `internal error in ${spec.name}: ${(error as Error)?.message}`,
        { effects: spec.capability.effects === "observe" ? "none" : "possible" },
      ),
    );
  }
}

/** One line naming each failing argument; never echoes the rejected values. */
function describeIssues(error: z.ZodError): string {
  return error.issues.slice(0, 4).map((issue) => {
    const path = issue.path.length ? issue.path.join(".") : "arguments";
    if (issue.code === "unrecognized_keys") return `unknown argument(s): ${issue.keys.join(", ")}`;
    return `${path}: ${issue.message}`;
  }).join("; ");
}

/** What a request handler gets that progress notifications need. */
export interface ProgressExtra {
  _meta?: { progressToken?: string | number };
  sendNotification: (notification: {
    method: "notifications/progress";
    params: { progressToken: string | number; progress: number; total?: number; message?: string };
  }) => Promise<void>;
}

/**
 * Progress notifications for one request, when its client sent a progress token; values that do
 * not grow are dropped (the protocol requires them to increase).
 */
export function progressFor(extra: ProgressExtra): ActingContext["progress"] {
  const token = extra._meta?.progressToken;
  if (token === undefined) return undefined;
  let last = -Infinity;
  return ({ progress, total, message }) => {
    if (!(progress > last)) return;
    last = progress;
    extra.sendNotification({
      method: "notifications/progress",
      params: {
        progressToken: token,
        progress,
        ...(total === undefined ? {} : { total }),
        message,
      },
    }).catch(() => {});
  };
}
