/**
 * The input guard's listing (docs/design.md §6.2, §6.13): one fresh tmux answer with what the
 * input rules decide on and nothing else. Input reaches the addressed pane and, at most, the other
 * panes of its window (synchronize-panes), so those are the panes listed; whether a person watches
 * one is decided per window from every client of the server. Which sessions a window is linked
 * into matters only for a control-mode person (who sees every window of a session), so the links
 * are listed, by a second command, only when the clients show one: tmux formats every window of
 * the server for `list-windows -a`, about as much as the rest of the guard. tmux reads /proc for
 * `pane_current_command` and `pane_current_path` of every pane it prints them for, and evaluates
 * every field of every row: listing all panes with all fields made a guarded keypress among many
 * panes cost more than a tmux spawn. The foreground program is asked only for the panes named in
 * `commandOf` (those a busy mark needs it for, §6.12), one `display-message` each after the listing.
 * Every command prints plain variables, so the chain takes the control route (§5.14) when it is up.
 */
import type { TmuxReadContext } from "../core/context.ts";
import type { PaneFacts } from "../../rows.ts";
import { flag, int, marker, parseRows, rowFormat, separators } from "../core/format.ts";
import {
  type ClientRow,
  hostsClient,
  isWatched,
  sessionsShownWhole,
  watchers,
} from "./watchers.ts";
import { generationOf } from "./generation.ts";
import { isCallerPane } from "../core/caller.ts";
import { paneArg } from "../core/ids.ts";
import { rethrowPaneMissing } from "./not_found.ts";

/** A pane as the guard's listing shows it: `currentCommand` only for the panes asked. */
export type GuardPane =
  & Pick<
    PaneFacts,
    | "paneId"
    | "generation"
    | "windowId"
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

/** What a question names about a pane (docs/design.md §6.11), read when it is asked. */
type PaneLabel = Pick<
  PaneFacts,
  "paneId" | "sessionName" | "windowIndex" | "windowName" | "currentCommand"
>;

const CLIENTS = rowFormat("C", {
  pid: "client_pid",
  sessionId: "session_id",
  windowId: "window_id",
  flags: "client_flags",
  controlMode: "client_control_mode",
  tty: "client_tty",
});

const LINKS = rowFormat("W", { sessionId: "session_id", windowId: "window_id" });

const PANES = rowFormat("P", {
  serverPid: "pid",
  paneId: "pane_id",
  panePid: "pane_pid",
  windowId: "window_id",
  active: "pane_active",
  dead: "pane_dead",
  deadStatus: "pane_dead_status",
  inMode: "pane_in_mode",
  synchronized: "synchronize-panes",
  inputOff: "pane_input_off",
  tty: "pane_tty",
  zoomed: "window_zoomed_flag",
});

/** The foreground program of one pane asked for by id. */
const COMMAND = rowFormat("X", { paneId: "pane_id", command: "pane_current_command" });

const LABEL = rowFormat("L", {
  paneId: "pane_id",
  sessionName: "session_name",
  windowIndex: "window_index",
  windowName: "window_name",
  currentCommand: "pane_current_command",
});

/** `display-message` rows of `format` for each pane in `ids` (validated `%N` ids only). */
function perPane(ids: readonly string[], format: string): string[][] {
  return [...new Set(ids)].map((id) => ["display-message", "-p", "-t", paneArg(id), format]);
}

/**
 * List the window holding `paneId` (its panes, whether it is zoomed) and who watches which
 * window, for the input guard: one invocation, and a second one listing window links only when a
 * control-mode person is attached. `commandOf`: the panes whose foreground program is wanted.
 * Throws `target_not_found` when there is no such pane.
 */
export async function guardListing(
  ctx: TmuxReadContext,
  paneId: string,
  commandOf: readonly string[],
  signal?: AbortSignal,
): Promise<{ zoomed: boolean; panes: GuardPane[] }> {
  const sep = separators();
  const result = await ctx.runner.runPartial([
    ["list-clients", "-F", CLIENTS.template(sep)],
    ["list-panes", "-t", paneArg(paneId), "-F", PANES.template(sep)],
    marker(sep, "M"),
    ...perPane(commandOf, COMMAND.template(sep)),
  ], { signal });
  const rows = parseRows(result.stdout, sep);
  // A pane asked about may be gone (the chain stops there): the listing before it still holds.
  if (result.error && !rows.some((r) => r.tag === "M")) rethrowPaneMissing(result.error, paneId);
  const commands = new Map(COMMAND.decode(rows).map((r) => [r.paneId, r.command]));
  const clients: ClientRow[] = CLIENTS.decode(rows).map((c) => ({
    pid: int(c.pid),
    sessionId: c.sessionId,
    windowId: c.windowId,
    flags: c.flags,
    controlMode: flag(c.controlMode),
    name: "",
    tty: c.tty,
  }));
  const whole = sessionsShownWhole(clients, ctx.ownClientPids);
  const seen = watchers(
    clients,
    ctx.ownClientPids,
    whole.size === 0 ? [] : await windowLinks(ctx, signal),
  );
  const panes = PANES.decode(rows);
  return {
    zoomed: panes.some((p) => flag(p.zoomed)),
    panes: panes.map((p) => {
      const active = flag(p.active);
      const dead = flag(p.dead);
      const command = commands.get(p.paneId);
      const serverPid = int(p.serverPid);
      return {
        paneId: p.paneId,
        generation: generationOf(serverPid, int(p.panePid)),
        windowId: p.windowId,
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
        ...(command === undefined ? {} : { currentCommand: command }),
      };
    }),
  };
}

/** Every window link of the server: which session each window is linked into. */
async function windowLinks(
  ctx: TmuxReadContext,
  signal?: AbortSignal,
): Promise<Array<{ sessionId: string; windowId: string }>> {
  const sep = separators();
  const stdout = await ctx.runner.run([["list-windows", "-a", "-F", LINKS.template(sep)]], {
    signal,
  });
  return LINKS.decode(parseRows(stdout, sep));
}

/**
 * What a question names about each pane in `ids`: session, window and foreground program. A pane
 * gone meanwhile (and any after it) is left out.
 */
export async function paneLabels(
  ctx: TmuxReadContext,
  ids: readonly string[],
  signal?: AbortSignal,
): Promise<Map<string, PaneLabel>> {
  const sep = separators();
  const result = await ctx.runner.runPartial(perPane(ids, LABEL.template(sep)), { signal });
  return new Map(
    LABEL.decode(parseRows(result.stdout, sep)).map((l) => [l.paneId, {
      paneId: l.paneId,
      sessionName: l.sessionName,
      windowIndex: int(l.windowIndex),
      windowName: l.windowName,
      currentCommand: l.currentCommand,
    }]),
  );
}
