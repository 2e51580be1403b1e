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
import { preview, ToolError } from "../errors.ts";
import { PANE_LIMITS } from "../live/emulator.ts";
import type { SessionFacts, WindowFacts } from "../rows.ts";
import { refuseFlagLike, type TmuxCommand } from "./command.ts";
import type { TmuxContext } from "./context.ts";
import {
  flag,
  int,
  literal,
  marker,
  parseRows,
  rowFormat,
  type Separators,
  separators,
  splitSections,
} from "./format.ts";
import { decodeWindow, listSessions, WINDOWS } from "./queries.ts";
import {
  paneArg,
  paneNotFound,
  resolveSessionRef,
  SESSION_ID,
  sessionNotFound,
  windowArg,
  windowNotFound,
} from "./targets.ts";

/** The layouts tmux names (passed only exactly: tmux itself would also take a unique prefix). */
export const NAMED_LAYOUTS = [
  "even-horizontal",
  "even-vertical",
  "main-horizontal",
  "main-vertical",
  "tiled",
] as const;

/** Characters of a layout string accepted (a pane's cell takes ~20, so ~400 panes fit). */
export const MAX_LAYOUT_CHARS = 8192;
/** Characters of a session or window name accepted (session references are at most 256). */
export const MAX_NAME_CHARS = 256;
/** Characters of a pane title accepted (titles are shown clipped at 1,024). */
export const MAX_TITLE_CHARS = 1024;
/**
 * The largest `history-limit` accepted. A pane full of 80-column lines costs tmux about 440
 * bytes a line (measured), so a full pane at this limit holds ~44 MB; it is also the most lines
 * capture_pane returns in one call, so every kept line stays readable.
 */
export const MAX_HISTORY_LINES = 100_000;

/** The object a setter addresses; a missing one is reported as its own `target_not_found`. */
export type SetterTarget =
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

// deno-lint-ignore no-control-regex -- control characters are what this refuses
const CONTROL = /[\u0000-\u001f\u007f-\u009f]/;

/**
 * Refuse a name or title tmux would not store as given: control characters (escaped in names,
 * silently ignored in titles), lone surrogates, more than `max` characters, or — for values
 * tmux reads positionally — a leading `-`.
 */
export function checkLabel(
  value: string,
  what: string,
  max: number,
  positional: boolean,
): string {
  if (value === "") {
    throw new ToolError("invalid_arguments", `${what} is empty`, { hint: `Pass a ${what}.` });
  }
  if (!value.isWellFormed() || CONTROL.test(value)) {
    throw new ToolError(
      "invalid_arguments",
      `${what} ${preview(value)} holds a control character or a lone surrogate`,
      { hint: `tmux would not store it as given; pass a ${what} of printable characters.` },
    );
  }
  if (value.length > max) {
    throw new ToolError("invalid_arguments", `${what} is longer than ${max} characters`, {
      hint: `Pass a shorter ${what}.`,
    });
  }
  return positional ? refuseFlagLike(value, what) : value;
}

/** What a window looks like right after a setter changed it: its listing row. */
export type WindowState = WindowFacts;

/** What a pane looks like right after a setter changed it. */
export interface PaneState {
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

const PANE_STATE = rowFormat("P", {
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
function readWindow(sep: Separators, target: string): string[] {
  return ["display-message", "-p", "-t", target, WINDOWS.template(sep)];
}

function readPane(sep: Separators, paneId: string): string[] {
  return ["display-message", "-p", "-t", paneArg(paneId), PANE_STATE.template(sep)];
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

function windowState(stdout: string, sep: Separators, windowId: string): WindowState {
  const row = decodeOne(
    WINDOWS.decode(parseRows(stdout, sep)),
    "windowId",
    windowId,
    () => windowNotFound(windowId),
  );
  return decodeWindow(row as ReturnType<typeof WINDOWS.decode>[number]);
}

function paneStates(stdout: string, sep: Separators, paneIds: readonly string[]): PaneState[] {
  const rows = PANE_STATE.decode(parseRows(stdout, sep));
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

/**
 * Refuse a session or window name tmux would not store as given: besides {@link checkLabel}'s
 * rules, tmux stores `\` as `\\` and `$` before a letter, `_` or `{` as `\$` in names.
 */
export function checkName(name: string, what: string): string {
  checkLabel(name, what, MAX_NAME_CHARS, true);
  if (/\\|\$[A-Za-z_{]/.test(name)) {
    throw new ToolError(
      "invalid_arguments",
      `${what} ${preview(name)} holds a backslash or "$" before a name`,
      {
        hint: 'tmux would store a backslash doubled and "$NAME" as "\\$NAME" in names; choose a ' +
          "name without them (pane titles keep them).",
      },
    );
  }
  return name;
}

/** Rename a session (`$N` or exact name); refuses names tmux would alter or that collide. */
export async function renameSession(
  ctx: TmuxContext,
  ref: string,
  name: string,
  signal?: AbortSignal,
): Promise<{ sessionId: string; sessionName: string }> {
  checkName(name, "session name");
  if (/[:.]/.test(name)) {
    throw new ToolError("invalid_arguments", `session name ${preview(name)} holds ":" or "."`, {
      hint: 'tmux would store them as "_" (they separate window and pane in its targets); ' +
        "choose a name without them.",
    });
  }
  if (SESSION_ID.test(name)) {
    throw new ToolError("invalid_arguments", `session name ${preview(name)} looks like an id`, {
      hint: "A name like $N would make session references ambiguous; choose another name.",
    });
  }
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
    ["display-message", "-p", "-t", sessionId, SESSION_STATE.template(sep)],
  ], signal);
  const row = decodeOne(
    SESSION_STATE.decode(parseRows(out, sep)),
    "sessionId",
    sessionId,
    () => sessionNotFound(ref),
  );
  return { sessionId: row.sessionId, sessionName: row.sessionName };
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
): Promise<PaneState> {
  // The value of -T is an option argument, so a leading "-" is taken literally.
  checkLabel(title, "title", MAX_TITLE_CHARS, false);
  const sep = separators();
  const out = await runSetter(ctx, [{ pane: paneId }], [
    ["select-pane", "-t", paneArg(paneId), "-T", literal(title)],
    readPane(sep, paneId),
  ], signal);
  return paneStates(out, sep, [paneId])[0];
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
): Promise<PaneState> {
  const sep = separators();
  const out = await runSetter(ctx, [{ pane: paneId }], [
    ["select-pane", "-t", paneArg(paneId)],
    readPane(sep, paneId),
  ], signal);
  return paneStates(out, sep, [paneId])[0];
}

/** One cell of a parsed layout string. */
interface LayoutCell {
  width: number;
  height: number;
  /** `{` children side by side, `[` stacked; absent for a pane. */
  split?: "{" | "[";
  cells: LayoutCell[];
}

/** tmux's layout checksum (layout_checksum): a 16-bit rotate-and-add over the body's bytes. */
export function layoutChecksum(body: string): string {
  let sum = 0;
  for (let i = 0; i < body.length; i++) {
    sum = ((sum >> 1) + ((sum & 1) << 15) + body.charCodeAt(i)) & 0xffff;
  }
  return sum.toString(16).padStart(4, "0");
}

/**
 * Check a layout: one of {@link NAMED_LAYOUTS}, or a string as tmux prints it (`window_layout`:
 * `csum,WxH,X,Y` then `,ID` for a pane or `{…}`/`[…]` for children side by side or stacked).
 * The grammar, the checksum and the geometry tmux checks (children span their parent, with one
 * cell of border between them) are verified here, so tmux never sees a malformed layout.
 */
export function checkLayout(layout: string): void {
  if ((NAMED_LAYOUTS as readonly string[]).includes(layout)) return;
  const refuse = (why: string) =>
    new ToolError("invalid_arguments", `layout ${preview(layout)} is not valid: ${why}`, {
      hint: `Pass one of ${NAMED_LAYOUTS.join(", ")}, or a layout string exactly as ` +
        "get_window_info or list_windows print it (window_layout).",
    });
  if (layout.length > MAX_LAYOUT_CHARS) throw refuse(`longer than ${MAX_LAYOUT_CHARS} characters`);
  const head = /^([0-9a-fA-F]{4}),/.exec(layout);
  if (!head) throw refuse("it is no layout name and does not start with a 4-digit checksum");
  const body = layout.slice(5);
  // Sticky patterns, made per call: their lastIndex is state.
  const CELL_HEAD = /(\d{1,5})x(\d{1,5}),(\d{1,5}),(\d{1,5})/y;
  // A pane's id: digits that the next cell's "WxH" does not continue.
  const CELL_ID = /,\d{1,10}(?=[,}\]]|$)/y;
  let at = 0;
  const cell = (): LayoutCell => {
    CELL_HEAD.lastIndex = at;
    const m = CELL_HEAD.exec(body);
    if (!m) throw refuse(`expected WxH,X,Y at character ${at + 5}`);
    at = CELL_HEAD.lastIndex;
    const [width, height] = [Number(m[1]), Number(m[2])];
    // A layout resizes its window: no larger than the largest pane we follow (§7.2).
    const [columns, rows] = [PANE_LIMITS.columns, PANE_LIMITS.rows];
    if (width < 1 || height < 1 || width > columns || height > rows) {
      throw refuse(`a cell of ${width}x${height} (at most ${columns}x${rows})`);
    }
    CELL_ID.lastIndex = at;
    if (CELL_ID.test(body)) at = CELL_ID.lastIndex;
    const open = body[at];
    if (open !== "{" && open !== "[") return { width, height, cells: [] };
    const cells: LayoutCell[] = [];
    do {
      at++;
      cells.push(cell());
    } while (body[at] === ",");
    if (body[at] !== (open === "{" ? "}" : "]")) {
      throw refuse(`unclosed ${open} at character ${at + 5}`);
    }
    at++;
    return { width, height, split: open, cells };
  };
  const root = cell();
  if (at !== body.length) throw refuse(`unexpected text at character ${at + 5}`);
  if (layoutChecksum(body) !== head[1].toLowerCase()) {
    throw refuse("its checksum does not match (tmux refuses it as an invalid layout)");
  }
  const fits = (c: LayoutCell): boolean => {
    if (!c.split) return true;
    const across = c.split === "{";
    const spanned = c.cells.reduce((sum, child) => sum + (across ? child.width : child.height), 0) +
      c.cells.length - 1;
    return spanned === (across ? c.width : c.height) &&
      c.cells.every((child) => (across ? child.height === c.height : child.width === c.width)) &&
      c.cells.every(fits);
  };
  if (!fits(root)) throw refuse("its cells do not add up to their parents' sizes");
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
): Promise<PaneState> {
  const target = paneArg(paneId);
  const sep = separators();
  // A bare resize-pane only unzooms, so the toggle that follows always zooms.
  const zoom: TmuxCommand[] = change.zoom ? [["resize-pane", "-Z", "-t", target]] : [];
  const out = await runSetter(ctx, [{ pane: paneId }], [
    ["resize-pane", "-t", target, ...sizeArgs(change)],
    ...zoom,
    readPane(sep, paneId),
  ], signal);
  return paneStates(out, sep, [paneId])[0];
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
): Promise<PaneState[]> {
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
  return paneStates(out, sep, [paneId, otherPaneId]);
}

/** A session option set globally or on one session, read back from that very scope. */
export interface OptionState {
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
