/**
 * Input tools: send_keys, send_keys_batch (the send_keys_batch contract, docs/design.md §1.4), paste_text, set_synchronize_panes.
 * Every send runs the preflight of src/guard.ts immediately before it, under the pane's queue.
 */
import { z } from "zod";
import { ToolError } from "../errors.ts";
import {
  type InputTarget,
  preflightInput,
  preflightSynchronize,
  withInputGuard,
  withWindowGuard,
} from "../guard.ts";
import {
  ARGV_TEXT_BYTES,
  checkInputText,
  INPUT_MAX_BYTES,
  isKeyName,
  pasteText,
  pressEnter,
  sendKeys,
  setSynchronizePanes,
} from "../tmux/input.ts";
import { type ActingContext, defineTool } from "../tool_spec.ts";
import { paneIdSchema, windowIdSchema } from "../rows.ts";
import { ASK_TEXT, sleep } from "./common.ts";

/**
 * How long paste_text waits between the paste and its Enter. Programs that debounce pastes (many
 * TUIs and REPLs) swallow an Enter that arrives with the pasted text; 150 ms lets them settle.
 */
export const PASTE_ENTER_DELAY_MS = 150;

const META = { reach: "pane-input", effects: "change", output: ["metadata"] } as const;

/** A pane id, described as the send_keys_batch contract describes it. */
const stablePaneId = z.string().regex(/^%\d+$/).describe("Stable pane id, e.g. %1.");

const forceSchema = z.boolean().describe(
  "Allow the pane this server was started from (your own terminal). Does not allow panes a " +
    "person is watching.",
);

const sentSchema = z.object({
  paneId: z.string(),
  resolvedPaneIds: z.array(stablePaneId).describe(
    "Every pane that received the input: paneId first, then its synchronized partners.",
  ),
}).shape;

/** Refuse a call that would send nothing, or text tmux cannot carry; before any tmux call. */
function checkKeys(keys: string, enter: boolean): void {
  if (keys === "" && !enter) {
    throw new ToolError("invalid_arguments", "keys is empty and enter is false: nothing to send", {
      hint: 'Pass the text or key to send, e.g. {keys: "C-c", enter: false}.',
    });
  }
  checkInputText(keys, "keys");
}

/** One send_keys: preflight, then keys (and Enter) under the pane's queue. */
async function sendOne(
  ctx: ActingContext,
  op: { paneId: string; keys: string; literal?: boolean; enter?: boolean; force?: boolean },
): Promise<InputTarget> {
  const enter = op.enter ?? true;
  checkKeys(op.keys, enter);
  // Key presses reach a pane busy with run_shell_command's command (C-c, q, y…); text does not.
  const presses = op.keys === "" || [...op.keys].length === 1 ||
    (!op.literal && isKeyName(op.keys));
  return await withInputGuard(ctx, op.paneId, op.force ?? false, async (target) => {
    await sendKeys(ctx.tmux, {
      paneId: op.paneId,
      receivers: target.resolvedPaneIds,
      keys: op.keys,
      literal: op.literal ?? false,
      enter,
    }, ctx.signal);
    return target;
  }, presses ? "keys" : "text");
}

/**
 * Refuse a multi-line paste with `enter: false` into a pane whose program is known (from its
 * stream) not to bracket pastes: each line would run at once, which `enter: false` promises not to
 * do. A pane that is not streamed, or whose mode the stream has not seen yet, is let through as
 * the description says.
 */
function refuseUnbracketed(ctx: ActingContext, panes: readonly string[]): void {
  const open = panes.find((id) => ctx.live?.bracketedPaste(id) === false);
  if (open === undefined) return;
  throw new ToolError(
    "target_denied",
    `the program in pane ${open} has bracketed paste off, so each pasted line would run at ` +
      "once although enter is false",
    {
      hint: "Pass enter: true if the lines should run, or paste one line at a time.",
    },
  );
}

const GUARD_TEXT = "Refused (target_denied) for the pane this server runs in unless " +
  "`force: true`; for a pane a person is watching unless a person started the server with " +
  "--allow-watched-panes (force does not help); and for dead panes, panes in copy mode and " +
  "panes whose input is disabled. In a window with synchronize-panes on, the input reaches every " +
  `synchronized pane: all are checked and listed in \`resolvedPaneIds\`. ${ASK_TEXT}`;

/** The input tools' manifest entries. */
export const inputTools = [
  defineTool({
    name: "send_keys",
    toolset: "execute",
    title: "Type or press keys in a pane",
    description: "Type text or press a key in a pane, as a person at the keyboard would; a " +
      "shell that receives it runs it with your user's permissions. `keys` is ONE tmux key " +
      "name or a text: a key name spelled exactly as tmux does (C-c, M-x, Escape, Enter, Up, " +
      "Down, Tab, BTab, Space, BSpace, Home, End, PPage, NPage, F1–F12…) is pressed; any other " +
      'string — "end", "^c", "0x41" included — is typed as it is. Enter is pressed afterwards ' +
      "unless `enter: false`. Examples: " +
      '`{keys: "ls -la"}` types the command and runs it; `{keys: "C-c", enter: false}` ' +
      'interrupts the running program; `{keys: "Up", enter: false}` recalls the previous shell ' +
      "command; `literal: true` types the text even when it spells a key name. Text arrives " +
      "byte-exact — quotes, $, backslashes, a trailing ;, tabs, newlines, Unicode — and text " +
      `over ${ARGV_TEXT_BYTES} bytes is delivered through a private paste buffer. For long ` +
      `multi-line text prefer paste_text. ${GUARD_TEXT}`,
    input: z.object({
      paneId: paneIdSchema,
      keys: z.string().max(INPUT_MAX_BYTES).describe(
        'One key name ("C-c", "Escape", "Up", "F5") to press, or text to type.',
      ),
      literal: z.boolean().optional().describe(
        "Type keys as text even if it spells a key name. Default false.",
      ),
      enter: z.boolean().optional().describe("Press Enter afterwards. Default true."),
      force: forceSchema.optional(),
    }).strict(),
    output: z.object({ ...sentSchema, sent: z.literal(true) }).strict(),
    annotations: "execute",
    capability: META,
    handler: async (args, ctx) => {
      const target = await sendOne(ctx, args);
      return { paneId: args.paneId, resolvedPaneIds: target.resolvedPaneIds, sent: true as const };
    },
  }),
  defineTool({
    name: "send_keys_batch",
    toolset: "execute",
    title: "Send keys to several panes in order",
    description: "Run up to 64 send_keys operations in order, each against its own pane; a shell " +
      "that receives them runs them with your user's permissions. Each row is checked " +
      "immediately before it is sent (its own pane and synchronized partners, exactly as " +
      "send_keys checks them), so one refused row does not depend on another. " +
      '`onError: "stop"` (default) ends the batch at the first failing row; `"continue"` ' +
      "sends the rest. The result counts `completed` rows, lists `failures` as " +
      '{index, reason: "code: message"} and, for every row sent, the panes it reached ' +
      `(\`targets\`). Indexes count from 0. ${ASK_TEXT}`,
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
    }).strict(),
    output: z.object({
      completed: z.int(),
      failures: z.array(z.object({ index: z.int(), reason: z.string() }).strict()),
      targets: z.array(
        z.object({ index: z.int(), resolvedPaneIds: z.array(stablePaneId) }).strict(),
      ),
    }).strict(),
    annotations: "execute",
    capability: META,
    handler: async ({ operations, onError = "stop" }, ctx) => {
      let completed = 0;
      const failures: Array<{ index: number; reason: string }> = [];
      const targets: Array<{ index: number; resolvedPaneIds: string[] }> = [];
      for (const [index, op] of operations.entries()) {
        try {
          const target = await sendOne(ctx, op);
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
      return { completed, failures, targets };
    },
  }),
  defineTool({
    name: "paste_text",
    toolset: "execute",
    title: "Paste text into a pane",
    description: "Paste text into a pane the way a terminal pastes it — for long or multi-line " +
      "text (code, heredocs, prompts for a REPL or TUI); a shell that receives it runs it with " +
      "your user's permissions. The text (up to 1 MiB) goes through a private, uniquely named " +
      "tmux buffer loaded from stdin and deleted right after, so it arrives whole and intact; " +
      "newlines (LF or CRLF) arrive as a terminal sends them (one carriage return each), " +
      "wrapped in bracketed-paste markers when the program asked for them (bash, zsh, most " +
      "editors and REPLs do): then nothing runs before Enter, because markers inside the text " +
      "are removed until none remain. A program that did not ask for bracketed paste gets the " +
      "text as typed lines, so a shell there runs each complete line at once; tmux cannot tell " +
      "which mode a program is in, but when capture_since follows the pane and its program turned " +
      "bracketed paste off, a multi-line paste with `enter: false` is refused (target_denied). " +
      "With `enter: true` (default false) Enter is pressed " +
      `${PASTE_ENTER_DELAY_MS} ms after the paste, because programs that debounce pastes ` +
      "swallow an Enter that arrives with it; the pane is checked again before that Enter. " +
      `Returns the UTF-8 byte count pasted. ${GUARD_TEXT}`,
    input: z.object({
      paneId: paneIdSchema,
      text: z.string().min(1).max(INPUT_MAX_BYTES).describe(
        "The text to paste, at most 1 MiB of UTF-8.",
      ),
      enter: z.boolean().optional().describe(
        `Press Enter ${PASTE_ENTER_DELAY_MS} ms after the paste. Default false.`,
      ),
      force: forceSchema.optional(),
    }).strict(),
    output: z.object({
      ...sentSchema,
      bytes: z.int().describe("UTF-8 bytes pasted into each pane."),
    }).strict(),
    annotations: "execute",
    capability: META,
    handler: async ({ paneId, text, enter = false, force = false }, ctx) => {
      checkInputText(text, "text");
      return await withInputGuard(ctx, paneId, force, async (target) => {
        if (!enter && /[\r\n]/.test(text)) refuseUnbracketed(ctx, target.resolvedPaneIds);
        const bytes = await pasteText(ctx.tmux, target.resolvedPaneIds, text, ctx.signal);
        if (enter) {
          await sleep(
            PASTE_ENTER_DELAY_MS,
            ctx.signal,
            "the call was cancelled after the paste, before Enter",
            "possible",
          );
          // The pause is long enough for a person to arrive or a mode to start: check again,
          // and refuse the Enter (the paste already happened) if the pane is no longer ours.
          try {
            const again = await preflightInput(ctx, paneId, force);
            if (again.resolvedPaneIds.join() !== target.resolvedPaneIds.join()) {
              throw new ToolError(
                "target_denied",
                "the synchronized panes changed during the paste",
                {
                  hint:
                    "The text was pasted but Enter was not pressed; check the panes and press Enter with send_keys.",
                },
              );
            }
          } catch (error) {
            throw error instanceof ToolError ? error.withEffects("possible") : error;
          }
          await pressEnter(ctx.tmux, paneId, ctx.signal);
        }
        return { paneId, resolvedPaneIds: target.resolvedPaneIds, bytes };
      });
    },
  }),
  defineTool({
    name: "set_synchronize_panes",
    toolset: "execute",
    title: "Synchronize a window's panes",
    description: "Turn synchronize-panes on or off for a whole window (@N). While it is on, ALL " +
      "future input to any pane of that window — from you and from a person typing — goes to " +
      "EVERY pane of the window at once. Pane-level overrides are cleared, so every pane follows " +
      "the setting. Input tools then check every synchronized pane and report them in " +
      "`resolvedPaneIds`. Turning it on is refused (target_denied) for a window a person is " +
      "watching unless the server runs with --allow-watched-panes, and for the window holding " +
      `this server's own pane unless \`force: true\`; turning it off is always allowed. ${ASK_TEXT}`,
    input: z.object({
      windowId: windowIdSchema,
      enabled: z.boolean().describe("true: every pane receives all input; false: each its own."),
      force: forceSchema.optional(),
    }).strict(),
    output: z.object({ windowId: z.string(), enabled: z.boolean() }).strict(),
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
