/**
 * run_shell_command's funnel (docs/design.md §7.9): stage a command in the pane's own shell
 * without files and follow its frames on the live stream; src/tmux/execute/run_wait.ts waits for
 * its end and reports it.
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
import { FramedRun } from "../../live/run_frame.ts";
import type { PaneStream } from "../../live/stream.ts";
import type { TmuxContext, TmuxReadContext } from "../core/context.ts";
import { nonce } from "../core/format.ts";
import { BUFFER_PREFIX } from "./input.ts";
import type { LiveEngine } from "../live/engine.ts";
import { NoRoom } from "../live/endings.ts";
import { checkOwnShell, launchFacts } from "./run_pane.ts";
import { execPrograms } from "./shell_words.ts";
import { runScript, typedLine } from "./run_script.ts";
import { checkGeneration } from "../read/generation.ts";
import { paneArg } from "../core/ids.ts";
import { settlesWithin } from "../../base/timing.ts";

export { POSIX_SHELLS, RUN_SHELLS } from "./run_pane.ts";

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

/** A command typed into its pane, with what following it needs (src/tmux/execute/run_wait.ts). */
export interface Launched {
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
  const line = typedLine(shell, socket, buffer);
  live.runs.add(run, stream);
  try {
    await ctx.beforeInput?.([paneId], [{ key: "C-u" }, { text: line }, { key: "Enter" }]);
    await ctx.runner.run([
      ["load-buffer", "-b", buffer, "-"],
      ["send-keys", "-t", paneArg(paneId), "C-u"],
      ["send-keys", "-l", "-t", paneArg(paneId), "--", line],
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
export async function deleteRunBuffer(ctx: TmuxReadContext, buffer: string): Promise<boolean> {
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
