/**
 * Start directories of the panes the lifecycle tools create: checked before a spawn, read back
 * after it (docs/design.md §5.12).
 *
 * - A `-c` directory that does not exist is no error: the shell silently starts in the tmux
 *   server's own working directory (3.3a; later versions fall back to $HOME, then /). So it is
 *   checked first: `load-buffer DIR/.` can only open a directory, reads nothing from it (3.3a
 *   succeeds without creating a buffer; later versions report an I/O error), and fails with
 *   ENOENT, ENOTDIR or EACCES otherwise.
 * - `pane_current_path` right after a spawn may still read empty (the child has not taken its
 *   terminal yet), so an empty or unexpected answer is read again.
 */
import { preview, ToolError } from "../../errors.ts";
import { pauseUnlessAborted } from "../../base/timing.ts";
import type { TmuxCommand } from "../core/argv.ts";
import type { TmuxContext } from "../core/context.ts";
import { literal, nonce, parseRows, rowFormat, separators } from "../core/format.ts";
import { BUFFER_PREFIX } from "./input.ts";
import { checkPrintable } from "../manage/labels.ts";
import { paneArg } from "../core/ids.ts";

/** How long an empty or unexpected `pane_current_path` is read again, at most. */
const PATH_SETTLE_MS = 1000;
const PATH_POLL_MS = 25;

const PATH = rowFormat("D", { paneId: "pane_id", path: "pane_current_path" });

/** Check a start directory: absolute, printable, valid Unicode. */
export function checkStartDirectory(value: string): string {
  checkPrintable(value, "startDirectory");
  if (!value.startsWith("/")) {
    throw new ToolError("invalid_arguments", `startDirectory ${preview(value)} is not absolute`, {
      hint: 'Pass an absolute path such as "/home/me/project" (no ~, no relative path).',
    });
  }
  return value;
}

/** A path without empty, "." and trailing components, for comparing with what tmux reads back. */
function lexicalPath(path: string): string {
  const parts = path.split("/").filter((part) => part !== "" && part !== ".");
  return `/${parts.join("/")}`;
}

/** The refusal for a start directory tmux could not start a shell in. */
export function directoryError(
  dir: string,
  reason: string,
  effects: "none" | "possible",
): ToolError {
  return new ToolError("invalid_arguments", `startDirectory ${preview(dir)} ${reason}`, {
    effects,
    hint: "Pass the absolute path of an existing directory you can enter: tmux would silently " +
      "start the shell somewhere else.",
  });
}

/** The load-buffer command that checks a directory (the buffer is never created). */
export function probeCommand(dir: string): TmuxCommand {
  const path = `${literal(dir)}${dir.endsWith("/") ? "" : "/"}.`;
  return ["load-buffer", "-b", `${BUFFER_PREFIX}${nonce()}`, path];
}

/** Undefined when the probe's failure means "a directory" (a read error after the open). */
export function probeVerdict(error: ToolError | undefined): string | undefined {
  if (!error) return undefined;
  if (error.code !== "tmux_failed") throw error;
  if (/Input\/output error|Is a directory/.test(error.message)) return undefined;
  return /Permission denied/.test(error.message)
    ? "is not accessible"
    : "does not exist or is not a directory";
}

/**
 * Check that `dir` is a directory, through tmux. Returns false when no server runs (nothing
 * could be checked); throws `invalid_arguments` when it is not a usable directory.
 */
export async function checkDirectory(
  ctx: TmuxContext,
  dir: string,
  signal?: AbortSignal,
): Promise<boolean> {
  const result = await ctx.runner.runPartial([probeCommand(dir)], { signal });
  if (result.error?.code === "server_not_running") return false;
  const reason = probeVerdict(result.error);
  if (reason) throw directoryError(dir, reason, "none");
  return true;
}

/**
 * The pane's working directory once it has settled: an empty answer (the child has not taken
 * its terminal yet) or one that differs from the directory asked for (a symlink's target, or a
 * read from before the child changed directory) is read again until two reads agree.
 */
export async function settledPath(
  ctx: TmuxContext,
  pane: { paneId: string; path: string },
  wanted: string | undefined,
  signal?: AbortSignal,
): Promise<string> {
  let previous = pane.path;
  if (previous !== "" && (wanted === undefined || previous === lexicalPath(wanted))) {
    return previous;
  }
  const deadline = Date.now() + PATH_SETTLE_MS;
  while (Date.now() < deadline && !signal?.aborted) {
    await pauseUnlessAborted(PATH_POLL_MS, signal);
    const sep = separators();
    const out = await ctx.runner.runPartial(
      ["display-message", "-p", "-t", paneArg(pane.paneId), PATH.template(sep)],
      { signal },
    );
    const row = PATH.decode(parseRows(out.stdout, sep))[0];
    // The pane is gone (its program exited at once): report the last reading.
    if (out.error || row?.paneId !== pane.paneId) return previous;
    if (row.path !== "" && row.path === previous) return row.path;
    previous = row.path;
  }
  return previous;
}
