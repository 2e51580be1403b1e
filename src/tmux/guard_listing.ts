/**
 * The input guard's listing (docs/design.md §6.2, §6.13): one fresh tmux answer with the fields
 * the input rules decide on and nothing else. tmux reads /proc for `pane_current_command` and
 * `pane_current_path` of every pane it prints them for, which made a guarded keypress among many
 * panes cost more than a tmux spawn; they are left out. The foreground program is printed only for
 * the panes named in `commandOf` (those a busy mark needs it for, §6.12, or a question names):
 * tmux expands only the branch a conditional picks, so no other pane's /proc is read.
 */
import type { TmuxReadContext } from "./context.ts";
import type { PaneFacts } from "../rows.ts";
import { flag, int, parseRows, rowFormat, separators } from "./format.ts";
import {
  type ClientRow,
  generationOf,
  hostsClient,
  isCallerPane,
  isWatched,
  PANE_ID,
  watchers,
} from "./targets.ts";

/** A pane as the guard's listing shows it: `currentCommand` only for the panes asked. */
export type GuardPane =
  & Pick<
    PaneFacts,
    | "paneId"
    | "generation"
    | "sessionId"
    | "sessionName"
    | "windowId"
    | "windowIndex"
    | "windowName"
    | "active"
    | "dead"
    | "exitStatus"
    | "inMode"
    | "inputOff"
    | "synchronized"
    | "isCaller"
    | "isAttended"
    | "hostsTmuxClient"
  >
  & { currentCommand?: string };

/** A window as the guard's listing shows it (once per session it is linked into). */
export interface GuardWindow {
  windowId: string;
  sessionId: string;
  zoomed: boolean;
}

const CLIENTS = rowFormat("C", {
  pid: "client_pid",
  sessionId: "session_id",
  windowId: "window_id",
  flags: "client_flags",
  controlMode: "client_control_mode",
  tty: "client_tty",
});

const WINDOWS = rowFormat("W", {
  sessionId: "session_id",
  windowId: "window_id",
  zoomed: "window_zoomed_flag",
});

const PANE_FIELDS = {
  paneId: "pane_id",
  panePid: "pane_pid",
  serverPid: "pid",
  sessionId: "session_id",
  sessionName: "session_name",
  windowId: "window_id",
  windowIndex: "window_index",
  windowName: "window_name",
  active: "pane_active",
  dead: "pane_dead",
  deadStatus: "pane_dead_status",
  inMode: "pane_in_mode",
  synchronized: "synchronize-panes",
  inputOff: "pane_input_off",
  tty: "pane_tty",
} as const;

/**
 * `#{pane_current_command}` for the panes in `ids` only, "" for the others: nested conditionals
 * on the pane id (ids are validated `%N`, never format syntax).
 */
function commandFor(ids: readonly string[]): string {
  let expr = "";
  for (const id of [...new Set(ids)].reverse()) {
    if (!PANE_ID.test(id)) throw new Error("internal: not a pane id");
    expr = `#{?#{==:#{pane_id},${id}},#{pane_current_command},${expr}}`;
  }
  // rowTemplate wraps each variable in #{…}: hand it the outermost conditional unwrapped, or a
  // literal "" when no pane is asked.
  return expr === "" ? "l:" : expr.slice(2, -1);
}

/**
 * List every pane, every window link and the clients in one invocation, for the input guard.
 * `commandOf`: the panes whose foreground program is wanted.
 */
export async function guardListing(
  ctx: TmuxReadContext,
  commandOf: readonly string[],
  signal?: AbortSignal,
): Promise<{ windows: GuardWindow[]; panes: GuardPane[] }> {
  const sep = separators();
  const panes = rowFormat("P", { ...PANE_FIELDS, command: commandFor(commandOf) });
  const rows = parseRows(
    await ctx.runner.run([
      ["list-panes", "-a", "-F", panes.template(sep)],
      ["list-windows", "-a", "-F", WINDOWS.template(sep)],
      ["list-clients", "-F", CLIENTS.template(sep)],
    ], { signal }),
    sep,
  );
  const clients: ClientRow[] = CLIENTS.decode(rows).map((c) => ({
    pid: int(c.pid),
    sessionId: c.sessionId,
    windowId: c.windowId,
    flags: c.flags,
    controlMode: flag(c.controlMode),
    name: "",
    tty: c.tty,
  }));
  const windows = WINDOWS.decode(rows).map((w) => ({
    windowId: w.windowId,
    sessionId: w.sessionId,
    zoomed: flag(w.zoomed),
  }));
  const seen = watchers(clients, ctx.ownClientPids, windows);
  const asked = new Set(commandOf);
  return {
    windows,
    panes: panes.decode(rows).map((p) => {
      const serverPid = int(p.serverPid);
      const active = flag(p.active);
      const dead = flag(p.dead);
      return {
        paneId: p.paneId,
        generation: generationOf(serverPid, int(p.panePid)),
        sessionId: p.sessionId,
        sessionName: p.sessionName,
        windowId: p.windowId,
        windowIndex: int(p.windowIndex),
        windowName: p.windowName,
        active,
        dead,
        ...(dead && /^-?\d+$/.test(p.deadStatus) ? { exitStatus: int(p.deadStatus) } : {}),
        inMode: flag(p.inMode),
        inputOff: flag(p.inputOff),
        synchronized: flag(p.synchronized),
        isCaller: isCallerPane(ctx.caller, serverPid, p.paneId),
        isAttended: isWatched({ windowId: p.windowId, active }, seen),
        // A dead pane's old tty may already belong to a new client.
        hostsTmuxClient: !dead && hostsClient(p.tty, seen),
        ...(asked.has(p.paneId) ? { currentCommand: p.command } : {}),
      };
    }),
  };
}
