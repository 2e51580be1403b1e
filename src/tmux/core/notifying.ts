/**
 * Which of our tmux commands can make tmux notify control clients (docs/design.md §7.4), so the
 * funnel holds them while one of our control clients attaches (src/tmux/core/attach_gate.ts). Pure.
 *
 * An allowlist of commands that only read: everything else counts as notifying, since tmux
 * notifies control clients of far more than it documents (sessions made, renamed or closed, a
 * window or pane selected, a layout changed, a buffer set or deleted, a pane entering or leaving a
 * mode — which keys sent to a pane in copy mode can do — a client detaching). Holding one command
 * too many costs a few milliseconds while an attach is in progress; one too few can crash the
 * person's server.
 *
 * @example
 * ```ts
 * notifies([["list-panes", "-a"]]); // false
 * notifies([["kill-session", "-t", "$1"]]); // true
 * ```
 */
import type { TmuxCommand } from "./argv.ts";

/** Commands that read and make tmux notify nobody. */
const QUIET: ReadonlySet<string> = new Set([
  "capture-pane",
  "has-session",
  "list-buffers",
  "list-clients",
  "list-commands",
  "list-keys",
  "list-panes",
  "list-sessions",
  "list-windows",
  "save-buffer",
  "show-buffer",
  "show-environment",
  "show-hooks",
  "show-options",
  "show-window-options",
  "wait-for",
]);

/** Whether one command can make tmux notify control clients. */
export function commandNotifies(command: TmuxCommand): boolean {
  const [name] = command;
  if (name === undefined) return false;
  // display-message -p prints to the client; without -p it would show a message on a client.
  if (name === "display-message") return !command.includes("-p");
  // wait-for -S/-U/-L signal or lock a channel: no control client hears of it.
  return !QUIET.has(name);
}

/** Whether any command of a chain can make tmux notify control clients. */
export function notifies(commands: readonly TmuxCommand[]): boolean {
  return commands.some(commandNotifies);
}
