/**
 * Captures with attributes, for pictures of panes rather than agent text: the seed of a live
 * stream's terminal (docs/design.md §7.2) and a screenshot's cells (docs/design.md §9). Each is ONE
 * invocation, so that everything in it describes the same moment.
 */
import type { EmulatorSeed } from "../../live/emulator.ts";
import { paneHeader, section, SHRT_MAX } from "../read/capture.ts";
import type { TmuxReadContext } from "../core/context.ts";
import { flag, int, marker, rowFormat, separators, splitSections } from "../core/format.ts";
import { generationOf } from "../read/generation.ts";
import { paneArg } from "../core/ids.ts";
import { rethrowPaneMissing } from "../read/not_found.ts";

/** The header fields both captures start with: the pane, its process, its size and the cursor. */
const PANE_AND_CURSOR = {
  paneId: "pane_id",
  panePid: "pane_pid",
  serverPid: "pid",
  width: "pane_width",
  height: "pane_height",
  cursorX: "cursor_x",
  cursorY: "cursor_y",
} as const;

/** tmux's rendering of a pane, to seed a live stream's terminal (docs/design.md §7.2). */
interface PaneSeed extends EmulatorSeed {
  paneId: string;
  generation: string;
}

const SEED = rowFormat("H", {
  ...PANE_AND_CURSOR,
  alternate: "alternate_on",
  savedX: "alternate_saved_x",
  savedY: "alternate_saved_y",
  scrollUpper: "scroll_region_upper",
  scrollLower: "scroll_region_lower",
  insert: "insert_flag",
  origin: "origin_flag",
  wrap: "wrap_flag",
  cursorKeys: "keypad_cursor_flag",
  keypad: "keypad_flag",
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
  const f = paneHeader(SEED, sections, paneId);
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
    cursorKeys: flag(f.cursorKeys),
    keypad: flag(f.keypad),
    tabs: f.tabs.split(",").filter((t) => /^\d+$/.test(t)).map(Number),
  };
}

/** A pane's rows with their attributes, for a screenshot (docs/design.md §9). */
interface PaneCells {
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
  ...PANE_AND_CURSOR,
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
  const f = paneHeader(CELLS, sections, paneId);
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
