/**
 * Input tools: send_keys, send_keys_batch (the send_keys_batch contract, docs/design.md §1.4),
 * paste_text, set_synchronize_panes. A keypress runs down once: the tool checks its arguments
 * (its contract), the guard decides in one call from a listing it asks for below
 * (src/guard/input_guard.ts) and, with the panes held, the wait's mark is taken and the funnel
 * sends (src/tmux/execute/input.ts); the wait after the input comes last.
 */
import { z } from "zod";
import { ToolError } from "../../errors.ts";
import { withWindowGuard } from "../../guard/hold.ts";
import { checkBeforeEnter, type InputTarget, withInputGuard } from "../../guard/input_guard.ts";
import { preflightSynchronize } from "../../guard/preflight.ts";
import {
  pasteText,
  pressEnter,
  pressesKey,
  sendKeys,
  setSynchronizePanes,
} from "../../tmux/execute/input.ts";
import { type ActingContext, defineTool } from "../../tool_types.ts";
import { paneIdSchema, windowIdSchema } from "../../rows.ts";
import { checkInputText, INPUT_MAX_BYTES, PROSE_FREE } from "../schemas.ts";
import { tmuxId } from "../schemas.ts";
import { GUARDED } from "../wording.ts";
import { sleepOrCancel } from "../../wait/poll.ts";
import {
  type InputStart,
  markBeforeInput,
  planWait,
  waitAfterInput,
  waitForSchema,
  waitForShape,
  type WaitPlan,
} from "../../wait/after_input.ts";

/**
 * How long paste_text waits between the paste and its Enter. Programs that debounce pastes (many
 * TUIs and REPLs) swallow an Enter that arrives with the pasted text; 150 ms lets them settle.
 */
const PASTE_ENTER_DELAY_MS = 150;

const META = { reach: "pane-input", effects: "change", output: ["metadata"] } as const;

/** A pane id, described as the send_keys_batch contract describes it. */
const stablePaneId = tmuxId("pane", z.string().regex(/^%\d+$/)).describe(
  "Stable pane id, e.g. %1.",
);

const forceSchema = z.boolean().describe("Allow your own pane.");

const sentSchema = z.object({
  paneId: tmuxId("pane"),
  resolvedPaneIds: z.array(stablePaneId).describe(
    "Every pane that received the input: paneId first, then its synchronized partners.",
  ),
}).shape;

/** The most items one send_keys sequence holds (a batch's most rows). */
const SEQUENCE_MAX = 64;

/**
 * The tool's contract for one send: something to send, and text tmux can carry. A sequence holds
 * 1 to {@link SEQUENCE_MAX} items, none empty, within {@link INPUT_MAX_BYTES} in all.
 */
function checkKeys(keys: string | readonly string[], enter: boolean): void {
  if (typeof keys !== "string") return checkSequence(keys);
  if (keys === "" && !enter) {
    throw new ToolError("invalid_arguments", "keys is empty and enter is false: nothing to send", {
      hint: 'Pass the text or key to send, e.g. {keys: "C-c", enter: false}.',
    });
  }
  checkInputText(keys, "keys");
}

/** {@link checkKeys} for a sequence. */
function checkSequence(keys: readonly string[]): void {
  if (keys.length < 1 || keys.length > SEQUENCE_MAX) {
    throw new ToolError(
      "invalid_arguments",
      `keys lists ${keys.length} items; a sequence takes 1 to ${SEQUENCE_MAX}`,
      {
        hint:
          "Send a longer sequence in several calls, in order (enter: false on all but the last).",
      },
    );
  }
  const empty = keys.indexOf("");
  if (empty >= 0) {
    throw new ToolError("invalid_arguments", `keys[${empty}] is empty`, {
      hint: 'Leave it out: Enter follows the last item unless enter: false; or list "Enter".',
    });
  }
  keys.forEach((item, i) => checkInputText(item, `keys[${i}]`));
  checkInputText(keys.join(""), "keys (all items together)");
}

/** What of `keys` is typed rather than pressed, as lines: its echo (none when only keys). */
function typedText(keys: string | readonly string[], literal: boolean): string | undefined {
  const items = typeof keys === "string" ? [keys] : keys;
  // A key pressed between two texts ends the line the first was typed on, as far as its echo goes.
  const typed = items.map((item) => pressesKey(item, literal) ? "\n" : item).join("");
  return typed.trim() === "" ? undefined : typed;
}

/**
 * One send_keys: the contract, then the guard's decision and, under it, the keys (and Enter);
 * with `plan`, the mark a wait after the input starts from is taken just before the keys
 * (docs/design.md §7.10).
 */
async function sendOne(
  ctx: ActingContext,
  op: {
    paneId: string;
    keys: string | readonly string[];
    literal?: boolean;
    enter?: boolean;
    force?: boolean;
  },
  plan?: WaitPlan,
): Promise<InputTarget & { start?: InputStart }> {
  const enter = op.enter ?? true;
  const literal = op.literal ?? false;
  checkKeys(op.keys, enter);
  return await withInputGuard(ctx, op.paneId, op.force ?? false, async (target) => {
    // A key pressed has no echo to skip; typed text does.
    const start = plan && await markBeforeInput(ctx, target.pane, typedText(op.keys, literal));
    await sendKeys(ctx.tmux, {
      paneId: op.paneId,
      receivers: target.resolvedPaneIds,
      keys: op.keys,
      literal,
      enter,
    }, ctx.signal);
    return { ...target, start };
  }, { keys: op.keys, literal });
}

/**
 * `waitFor` advertised without prose: send_keys describes its fields once, and the model reads
 * every tool's schema on every turn (docs/design.md §4).
 */
function bareWaitFor() {
  const schema = waitForSchema.optional();
  PROSE_FREE.add(schema, {});
  return schema;
}

/** With `waitFor`, wait after the input and answer what came (nothing without it). */
async function waited(ctx: ActingContext, start: InputStart | undefined, plan?: WaitPlan) {
  return start && plan ? await waitAfterInput(ctx, start, plan) : {};
}

/** The input tools' manifest entries. */
export const inputTools = [
  defineTool({
    name: "send_keys",
    toolset: "execute",
    core: true,
    title: "Type or press keys in a pane",
    description: "Press keys or type text. `keys` is a tmux key name spelled exactly (C-c, " +
      'Escape, Up, Tab, F1…), pressed, or else text typed as is ("end", "^c" are text), or a ' +
      'list of these sent in order (`["Escape", ":wq"]`). Enter follows unless `enter: false` ' +
      '(interrupt: `{keys: "C-c", enter: false}`). Multi-line text: paste_text. `waitFor: {}` ' +
      "returns the output once the program awaits input: output stopped, the cursor after " +
      "prompt text (`>>> `, `Name: `, `(Pdb) `, `$ `) or a full-screen program settled; else " +
      "timeout (e.g. a read on an empty line). For REPLs, TUIs, prompts; a shell command's exit " +
      "status: run_shell_command; output already coming: wait_for_text. Waits match each " +
      "rendered line, trailing blanks trimmed, never your input's echo. " + GUARDED,
    input: z.object({
      paneId: paneIdSchema,
      // No length bound in the schema: checkKeys bounds the bytes, with a hint.
      keys: z.union([z.string(), z.array(z.string())]),
      literal: z.boolean().optional().describe("Type even a key name as text."),
      enter: z.boolean().optional(),
      force: forceSchema.optional(),
      waitFor: waitForSchema.optional(),
    }).strict(),
    output: z.object({ ...sentSchema, sent: z.literal(true), ...waitForShape }).strict(),
    annotations: "execute",
    capability: META,
    handler: async (args, ctx) => {
      const plan = planWait(args.waitFor, ctx);
      const target = await sendOne(ctx, args, plan);
      return {
        paneId: args.paneId,
        resolvedPaneIds: target.resolvedPaneIds,
        sent: true as const,
        ...await waited(ctx, target.start, plan),
      };
    },
  }),
  defineTool({
    name: "send_keys_batch",
    toolset: "execute",
    title: "Send keys to several panes in order",
    description: "Run up to 64 send_keys rows in order, each checked just before it is sent; " +
      "`waitFor`: after the last row. " + GUARDED,
    input: z.object({
      onError: z.enum(["stop", "continue"]).optional().describe(
        "Whether a failed operation ends the batch. Defaults to stop.",
      ),
      operations: z.array(
        z.object({
          enter: z.boolean().optional().describe("Press Enter afterwards. Default true."),
          force: z.boolean().optional().describe(
            "Allow this server's own caller pane, as on `send_keys`.",
          ),
          keys: z.string().describe("Keys for this pane, as on `send_keys`."),
          literal: z.boolean().optional().describe(
            "Send the text literally rather than resolving key names.",
          ),
          paneId: stablePaneId,
        }).strict(),
      ).min(1).max(64).describe("The key sends to run, in order, one pane each."),
      waitFor: bareWaitFor(),
    }).strict(),
    output: z.object({
      completed: z.int(),
      failures: z.array(z.object({ index: z.int(), reason: z.string() }).strict()),
      targets: z.array(
        z.object({ index: z.int(), resolvedPaneIds: z.array(stablePaneId) }).strict(),
      ),
      ...waitForShape,
    }).strict(),
    annotations: "execute",
    capability: META,
    handler: async ({ operations, onError = "stop", waitFor }, ctx) => {
      const plan = planWait(waitFor, ctx);
      let start: InputStart | undefined;
      let completed = 0;
      const failures: Array<{ index: number; reason: string }> = [];
      const targets: Array<{ index: number; resolvedPaneIds: string[] }> = [];
      for (const [index, op] of operations.entries()) {
        // "allow once" covers the rows its question showed, not the next ones by pane id.
        ctx.consent?.enterRow(index);
        try {
          // The wait watches the last row's pane, from just before that row (docs/design.md §7.10).
          const last = index === operations.length - 1;
          const target = await sendOne(ctx, op, last ? plan : undefined);
          start = target.start;
          completed++;
          targets.push({ index, resolvedPaneIds: target.resolvedPaneIds });
        } catch (error) {
          // A bug or a cancelled call ends the whole batch; earlier rows did reach tmux.
          if (!(error instanceof ToolError) || error.code === "cancelled") {
            throw error instanceof ToolError && completed > 0
              ? error.withEffects("possible")
              : error;
          }
          failures.push({ index, reason: `${error.code}: ${error.message}` });
          if (onError === "stop") break;
        }
      }
      return { completed, failures, targets, ...await waited(ctx, start, plan) };
    },
  }),
  defineTool({
    name: "paste_text",
    toolset: "execute",
    core: true,
    title: "Paste text into a pane",
    description: "Paste long or multi-line text into a pane as a terminal does. A program with " +
      "bracketed paste on (bash, zsh, most REPLs) runs nothing before Enter; any other gets " +
      "typed lines, so a shell runs each at once. " + GUARDED,
    input: z.object({
      paneId: paneIdSchema,
      text: z.string().min(1).max(INPUT_MAX_BYTES),
      enter: z.boolean().optional().describe(`Press Enter ${PASTE_ENTER_DELAY_MS} ms after.`),
      force: forceSchema.optional(),
      waitFor: bareWaitFor(),
    }).strict(),
    output: z.object({
      ...sentSchema,
      bytes: z.int().describe("UTF-8 bytes pasted into each pane."),
      ...waitForShape,
    }).strict(),
    annotations: "execute",
    capability: META,
    handler: async ({ paneId, text, enter = false, force = false, waitFor }, ctx) => {
      checkInputText(text, "text");
      const plan = planWait(waitFor, ctx);
      let start: InputStart | undefined;
      const sent = await withInputGuard(ctx, paneId, force, async (target) => {
        start = plan && await markBeforeInput(ctx, target.pane, text);
        const bytes = await pasteText(ctx.tmux, target.resolvedPaneIds, text, ctx.signal);
        if (enter) {
          await sleepOrCancel(
            PASTE_ENTER_DELAY_MS,
            ctx.signal,
            "the call was cancelled after the paste, before Enter",
            "possible",
          );
          await checkBeforeEnter(ctx, target, force);
          await pressEnter(ctx.tmux, paneId, ctx.signal);
        }
        return { paneId, resolvedPaneIds: target.resolvedPaneIds, bytes };
      }, { paste: { text, enter } });
      return { ...sent, ...await waited(ctx, start, plan) };
    },
  }),
  defineTool({
    name: "set_synchronize_panes",
    toolset: "execute",
    title: "Synchronize a window's panes",
    description: "Turn synchronize-panes on or off: while on, ALL input to any pane of the " +
      "window goes to EVERY pane. Turning it on refuses watched windows, and yours unless force.",
    input: z.object({
      windowId: windowIdSchema,
      enabled: z.boolean(),
      force: forceSchema.optional(),
    }).strict(),
    output: z.object({ windowId: tmuxId("window"), enabled: z.boolean() }).strict(),
    annotations: "setter",
    capability: META,
    handler: async ({ windowId, enabled, force = false }, ctx) =>
      await withWindowGuard(
        ctx,
        windowId,
        () => preflightSynchronize(ctx, windowId, enabled, force),
        async (panes) => {
          await setSynchronizePanes(ctx.tmux, windowId, enabled, panes, ctx.signal);
          return { windowId, enabled };
        },
      ),
  }),
];
