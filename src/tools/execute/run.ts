/**
 * run_shell_command: run one command in a pane's own shell and return its exact output and exit
 * status in one call (docs/design.md §7.9). The pane is checked like send_keys's (§6.2) and held
 * in the input queue only while the line is typed; from then until the command's end frame, its
 * busy mark refuses text to the pane (§6.12). wait_for_command follows a command whose call timed
 * out, by the runId that call returned, to its end, each answer giving the output that is new
 * since the previous one (§7.9).
 */
import { z } from "zod";
import { ToolError } from "../../errors.ts";
import { withInputGuard } from "../../guard/input_guard.ts";
import { synchronizedRunRefusal } from "../../guard/run_rules.ts";
import { TEXT_LIMITS, textResult, textResultShape } from "../../results.ts";
import { paneIdSchema } from "../../rows.ts";
import { checkInputText, INPUT_MAX_BYTES } from "../schemas.ts";
import { launchRun, RUN_SHELLS } from "../../tmux/execute/run.ts";
import { awaitRun, keepRun, resumeRun, type RunEnd } from "../../tmux/execute/run_wait.ts";
import { defineTool } from "../../tool_types.ts";
import { generationSchema, maxBytesSchema, maxLinesSchema, tmuxId } from "../schemas.ts";
import { ASK_TEXT, GUARDED } from "../wording.ts";
import { waitBudget, waitShape } from "../../wait/ceiling.ts";
import { runProgress } from "../../wait/progress.ts";

const { text: _text, ...boundedShape } = textResultShape;

const OUTCOME = z.enum(["completed", "timeout", "pane_died", "server_gone"]).describe(
  "completed: the command ended (see exitStatus); timeout: it is still running; " +
    "pane_died: the pane was killed or its shell exited; server_gone: tmux went away.",
);

/** The run_shell_command manifest entry. */
export const runTools = [
  defineTool({
    name: "run_shell_command",
    toolset: "execute",
    core: true,
    title: "Run a shell command in a pane",
    description:
      "Run one command in a pane's shell; get its exit status and only its own output, " +
      "in one call. The shell's directory and variables are used and kept; stdin is /dev/null " +
      "(for editors, REPLs or passwords use send_keys with waitFor). The pane must run its own " +
      `idle shell (${[...RUN_SHELLS].join(", ")} 3.1+), not synchronized. On timeout the ` +
      "command goes on: pass the returned `runId` to wait_for_command, or send_keys C-c. " +
      `${GUARDED} ${ASK_TEXT}`,
    input: z.object({
      paneId: paneIdSchema,
      command: z.string().min(1).max(INPUT_MAX_BYTES).describe(
        "The command, as you would type it at the shell's prompt (several lines allowed; fish " +
          "syntax in fish).",
      ),
      timeoutMs: z.int().min(0).max(Number.MAX_SAFE_INTEGER).optional().describe(
        "How long to wait for the command to end: at most {waitMax}, the default; more is " +
          "clamped (timeoutClamped).",
      ),
      maxLines: maxLinesSchema.optional(),
      maxBytes: maxBytesSchema.optional(),
      force: z.boolean().optional().describe(
        "Allow the pane this server was started from (your own terminal). Does not allow panes " +
          "a person is watching, nor a program other than a shell.",
      ),
      generation: generationSchema.optional(),
    }).strict(),
    output: z.object({
      paneId: tmuxId("pane"),
      resolvedPaneIds: z.array(paneIdSchema).describe("The pane the command was typed into."),
      outcome: OUTCOME,
      exitStatus: z.int().optional().describe("The command's exit status ($?), when completed."),
      output: z.string().describe(
        "The command's own output (stdout and stderr as the terminal shows them), without the " +
          "typed line, the prompt or a final newline; for a timeout, what it printed so far.",
      ),
      ...boundedShape,
      cursor: tmuxId("cursor").optional().describe(
        "Pass it to capture_since (with waitMs) to follow the pane from here, or to " +
          "wait_for_command as `cursor` to get the output after this answer again.",
      ),
      runId: tmuxId("run").optional().describe(
        "On a timeout whose command can still be followed: pass it to wait_for_command.",
      ),
      ...waitShape,
      note: z.string().optional(),
    }).strict(),
    annotations: "execute",
    capability: { reach: "pane-command", effects: "change", output: ["terminal-text"] },
    handler: async (args, ctx) => {
      const startedAt = Date.now();
      const live = ctx.live;
      if (!live) {
        throw new ToolError(
          "unsupported",
          "run_shell_command needs live mode: it watches the pane's output for the end of the " +
            "command, and this server runs with --no-live",
          { hint: "Use send_keys and capture_pane, or ask a person to restart without --no-live." },
        );
      }
      checkInputText(args.command, "command");
      const max = ctx.config.waitMaxMs;
      const { timeoutMs, timeoutClamped } = waitBudget(args.timeoutMs, max, max);
      const launched = await withInputGuard(
        ctx,
        args.paneId,
        args.force ?? false,
        (target) => {
          const refusal = synchronizedRunRefusal(args.paneId, target.checkedPaneIds);
          if (refusal) throw refusal;
          return launchRun(ctx.tmux, live, {
            pane: target.pane,
            command: args.command,
            generation: args.generation,
          }, ctx.signal);
        },
      );
      const end = await awaitRun(ctx.tmux, launched, {
        startedAt,
        timeoutMs,
        signal: ctx.signal,
        onProgress: runProgress(ctx.progress, timeoutMs),
      });
      const runId = end.followable && ctx.session ? keepRun(launched, ctx.session) : undefined;
      return {
        paneId: args.paneId,
        resolvedPaneIds: [args.paneId],
        ...runResult(end, args),
        ...(runId ? { runId } : {}),
        elapsedMs: Date.now() - startedAt,
        timeoutMs,
        timeoutClamped,
        ...(end.note ? { note: end.note } : {}),
      };
    },
  }),
  defineTool({
    name: "wait_for_command",
    toolset: "execute",
    core: true,
    title: "Wait for a command",
    description: "Wait for the end of a run_shell_command that timed out, by its runId: each " +
      "answer gives only the output new since the previous one, the last also the exit status. " +
      "Waits up to {waitMax}; on timeout call again.",
    input: z.object({
      runId: tmuxId("run", z.string().min(1).max(64)),
      timeoutMs: z.int().min(0).optional(),
      cursor: tmuxId("cursor", z.string().min(1).max(96)).optional().describe(
        "An earlier answer's cursor: the output after it (an answer you lost)",
      ),
      whole: z.boolean().optional().describe("The whole output again"),
    }).strict(),
    output: z.object({
      runId: tmuxId("run"),
      outcome: OUTCOME,
      exitStatus: z.int().optional().describe("The command's exit status ($?), when completed."),
      output: z.string().describe(
        "What the command printed (as the terminal shows it) since the previous answer for this " +
          "runId, or since `cursor`; all of it with `whole`. Put together, the answers are the " +
          "whole output; bounded tail-first.",
      ),
      redrawn: z.int().optional().describe(
        "The program rewrote the last N lines earlier answers gave (a progress bar, a cleared " +
          "screen): `output` starts with them again.",
      ),
      ...boundedShape,
      cursor: tmuxId("cursor").optional().describe(
        "Pass it to capture_since to follow the pane, or back here as `cursor`.",
      ),
      ...waitShape,
    }).strict(),
    annotations: "inspect",
    capability: { reach: "none", effects: "observe", output: ["terminal-text"] },
    handler: async (args, ctx) => {
      const startedAt = Date.now();
      const max = ctx.config.waitMaxMs;
      const { timeoutMs, timeoutClamped } = waitBudget(args.timeoutMs, max, max);
      const owner = ctx.session;
      if (args.cursor !== undefined && args.whole) {
        throw new ToolError("invalid_arguments", "cursor and whole both say where output starts", {
          hint: "Pass cursor (the output after that answer) or whole: true (all of it), not both.",
        });
      }
      if (!ctx.live || !owner) {
        throw new ToolError("stale_cursor", "this session holds no command with that runId", {
          hint: "wait_for_command follows what run_shell_command started in this session.",
        });
      }
      const end = await resumeRun(ctx.tmux, ctx.live, args.runId, owner, {
        startedAt,
        timeoutMs,
        signal: ctx.signal,
        onProgress: runProgress(ctx.progress, timeoutMs),
        from: { since: args.cursor, whole: args.whole },
      });
      return {
        runId: args.runId,
        ...runResult(end, {}),
        elapsedMs: Date.now() - startedAt,
        timeoutMs,
        timeoutClamped,
      };
    },
  }),
];

/** How a run ended, its output bounded tail-first with the rows it missed disclosed. */
function runResult(end: RunEnd, args: { maxLines?: number; maxBytes?: number }) {
  const { text, ...bounded } = textResult(end.text, {
    lines: args.maxLines ?? TEXT_LIMITS.lines,
    bytes: args.maxBytes ?? TEXT_LIMITS.bytes,
    skippedRows: end.missedRows,
  });
  return {
    outcome: end.outcome,
    ...(end.exitStatus === undefined ? {} : { exitStatus: end.exitStatus }),
    output: text,
    ...(end.redrawn > 0 ? { redrawn: end.redrawn } : {}),
    ...bounded,
    ...(end.cursor ? { cursor: end.cursor } : {}),
  };
}
