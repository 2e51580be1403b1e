/**
 * run_shell_command's funnel (docs/design.md §7.9): stage a command in the pane's own shell
 * without files, follow its frames on the live stream, and report how it ended.
 *
 * Staging, in one tmux invocation: the command, wrapped in a short script, is loaded from stdin
 * into a private buffer; `C-u` empties the shell's input line; one short line is typed —
 * ` eval "$(tmux -S '<socket>' save-buffer -b tmux-mcp-<nonce> -)"`, or fish's own spelling
 * (src/tmux/execute/run_script.ts) — and Enter pressed. The pane's shell reads the script back
 * through tmux itself (the same server: `#{socket_path}`, whatever `-L`/`-S` chose) and evaluates
 * it: it deletes the buffer, prints the start frame, runs the command with `eval` and stdin from
 * /dev/null, and prints the end frame with `$?` (fish: `$status`; src/live/run_frame.ts).
 *
 * Facts (checked on tmux 3.3a with bash 5.2, dash 0.5.12, zsh 5.9 and fish 3.6):
 * - `pane_current_command` names the foreground process group's program without a login shell's
 *   `-` (`-bash` reads `bash`), and it is the shell itself while the shell runs a builtin.
 * - Unknown OSC numbers reach control clients in `%output` unchanged and are dropped by tmux's
 *   own parser: no capture and no client ever shows them.
 * - `printf '\033]…\007'` prints the escape in all four shells; `command eval '…' </dev/null`
 *   (zsh: `eval` in a try-block; fish: `eval`) runs builtins (`cd`, assignments, `exit`) in the
 *   shell itself, so its state is used and kept (see runScript for why `command`).
 */
import { ToolError } from "../../errors.ts";
import { FramedRun, replaced } from "../../live/run_frame.ts";
import { formatCursor } from "../../live/cursor.ts";
import { markOf } from "../../live/row_changes.ts";
import type { PaneStream } from "../../live/stream.ts";
import type { TmuxContext, TmuxReadContext } from "../core/context.ts";
import { nonce } from "../core/format.ts";
import { BUFFER_PREFIX } from "./input.ts";
import type { LiveEngine } from "../live/engine.ts";
import { NoRoom } from "../live/endings.ts";
import { checkOwnShell, launchFacts } from "./run_pane.ts";
import { execPrograms } from "./shell_words.ts";
import { runScript, typedLine } from "./run_script.ts";
import { type PaneFate, paneFate } from "../read/queries.ts";
import { checkGeneration } from "../read/generation.ts";
import { paneArg } from "../core/ids.ts";
import { settlesWithin } from "../../base/timing.ts";

export { POSIX_SHELLS, RUN_SHELLS } from "./run_pane.ts";

/** How long a command's shell gets to print the start frame after the deadline, before giving up. */
const START_GRACE_MS = 2_000;
/** How often a waiting call looks at the pane itself (a pane kept dead by remain-on-exit). */
const PANE_CHECK_MS = 1_000;
/** How often progress is reported at most. */
const PROGRESS_MS = 500;
/**
 * How long the attach gate stays held after staging while the pane's shell has not printed the
 * start frame (it deletes our buffer first): a shell that never reads the line frees it then.
 */
const SHELL_DELETE_HOLD_MS = 5_000;

/** What a run is asked to do, and the pane as the input preflight just listed it. */
interface RunRequest {
  /** The pane: its id and process generation (its program is read when launching). */
  pane: { paneId: string; generation: string };
  command: string;
  generation?: string;
}

/** A command typed into its pane, with what following it needs. */
interface Launched {
  run: FramedRun;
  stream: PaneStream;
  /** Our buffer holding the script until the shell deletes it. */
  buffer: string;
  live: LiveEngine;
}

/**
 * Check the pane (its process, its own shell in the foreground), follow its
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
  const stream = await live.join(paneId, signal).catch((error) => {
    if (!(error instanceof NoRoom)) throw error;
    throw new ToolError("busy", `${error.message}, and a command's frames are only seen live`, {
      hint: "Use send_keys with waitFor in this pane (it is polled), or retry when a followed " +
        "session is no longer read (streams end 5 minutes after their last read).",
    });
  });
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
      ["send-keys", "-l", "-t", paneArg(paneId), "--", typedLine(shell, socket, buffer)],
      ["send-keys", "-t", paneArg(paneId), "Enter"],
    ], {
      effects: "possible",
      stdin: new TextEncoder().encode(script),
      signal,
      // The pane's shell deletes the buffer (a notifying command of ours, §7.4) before the start
      // frame: no attach of ours until then, or for a few seconds if the shell never reads it.
      holdGateUntil: settlesWithin(run.begun, SHELL_DELETE_HOLD_MS),
    });
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
type RunOutcome = "completed" | "timeout" | "pane_died" | "server_gone";

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
interface AwaitOptions {
  /** When the call started (ms since epoch): the deadline counts from it. */
  startedAt: number;
  timeoutMs: number;
  signal: AbortSignal;
  /** Called at most every {@link PROGRESS_MS} with the newest output row. */
  onProgress?: (elapsedMs: number, newestRow: string) => void;
  /** A later call (wait_for_command): a mark that ended without an end frame ends the wait. */
  resumed?: boolean;
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
      if (options.resumed && !launched.live.runs.holds(run)) {
        return await releasedRun(ctx, launched, options.signal);
      }
      const now = Date.now();
      if (now >= deadline) break;
      if (now >= nextCheck) {
        const { state, currentCommand } = await runPaneFate(ctx, run, options.signal);
        // A later call applies the busy check's rules itself (an interrupted command's mark ends).
        if (state === "alive" && options.resumed && currentCommand !== undefined) {
          const { paneId, generation } = run;
          launched.live.runs.pending({ paneId, generation, dead: false, currentCommand });
        }
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

const RELEASED_NOTE = "the pane stopped being marked busy before the command's end frame came " +
  "(a key such as C-c interrupted it, or it never started), so its end cannot be known";

/**
 * Whether the command's pane still runs its process (and its shell, not a program the command
 * exec'd): a pane kept dead by `remain-on-exit` ends no stream, so a waiting call looks
 * ({@link paneFate}: a failed look is not an answer, the next one is).
 */
async function runPaneFate(
  ctx: TmuxReadContext,
  run: FramedRun,
  signal: AbortSignal,
): Promise<{ state: "alive" | PaneFate | "replaced"; currentCommand?: string }> {
  const { fate, currentCommand } = await paneFate(ctx, run.paneId, run.generation, signal);
  if (fate !== "alive") return { state: fate };
  const exec = currentCommand !== undefined && replaced(run, currentCommand);
  return { state: exec ? "replaced" : "alive", currentCommand };
}

/** The mark ended without an end frame (a later call finds it so): how, as far as it is known. */
async function releasedRun(
  ctx: TmuxReadContext,
  launched: Launched,
  signal: AbortSignal,
): Promise<RunEnd> {
  const { state } = await runPaneFate(ctx, launched.run, signal);
  if (state === "pane_died" || state === "server_gone") return finish(launched, state);
  const note = state === "replaced" ? REPLACED_NOTE : RELEASED_NOTE;
  return { ...finish(launched, "timeout"), note };
}

/** The stream ended before the end frame: the pane died, or the server or connection went. */
async function lostRun(ctx: TmuxReadContext, launched: Launched): Promise<RunEnd> {
  const reason = launched.run.lost?.reason ?? launched.stream.ended;
  launched.live.runs.release(launched.run);
  if (reason?.code === "server_gone") return finish(launched, "server_gone");
  if (reason?.code === "target_not_found") return finish(launched, "pane_died");
  // Replaced (respawned), moved to another session, or its connection closed to make room.
  const { fate } = await paneFate(ctx, launched.run.paneId, launched.run.generation);
  if (fate !== "alive") return finish(launched, fate);
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

/**
 * Keep a command whose call timed out for wait_for_command: its runId, which only `owner` (the
 * MCP session) can redeem. The live engine holds it (docs/design.md §7.9).
 */
export function keepRun(launched: Launched, owner: object): string {
  const { run, stream, buffer, live } = launched;
  return live.runs.ticket({ run, stream, buffer, owner });
}

/**
 * Wait again for the command `runId` names, as {@link awaitRun} does. A runId this session does
 * not hold, and a command whose end can no longer be seen (its mark ended without an end frame,
 * its stream was lost), are refused with `stale_cursor`; a runId is forgotten once its end was
 * reported.
 */
export async function resumeRun(
  ctx: TmuxReadContext,
  live: LiveEngine,
  runId: string,
  owner: object,
  options: AwaitOptions,
): Promise<RunEnd> {
  const ticket = live.runs.redeem(runId, owner);
  if (!ticket) {
    throw new ToolError("stale_cursor", "this session holds no command with that runId", {
      hint: "A runId comes from run_shell_command's timeout in this session and is forgotten " +
        "once its end was reported; use capture_since or list_panes to see the pane.",
    });
  }
  const { run, stream, buffer } = ticket;
  const unknown = (why: string) =>
    new ToolError("stale_cursor", `the command's end cannot be known: ${why}`, {
      hint: "Read the pane with capture_pane, or run the command again.",
    });
  let end: RunEnd;
  try {
    end = await awaitRun(ctx, { run, stream, buffer, live }, { ...options, resumed: true });
  } catch (error) {
    if (!(error instanceof ToolError) || error.code !== "stale_cursor") throw error;
    live.runs.forget(runId);
    throw unknown(error.message);
  }
  if (end.outcome !== "timeout") live.runs.forget(runId);
  else if (end.note) {
    live.runs.forget(runId);
    throw unknown(end.note);
  }
  return end;
}
