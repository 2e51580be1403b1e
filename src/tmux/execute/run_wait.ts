/**
 * Waiting for a framed command's end (docs/design.md §7.9): run_shell_command's own wait, and
 * wait_for_command's for a command whose call timed out. Each answer gives the output since the
 * previous answer for that command (or since the one whose cursor the agent passes back), with
 * the exit status at the end (src/live/run_delta.ts).
 *
 * A command whose shell has not read its line by the deadline — one still running its start-up
 * files reads it only at its first prompt — stays followable: the line waits in the terminal's
 * input queue, which no key takes back without interrupting the shell, and runs when the shell
 * reads it. It is withdrawn only once the shell is seen reading a new line at a prompt without
 * having started it: then it never will.
 */
import { ToolError } from "../../errors.ts";
import { type Given, replaced } from "../../live/run_frame.ts";
import { formatCursor } from "../../live/cursor.ts";
import { markOf } from "../../live/row_changes.ts";
import type { TmuxReadContext } from "../core/context.ts";
import type { LiveEngine } from "../live/engine.ts";
import { type PaneFate, paneFate } from "../read/queries.ts";
import { deleteRunBuffer, type Launched } from "./run.ts";

/** How long a typed line gets to start the command (and a shell seen at a prompt, to read it). */
const START_GRACE_MS = 2_000;
/** How often a waiting call looks at the pane itself (a pane kept dead by remain-on-exit). */
const PANE_CHECK_MS = 1_000;
/** How often progress is reported at most. */
const PROGRESS_MS = 500;

/** How a framed command's call ended (the waits' vocabulary). */
type RunOutcome = "completed" | "timeout" | "pane_died" | "server_gone";

/** What {@link awaitRun} found. */
export interface RunEnd {
  outcome: RunOutcome;
  /** The command's `$?`, when it completed. */
  exitStatus?: number;
  /**
   * The command's output as the terminal shows it (or showed it at its end) since the answer the
   * wait was asked to follow — all of it for the first answer or with `from: "start"`.
   */
  text: string;
  /** Rows of that output that left the stream's history before they could be read. */
  missedRows: number;
  /** Lines earlier answers gave that `text` gives again: the program redrew them. */
  redrawn: number;
  /** A cursor to follow the pane with capture_since, and to name this answer to a later one. */
  cursor?: string;
  /** What became of a command that has not started, or whose end cannot be seen. */
  note?: string;
  /** A timeout whose command can still be followed to its end (its busy mark holds). */
  followable: boolean;
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
  /** The output given starts after this answer's place (default: the newest), or at its start. */
  from?: Given | "start";
}

/** How a wait ended, before its output is read. */
interface Ending {
  outcome: RunOutcome;
  note?: string;
}

/**
 * Wait for the command's end frame, the pane's death, the stream's end, the deadline or the
 * call's cancellation (then the call fails with `cancelled`; the command goes on, and so does
 * its busy mark), and answer with the output since `options.from`. A command that has not started
 * by the deadline is settled by {@link settleUnstarted}.
 */
export async function awaitRun(
  ctx: TmuxReadContext,
  launched: Launched,
  options: AwaitOptions,
): Promise<RunEnd> {
  const ending = await waitForEnd(ctx, launched, options);
  return answer(launched, ending, options.from);
}

/** {@link awaitRun}'s wait: how it ended. */
async function waitForEnd(
  ctx: TmuxReadContext,
  launched: Launched,
  options: AwaitOptions,
): Promise<Ending> {
  const { run, stream } = launched;
  const deadline = options.startedAt + options.timeoutMs;
  let nextCheck = Date.now() + PANE_CHECK_MS;
  let nextProgress = options.startedAt + PROGRESS_MS;
  try {
    for (;;) {
      if (run.exit) return { outcome: "completed" };
      if (run.lost || stream.ended) return await lostRun(ctx, launched);
      if (options.resumed && !launched.live.runs.holds(run)) {
        return await releasedRun(ctx, launched, options.signal);
      }
      const now = Date.now();
      if (now >= deadline) break;
      if (now >= nextCheck) {
        const { state, currentCommand } = await runPaneFate(ctx, launched, options.signal);
        // A later call applies the busy check's rules itself (an interrupted command's mark ends).
        if (state === "alive" && options.resumed && currentCommand !== undefined) {
          const { paneId, generation } = run;
          launched.live.runs.pending({ paneId, generation, dead: false, currentCommand });
        }
        if (state !== "alive") {
          launched.live.runs.release(run);
          if (state !== "replaced") return { outcome: state };
          return { outcome: "timeout", note: REPLACED_NOTE };
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
  if (unstarted !== "started") return { outcome: "timeout", note: UNSTARTED_NOTES[unstarted] };
  if (run.exit) return { outcome: "completed" };
  if (run.lost || stream.ended) return await lostRun(ctx, launched);
  return { outcome: "timeout" };
}

/** What became of a command with no start frame at the deadline. */
type Unstarted = "started" | "queued" | "withdrawn" | "silent";

const UNSTARTED_NOTES: Record<Exclude<Unstarted, "started">, string> = {
  queued: "the pane's shell has not read the command's line yet (is it still running its " +
    "start-up files?): the command runs once it does. Follow it with wait_for_command; the " +
    "pane stays busy until then",
  withdrawn: "the pane's shell read the line but did not start the command, so it was " +
    "withdrawn and will not run (is tmux on that shell's PATH? did another program read the line?)",
  silent: "the pane's shell took the command but printed no start frame (is its output " +
    "redirected by `exec >file`, or printf redefined?): its output and end cannot be seen, and " +
    "the pane is no longer marked busy",
};

/**
 * Settle a command that has not printed its start frame (docs/design.md §7.9). A line typed less
 * than {@link START_GRACE_MS} ago gets the rest of that time. Then: `silent` — the shell read our
 * buffer (it is gone) yet no start frame came; `withdrawn` — the shell's line editor was seen
 * reading a new line at least that long ago without starting it, so the buffer is deleted and it
 * never will; `queued` — neither: the line still waits for the shell (its start-up files run), so
 * the run and its mark stay. The first two end the mark (§6.12).
 */
async function settleUnstarted(ctx: TmuxReadContext, launched: Launched): Promise<Unstarted> {
  const { run, stream } = launched;
  const began = () => run.started || stream.ended !== undefined;
  await startBy(launched, run.typedAt + START_GRACE_MS);
  if (run.editorAt !== undefined) await startBy(launched, run.editorAt + START_GRACE_MS);
  if (began()) return "started";
  const held = await bufferHeld(ctx, launched.buffer);
  if (held === true && run.editorAt !== undefined) {
    if (await deleteRunBuffer(ctx, launched.buffer)) {
      launched.live.runs.release(run);
      return "withdrawn";
    }
  } else if (held !== false) return "queued";
  // The shell read the script, which deletes the buffer just before its start frame.
  if (run.editorAt === undefined) await startBy(launched, Date.now() + START_GRACE_MS);
  if (began()) return "started";
  launched.live.runs.release(run);
  return "silent";
}

/** Wait until the command started, its stream ended, or `until` (ms since epoch). */
async function startBy(launched: Launched, until: number): Promise<void> {
  const { run, stream } = launched;
  const never = new AbortController().signal;
  while (!run.started && !stream.ended && Date.now() < until) {
    await stream.waitForChange(until - Date.now(), never).catch(() => {});
  }
}

/** Whether tmux still holds our buffer (undefined when the look failed). Never throws. */
async function bufferHeld(ctx: TmuxReadContext, buffer: string): Promise<boolean | undefined> {
  try {
    const out = await ctx.runner.runPartial(["list-buffers", "-F", "#{buffer_name}"]);
    return out.error ? undefined : out.stdout.split("\n").includes(buffer);
  } catch {
    return undefined;
  }
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
  launched: Launched,
  signal: AbortSignal,
): Promise<{ state: "alive" | PaneFate | "replaced"; currentCommand?: string }> {
  const { run } = launched;
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
): Promise<Ending> {
  // A command that never started must not start later, unseen.
  if (!launched.run.started) await deleteRunBuffer(ctx, launched.buffer);
  const { state } = await runPaneFate(ctx, launched, signal);
  if (state === "pane_died" || state === "server_gone") return { outcome: state };
  return { outcome: "timeout", note: state === "replaced" ? REPLACED_NOTE : RELEASED_NOTE };
}

/** The stream ended before the end frame: the pane died, or the server or connection went. */
async function lostRun(ctx: TmuxReadContext, launched: Launched): Promise<Ending> {
  const reason = launched.run.lost?.reason ?? launched.stream.ended;
  launched.live.runs.release(launched.run);
  if (reason?.code === "server_gone") return { outcome: "server_gone" };
  if (reason?.code === "target_not_found") return { outcome: "pane_died" };
  // Replaced (respawned), moved to another session, or its connection closed to make room.
  const { fate } = await paneFate(ctx, launched.run.paneId, launched.run.generation);
  if (fate !== "alive") return { outcome: fate };
  throw (reason ?? new ToolError("server_gone", "the pane's stream ended")).withEffects("possible");
}

/**
 * The answer of a wait that ended as `ending`: the output since `from` (default: the newest
 * answer's place), and this answer's place kept under its cursor for the next one.
 */
function answer(launched: Launched, ending: Ending, from?: Given | "start"): RunEnd {
  const { run, stream } = launched;
  const emulator = stream.ended ? undefined : stream.emulator;
  const { delta, next } = run.since(emulator, from === "start" ? undefined : from ?? run.latest);
  const cursor = emulator ? formatCursor(stream.id, stream.remember(markOf(emulator))) : undefined;
  run.gave(next, cursor);
  return {
    outcome: ending.outcome,
    ...(ending.outcome === "completed" && run.exit ? { exitStatus: run.exit.status } : {}),
    ...delta,
    ...(cursor ? { cursor } : {}),
    ...(ending.note ? { note: ending.note } : {}),
    followable: ending.outcome === "timeout" && launched.live.runs.holds(run),
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

/** Where wait_for_command's answer starts: after an earlier answer's cursor, or at the start. */
export interface ResumeFrom {
  since?: string;
  whole?: boolean;
}

/**
 * Wait again for the command `runId` names, as {@link awaitRun} does, answering the output since
 * the previous answer for it, since the answer whose cursor `from.since` names, or all of it
 * (`from.whole`). A runId this session does not hold, a cursor no answer for it carried, and a
 * command whose end can no longer be seen (its mark ended without an end frame, its stream was
 * lost) are refused with `stale_cursor`. A command that ended stays asked for until its runId
 * expires, so a lost last answer can be asked again.
 */
export async function resumeRun(
  ctx: TmuxReadContext,
  live: LiveEngine,
  runId: string,
  owner: object,
  options: Omit<AwaitOptions, "from" | "resumed"> & { from: ResumeFrom },
): Promise<RunEnd> {
  const ticket = live.runs.redeem(runId, owner);
  if (!ticket) {
    throw new ToolError("stale_cursor", "this session holds no command with that runId", {
      hint: "A runId comes from run_shell_command's timeout in this session and is forgotten " +
        "10 minutes after its last use; use capture_since or list_panes to see the pane.",
    });
  }
  const { run, stream, buffer } = ticket;
  const { since, whole } = options.from;
  const from = whole ? "start" : since === undefined ? undefined : run.given(since);
  if (since !== undefined && from === undefined) {
    throw new ToolError("stale_cursor", "no answer for this runId carried that cursor", {
      hint: "Pass the cursor of an earlier run_shell_command or wait_for_command answer for " +
        "this runId (the last 32 are kept), whole: true for all of its output, or neither for " +
        "the output since the previous answer.",
    });
  }
  const unknown = (why: string) =>
    new ToolError("stale_cursor", `the command's end cannot be known: ${why}`, {
      hint: "Read the pane with capture_pane, or run the command again.",
    });
  let end: RunEnd;
  try {
    end = await awaitRun(ctx, { run, stream, buffer, live }, {
      ...options,
      resumed: true,
      from,
    });
  } catch (error) {
    if (!(error instanceof ToolError) || error.code !== "stale_cursor") throw error;
    live.runs.forget(runId);
    throw unknown(error.message);
  }
  if (end.outcome === "timeout" && !end.followable) {
    live.runs.forget(runId);
    throw unknown(end.note ?? "its busy mark ended without an end frame");
  }
  return end;
}
