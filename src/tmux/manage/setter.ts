/**
 * What every manage setter shares (docs/design.md §5.12): its commands and a read-back run in ONE
 * invocation, so what a setter returns is tmux's state right after the change, never an echo of
 * the input; a target tmux cannot find becomes that target's own `target_not_found`; and the
 * read-back row is the one of the object asked for (display-message answers for some other object
 * when its target is gone or not where it was asked, so the printed id is compared).
 */
import { ToolError } from "../../errors.ts";
import type { WindowFacts } from "../../rows.ts";
import type { TmuxCommand } from "../core/argv.ts";
import type { TmuxContext } from "../core/context.ts";
import { flag, int, parseRows, rowFormat, type Separators } from "../core/format.ts";
import { decodeWindow, WINDOWS } from "../read/queries.ts";
import { paneArg } from "../core/ids.ts";
import { paneNotFound, sessionNotFound, windowNotFound } from "../read/not_found.ts";

/** The object a setter addresses; a missing one is reported as its own `target_not_found`. */
type SetterTarget =
  | { pane: string }
  | { window: string }
  | { session: string; ref: string };

/**
 * Run a setter's commands, then its read-back, in one invocation, and return stdout. tmux looks
 * up a command's targets before running it and stops a chain at the first failure, and every
 * command here addresses only `targets`, so "can't find …" means nothing changed: it becomes the
 * named target's `target_not_found` with effects none. Other refusals keep effects possible.
 */
export async function runSetter(
  ctx: TmuxContext,
  targets: readonly SetterTarget[],
  commands: readonly TmuxCommand[],
  signal?: AbortSignal,
): Promise<string> {
  try {
    return await ctx.runner.run(commands, { effects: "possible", signal });
  } catch (error) {
    const missing = error instanceof ToolError && error.code === "target_not_found";
    if (!missing || targets.length === 0) throw error;
    throw notFound(error.message, targets);
  }
}

/** The not-found error of the target tmux's message names ("can't find pane: "%4""). */
function notFound(message: string, targets: readonly SetterTarget[]): ToolError {
  const kind = /\b(pane|window|session)\b/.exec(message)?.[1] ?? "";
  const id = (t: SetterTarget) => "pane" in t ? t.pane : "window" in t ? t.window : t.session;
  const ofKind = targets.filter((t) => kind in t);
  const target = ofKind.find((t) => message.includes(JSON.stringify(id(t)))) ?? ofKind[0] ??
    targets[0];
  if ("pane" in target) return paneNotFound(target.pane);
  if ("window" in target) return windowNotFound(target.window);
  return sessionNotFound(target.ref);
}

/** What a window looks like right after a setter changed it: its listing row. */
export type WindowState = WindowFacts;

/** What a pane looks like right after a setter changed it. */
export interface PaneView {
  paneId: string;
  windowId: string;
  paneIndex: number;
  /** The window's active pane. */
  active: boolean;
  width: number;
  height: number;
  left: number;
  top: number;
  title: string;
  /** Whether its window is zoomed. */
  zoomed: boolean;
}

const PANE_VIEW = rowFormat("P", {
  paneId: "pane_id",
  windowId: "window_id",
  paneIndex: "pane_index",
  active: "pane_active",
  width: "pane_width",
  height: "pane_height",
  left: "pane_left",
  top: "pane_top",
  title: "pane_title",
  zoomed: "window_zoomed_flag",
});

const SESSION_STATE = rowFormat("S", { sessionId: "session_id", sessionName: "session_name" });

/** The read-back command of a window (`target`: `@N`, or `$N:@N` for one session's link). */
export function readWindow(sep: Separators, target: string): string[] {
  return ["display-message", "-p", "-t", target, WINDOWS.template(sep)];
}

/** The read-back command of a session. */
export function readSession(sep: Separators, sessionId: string): string[] {
  return ["display-message", "-p", "-t", sessionId, SESSION_STATE.template(sep)];
}

/** The read-back command of a pane. */
export function readPane(sep: Separators, paneId: string): string[] {
  return ["display-message", "-p", "-t", paneArg(paneId), PANE_VIEW.template(sep)];
}

/**
 * The row a read-back printed for `id`. display-message answers for some other object when its
 * target is gone or not where it was asked (docs/design.md §5.12), so the id is compared.
 */
function decodeOne(
  rows: Record<string, string>[],
  key: "windowId" | "paneId" | "sessionId",
  id: string,
  missing: () => ToolError,
): Record<string, string> {
  const row = rows.find((r) => r[key] === id);
  if (!row) throw missing().withEffects("possible");
  return row;
}

/** The session a read-back of {@link readSession} printed for `sessionId`. */
export function sessionState(
  stdout: string,
  sep: Separators,
  sessionId: string,
  ref: string,
): { sessionId: string; sessionName: string } {
  const row = decodeOne(
    SESSION_STATE.decode(parseRows(stdout, sep)),
    "sessionId",
    sessionId,
    () => sessionNotFound(ref),
  );
  return { sessionId: row.sessionId, sessionName: row.sessionName };
}

/** The window a read-back of {@link readWindow} printed for `windowId`. */
export function windowState(stdout: string, sep: Separators, windowId: string): WindowState {
  const row = decodeOne(
    WINDOWS.decode(parseRows(stdout, sep)),
    "windowId",
    windowId,
    () => windowNotFound(windowId),
  );
  return decodeWindow(row as ReturnType<typeof WINDOWS.decode>[number]);
}

/** The panes a read-back of {@link readPane} printed, in the order of `paneIds`. */
export function paneViews(stdout: string, sep: Separators, paneIds: readonly string[]): PaneView[] {
  const rows = PANE_VIEW.decode(parseRows(stdout, sep));
  return paneIds.map((id) => {
    const p = decodeOne(rows, "paneId", id, () => paneNotFound(id));
    return {
      paneId: p.paneId,
      windowId: p.windowId,
      paneIndex: int(p.paneIndex),
      active: flag(p.active),
      width: int(p.width),
      height: int(p.height),
      left: int(p.left),
      top: int(p.top),
      title: p.title,
      zoomed: flag(p.zoomed),
    };
  });
}
