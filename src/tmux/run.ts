/**
 * run_shell_command's funnel (docs/design.md §7.9): stage a command in the pane's own shell
 * without files, follow its frames on the live stream, and report how it ended.
 *
 * Staging, in one tmux invocation: the command, wrapped in a short script, is loaded from stdin
 * into a private buffer; `C-u` empties the shell's input line; one short line is typed —
 * ` eval "$(tmux -S '<socket>' save-buffer -b tmux-mcp-<nonce> -)"` — and Enter pressed. The
 * pane's shell reads the script back through tmux itself (the same server: `#{socket_path}`,
 * whatever `-L`/`-S` chose) and evaluates it: it deletes the buffer, prints the start frame, runs
 * the command with `eval` and stdin from /dev/null, and prints the end frame with `$?`
 * (src/live/frame.ts). The leading space keeps the line out of the history of shells that honour
 * it (bash `HISTCONTROL=ignorespace`, zsh `HIST_IGNORE_SPACE`); the command itself is never typed,
 * so it is never in any shell's history.
 *
 * Facts (checked on tmux 3.3a with bash 5.2, dash 0.5.12 and zsh 5.9):
 * - `pane_current_command` names the foreground process group's program without a login shell's
 *   `-` (`-bash` reads `bash`), and it is the shell itself while the shell runs a builtin.
 * - Unknown OSC numbers reach control clients in `%output` unchanged and are dropped by tmux's
 *   own parser: no capture and no client ever shows them.
 * - `printf '\033]…\007'` prints the escape in all three shells; `command eval '…' </dev/null`
 *   (zsh: `eval` in a try-block) runs builtins (`cd`, assignments, `exit`) in the shell itself, so
 *   its state is used and kept (see {@link runScript} for why `command`).
 */
import { ToolError } from "../errors.ts";
import { FramedRun, frameFormats, replaced } from "../live/frame.ts";
import { formatCursor, type PaneStream } from "../live/stream.ts";
import { markOf } from "../live/read.ts";
import type { TmuxContext, TmuxReadContext } from "./context.ts";
import { flag, int, nonce, parseRows, rowFormat, separators } from "./format.ts";
import { BUFFER_PREFIX } from "./input.ts";
import type { LiveEngine } from "./live.ts";
import { checkOwnShell, launchFacts } from "./run_pane.ts";
import { execPrograms } from "./shell_words.ts";
import { checkGeneration, generationOf, paneArg } from "./targets.ts";

export { POSIX_SHELLS } from "./run_pane.ts";

/** How long a command's shell gets to print the start frame after the deadline, before giving up. */
export const START_GRACE_MS = 2_000;
/** How often a waiting call looks at the pane itself (a pane kept dead by remain-on-exit). */
const PANE_CHECK_MS = 1_000;
/** How often progress is reported at most. */
export const PROGRESS_MS = 500;

/** What a waiting call reads of the pane: ids, numbers and the program. */
const RUN_TARGET = rowFormat("R", {
  paneId: "pane_id",
  panePid: "pane_pid",
  serverPid: "pid",
  currentCommand: "pane_current_command",
  dead: "pane_dead",
});

/** The pane a command runs in, as tmux sees it now. */
export interface RunPane {
  paneId: string;
  generation: string;
  currentCommand: string;
  dead: boolean;
}

/** Read the pane's program and process; undefined when there is no such pane. */
export async function runPane(
  ctx: TmuxReadContext,
  paneId: string,
  signal?: AbortSignal,
): Promise<RunPane | undefined> {
  const sep = separators();
  const out = await ctx.runner.runPartial(
    ["display-message", "-p", "-t", paneArg(paneId), RUN_TARGET.template(sep)],
    { signal },
  );
  if (out.error && out.error.code !== "target_not_found") throw out.error;
  const row = RUN_TARGET.decode(parseRows(out.stdout, sep))[0];
  // display-message answers for no pane at all when the pane is missing (docs/design.md §5.12).
  if (!row || row.paneId !== paneId) return undefined;
  return {
    paneId,
    generation: generationOf(int(row.serverPid), int(row.panePid)),
    currentCommand: row.currentCommand,
    dead: flag(row.dead),
  };
}

/** A value as one POSIX shell word: single quotes, each `'` written as `'\''`. */
function shellWord(value: string): string {
  return `'${value.replaceAll("'", `'\\''`)}'`;
}

/** The one line typed into the pane: it makes the shell read the script from the buffer. */
export function typedLine(socketPath: string, buffer: string): string {
  return ` eval "$(tmux -S ${shellWord(socketPath)} save-buffer -b ${buffer} -)"`;
}

/**
 * The script the shell evaluates: delete the buffer (before the command runs, so the command
 * cannot read the nonce from it), the start frame, the command — any text a shell accepts, as one
 * quoted `eval` argument, with a final newline so a trailing `\` or heredoc ends there — and the
 * end frame with the command's status.
 *
 * An interactive POSIX shell aborts the whole line, end frame included, when a special builtin
 * fails (dash: a syntax error in `eval`, `${x?}`, a redirection error on `:`), so `eval` runs
 * under `command`, which takes those properties away (checked in bash, bash --posix and dash).
 * zsh's `command` runs only external programs; there a try-block's `always` list prints the end
 * frame whatever ended the command, an error or C-c included.
 */
export function runScript(
  shell: string,
  socketPath: string,
  buffer: string,
  nonce: string,
  command: string,
): string {
  const frames = frameFormats(nonce);
  const evaluate = `eval ${shellWord(`${command}\n`)} </dev/null`;
  const end = `printf '${frames.exit}' "$?"`;
  return [
    `tmux -S ${shellWord(socketPath)} delete-buffer -b ${buffer} 2>/dev/null`,
    `printf '${frames.start}'`,
    ...(shell === "zsh" ? ["{", evaluate, "} always {", end, "}"] : [`command ${evaluate}`, end]),
    "",
  ].join("\n");
}

/** What a run is asked to do, and the pane as the input preflight just listed it. */
export interface RunRequest {
  /** The pane: its id and process generation (its program is read when launching). */
  pane: Pick<RunPane, "paneId" | "generation">;
  command: string;
  generation?: string;
  /** Every pane input to it reaches (from the input preflight): more than one is refused. */
  cohort: readonly string[];
}

/** A command typed into its pane, with what following it needs. */
export interface Launched {
  run: FramedRun;
  stream: PaneStream;
  /** Our buffer holding the script until the shell deletes it. */
  buffer: string;
  live: LiveEngine;
}

/**
 * Check the pane (its process, a POSIX shell in the foreground, not synchronized), follow its
 * stream, mark it busy and type the line. Call it with the pane held in the input queue, right
 * after the input preflight, with what that listing showed. Refusals: `target_denied`,
 * `stale_target`, `unsupported`.
 */
export async function launchRun(
  ctx: TmuxContext,
  live: LiveEngine,
  request: RunRequest,
  signal?: AbortSignal,
): Promise<Launched> {
  const { pane } = request;
  const paneId = pane.paneId;
  if (request.cohort.length > 1) {
    throw new ToolError(
      "target_denied",
      `pane ${paneId} is in a window with synchronize-panes on: the command would be typed into ` +
        `${request.cohort.length} panes at once`,
      {
        hint: "Pick a pane of another window, or turn synchronization off with " +
          "set_synchronize_panes {enabled: false} first.",
      },
    );
  }
  checkGeneration(pane, request.generation);
  const facts = await launchFacts(ctx, paneId, signal);
  checkOwnShell(paneId, facts);
  const socket = facts.socketPath;
  // deno-lint-ignore no-control-regex -- a newline would end the typed line early
  if (/[\0-\x1f\x7f]/.test(socket) || !socket.startsWith("/")) {
    throw new ToolError(
      "unsupported",
      "the tmux socket's path holds a control character or is not absolute, so the pane's " +
        "shell cannot be given it on one line",
      { hint: "Use send_keys or paste_text in this pane." },
    );
  }
  const stream = await live.join(paneId, signal);
  if (stream.generation !== pane.generation) {
    throw new ToolError("stale_target", `pane ${paneId} was replaced while the call started`, {
      hint: "Call list_panes and decide again.",
    });
  }
  const buffer = `${BUFFER_PREFIX}${nonce()}`;
  const shell = facts.currentCommand;
  const execs = execPrograms(request.command);
  const run = new FramedRun({ paneId, generation: pane.generation, shell, buffer, execs });
  const script = runScript(shell, socket, buffer, run.nonce, request.command);
  live.runs.add(run, stream);
  try {
    await ctx.runner.run([
      ["load-buffer", "-b", buffer, "-"],
      ["send-keys", "-t", paneArg(paneId), "C-u"],
      ["send-keys", "-l", "-t", paneArg(paneId), "--", typedLine(socket, buffer)],
      ["send-keys", "-t", paneArg(paneId), "Enter"],
    ], { effects: "possible", stdin: new TextEncoder().encode(script), signal });
  } catch (error) {
    live.runs.release(run);
    await deleteRunBuffer(ctx, buffer);
    throw error;
  }
  return { run, stream, buffer, live };
}

/**
 * Delete one of our buffers; true when it was still there. Never throws (it runs while a call
 * ends, cancelled or not).
 */
async function deleteRunBuffer(ctx: TmuxReadContext, buffer: string): Promise<boolean> {
  if (!buffer.startsWith(BUFFER_PREFIX)) throw new Error("internal: not one of our buffers");
  try {
    const out = await ctx.runner.runPartial(["delete-buffer", "-b", buffer], {
      effects: "possible",
    });
    return out.error === undefined;
  } catch {
    return false;
  }
}

/** How a framed command's call ended (the waits' vocabulary). */
export type RunOutcome = "completed" | "timeout" | "pane_died" | "server_gone";

/** What {@link awaitRun} found. */
export interface RunEnd {
  outcome: RunOutcome;
  /** The command's `$?`, when it completed. */
  exitStatus?: number;
  /** The command's own output as the terminal shows it (or what came before the call ended). */
  text: string;
  /** Rows of that output that left the stream's history before they could be read. */
  missedRows: number;
  /** A cursor to follow the pane with capture_since, while its stream lives. */
  cursor?: string;
  /** Why the command never started, when it did not. */
  note?: string;
}

/** Options of {@link awaitRun}. */
export interface AwaitOptions {
  /** When the call started (ms since epoch): the deadline counts from it. */
  startedAt: number;
  timeoutMs: number;
  signal: AbortSignal;
  /** Called at most every {@link PROGRESS_MS} with the newest output row. */
  onProgress?: (elapsedMs: number, newestRow: string) => void;
}

/**
 * Wait for the command's end frame, the pane's death, the stream's end, the deadline or the
 * call's cancellation (then the call fails with `cancelled`; the command goes on, and so does
 * its busy mark). A command that has not started by the deadline gets {@link START_GRACE_MS}
 * more; then its buffer is deleted, and once that succeeded it can no longer start, so its mark
 * ends and the note says why.
 */
export async function awaitRun(
  ctx: TmuxReadContext,
  launched: Launched,
  options: AwaitOptions,
): Promise<RunEnd> {
  const { run, stream } = launched;
  const deadline = options.startedAt + options.timeoutMs;
  let nextCheck = Date.now() + PANE_CHECK_MS;
  let nextProgress = options.startedAt + PROGRESS_MS;
  try {
    for (;;) {
      if (run.exit) return finish(launched, "completed");
      if (run.lost || stream.ended) return await lostRun(ctx, launched);
      const now = Date.now();
      if (now >= deadline) break;
      if (now >= nextCheck) {
        const state = await paneState(ctx, run, options.signal);
        if (state !== "alive") {
          launched.live.runs.release(run);
          if (state !== "replaced") return finish(launched, state);
          return { ...finish(launched, "timeout"), note: REPLACED_NOTE };
        }
        nextCheck = Date.now() + PANE_CHECK_MS;
      }
      if (options.onProgress && now >= nextProgress) {
        options.onProgress(now - options.startedAt, run.newestRow(stream.emulator));
        nextProgress = now + PROGRESS_MS;
      }
      const wake = Math.min(deadline, nextCheck, options.onProgress ? nextProgress : deadline);
      // The stream's end rejects the wait; the loop reads why from the stream.
      await stream.waitForChange(Math.max(1, wake - Date.now()), options.signal).catch((e) => {
        if (!stream.ended) throw e;
      });
    }
  } catch (error) {
    if (!run.started) void settleUnstarted(ctx, launched);
    throw error;
  }
  const unstarted = run.started ? "started" : await settleUnstarted(ctx, launched);
  if (unstarted !== "started") {
    const within = `within ${options.timeoutMs + START_GRACE_MS} ms of the typed line`;
    return {
      ...finish(launched, "timeout"),
      note: unstarted === "withdrawn"
        ? `the pane's shell did not start the command ${within}, so it was withdrawn and ` +
          "will not run (is tmux on that shell's PATH? was a line half-typed, or another " +
          "program reading the terminal?)"
        : `the pane's shell took the command but printed no start frame ${within} (is its ` +
          "output redirected by `exec >file`, or printf redefined?): its output and end cannot " +
          "be seen, and the pane is no longer marked busy",
    };
  }
  if (run.exit) return finish(launched, "completed");
  if (run.lost || stream.ended) return await lostRun(ctx, launched);
  return finish(launched, "timeout");
}

/**
 * Give a command that has not printed its start frame a last {@link START_GRACE_MS}; then delete
 * its buffer. `withdrawn`: it will never run (the buffer was still there). `silent`: the shell
 * read the buffer but no start frame came, so nothing will tell when it ends. Either way its mark
 * ends (docs/design.md §6.12).
 */
async function settleUnstarted(
  ctx: TmuxReadContext,
  launched: Launched,
): Promise<"started" | "withdrawn" | "silent"> {
  const { run, stream } = launched;
  const until = Date.now() + START_GRACE_MS;
  const never = new AbortController().signal;
  while (!run.started && !stream.ended && Date.now() < until) {
    await stream.waitForChange(until - Date.now(), never).catch(() => {});
  }
  if (run.started || stream.ended) return "started";
  const withdrawn = await deleteRunBuffer(ctx, launched.buffer);
  launched.live.runs.release(run);
  return withdrawn ? "withdrawn" : "silent";
}

const REPLACED_NOTE = "the command replaced the pane's shell (exec): the program it started " +
  "runs on, no end frame will come, and the pane is no longer marked busy";

/**
 * Whether the command's pane still runs its process (and its shell, not a program the command
 * exec'd): a pane kept dead by `remain-on-exit` ends
 * no stream, so a waiting call looks. A failed look that is not about the server is not an
 * answer (the next one is).
 */
async function paneState(
  ctx: TmuxReadContext,
  run: FramedRun,
  signal: AbortSignal,
): Promise<"alive" | "pane_died" | "server_gone" | "replaced"> {
  try {
    const pane = await runPane(ctx, run.paneId, signal);
    if (!pane || pane.dead || pane.generation !== run.generation) return "pane_died";
    return replaced(run, pane.currentCommand) ? "replaced" : "alive";
  } catch (error) {
    if (!(error instanceof ToolError) || error.code === "cancelled") throw error;
    const gone = error.code === "server_not_running" || error.code === "server_gone";
    return gone ? "server_gone" : "alive";
  }
}

/** The stream ended before the end frame: the pane died, or the server or connection went. */
async function lostRun(ctx: TmuxReadContext, launched: Launched): Promise<RunEnd> {
  const reason = launched.run.lost?.reason ?? launched.stream.ended;
  launched.live.runs.release(launched.run);
  if (reason?.code === "server_gone") return finish(launched, "server_gone");
  if (reason?.code === "target_not_found") return finish(launched, "pane_died");
  // Replaced (respawned), moved to another session, or its connection closed to make room.
  const pane = await runPane(ctx, launched.run.paneId).catch(() => undefined);
  if (!pane || pane.dead || pane.generation !== launched.run.generation) {
    return finish(launched, "pane_died");
  }
  throw (reason ?? new ToolError("server_gone", "the pane's stream ended")).withEffects("possible");
}

/** The result of a run that ended (or stopped being waited for) with `outcome`. */
function finish(launched: Launched, outcome: RunOutcome): RunEnd {
  const { run, stream } = launched;
  const emulator = stream.ended ? undefined : stream.emulator;
  const output = run.output(emulator);
  return {
    outcome,
    ...(outcome === "completed" && run.exit ? { exitStatus: run.exit.status } : {}),
    text: output.text,
    missedRows: output.missedRows,
    ...(emulator ? { cursor: formatCursor(stream.id, stream.remember(markOf(emulator))) } : {}),
  };
}
