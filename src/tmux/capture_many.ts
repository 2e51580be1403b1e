/**
 * Captures of many panes for a search: as few invocations as the argv budget allows, each pane's
 * text behind a nonce marker so pane content cannot forge a boundary.
 */
import { ToolError } from "../errors.ts";
import type { TmuxReadContext } from "./context.ts";
import { marker, separators, splitSections } from "./format.ts";
import { paneArg } from "./targets.ts";

/** One pane to capture for a search: the newest `rows` rows up to the screen's bottom. */
interface ManyItem {
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
