/**
 * The manage setters: the only code that builds `rename-session`, `rename-window`,
 * `select-window`, `select-pane`, `select-layout`, `resize-window`, `resize-pane`, `move-window`,
 * `swap-pane` and the `mouse`/`history-limit` `set-option` argv (docs/design.md §5).
 *
 * Each setter runs its command and a read-back in ONE invocation through {@link runSetter}, so
 * what it returns is tmux's state right after the change, never an echo of the input.
 *
 * Facts this relies on (checked on tmux 3.3a, docs/design.md §5.12):
 * - `rename-session`, `rename-window` and `select-pane -T` format-expand their value (`#{pane_id}`
 *   becomes `%0`, `#(…)` starts a shell job): agent strings go through `literal()`.
 * - A session name's `:` and `.` become `_`. Names store control characters escaped (a tab as
 *   `\t`), `\` as `\\` and `$` before a letter, `_` or `{` as `\$`; a title holding a control
 *   character is ignored (`select-pane -T` keeps the old one). All of these are refused.
 * - `select-layout` answers "invalid layout" for a wrong checksum or a malformed string, and a
 *   custom layout also resizes the window to the layout's size.
 * - `resize-window` sets the window's `window-size` option to `manual`.
 * - `resize-pane` unzooms the window first; `resize-pane -Z` toggles (on another pane of a zoomed
 *   window it unzooms). So a bare `resize-pane` then `-Z` zooms exactly the pane asked for.
 * - `move-window` without `-d` selects the moved window; moving a session's last window out
 *   destroys that session; `-t $N:` takes the next free index.
 * - `display-message -t $N:@M` for a window not in `$N` answers for another window: the printed
 *   id is checked.
 */
import { preview, ToolError } from "../../errors.ts";
import type { SessionFacts, WindowFacts } from "../../rows.ts";
import type { TmuxCommand } from "../core/argv.ts";
import type { TmuxContext } from "../core/context.ts";
import { int, literal, marker, separators, splitSections } from "../core/format.ts";
import { checkName, checkSessionName, checkTitle } from "./labels.ts";
import { checkLayout } from "../core/layout.ts";
import { listSessions } from "../read/queries.ts";
import {
  type PaneView,
  paneViews,
  readPane,
  readSession,
  readWindow,
  runSetter,
  sessionState,
  type WindowState,
  windowState,
} from "./setter.ts";
import { paneArg, windowArg } from "../core/ids.ts";
import { resolveSessionRef } from "../read/session_ref.ts";
import { windowNotFound } from "../read/not_found.ts";

/**
 * The largest `history-limit` accepted. A pane full of 80-column lines costs tmux about 440
 * bytes a line (measured), so a full pane at this limit holds ~44 MB; it is also the most lines
 * capture_pane returns in one call, so every kept line stays readable.
 */
export const MAX_HISTORY_LINES = 100_000;

/** Rename a session (`$N` or exact name); refuses names tmux would alter or that collide. */
export async function renameSession(
  ctx: TmuxContext,
  ref: string,
  name: string,
  signal?: AbortSignal,
): Promise<{ sessionId: string; sessionName: string }> {
  checkSessionName(name);
  const sessions = await listSessions(ctx, signal);
  const sessionId = resolveSessionRef(sessions, ref);
  const taken = sessions.find((s) => s.sessionName === name && s.sessionId !== sessionId);
  if (taken) {
    throw new ToolError(
      "invalid_arguments",
      `session ${taken.sessionId} is already named ${preview(name)}`,
      { hint: "Session names are unique; choose another name." },
    );
  }
  const sep = separators();
  const out = await runSetter(ctx, [{ session: sessionId, ref }], [
    ["rename-session", "-t", sessionId, literal(name)],
    readSession(sep, sessionId),
  ], signal);
  return sessionState(out, sep, sessionId, ref);
}

/** Rename a window (tmux turns its automatic-rename off, so programs no longer rename it). */
export async function renameWindow(
  ctx: TmuxContext,
  windowId: string,
  name: string,
  signal?: AbortSignal,
): Promise<WindowState> {
  checkName(name, "window name");
  const sep = separators();
  const out = await runSetter(ctx, [{ window: windowId }], [
    ["rename-window", "-t", windowArg(windowId), literal(name)],
    readWindow(sep, windowId),
  ], signal);
  return windowState(out, sep, windowId);
}

/** Set a pane's title; the active pane stays as it was (`select-pane -T` selects nothing). */
export async function setPaneTitle(
  ctx: TmuxContext,
  paneId: string,
  title: string,
  signal?: AbortSignal,
): Promise<PaneView> {
  // The value of -T is an option argument, so a leading "-" is taken literally.
  checkTitle(title);
  const sep = separators();
  const out = await runSetter(ctx, [{ pane: paneId }], [
    ["select-pane", "-t", paneArg(paneId), "-T", literal(title)],
    readPane(sep, paneId),
  ], signal);
  return paneViews(out, sep, [paneId])[0];
}

/** Make a window its session's current window (tmux picks the session of a linked window). */
export async function selectWindow(
  ctx: TmuxContext,
  windowId: string,
  signal?: AbortSignal,
): Promise<WindowState> {
  const sep = separators();
  const out = await runSetter(ctx, [{ window: windowId }], [
    ["select-window", "-t", windowArg(windowId)],
    readWindow(sep, windowId),
  ], signal);
  return windowState(out, sep, windowId);
}

/** Make a pane its window's active pane (the session's current window is left as it is). */
export async function selectPane(
  ctx: TmuxContext,
  paneId: string,
  signal?: AbortSignal,
): Promise<PaneView> {
  const sep = separators();
  const out = await runSetter(ctx, [{ pane: paneId }], [
    ["select-pane", "-t", paneArg(paneId)],
    readPane(sep, paneId),
  ], signal);
  return paneViews(out, sep, [paneId])[0];
}

/** Apply a named layout or a checked layout string to a window. */
export async function selectLayout(
  ctx: TmuxContext,
  windowId: string,
  layout: string,
  signal?: AbortSignal,
): Promise<WindowState> {
  checkLayout(layout);
  const sep = separators();
  try {
    const out = await runSetter(ctx, [{ window: windowId }], [
      ["select-layout", "-t", windowArg(windowId), layout],
      readWindow(sep, windowId),
    ], signal);
    return windowState(out, sep, windowId);
  } catch (error) {
    // tmux checks the pane count before it changes anything.
    const m = error instanceof ToolError && /^have (\d+) panes but need (\d+)/.exec(error.message);
    if (!m) throw error;
    throw new ToolError(
      "invalid_arguments",
      `the layout has ${m[2]} panes but window ${windowId} has ${m[1]}`,
      { hint: "Read the window's own layout with get_window_info, or use a named layout." },
    );
  }
}

/** A new size: cells for windows; cells or a percentage of the window (`"50%"`) for panes. */
export interface Size {
  width?: number | string;
  height?: number | string;
}

function sizeArgs(size: Size): string[] {
  return [
    ...(size.width === undefined ? [] : ["-x", String(size.width)]),
    ...(size.height === undefined ? [] : ["-y", String(size.height)]),
  ];
}

/** Resize a window (tmux then keeps its size: `window-size` becomes `manual`). */
export async function resizeWindow(
  ctx: TmuxContext,
  windowId: string,
  size: Size,
  signal?: AbortSignal,
): Promise<WindowState> {
  const sep = separators();
  const out = await runSetter(ctx, [{ window: windowId }], [
    ["resize-window", "-t", windowArg(windowId), ...sizeArgs(size)],
    readWindow(sep, windowId),
  ], signal);
  return windowState(out, sep, windowId);
}

/**
 * Resize a pane and/or set its window's zoom. `zoom: true` zooms exactly this pane, whatever was
 * zoomed before; `false` unzooms the window. Any resize unzooms, so it runs first.
 */
export async function resizePane(
  ctx: TmuxContext,
  paneId: string,
  change: Size & { zoom?: boolean },
  signal?: AbortSignal,
): Promise<PaneView> {
  const target = paneArg(paneId);
  const sep = separators();
  // A bare resize-pane only unzooms, so the toggle that follows always zooms.
  const zoom: TmuxCommand[] = change.zoom ? [["resize-pane", "-Z", "-t", target]] : [];
  const out = await runSetter(ctx, [{ pane: paneId }], [
    ["resize-pane", "-t", target, ...sizeArgs(change)],
    ...zoom,
    readPane(sep, paneId),
  ], signal);
  return paneViews(out, sep, [paneId])[0];
}

/**
 * Move a window to a session (`ref`: `$N` or exact name), at `index` or the next free one,
 * without selecting it. `listing` is a fresh listing of sessions and windows (the view guard's):
 * a session's only window is not moved out (that would destroy the session), and an index in
 * use is refused; moving a window to where it already is changes nothing.
 */
export async function moveWindow(
  ctx: TmuxContext,
  listing: { sessions: readonly SessionFacts[]; windows: readonly WindowFacts[] },
  windowId: string,
  ref: string,
  index: number | undefined,
  signal?: AbortSignal,
): Promise<WindowState> {
  const sessionId = resolveSessionRef(listing.sessions, ref);
  const links = listing.windows.filter((w) => w.windowId === windowId);
  if (links.length === 0) throw windowNotFound(windowId);
  for (const link of links) {
    const session = listing.sessions.find((s) => s.sessionId === link.sessionId);
    if (link.sessionId !== sessionId && session?.windows === 1) {
      throw new ToolError(
        "target_denied",
        `window ${windowId} is the only window of session ${link.sessionId}: moving it out ` +
          "would destroy that session",
        { hint: "Create another window in that session first, or move a different window." },
      );
    }
  }
  const occupant = index === undefined
    ? undefined
    : listing.windows.find((w) => w.sessionId === sessionId && w.windowIndex === index);
  if (occupant && occupant.windowId !== windowId) {
    throw new ToolError(
      "invalid_arguments",
      `index ${index} of session ${sessionId} is taken by window ${occupant.windowId}`,
      { hint: "Omit index for the next free one, or pick a free index from list_windows." },
    );
  }
  const sep = separators();
  const where = `${sessionId}:${windowArg(windowId)}`;
  const move: TmuxCommand[] = occupant
    ? []
    : [["move-window", "-d", "-s", windowId, "-t", `${sessionId}:${index ?? ""}`]];
  const out = await runSetter(ctx, [{ window: windowId }, { session: sessionId, ref }], [
    ...move,
    readWindow(sep, where),
  ], signal);
  return windowState(out, sep, windowId);
}

/** Swap two panes, in one window or across windows; the active pane stays where it is. */
export async function swapPanes(
  ctx: TmuxContext,
  paneId: string,
  otherPaneId: string,
  signal?: AbortSignal,
): Promise<PaneView[]> {
  if (paneId === otherPaneId) {
    throw new ToolError("invalid_arguments", `cannot swap pane ${paneId} with itself`, {
      hint: "Pass two different pane ids.",
    });
  }
  const sep = separators();
  const out = await runSetter(ctx, [{ pane: paneId }, { pane: otherPaneId }], [
    ["swap-pane", "-d", "-s", paneArg(paneId), "-t", paneArg(otherPaneId)],
    readPane(sep, paneId),
    readPane(sep, otherPaneId),
  ], signal);
  return paneViews(out, sep, [paneId, otherPaneId]);
}

/** A session option set globally or on one session, read back from that very scope. */
interface OptionState {
  /** The session the option was set on; null when set globally. */
  sessionId: string | null;
  value: string;
}

/**
 * Set a session option (`mouse`, `history-limit`: constants of ours) globally, or on one session
 * resolved exactly from `ref`, and read it back from the same scope.
 */
async function setSessionOption(
  ctx: TmuxContext,
  name: "mouse" | "history-limit",
  value: string,
  ref: string | undefined,
  signal?: AbortSignal,
): Promise<OptionState> {
  const sessionId = ref === undefined
    ? undefined
    : resolveSessionRef(await listSessions(ctx, signal), ref);
  const scope = sessionId === undefined ? ["-g"] : ["-t", sessionId];
  const sep = separators();
  const out = await runSetter(
    ctx,
    sessionId === undefined ? [] : [{ session: sessionId, ref: ref! }],
    [
      ["set-option", ...scope, name, value],
      marker(sep, "V"),
      ["show-options", ...scope, "-v", name],
    ],
    signal,
  );
  const read = splitSections(out, sep).find((s) => s.tag === "V")?.body.replace(/\n$/, "") ?? "";
  return { sessionId: sessionId ?? null, value: read };
}

/** Turn tmux's mouse support on or off, globally or for one session. */
export async function setMouse(
  ctx: TmuxContext,
  enabled: boolean,
  ref: string | undefined,
  signal?: AbortSignal,
): Promise<{ sessionId: string | null; enabled: boolean }> {
  const state = await setSessionOption(ctx, "mouse", enabled ? "on" : "off", ref, signal);
  return { sessionId: state.sessionId, enabled: state.value === "on" };
}

/** Set `history-limit` (lines of scrollback kept by panes created afterwards). */
export async function setHistoryLimit(
  ctx: TmuxContext,
  lines: number,
  ref: string | undefined,
  signal?: AbortSignal,
): Promise<{ sessionId: string | null; lines: number }> {
  if (!Number.isInteger(lines) || lines < 0 || lines > MAX_HISTORY_LINES) {
    throw new Error("internal: unchecked history limit");
  }
  const state = await setSessionOption(ctx, "history-limit", String(lines), ref, signal);
  return { sessionId: state.sessionId, lines: int(state.value, -1) };
}
