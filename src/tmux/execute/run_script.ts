/**
 * What run_shell_command has the pane's shell read (docs/design.md §7.9), per shell: the one short
 * line typed into the pane, and the script that line makes the shell read back from our buffer and
 * evaluate. Pure: it neither spawns nor speaks tmux.
 *
 * The POSIX shells (sh, bash, dash, zsh, ksh, mksh, ash) and fish get the same steps in their own
 * syntax: delete the buffer (before the command runs, so the command cannot read the nonce from
 * it), print the start frame, evaluate the command in the shell itself with stdin from /dev/null,
 * print the end frame with the command's status (src/live/run_frame.ts). The typed line starts
 * with a space, which keeps it out of the history of bash (`HISTCONTROL=ignorespace`), zsh
 * (`HIST_IGNORE_SPACE`) and fish (always); the command itself is never typed.
 */
import { frameFormats } from "../../live/run_frame.ts";

/** A value as one POSIX shell word: single quotes, each `'` written as `'\''`. */
export function shellWord(value: string): string {
  return `'${value.replaceAll("'", `'\\''`)}'`;
}

/** A value as one fish word: single quotes, inside which fish reads `\\` and `\'` as escapes. */
export function fishWord(value: string): string {
  return `'${value.replaceAll("\\", "\\\\").replaceAll("'", "\\'")}'`;
}

/**
 * The one line typed into the pane: it makes the shell read the script from the buffer and
 * evaluate it. fish (3.1 or later) takes the script through `string collect`, which keeps its
 * newlines (a bare `(…)` splits at them); its words are quoted so that an abbreviation the person
 * defined (`abbr tmux …`), which fish expands as the line is typed, cannot rewrite them.
 */
export function typedLine(shell: string, socketPath: string, buffer: string): string {
  if (shell === "fish") {
    const read = `'tmux' -S ${fishWord(socketPath)} save-buffer -b ${buffer} -`;
    return ` 'eval' (${read} | 'string' collect)`;
  }
  return ` eval "$(tmux -S ${shellWord(socketPath)} save-buffer -b ${buffer} -)"`;
}

/**
 * The script the shell evaluates: delete the buffer, the start frame, the command — any text the
 * shell accepts, as one quoted `eval` argument, with a final newline so a trailing `\` or heredoc
 * ends there — and the end frame with the command's status.
 *
 * An interactive POSIX shell aborts the whole line, end frame included, when a special builtin
 * fails (dash: a syntax error in `eval`, `${x?}`, a redirection error on `:`), so `eval` runs
 * under `command`, which takes those properties away (checked in bash, bash --posix and dash).
 * zsh's `command` runs only external programs; there a try-block's `always` list prints the end
 * frame whatever ended the command, an error or C-c included. fish's `eval` keeps a syntax error
 * to itself (status 123; 1 in fish 3.1), and from fish 3.5 on also a program it ran that C-c killed
 * (130): the end frame follows (docs/design.md §7.9, step 4a). fish's `eval` runs in the caller's
 * scope, so `set` and `cd` hold for the next command as when typed.
 */
export function runScript(
  shell: string,
  socketPath: string,
  buffer: string,
  nonce: string,
  command: string,
): string {
  const frames = frameFormats(nonce);
  if (shell === "fish") {
    return [
      `tmux -S ${fishWord(socketPath)} delete-buffer -b ${buffer} 2>/dev/null`,
      `printf '${frames.start}'`,
      `eval ${fishWord(`${command}\n`)} </dev/null`,
      `printf '${frames.exit}' $status`,
      "",
    ].join("\n");
  }
  const evaluate = `eval ${shellWord(`${command}\n`)} </dev/null`;
  const end = `printf '${frames.exit}' "$?"`;
  return [
    `tmux -S ${shellWord(socketPath)} delete-buffer -b ${buffer} 2>/dev/null`,
    `printf '${frames.start}'`,
    ...(shell === "zsh" ? ["{", evaluate, "} always {", end, "}"] : [`command ${evaluate}`, end]),
    "",
  ].join("\n");
}
