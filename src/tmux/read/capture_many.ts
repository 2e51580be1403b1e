/**
 * Captures of many panes for a search: what to capture within a line budget (screens first, then
 * history shared evenly), and as few invocations as the argv budget allows, each pane's
 * text behind a nonce marker so pane content cannot forge a boundary. Each pane is captured
 * twice, wrapped lines joined (what is searched) and row by row (where each line starts, in
 * capture_pane's numbering: 0 = the screen's top row, negative = history).
 */
import { ToolError } from "../../errors.ts";
import type { TmuxReadContext } from "../core/context.ts";
import { marker, separators, splitSections } from "../core/format.ts";
import { paneArg } from "../core/ids.ts";

/** One pane to capture for a search: the newest `rows` rows up to the screen's bottom. */
interface ManyItem {
  paneId: string;
  /** Rows of history above the screen to include (0 = the visible screen only). */
  historyRows: number;
}

/** A pane as a search plans its capture. */
interface PlannedPane {
  paneId: string;
  /** Rows of its screen. */
  height: number;
  /** Rows of history it holds. */
  historyLines: number;
}

/** What {@link planCaptures} decided. */
interface CapturePlan {
  /** The panes to capture, in listing order, and the history rows of each. */
  items: ManyItem[];
  /** The line budget left out a pane, or history a pane had within `scrollback`. */
  lineLimitClamped: boolean;
  /** History rows of the planned panes left out, by `scrollback` or by the budget. */
  historyLeft: number;
}

/**
 * What a search captures within `budget` rows in all. Screens come first, in listing order (past
 * the budget, panes are left out); the rows left are shared evenly among the panes' histories,
 * each pane's newest rows first and at most `scrollback` of them (all it has when undefined): one
 * pane's deep history never crowds out the recent history of the others.
 */
export function planCaptures(
  panes: readonly PlannedPane[],
  scrollback: number | undefined,
  budget: number,
): CapturePlan {
  let left = budget;
  const kept: PlannedPane[] = [];
  for (const pane of panes) {
    if (left < pane.height) break;
    left -= pane.height;
    kept.push(pane);
  }
  const want = kept.map((p) => Math.min(scrollback ?? Infinity, p.historyLines));
  const give = kept.map(() => 0);
  let open = kept.map((_, i) => i).filter((i) => want[i] > 0);
  while (open.length > 0 && left > 0) {
    const share = Math.floor(left / open.length);
    if (share === 0) {
      // Fewer rows left than panes wanting them: one each, in listing order.
      for (const i of open.slice(0, left)) give[i]++;
      left = 0;
      break;
    }
    for (const i of open) {
      const add = Math.min(share, want[i] - give[i]);
      give[i] += add;
      left -= add;
    }
    open = open.filter((i) => give[i] < want[i]);
  }
  return {
    items: kept.map((p, i) => ({ paneId: p.paneId, historyRows: give[i] })),
    lineLimitClamped: kept.length < panes.length || give.some((g, i) => g < want[i]),
    historyLeft: kept.reduce((n, p, i) => n + p.historyLines - give[i], 0),
  };
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
): Promise<ManyCaptures> {
  const texts = new Map<string, string>();
  const rows = new Map<string, string>();
  const failed: string[] = [];
  const done = (timedOut: boolean): ManyCaptures => {
    const lineRows = new Map<string, number[]>();
    for (const item of items) {
      const text = texts.get(item.paneId);
      const unjoined = rows.get(item.paneId);
      if (text === undefined) continue;
      // A pane whose row capture did not come (the chain stopped between the two) is not searched.
      if (unjoined === undefined) texts.delete(item.paneId);
      else {lineRows.set(
          item.paneId,
          startRows(text, unjoined, item.historyRows > 0 ? -item.historyRows : 0),
        );}
    }
    return { texts, lineRows, failed, timedOut };
  };
  let next = 0;
  while (next < items.length) {
    const remaining = options.deadline - Date.now();
    if (remaining <= 0) return done(true);
    const sep = separators();
    const commands: string[][] = [];
    let bytes = 0;
    let last = next;
    for (; last < items.length; last++) {
      const item = items[last];
      const capture = ["capture-pane", "-p", "-t", paneArg(item.paneId)];
      if (item.historyRows > 0) capture.push("-S", String(-item.historyRows));
      const group = [marker(sep, `B${last}`), [...capture, "-J"], marker(sep, `R${last}`), capture];
      const size = group.flat().reduce((n, a) => n + a.length + 1, 0);
      if (commands.length > 0 && bytes + size > ARGV_BUDGET) break;
      commands.push(...group);
      bytes += size;
    }
    let result;
    try {
      result = await ctx.runner.runPartial(commands, {
        signal: options.signal,
        timeoutMs: remaining,
      });
    } catch (error) {
      if (error instanceof ToolError && error.code === "timeout") return done(true);
      throw error;
    }
    const sections = splitSections(result.stdout, sep);
    for (const s of sections) {
      const index = Number(s.tag.slice(1));
      if (!(index >= next && index < last)) continue;
      if (s.tag.startsWith("B")) texts.set(items[index].paneId, s.body);
      if (s.tag.startsWith("R")) rows.set(items[index].paneId, s.body);
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
  return done(false);
}

/** What {@link captureMany} read. */
interface ManyCaptures {
  /** Each pane's text, wrapped lines joined. */
  texts: Map<string, string>;
  /** Per pane, the row each line of its text starts on (capture_pane's numbering). */
  lineRows: Map<string, number[]>;
  /** Panes that vanished before they could be read. */
  failed: string[];
  timedOut: boolean;
}

/**
 * The row each joined line starts on, given the same capture row by row and its top row: a joined
 * line holds the rows whose characters, spaces aside, add up to its own (tmux joins a wrapped row
 * to the next without a newline, and keeps trailing spaces only when joining). A wrapped row
 * holding nothing but spaces is taken for the next line's, so that line's start reads one row
 * early.
 */
export function startRows(joined: string, unjoined: string, top: number): number[] {
  const size = (text: string) => text.replaceAll(" ", "").length;
  const rows = unjoined.split("\n");
  const starts: number[] = [];
  let row = 0;
  for (const line of joined.split("\n")) {
    starts.push(top + row);
    const want = size(line);
    let got = size(rows[row++] ?? "");
    while (got < want && row < rows.length) got += size(rows[row++]);
  }
  return starts;
}
