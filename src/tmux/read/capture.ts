/**
 * Pane captures for agents' text (capture_pane, snapshot_pane): bounded before tmux is asked (so a
 * million-line history is never copied whole), pulled newest first in chunks sized by what the
 * caller can keep, chained with nonce markers so pane content cannot forge a boundary. Searches
 * capture many panes at once (src/tmux/read/capture_many.ts); pictures of panes take their cells with
 * attributes (src/tmux/live/capture_seed.ts).
 */
import type { TmuxReadContext } from "../core/context.ts";
import {
  flag,
  int,
  marker,
  rowFormat,
  type Section,
  separators,
  splitSections,
  type TaggedRow,
} from "../core/format.ts";
import { generationOf } from "./generation.ts";
import { paneArg } from "../core/ids.ts";
import { paneNotFound, rethrowPaneMissing } from "./not_found.ts";
import { ToolError } from "../../errors.ts";
import { byteLength } from "../../base/utf8.ts";

/** What a capture range asks for; tmux's scale: 0 is the screen's top row, negative is history. */
interface CaptureRange {
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
interface PaneCapture {
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
export const SHRT_MAX = 32_767;

/** The section of chained output a marker tagged `tag` began. */
export function section(sections: readonly Section[], tag: string): Section | undefined {
  return sections.find((s) => s.tag === tag);
}

/**
 * The header row a chain printed for `paneId` with `format`, checked to be that pane's:
 * `display-message -t %missing` succeeds with an empty context (docs/design.md §5.12).
 */
export function paneHeader<K extends string>(
  format: { decode(rows: readonly TaggedRow[]): Record<K | "paneId", string>[] },
  sections: readonly Section[],
  paneId: string,
): Record<K | "paneId", string> {
  const row = format.decode(sections.filter((s) => s.fields.length > 0))[0];
  if (row?.paneId !== paneId) throw paneNotFound(paneId);
  return row;
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
  const header = paneHeader(HEADER, sections, paneId);
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
interface PaneSnapshot {
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
): Promise<{ state: PaneSnapshot; text: string }> {
  const sep = separators();
  const out = await ctx.runner.run([
    ["display-message", "-p", "-t", paneArg(paneId), STATE.template(sep)],
    marker(sep, "T"),
    ["capture-pane", "-p", "-t", paneId],
  ], { signal }).catch((error) => rethrowPaneMissing(error, paneId));
  const sections = splitSections(out, sep);
  const f = paneHeader(STATE, sections, paneId);
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
