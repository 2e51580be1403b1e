/**
 * Pane captures: bounded before tmux is asked (so a million-line history is never copied whole),
 * chained with nonce markers so pane content cannot forge a boundary, and several panes per
 * invocation for searches.
 */
import type { TmuxContext } from "./context.ts";
import {
  flag,
  int,
  marker,
  rowTemplate,
  type Section,
  separators,
  splitSections,
} from "./format.ts";
import { generationOf, paneArg, paneNotFound, rethrowPaneMissing } from "./targets.ts";
import { ToolError } from "../errors.ts";
import { clipText, FIELD_LIMITS } from "../results.ts";

/** What a capture range asks for; tmux's scale: 0 is the screen's top row, negative is history. */
export interface CaptureRange {
  start?: number;
  end?: number;
  joinWrapped?: boolean;
  /** At most this many rows are requested from tmux (the newest of the range). */
  maxRows: number;
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
  /** Rows of the asked range that were not requested because they exceed the row cap. */
  skippedRows: number;
}

const HEADER_VARS = ["pane_id", "pane_pid", "pid", "pane_height", "history_size"] as const;

function section(sections: Section[], tag: string): Section | undefined {
  return sections.find((s) => s.tag === tag);
}

/** Capture one pane's range in one invocation, asking tmux for at most `maxRows` rows. */
export async function capturePane(
  ctx: TmuxContext,
  paneId: string,
  range: CaptureRange,
  signal?: AbortSignal,
): Promise<PaneCapture> {
  const sep = separators();
  const { start, end } = range;
  const args = ["capture-pane", "-p", "-t", paneArg(paneId)];
  if (range.joinWrapped) args.push("-J");
  let requestedTop: number | undefined;
  if (start !== undefined || end !== undefined) {
    const top = start ?? 0;
    // Without an end the range ends at the screen's last row (≥ 0), so -maxRows is far enough up.
    requestedTop = end !== undefined
      ? Math.max(top, end - range.maxRows + 1)
      : Math.max(top, -range.maxRows);
    args.push("-S", String(requestedTop));
    if (end !== undefined) args.push("-E", String(end));
  }
  const out = await ctx.runner.run([
    ["display-message", "-p", "-t", paneId, rowTemplate(sep, "H", HEADER_VARS)],
    marker(sep, "T"),
    args,
  ], { signal }).catch((error) => rethrowPaneMissing(error, paneId));
  const sections = splitSections(out, sep);
  const header = section(sections, "H")?.fields ?? [];
  if (header[0] !== paneId) throw paneNotFound(paneId);
  const [, panePid, serverPid, height, historySize] = header.map((f, i) => i === 0 ? 0 : int(f));
  const text = section(sections, "T")?.body ?? "";
  const clampedTop = Math.min(Math.max(start ?? 0, -historySize), height - 1);
  return {
    paneId,
    generation: generationOf(serverPid, panePid),
    text,
    start: clampedTop,
    // tmux clamps both ends into [-history, last screen row].
    end: Math.max(Math.min(end ?? height - 1, height - 1), -historySize),
    skippedRows: requestedTop === undefined ? 0 : Math.max(0, requestedTop - clampedTop),
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

const STATE_VARS = [
  "pane_id",
  "pane_pid",
  "pid",
  "cursor_x",
  "cursor_y",
  "pane_width",
  "pane_height",
  "pane_in_mode",
  "pane_mode",
  "scroll_position",
  "alternate_on",
  "pane_dead",
  "pane_dead_status",
  "pane_current_command",
  "pane_title",
] as const;

/** The visible screen and the pane's state, in ONE tmux invocation. */
export async function snapshotPane(
  ctx: TmuxContext,
  paneId: string,
  signal?: AbortSignal,
): Promise<{ state: PaneState; text: string }> {
  const sep = separators();
  const out = await ctx.runner.run([
    ["display-message", "-p", "-t", paneArg(paneId), rowTemplate(sep, "H", STATE_VARS)],
    marker(sep, "T"),
    ["capture-pane", "-p", "-t", paneId],
  ], { signal }).catch((error) => rethrowPaneMissing(error, paneId));
  const sections = splitSections(out, sep);
  const f = section(sections, "H")?.fields ?? [];
  if (f[0] !== paneId || f.length !== STATE_VARS.length) throw paneNotFound(paneId);
  const dead = flag(f[11]);
  const inMode = flag(f[7]);
  return {
    state: {
      paneId,
      generation: generationOf(int(f[2]), int(f[1])),
      cursorX: int(f[3]),
      cursorY: int(f[4]),
      width: int(f[5]),
      height: int(f[6]),
      inMode,
      mode: inMode && f[8] !== "" ? f[8] : null,
      scrollPosition: inMode && /^\d+$/.test(f[9]) ? int(f[9]) : null,
      alternateOn: flag(f[10]),
      currentCommand: clipText(f[13], FIELD_LIMITS.name),
      dead,
      ...(dead && /^-?\d+$/.test(f[12]) ? { exitStatus: int(f[12]) } : {}),
      title: clipText(f[14], FIELD_LIMITS.title),
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
  ctx: TmuxContext,
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
