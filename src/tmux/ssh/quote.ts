/**
 * The remote command line: how a tmux argv crosses ssh intact (to become docs/design.md §5.15).
 *
 * ssh joins its command words with spaces and the remote sshd hands that one string to the remote
 * user's shell (`$SHELL -c STRING`), which may be sh, dash, bash, zsh, fish or tcsh, and which
 * splits it again by its own rules (`#` starts a comment, `$()` runs, fish reads `\\` inside single
 * quotes, tcsh rejects newlines inside quotes and may expand `!`). So the string we send uses one
 * form that all of them read alike, and the argv is rebuilt by a fixed POSIX `sh` script:
 *
 *     exec sh -c 'DECODER' sh 'WORD' 'WORD' …
 *
 * - Every word is single-quoted and holds only printable ASCII other than `'`, `\` and `!`, and
 *   no newline: inside single quotes all six shells take such text literally (fish treats only
 *   `\\` and `\'` specially there, tcsh only `!` and newlines). The one exception is the `\` that
 *   starts an escape of our own (below): it is always followed by `0`, which no shell reads as an
 *   escape inside single quotes.
 * - Each argument becomes one word: `l` + the argument when every character is of that safe set,
 *   else `o` + the argument with each unsafe character written as its UTF-8 bytes in `printf %b`
 *   octal escapes (`\0ooo`). The decoder strips the `l`, or runs `printf %b` on the rest (a builtin
 *   of every POSIX sh: one fork, no exec) with a sentinel that keeps trailing newlines.
 * - DECODER itself is a constant of that safe set (tested), and ends with `exec "$@"`: the login
 *   shell is replaced by `sh`, and `sh` by the command, so signals and exit status reach ours.
 *
 * Nothing of an argument ever reaches the remote shell's syntax, only its argv. The argv cannot
 * hold NUL (no C string can), and the whole string must fit in one argument of the remote `exec`
 * (Linux limits one to 128 KiB), so longer commands are refused: large text goes over stdin.
 */
import { ToolError } from "../../errors.ts";

/** Rebuilds the argv from the words after `sh`, then runs it (see the module comment). */
export const DECODER = 'for a in "$@"; do shift; case $a in ' +
  'o*) a=$(printf %bx "${a#o}"); a=${a%x};; *) a=${a#l};; esac; ' +
  'set -- "$@" "$a"; done; exec "$@"';

/** The longest remote command we send, in bytes (below Linux's 128 KiB for one argument). */
export const MAX_REMOTE_COMMAND_BYTES = 100_000;

const encoder = new TextEncoder();

/** Printable ASCII but `'`, `\` and `!`: what every shell keeps literally inside single quotes. */
function isSafe(char: string): boolean {
  const code = char.charCodeAt(0);
  return code >= 0x20 && code <= 0x7e && char !== "'" && char !== "\\" && char !== "!";
}

/** One argument as one word of the remote command (quotes included). */
export function remoteWord(arg: string): string {
  if (arg.includes("\0")) {
    throw new ToolError("invalid_arguments", "a value contains a NUL byte, which tmux cannot take");
  }
  if ([...arg].every(isSafe)) return `'l${arg}'`;
  let out = "o";
  for (const char of arg) {
    if (isSafe(char)) {
      out += char;
      continue;
    }
    for (const byte of encoder.encode(char)) out += `\\0${byte.toString(8).padStart(3, "0")}`;
  }
  return `'${out}'`;
}

/**
 * The string ssh sends as the remote command for `argv` (e.g. `["tmux", "-S", path, ...]`): any
 * remote login shell runs exactly that argv. `invalid_arguments` when it would be too long.
 */
export function remoteCommand(argv: readonly string[]): string {
  if (argv.length === 0) throw new Error("internal: an empty remote argv");
  const command = `exec sh -c '${DECODER}' sh ${argv.map(remoteWord).join(" ")}`;
  const bytes = encoder.encode(command).length;
  if (bytes > MAX_REMOTE_COMMAND_BYTES) {
    throw new ToolError(
      "invalid_arguments",
      `the command is too long to send to a remote host (${bytes} bytes encoded, at most ` +
        `${MAX_REMOTE_COMMAND_BYTES})`,
      { hint: "Send the text in smaller pieces." },
    );
  }
  return command;
}
