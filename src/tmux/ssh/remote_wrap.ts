/**
 * What runs around tmux on a remote host (docs/design.md §5.15): the POSIX `sh` wrapper that makes
 * every remote tmux client die with its ssh channel, the mark line it prints right before tmux
 * starts, and the check that a client we gave up on is gone. Pure text and parsing, no I/O.
 *
 * The channel's only sign of life on the remote side is its stdin: when our end closes (a call given
 * up, a connection dropped, this process killed), the remote command reads end of file. A tmux
 * client does not notice that (a control client hands its stdin to the server, which a stopped
 * server never reads; a command client never reads it), so our stdin is kept open for the whole
 * call and a watcher of ours reads it instead, and kills the client at end of file. The remote
 * `sh` is the session's leader (sshd starts each session with `setsid`, and every shell on the way
 * `exec`s), so its pid stays reserved while anything of the session lives. Three modes:
 *
 * - `n`, no input (almost every command): a watcher is started in the background, then the shell
 *   prints the mark with its own pid and becomes tmux (`exec`). The watcher kills `$$`: tmux while
 *   it runs, else a pid that cannot have been reused, since the watcher keeps its group alive.
 * - `dN`, N bytes for tmux's stdin (`load-buffer -`): tmux must see end of file after the bytes while
 *   our stdin stays open, so a feeder passes exactly N bytes (`head -c`) through a pipe, then waits
 *   for end of file and kills tmux.
 * - `s`, a stream (a control client): the feeder passes everything (`cat`) and kills tmux at end of
 *   file.
 *
 * In `dN` and `s` tmux runs in a pipeline, so its pid is not `$$`: the pipeline's end prints the mark
 * with its own pid and waits for one line, which we send once the mark has arrived: that pid again.
 * The feeder reads it first (it learns what to kill), passes it on, and only then does that shell
 * become tmux, so a call given up before the mark arrived never starts tmux at all. The feeder runs
 * detached from the pipeline (backgrounded by a shell that exits at once), so the wrapper waits for
 * tmux alone and exits with its status; the feeder's kill can reach a pid reaped an instant earlier
 * only in the moment between tmux's exit and the channel's end (Linux hands pids out in turn).
 *
 * Nothing is sent before the mark, so a start-up file that reads stdin (`read -t 1 line` in a
 * `.bashrc`) never eats tmux's input; in mode `n` one empty line goes first, which such a file may
 * take instead of waiting (the watcher ignores lines). Every script here holds only characters that
 * quote.ts sends literally (no `'`, `\` or `!`), so it costs no decoding.
 */

/** How a remote tmux client takes its stdin: none, exactly N bytes, or a stream. */
export type RemoteMode = "n" | `d${number}` | "s";

/**
 * The wrapper, run as `sh -c WRAPPER sh MODE INNER tmux ARGS…` (see the module comment); `mark` is
 * printed before the pid. Its lines, in order: the arguments and our stdin moved to fd 3; mode `n`
 * (watcher, mark, exec); a check that `head -c` works; the feeder and the pipeline.
 */
export function wrapperScript(mark: string): string {
  const watch = "while read -r l; do :; done";
  return [
    'm=$1 i=$2; shift 2; exec 3<&0 0</dev/null; if [ "$m" = n ]; then',
    `{ ${watch}; kill -KILL $$; } <&3 >/dev/null 2>&1 3<&- &`,
    `exec 3<&-; echo "${mark}$$"; exec "$@"; fi;`,
    "case $m in d*) head -c 0 >/dev/null || exit 1;; esac;",
    '{ { read -r p || exit; echo "$p"; case $m in s) cat;; *) head -c "${m#d}"; exec >&-;',
    `${watch};; esac; [ "$p" -gt 1 ] && kill -KILL "$p"; } <&3 2>/dev/null 3<&- & } |`,
    'sh -c "$i" sh "$@" 3<&-',
  ].join(" ");
}

/** The pipeline's end in modes `dN` and `s`: the mark, our echo of its pid, then tmux. */
export function innerScript(mark: string): string {
  return `echo "${mark}$$"; read -r x; [ "$x" = $$ ] && exec "$@"`;
}

/** The remote argv that runs `tmux ARGS` in `mode` (for src/tmux/ssh/quote.ts). */
export function wrappedArgv(mark: string, mode: RemoteMode, args: readonly string[]): string[] {
  return ["sh", "-c", wrapperScript(mark), "sh", mode, innerScript(mark), "tmux", ...args];
}

/**
 * Run as `sh -c CONFIRM sh PID ARGS`: exit 0 once `PID` is gone, or is no longer the process whose
 * `ps` arguments read `ARGS` (the pid was reused: ours is gone); while it is ours, kill it. Exit 1
 * when it is still there after about five seconds.
 */
export const CONFIRM_SCRIPT = 'n=0; while kill -0 "$1" 2>/dev/null; do ' +
  'if [ "$(ps -o args= -p "$1" 2>/dev/null)" = "$2" ]; then kill -KILL "$1"; else exit 0; fi; ' +
  "n=$((n+1)); [ $n -lt 50 ] || exit 1; sleep 0.1 2>/dev/null || sleep 1; done";

/** The remote argv of the check that our tmux client `pid`, started with `args`, is gone. */
export function confirmArgv(pid: number, args: readonly string[]): string[] {
  return ["sh", "-c", CONFIRM_SCRIPT, "sh", String(pid), ["tmux", ...args].join(" ")];
}

const NEWLINE = 0x0a;
/** Login-shell noise skipped before the mark line, at most. */
export const MAX_NOISE_BYTES = 65_536;

/**
 * Finds the mark line in what a remote command prints, chunk by chunk: the mark anywhere on a line
 * (a start-up file may print a title escape without a newline before it; the mark's 128 random bits
 * make a false match unlikely), then the pid and a newline.
 */
export class MarkScanner {
  readonly #mark: Uint8Array;
  #head: Uint8Array = new Uint8Array();

  /** A scanner for `mark` (printable ASCII). */
  constructor(mark: string) {
    this.#mark = new TextEncoder().encode(mark);
  }

  /**
   * Feed one chunk: the pid and the bytes after the line once found; undefined while not yet, or
   * `"noise"` once more than {@link MAX_NOISE_BYTES} came without it.
   */
  push(chunk: Uint8Array): { pid: number; rest: Uint8Array } | "noise" | undefined {
    const joined = new Uint8Array(this.#head.length + chunk.length);
    joined.set(this.#head);
    joined.set(chunk, this.#head.length);
    const found = findMarkLine(joined, this.#mark);
    if (found) {
      this.#head = new Uint8Array();
      return { pid: found.pid, rest: joined.subarray(found.rest) };
    }
    if (joined.length > MAX_NOISE_BYTES) return "noise";
    this.#head = joined;
    return undefined;
  }
}

/** The mark line in `bytes` (the mark anywhere on a line): its pid and where the rest starts. */
export function findMarkLine(
  bytes: Uint8Array,
  mark: Uint8Array,
): { pid: number; rest: number } | undefined {
  for (let at = bytes.indexOf(mark[0]); at >= 0; at = bytes.indexOf(mark[0], at + 1)) {
    if (at + mark.length > bytes.length) return undefined;
    if (!mark.every((byte, i) => bytes[at + i] === byte)) continue;
    let end = at + mark.length;
    let digits = "";
    while (end < bytes.length && bytes[end] >= 0x30 && bytes[end] <= 0x39) {
      digits += String.fromCharCode(bytes[end++]);
    }
    if (end < bytes.length && bytes[end] === NEWLINE && digits !== "") {
      return { pid: Number(digits), rest: end + 1 };
    }
  }
  return undefined;
}
