/**
 * One tool call from validated input to its result (docs/design.md §3.3), and the progress
 * notifications of one request: the parts of a session that do not speak the protocol.
 */
import type { z } from "zod";
import { ToolError } from "../errors.ts";
import { leanData } from "../lean.ts";
import { errorResult, successResult, type ToolResult } from "../results.ts";
import { readOnly } from "../tmux/core/context.ts";
import type { ActingContext, ToolSpec } from "../tool_types.ts";

/**
 * Validate, run and wrap one call; every failure becomes a typed error result. A throw that is
 * not a {@link ToolError} is a bug of ours, not tmux's: `internal_error` (docs/design.md §3.3).
 * `edit` rewrites the data (a remote host's ids, docs/design.md §5.15) before it is wrapped.
 */
export async function callTool(
  spec: ToolSpec,
  rawArgs: unknown,
  ctx: ActingContext,
  log: (message: string) => void,
  edit: (data: Record<string, unknown>) => Record<string, unknown> = (data) => data,
): Promise<ToolResult> {
  const outcome = await runTool(spec, rawArgs, ctx, log);
  if ("error" in outcome) return errorResult(outcome.error);
  return succeed(spec, edit(outcome.data));
}

/**
 * The success result of a tool's full data, as the client gets it on every host: without the
 * fields that say nothing (src/lean.ts, docs/design.md §3.1), then wrapped with its text.
 */
export function succeed(spec: ToolSpec, data: Record<string, unknown>): ToolResult {
  const lean = leanData(data, spec.keeps);
  return successResult(lean, spec.summarize?.(lean));
}

/** Validate and run one call: its data, or the typed error it failed with (never a throw). */
export async function runTool(
  spec: ToolSpec,
  rawArgs: unknown,
  ctx: ActingContext,
  log: (message: string) => void,
): Promise<{ data: Record<string, unknown> } | { error: ToolError }> {
  // The recorder logs the call from its own state, before and after (docs/design.md §11.5).
  ctx.audit?.begin(spec, rawArgs);
  const outcome = await runChecked(spec, rawArgs, ctx, log);
  ctx.audit?.end(outcome);
  return outcome;
}

/** {@link runTool} without the recorder: validate, run, map a failure to its typed error. */
async function runChecked(
  spec: ToolSpec,
  rawArgs: unknown,
  ctx: ActingContext,
  log: (message: string) => void,
): Promise<{ data: Record<string, unknown> } | { error: ToolError }> {
  const parsed = spec.input.safeParse(rawArgs);
  if (!parsed.success) {
    return { error: new ToolError("invalid_arguments", describeIssues(parsed.error)) };
  }
  try {
    // Inspect handlers get a context without the input queue, at run time as in their types.
    const narrowed = spec.toolset === "inspect" ? { ...ctx, tmux: readOnly(ctx.tmux) } : ctx;
    const data = await spec.handler(parsed.data, narrowed as ActingContext);
    return { data: data as Record<string, unknown> };
  } catch (error) {
    if (error instanceof ToolError) return { error };
    log(`internal error in ${spec.name}: ${(error as Error)?.stack ?? error}`);
    return {
      error: new ToolError(
        "internal_error",
        `internal error in ${spec.name}: ${(error as Error)?.message}`,
        { effects: spec.capability.effects === "observe" ? "none" : "possible" },
      ),
    };
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
