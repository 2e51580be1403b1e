/**
 * Pane captures: bounded before tmux is asked (so a million-line history is never copied whole),
 * pulled newest first in chunks sized by what the caller can keep, chained with nonce markers so
 * pane content cannot forge a boundary, and several panes per invocation for searches.
 */
import type { TmuxReadContext } from "./context.ts";
import { flag, int, marker, rowFormat, type Section, separators, splitSections } from "./format.ts";
import { generationOf, paneArg, paneNotFound, rethrowPaneMissing } from "./targets.ts";
import { ToolError } from "../errors.ts";
import { byteLength } from "../results.ts";
import type { EmulatorSeed } from "../live/emulator.ts";

/** What a capture range asks for; tmux's scale: 0 is the screen's top row, negative is history. */
export interface CaptureRange {
  start?: number;
  end?: number;
  joinWrapped?: boolean;
  /** At most this many rows are requested from tmux (the newest of the range). */
  maxRows: number;
  /**
   * What the caller keeps at most of the newest text (blank rows at the bottom aside). Older rows
   * stop being pulled once the lines below the topmost pulled line fill either budget, since no
   * older row could then be kept. Without it, the range is pulled up to `maxRows`.
   */
  keep?: { lines: number; bytes: number };
}

/** A bounded capture of one pane. */
export interface PaneCapture {
  paneId: string;
  generation: string;
  /** Text as tmux printed it, without escape sequences. */
  text: string;
  /** The range covered, as tmux clamps it (start ≥ -history, end ≤ the last screen row). */
  start: number;
  end: number;
  /** Rows of the asked range that were not pulled: above the row cap, or beyond what `keep` needs. */
  skippedRows: number;
  /** Bytes tmux printed for this capture, over all its reads (headers included). */
  pulledBytes: number;
}

const HEADER = rowFormat("H", {
  paneId: "pane_id",
  panePid: "pane_pid",
  serverPid: "pid",
  height: "pane_height",
  history: "history_size",
  width: "pane_width",
});

/** Rows of a range's first read; each later read may double, within what `keep` can still use. */
const FIRST_CHUNK_ROWS = 256;
/** Reads of one chunk while output keeps scrolling the history under it, before giving up. */
const CHUNK_ATTEMPTS = 3;
/** tmux reads -S/-E as a short; a larger line number would fall back to the screen's top. */
const SHRT_MAX = 32_767;

function section(sections: Section[], tag: string): Section | undefined {
  return sections.find((s) => s.tag === tag);
}

/** One capture invocation: the pane's header and the text of rows [top, end] as tmux clamps them. */
interface Chunk {
  generation: string;
  height: number;
  history: number;
  width: number;
  text: string;
  bytes: number;
}

/**
 * Read rows [top, end] (the screen when `rows` is undefined) with the pane's header. With
 * `joinBelow` (joined chunks above one already read), the text ends as one read of the two would
 * have it: `-p` always ends the output with a newline, so it is taken back when row `end` wraps
 * into the next, which a two-row joined probe of the same invocation tells (one line, not two).
 */
async function readChunk(
  ctx: TmuxReadContext,
  paneId: string,
  rows: { top: number; end?: number } | undefined,
  options: { joinWrapped?: boolean; joinBelow?: boolean; signal?: AbortSignal },
): Promise<Chunk> {
  const sep = separators();
  const capture = (top?: number, end?: number) => {
    const args = ["capture-pane", "-p", "-t", paneArg(paneId)];
    if (options.joinWrapped) args.push("-J");
    if (top !== undefined) args.push("-S", String(Math.min(top, SHRT_MAX)));
    if (end !== undefined) args.push("-E", String(Math.min(end, SHRT_MAX)));
    return args;
  };
  const commands = [
    ["display-message", "-p", "-t", paneId, HEADER.template(sep)],
    marker(sep, "T"),
    capture(rows?.top, rows?.end),
  ];
  const probe = options.joinWrapped && options.joinBelow && rows?.end !== undefined;
  if (probe) commands.push(marker(sep, "W"), capture(rows.end!, rows.end! + 1));
  const out = await ctx.runner.run(commands, { signal: options.signal })
    .catch((error) => rethrowPaneMissing(error, paneId));
  const sections = splitSections(out, sep);
  const header = HEADER.decode(sections.filter((s) => s.fields.length > 0))[0];
  if (header?.paneId !== paneId) throw paneNotFound(paneId);
  const text = section(sections, "T")?.body ?? "";
  const wraps = probe && (section(sections, "W")?.body ?? "").split("\n").length === 2;
  return {
    generation: generationOf(int(header.serverPid), int(header.panePid)),
    height: int(header.height),
    history: int(header.history),
    width: int(header.width),
    text: wraps ? text.replace(/\n$/, "") : text,
    bytes: byteLength(out),
  };
}

/**
 * How much of `keep` the text below its topmost line still leaves open (that line may be the tail
 * of a joined line whose head is not pulled yet, so it never counts). Blank rows at the bottom are
 * dropped first, as the caller drops them.
 */
function openBudget(
  text: string,
  keep: { lines: number; bytes: number },
): { lines: number; bytes: number } {
  const body = text.replace(/\n+$/, "");
  const first = body.indexOf("\n");
  if (first < 0) return keep;
  const below = body.slice(first + 1);
  let lines = 1;
  for (let i = below.indexOf("\n"); i >= 0; i = below.indexOf("\n", i + 1)) lines++;
  return { lines: keep.lines - lines, bytes: keep.bytes - byteLength(below) };
}

/**
 * Capture one pane's range, asking tmux for at most `maxRows` rows, and with `keep` for not much
 * more than the caller can keep: the newest rows come first, then older ones in chunks that
 * double but never hold more than twice the open byte budget in rows of single-byte cells, until
 * the budget is filled or the range's top (or the row cap) is reached. So a call pulls about 3×
 * `keep.bytes` at most (one first chunk aside; more only for multi-byte characters).
 *
 * Between reads, output may scroll the history. Each read returns history_size with the rows, in
 * one invocation, and later chunks are asked for on the first read's scale (a chunk read while
 * history_size moved is read again). That is exact while the history is below its limit; at the
 * limit tmux drops the oldest rows as new ones arrive and history_size stays put, so rows that
 * scroll in between reads shift the older chunks unseen: the text may then repeat or skip as many
 * rows as scrolled meanwhile.
 */
export async function capturePane(
  ctx: TmuxReadContext,
  paneId: string,
  range: CaptureRange,
  signal?: AbortSignal,
): Promise<PaneCapture> {
  const { start, end, joinWrapped, keep } = range;
  if (start === undefined && end === undefined) {
    const screen = await readChunk(ctx, paneId, undefined, { joinWrapped, signal });
    return {
      paneId,
      generation: screen.generation,
      text: screen.text,
      start: 0,
      end: screen.height - 1,
      skippedRows: 0,
      pulledBytes: screen.bytes,
    };
  }
  const top = start ?? 0;
  // Without an end the range ends at the screen's last row (≥ 0), so -rows is far enough up.
  const firstRows = keep ? Math.min(range.maxRows, FIRST_CHUNK_ROWS) : range.maxRows;
  const firstTop = end !== undefined
    ? Math.max(top, end - firstRows + 1)
    : Math.max(top, -firstRows);
  const first = await readChunk(ctx, paneId, { top: firstTop, end }, { joinWrapped, signal });
  // tmux clamps both ends into [-history, last screen row].
  const clamp = (row: number) => Math.min(Math.max(row, -first.history), first.height - 1);
  const rangeTop = clamp(top);
  const rangeEnd = clamp(end ?? first.height - 1);
  // The oldest row the row cap allows: maxRows above the end, or of history above the screen.
  const floor = Math.max(
    rangeTop,
    end !== undefined ? rangeEnd - range.maxRows + 1 : -range.maxRows,
  );
  const chunks = [first.text];
  let pulledTop = clamp(firstTop);
  let pulledBytes = first.bytes;
  let rows = firstRows;
  let history = first.history;
  pull: while (keep && pulledTop > floor) {
    const open = openBudget(chunks.join(""), keep);
    if (open.lines <= 0 || open.bytes <= 0) break;
    rows = Math.min(2 * rows, Math.ceil((2 * open.bytes) / (first.width + 1)));
    // Unjoined, a row is a line.
    if (!joinWrapped) rows = Math.min(rows, open.lines);
    const chunkTop = Math.max(floor, pulledTop - rows);
    for (let attempt = 1;; attempt++) {
      // Rows that scrolled into the history since the first read moved every row up as far.
      const scrolled = history - first.history;
      const chunk = await readChunk(
        ctx,
        paneId,
        { top: chunkTop - scrolled, end: pulledTop - 1 - scrolled },
        { joinWrapped, joinBelow: true, signal },
      );
      pulledBytes += chunk.bytes;
      if (chunk.generation !== first.generation) {
        throw new ToolError("stale_target", `pane ${paneId} was replaced while it was read`, {
          retryable: true,
          hint: "Capture it again; pass generation to be told when the process changes.",
        });
      }
      if (chunk.history === history) {
        chunks.unshift(chunk.text);
        pulledTop = chunkTop;
        break;
      }
      // A history that shrank may have been cleared (or moved back into a taller screen; we cannot
      // tell which), and a pane that keeps scrolling faster than it is read has no stable rows:
      // either way the older rows are left out and counted as skipped.
      if (chunk.history < history || attempt === CHUNK_ATTEMPTS) break pull;
      history = chunk.history;
    }
  }
  return {
    paneId,
    generation: first.generation,
    text: chunks.join(""),
    start: rangeTop,
    end: rangeEnd,
    skippedRows: pulledTop - rangeTop,
    pulledBytes,
  };
}

/** Everything snapshot_pane reports besides the text. */
export interface PaneState {
  paneId: string;
  generation: string;
  cursorX: number;
  cursorY: number;
  width: number;
  height: number;
  inMode: boolean;
  mode: string | null;
  scrollPosition: number | null;
  alternateOn: boolean;
  currentCommand: string;
  dead: boolean;
  exitStatus?: number;
  title: string;
}

const STATE = rowFormat("H", {
  paneId: "pane_id",
  panePid: "pane_pid",
  serverPid: "pid",
  cursorX: "cursor_x",
  cursorY: "cursor_y",
  width: "pane_width",
  height: "pane_height",
  inMode: "pane_in_mode",
  mode: "pane_mode",
  scrollPosition: "scroll_position",
  alternateOn: "alternate_on",
  dead: "pane_dead",
  deadStatus: "pane_dead_status",
  currentCommand: "pane_current_command",
  title: "pane_title",
});

/** The visible screen and the pane's state, in ONE tmux invocation. */
export async function snapshotPane(
  ctx: TmuxReadContext,
  paneId: string,
  signal?: AbortSignal,
): Promise<{ state: PaneState; text: string }> {
  const sep = separators();
  const out = await ctx.runner.run([
    ["display-message", "-p", "-t", paneArg(paneId), STATE.template(sep)],
    marker(sep, "T"),
    ["capture-pane", "-p", "-t", paneId],
  ], { signal }).catch((error) => rethrowPaneMissing(error, paneId));
  const sections = splitSections(out, sep);
  const f = STATE.decode(sections.filter((s) => s.fields.length > 0))[0];
  // display-message -t %missing succeeds with an empty context (docs/design.md §5.12).
  if (f?.paneId !== paneId) throw paneNotFound(paneId);
  const dead = flag(f.dead);
  const inMode = flag(f.inMode);
  return {
    state: {
      paneId,
      generation: generationOf(int(f.serverPid), int(f.panePid)),
      cursorX: int(f.cursorX),
      cursorY: int(f.cursorY),
      width: int(f.width),
      height: int(f.height),
      inMode,
      mode: inMode && f.mode !== "" ? f.mode : null,
      scrollPosition: inMode && /^\d+$/.test(f.scrollPosition) ? int(f.scrollPosition) : null,
      alternateOn: flag(f.alternateOn),
      currentCommand: f.currentCommand,
      dead,
      ...(dead && /^-?\d+$/.test(f.deadStatus) ? { exitStatus: int(f.deadStatus) } : {}),
      title: f.title,
    },
    text: section(sections, "T")?.body ?? "",
  };
}

/** One pane to capture for a search: the newest `rows` rows up to the screen's bottom. */
export interface ManyItem {
  paneId: string;
  /** Rows of history above the screen to include (0 = the visible screen only). */
  historyRows: number;
}

/** Bytes of argv per invocation: tmux refuses a command message over ~16 KiB. */
const ARGV_BUDGET = 12_000;

/**
 * Capture many panes with as few invocations as the argv budget allows. A pane that vanished
 * fails alone: tmux stops a chain at its first failure, so the rest is captured by the next
 * invocation. Wrapped lines are joined, so a match cannot be split by the pane's width.
 */
export async function captureMany(
  ctx: TmuxReadContext,
  items: readonly ManyItem[],
  options: { signal?: AbortSignal; deadline: number },
): Promise<{ texts: Map<string, string>; failed: string[]; timedOut: boolean }> {
  const texts = new Map<string, string>();
  const failed: string[] = [];
  let next = 0;
  while (next < items.length) {
    const remaining = options.deadline - Date.now();
    if (remaining <= 0) return { texts, failed, timedOut: true };
    const sep = separators();
    const commands: string[][] = [];
    let bytes = 0;
    let last = next;
    for (; last < items.length; last++) {
      const item = items[last];
      const capture = ["capture-pane", "-p", "-J", "-t", paneArg(item.paneId)];
      if (item.historyRows > 0) capture.push("-S", String(-item.historyRows));
      const pair = [marker(sep, `B${last}`), capture];
      const size = pair.flat().reduce((n, a) => n + a.length + 1, 0);
      if (commands.length > 0 && bytes + size > ARGV_BUDGET) break;
      commands.push(...pair);
      bytes += size;
    }
    let result;
    try {
      result = await ctx.runner.runPartial(commands, {
        signal: options.signal,
        timeoutMs: remaining,
      });
    } catch (error) {
      if (error instanceof ToolError && error.code === "timeout") {
        return { texts, failed, timedOut: true };
      }
      throw error;
    }
    const sections = splitSections(result.stdout, sep);
    for (const s of sections) {
      const index = Number(s.tag.slice(1));
      if (s.tag.startsWith("B") && index >= next && index < last) {
        texts.set(items[index].paneId, s.body);
      }
    }
    if (!result.error) {
      next = last;
      continue;
    }
    if (result.error.code !== "target_not_found") throw result.error;
    // The chain stopped at the capture after the last marker printed: that pane failed.
    const printed = sections.map((s) => Number(s.tag.slice(1))).filter((i) => i >= next);
    const failedIndex = printed.length ? Math.max(...printed) : next;
    texts.delete(items[failedIndex].paneId);
    failed.push(items[failedIndex].paneId);
    next = failedIndex + 1;
  }
  return { texts, failed, timedOut: false };
}

/** tmux's rendering of a pane, to seed a live stream's terminal (docs/design.md §7.2). */
export interface PaneSeed extends EmulatorSeed {
  paneId: string;
  generation: string;
}

const SEED = rowFormat("H", {
  paneId: "pane_id",
  panePid: "pane_pid",
  serverPid: "pid",
  width: "pane_width",
  height: "pane_height",
  cursorX: "cursor_x",
  cursorY: "cursor_y",
  alternate: "alternate_on",
  savedX: "alternate_saved_x",
  savedY: "alternate_saved_y",
  scrollUpper: "scroll_region_upper",
  scrollLower: "scroll_region_lower",
  insert: "insert_flag",
  origin: "origin_flag",
  wrap: "wrap_flag",
  tabs: "pane_tabs",
});

/**
 * A pane's screen with attributes, the cursor and the modes a capture cannot show, in ONE
 * invocation so that all of it describes the same moment. Under an alternate screen, `-a` reads
 * the normal screen tmux keeps beneath it.
 */
export async function captureSeed(
  ctx: TmuxReadContext,
  paneId: string,
  signal?: AbortSignal,
): Promise<PaneSeed> {
  const sep = separators();
  const capture = (extra: string[]) => [
    "capture-pane",
    "-p",
    "-e",
    "-J",
    ...extra,
    "-t",
    paneArg(paneId),
  ];
  const out = await ctx.runner.run([
    ["display-message", "-p", "-t", paneArg(paneId), SEED.template(sep)],
    marker(sep, "S"),
    capture([]),
    marker(sep, "N"),
    capture(["-a", "-q"]),
  ], { signal }).catch((error) => rethrowPaneMissing(error, paneId));
  const sections = splitSections(out, sep);
  const f = SEED.decode(sections.filter((s) => s.fields.length > 0))[0];
  // display-message -t %missing succeeds with an empty context (docs/design.md §5.12).
  if (f?.paneId !== paneId) throw paneNotFound(paneId);
  return {
    paneId,
    generation: generationOf(int(f.serverPid), int(f.panePid)),
    width: int(f.width),
    height: int(f.height),
    cursorX: int(f.cursorX),
    cursorY: int(f.cursorY),
    screen: section(sections, "S")?.body ?? "",
    ...(flag(f.alternate)
      ? {
        normal: {
          screen: section(sections, "N")?.body ?? "",
          cursorX: int(f.savedX),
          cursorY: int(f.savedY),
        },
      }
      : {}),
    scrollUpper: int(f.scrollUpper),
    scrollLower: int(f.scrollLower),
    insert: flag(f.insert),
    origin: flag(f.origin),
    wrap: flag(f.wrap),
    tabs: f.tabs.split(",").filter((t) => /^\d+$/.test(t)).map(Number),
  };
}

/** A pane's rows with their attributes, for a screenshot (docs/design.md §9). */
export interface PaneCells {
  paneId: string;
  generation: string;
  width: number;
  height: number;
  /** `capture-pane -e -N -p` lines, oldest first: `historyRows` of history, then the screen's. */
  lines: string[];
  /** Rows of history captured above the screen (at most what was asked and what the pane has). */
  historyRows: number;
  /** Rows of the screen captured, from its top (fewer than `height` when capped). */
  screenRows: number;
  cursorX: number;
  cursorY: number;
  /** Whether the program shows the cursor (DECTCEM). */
  cursorVisible: boolean;
  alternateOn: boolean;
}

const CELLS = rowFormat("H", {
  paneId: "pane_id",
  panePid: "pane_pid",
  serverPid: "pid",
  width: "pane_width",
  height: "pane_height",
  cursorX: "cursor_x",
  cursorY: "cursor_y",
  cursorFlag: "cursor_flag",
  alternateOn: "alternate_on",
});

/**
 * A pane's screen (its top `maxScreenRows` rows) and up to `historyRows` rows of history above it,
 * with attributes (`-e`) and trailing blanks kept (`-N`, which keeps a coloured background that
 * ends a line), plus the cursor, in ONE invocation so that all of it describes the same moment.
 * Rows are not joined: a screenshot shows them as the pane does. tmux carries attribute state from
 * one line to the next, so the lines belong together.
 */
export async function capturePaneCells(
  ctx: TmuxReadContext,
  paneId: string,
  options: {
    historyRows: number;
    maxScreenRows: number;
    /** Only the header: the caller draws cells it already has (`lines` is then empty). */
    headerOnly?: boolean;
    signal?: AbortSignal;
  },
): Promise<PaneCells> {
  const sep = separators();
  const capture = ["capture-pane", "-p", "-e", "-N", "-t", paneArg(paneId)];
  if (options.historyRows > 0) capture.push("-S", String(-Math.min(options.historyRows, SHRT_MAX)));
  capture.push("-E", String(Math.min(options.maxScreenRows, SHRT_MAX) - 1));
  const header = ["display-message", "-p", "-t", paneArg(paneId), CELLS.template(sep)];
  const out = await ctx.runner.run(
    options.headerOnly ? [header] : [header, marker(sep, "C"), capture],
    { signal: options.signal },
  ).catch((error) => rethrowPaneMissing(error, paneId));
  const sections = splitSections(out, sep);
  const f = CELLS.decode(sections.filter((s) => s.fields.length > 0))[0];
  // display-message -t %missing succeeds with an empty context (docs/design.md §5.12).
  if (f?.paneId !== paneId) throw paneNotFound(paneId);
  const height = int(f.height);
  const body = section(sections, "C")?.body;
  const lines = body === undefined ? [] : body.replace(/\n$/, "").split("\n");
  const screenRows = Math.min(height, options.maxScreenRows);
  return {
    paneId,
    generation: generationOf(int(f.serverPid), int(f.panePid)),
    width: int(f.width),
    height,
    lines,
    // tmux clamps -S to the history it has.
    historyRows: Math.max(0, lines.length - screenRows),
    screenRows,
    cursorX: int(f.cursorX),
    cursorY: int(f.cursorY),
    cursorVisible: flag(f.cursorFlag),
    alternateOn: flag(f.alternateOn),
  };
}
