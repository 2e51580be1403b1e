/**
 * Who called us (docs/design.md §6.4): the pane this server was started from, read from the
 * environment tmux gives its panes. It counts only on the very server `$TMUX` names: the server's
 * pid is compared, not just the socket path.
 */
import { PANE_ID } from "../../rows.ts";

/** Who called us, from the environment tmux gives its panes (`$TMUX`, `$TMUX_PANE`). */
export interface CallerIdentity {
  /** Socket path of the server the caller lives in. */
  socketPath: string;
  /** That server's pid: compared with the pinned server's pid, not the socket path alone. */
  serverPid: number;
  /** The caller's pane id, when `$TMUX_PANE` is set. */
  paneId?: string;
}

/** Parse `$TMUX` ("socket,pid,session") and `$TMUX_PANE`; undefined outside tmux. */
export function callerIdentity(
  tmux: string | undefined,
  tmuxPane: string | undefined,
): CallerIdentity | undefined {
  if (!tmux) return undefined;
  const match = /^(.*),(\d+),(\d+)$/s.exec(tmux);
  if (!match) return undefined;
  const paneId = tmuxPane && PANE_ID.test(tmuxPane) ? tmuxPane : undefined;
  return { socketPath: match[1], serverPid: Number(match[2]), paneId };
}

/** True when this pane is the caller's own pane on this very server. */
export function isCallerPane(
  caller: CallerIdentity | undefined,
  serverPid: number,
  paneId: string,
): boolean {
  return caller?.paneId !== undefined && caller.serverPid === serverPid &&
    caller.paneId === paneId;
}
