/**
 * The busy rule (docs/design.md §6.12), pure: while a command run_shell_command framed still runs
 * in a pane (its busy mark, src/live/run_marks.ts), text sent there is refused with `busy` — that
 * command, not the shell, would read it, or the shell would run it afterwards — while key presses
 * pass, so C-c reaches the command and a pager or a prompt can still be answered. A key press is
 * noted on the mark: an interrupted command prints no end frame, so the next check may find the
 * shell back in front and end the mark.
 */
import { ToolError } from "../errors.ts";
import { pressesKey } from "../tmux/execute/input.ts";

/** What an input call sends, as the busy rule sees it: text, or only key presses. */
export type InputKind = "text" | "keys";

/**
 * What send_keys (or a send_keys_batch row) sends: key presses only when `keys` is one tmux key
 * name pressed as such (not `literal`), a single character (`q`, `y`), or nothing (Enter alone).
 * A sequence is judged whole: key presses when its items are key names and at most one single
 * character among them, so a command spelled out one character per item is still text.
 */
export function keysKind(keys: string | readonly string[], literal: boolean): InputKind {
  const items = typeof keys === "string" ? [keys] : keys;
  let characters = 0;
  for (const item of items) {
    if (item === "" || pressesKey(item, literal)) continue;
    if ([...item].length !== 1 || ++characters > 1) return "text";
  }
  return "keys";
}

/** What the busy rule decides for one pane: let the input through, note a key press, or refuse. */
export type BusyVerdict = "pass" | "note_key" | ToolError;

/**
 * The busy rule for one pane: `running` says whether a framed command still holds the pane's mark
 * (the mark's own end rules already applied). Text to it is refused; key presses pass and are
 * noted on the mark.
 */
export function busyVerdict(paneId: string, running: boolean, input: InputKind): BusyVerdict {
  if (!running) return "pass";
  if (input === "keys") return "note_key";
  return new ToolError(
    "busy",
    `pane ${paneId} is still running a command started by run_shell_command: text sent now ` +
      "would be read by that command",
    {
      hint: "Wait for its end with wait_for_command (pass the runId its run_shell_command " +
        'returned on timeout), or interrupt it with send_keys {keys: "C-c", enter: false}; ' +
        "key names are always let through.",
    },
  );
}
