/**
 * Whether a pane's stream still follows the same pane (docs/design.md §7.3), asked on the
 * control connection that feeds the stream: only ids and numbers cross the channel, never pane
 * text.
 */
import type { PaneStream } from "../../live/stream.ts";
import type { ControlClient } from "../control/client.ts";
import { int, parseRows, rowFormat, separators } from "../core/format.ts";
import { generationOf } from "../read/generation.ts";
import { paneArg } from "../core/ids.ts";

/** What {@link checkPane} can find. */
export type PaneContinuity = "same" | "gone" | "replaced" | "moved";

/** What {@link checkPane} reads of a pane: ids and numbers only, never pane text. */
const PANE_CHECK = rowFormat("G", {
  paneId: "pane_id",
  panePid: "pane_pid",
  serverPid: "pid",
  sessionId: "session_id",
  windowId: "window_id",
});

/**
 * Whether the stream still describes the pane: `gone` when the pane no longer exists,
 * `replaced` when another process runs in it (respawn, or an id reused after a restart),
 * `moved` when it left the session whose connection feeds the stream (its output would no
 * longer arrive), else `same`. Only ids and numbers cross the channel here, never pane text.
 */
export async function checkPane(
  client: ControlClient,
  stream: PaneStream,
  signal?: AbortSignal,
): Promise<PaneContinuity> {
  const sep = separators();
  const lines = await client.command(
    ["display-message", "-p", "-t", paneArg(stream.paneId), PANE_CHECK.template(sep)],
    signal,
  );
  const row = PANE_CHECK.decode(parseRows(lines.join("\n"), sep))[0];
  if (row?.paneId !== stream.paneId) return "gone";
  if (generationOf(int(row.serverPid), int(row.panePid)) !== stream.generation) {
    return "replaced";
  }
  if (row.sessionId !== stream.sessionId) return "moved";
  stream.windowId = row.windowId;
  return "same";
}
