/**
 * Reading rows that left a followed pane's terminal back from tmux's history (docs/design.md
 * §7.3; what is asked for and how the rows are used: src/live/read_back.ts).
 *
 * The terminal numbers its rows absolutely (rows that left its top keep counting); tmux numbers
 * its history up from the screen's top (-1 … -history_size). Both scroll the same rows into their
 * history (the fidelity the terminal is tested for), so at a moment when the terminal has applied
 * exactly the output tmux has printed, tmux's oldest row is row `screenTop - history_size`. Such a
 * moment is a reply on the stream's own control connection, handled as it is read: tmux sends a
 * client's output and replies in order (only numbers cross that channel, §5.11).
 *
 * The rows come from one one-shot invocation (joined captures never cross the control channel):
 * history_size and the captures in ONE command line, so all of it describes one moment. Between
 * the replies before and after it, more rows may scroll in and, once the history is full, tmux
 * drops its oldest rows; how many rows had scrolled in by the capture is the one count that leads
 * from the first reply's history_size to the capture's and on to the second's
 * (src/tmux/live/history_count.ts). When no count or more than one does (history cleared, pane
 * resized, a full history turning over fast), or the terminal was resized or reset in between,
 * the attempt is void; when the capture began below a row asked for (more rows scrolled in than
 * allowed for), it is made again, allowing more.
 */
import { ToolError } from "../../errors.ts";
import type { PaneEmulator } from "../../live/emulator.ts";
import type { RowRange, TmuxRange, TmuxRows } from "../../live/read_back.ts";
import type { PaneStream } from "../../live/stream.ts";
import { paneHeader, section } from "../read/capture.ts";
import type { TmuxReadContext } from "../core/context.ts";
import type { ControlClient } from "../control/client.ts";
import { int, marker, rowFormat, separators, splitSections } from "../core/format.ts";
import { capturedLines, scrolledBy, wrapFlags } from "./history_count.ts";
import { generationOf } from "../read/generation.ts";
import { paneArg } from "../core/ids.ts";

/** Attempts of one read-back before its rows are given up (the read discloses them missed). */
const ATTEMPTS = 3;
/** Rows allowed to scroll in between the first reply and the capture, at first. */
const FIRST_MARGIN = 64;

const HEADER = rowFormat("H", {
  paneId: "pane_id",
  panePid: "pane_pid",
  serverPid: "pid",
  history: "history_size",
  width: "pane_width",
  height: "pane_height",
});

/** The terminal and tmux's history at one moment of the stream. */
interface Moment {
  /** The terminal's screen top (absolute) and tmux's history size and limit then. */
  top: number;
  history: number;
  limit: number;
  /** The terminal's resizes and resets so far, and its size. */
  resizes: number;
  cols: number;
  rows: number;
}

/**
 * Read rows back from tmux for a stream (see {@link ReadBack} and the header): `plan` runs at the
 * first moment and says which rows it wants; the rows come numbered as the terminal numbers them.
 */
export async function readBack<T>(
  ctx: TmuxReadContext,
  client: ControlClient,
  stream: PaneStream,
  plan: (emulator: PaneEmulator) => { value: T; ranges: RowRange[] },
  signal: AbortSignal,
): Promise<{ value: T; rows?: TmuxRows }> {
  let margin = FIRST_MARGIN;
  for (let attempt = 1;; attempt++) {
    const first = await moment(client, stream, signal, plan);
    const { value, ranges } = first.planned;
    // Rows above tmux's oldest row now are gone for good: its oldest row only ever moves down.
    const oldest = first.top - first.history;
    const asks = ranges.map((r) => ({ from: Math.max(r.from, oldest), to: r.to }));
    if (asks.every((r) => r.from >= r.to)) {
      return {
        value,
        rows: { oldest, ranges: asks.map((r) => ({ ...r, texts: [], wrapped: [] })) },
      };
    }
    const captured = await capture(ctx, stream, asks, first.top, margin, signal);
    if (!captured) return { value };
    const last = await moment(client, stream, signal);
    const counted = last.resizes === first.resizes && last.cols === first.cols &&
        last.rows === first.rows && captured.width === first.cols &&
        captured.height === first.rows
      ? scrolledBy(
        { before: first.history, mid: captured.history, after: last.history },
        first.limit,
        last.top - first.top,
      )
      : undefined;
    if (counted) {
      const placed = place(captured, asks, oldest + counted.dropped);
      if (placed) return { value, rows: placed };
      // The capture began below a row asked for: more rows scrolled in than the margin allowed.
      margin = 2 * counted.scrolled + FIRST_MARGIN;
    }
    if (attempt === ATTEMPTS) return { value };
  }
}

/**
 * A moment of the stream: a reply on its control connection, handled as it is read, when the
 * terminal has applied exactly what tmux had printed. `plan` runs on the terminal then.
 */
async function moment<P>(
  client: ControlClient,
  stream: PaneStream,
  signal: AbortSignal,
  plan?: (emulator: PaneEmulator) => P,
): Promise<Moment & { planned: P }> {
  let seen: (Moment & { planned: P }) | undefined;
  // Thrown inside the connection's reading, an error would end the connection: kept for after.
  let failed: { error: unknown } | undefined;
  await client.command(
    ["display-message", "-p", "-t", paneArg(stream.paneId), "#{history_size} #{history_limit}"],
    signal,
    undefined,
    (lines) => {
      const emulator = stream.emulator;
      const [history, limit] = (lines[0] ?? "").split(" ").map((n) => int(n, -1));
      if (!emulator || history < 0 || limit < 0) return;
      try {
        seen = {
          top: emulator.screenTop,
          history,
          limit,
          resizes: emulator.resizes,
          cols: emulator.cols,
          rows: emulator.rows,
          planned: plan?.(emulator) as P,
        };
      } catch (error) {
        failed = { error };
      }
    },
  );
  if (failed) throw failed.error;
  if (!seen) throw stream.ended ?? new ToolError("stale_cursor", "the stream ended");
  return seen;
}

/** One capture invocation: the pane's size and history then, and each range's rows. */
interface Captured {
  history: number;
  width: number;
  height: number;
  /** Per asked range: tmux's rows from `start` (on tmux's scale), with trailing blanks, and joined. */
  rows: Array<{ start: number; end: number; texts: string[]; joined: string } | undefined>;
}

/**
 * Capture each range on tmux's scale as it was at the first moment (whose screen top was `top`),
 * from `margin` rows higher (rows that scroll in meanwhile move every row up), down to one row
 * below it (which tells whether the range's last row wraps). Undefined when tmux refused or the
 * pane was replaced: the read goes without.
 */
async function capture(
  ctx: TmuxReadContext,
  stream: PaneStream,
  asks: readonly RowRange[],
  top: number,
  margin: number,
  signal: AbortSignal,
): Promise<Captured | undefined> {
  const sep = separators();
  const target = paneArg(stream.paneId);
  const commands = [["display-message", "-p", "-t", target, HEADER.template(sep)]];
  const spans = asks.map((r) =>
    r.from < r.to ? { start: r.from - margin - top, end: r.to - top } : undefined
  );
  for (const [i, span] of spans.entries()) {
    if (!span) continue;
    const range = ["-S", String(span.start), "-E", String(span.end), "-t", target];
    commands.push(marker(sep, `N${i}`), ["capture-pane", "-p", "-N", ...range]);
    commands.push(marker(sep, `J${i}`), ["capture-pane", "-p", "-J", ...range]);
  }
  let out: string;
  try {
    out = await ctx.runner.run(commands, { signal });
  } catch (error) {
    if (error instanceof ToolError && (error.code === "cancelled" || error.code === "timeout")) {
      throw error;
    }
    return undefined;
  }
  const sections = splitSections(out, sep);
  let header;
  try {
    header = paneHeader(HEADER, sections, stream.paneId);
  } catch {
    return undefined;
  }
  if (generationOf(int(header.serverPid), int(header.panePid)) !== stream.generation) {
    return undefined;
  }
  return {
    history: int(header.history),
    width: int(header.width),
    height: int(header.height),
    rows: spans.map((span, i) => {
      if (!span) return undefined;
      const body = section(sections, `N${i}`)?.body ?? "";
      return {
        ...span,
        texts: body.replace(/\n$/, "").split("\n"),
        joined: section(sections, `J${i}`)?.body ?? "",
      };
    }),
  };
}

/**
 * Number the captured rows as the terminal does, given tmux's oldest row at the capture
 * (`oldest`), and cut each asked range out of them. Undefined when a capture does not cover its
 * range (it began below it) or its two forms disagree.
 */
function place(
  captured: Captured,
  asks: readonly RowRange[],
  oldest: number,
): TmuxRows | undefined {
  const ranges: TmuxRange[] = [];
  for (const [i, ask] of asks.entries()) {
    const from = Math.max(ask.from, oldest);
    const rows = captured.rows[i];
    if (!rows || from >= ask.to) {
      ranges.push({ from: Math.min(from, ask.to), texts: [], wrapped: [] });
      continue;
    }
    const lines = capturedLines(captured.history, captured.height, rows.start, rows.end);
    if (rows.texts.length !== lines.bottom - lines.top + 1) return undefined;
    const first = oldest + lines.top;
    if (first > from || oldest + lines.bottom < ask.to) return undefined;
    const wrapped = wrapFlags(rows.texts, rows.joined);
    if (!wrapped) return undefined;
    const at = from - first;
    const count = ask.to - from;
    ranges.push({
      from,
      texts: rows.texts.slice(at, at + count),
      wrapped: wrapped.slice(at, at + count),
    });
  }
  return { oldest, ranges };
}
