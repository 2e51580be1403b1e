/**
 * Where a framed command's output starts, kept true while the command moves the cursor, clears
 * the screen or its history, or switches to the alternate screen (docs/design.md §7.9).
 *
 * The normal screen numbers its rows absolutely (src/live/emulator.ts), so its start is a row
 * number: it moves up to any row the cursor is put on, restarts at the cursor when the screen is
 * cleared (`clear` is home plus erase-below, or erase-all), and never lies in a history cleared
 * with `ESC [ 3 J`. The alternate screen has no history and loses its top row to each scroll, so
 * its start is found when the output is read: the row after the one line the pane echoed with our
 * buffer's name in it, or else its first row holding text. The output is read from the screen
 * shown at the end. This module neither spawns nor speaks tmux.
 */
import type { PaneEmulator } from "./emulator.ts";

/** The output's place: from row `start` of the normal screen, or the alternate screen's text. */
export type OutputView = { emulator: PaneEmulator; start: number } | { text: string };

/** A command's rendered output and the rows that left the history before it could be read. */
export interface RunOutput {
  text: string;
  missedRows: number;
}

/** What a sequence in the output does to the output's start. */
type Effect = "move" | "erase" | "clear" | "history" | "screen" | "reset";

/** One sequence that may move the start: where it ends in the chunk, and what it does. */
interface StartEvent {
  offset: number;
  effect: Effect;
}

// deno-lint-ignore no-control-regex -- escape sequences are what is looked for
const SEQUENCE = /\x1b(?:\[([0-9;:]*)([HfAFdJu])|\[\?([0-9;]*)[hl]|([8Mc]))/g;
/** DEC private modes that switch between the normal and the alternate screen. */
const SCREEN_MODES = new Set(["47", "1047", "1049"]);
const ESC = 0x1b;
const LATIN1 = new TextDecoder("latin1");

/**
 * The sequences in `bytes` that can move the output's start, in order, and the chunk's end (where
 * the cursor is read too: a sequence split across chunks is seen there). One split across chunks
 * is seen only through the cursor at the end of the chunk.
 */
export function startEvents(bytes: Uint8Array): StartEvent[] {
  const events: StartEvent[] = [];
  if (bytes.indexOf(ESC) >= 0) {
    // latin1 (windows-1252) decodes one code unit per byte, so offsets are byte offsets.
    for (const m of LATIN1.decode(bytes).matchAll(SEQUENCE)) {
      const offset = m.index + m[0].length;
      if (m[2] !== undefined) {
        const erase = { "": "erase", "0": "erase", "2": "clear", "3": "history" } as const;
        const effect = m[2] === "J" ? erase[m[1] as keyof typeof erase] ?? "move" : "move";
        events.push({ offset, effect });
      } else if (m[3] !== undefined) {
        if (m[3].split(";").some((mode) => SCREEN_MODES.has(mode))) {
          events.push({ offset, effect: "screen" });
        }
      } else events.push({ offset, effect: m[4] === "c" ? "reset" : "move" });
    }
  }
  events.push({ offset: bytes.length, effect: "move" });
  return events;
}

/** A row's text without trailing spaces, as `capture-pane` prints it. */
function trimEnd(text: string): string {
  return text.replace(/ +$/, "");
}

/** The output's start on each screen, from the start frame on. */
export class OutputStart {
  /** Text on the pane's echoed line that no output can have put there: our buffer's name. */
  readonly #anchor: string;
  /** The start on the normal screen (absolute row), once output went there. */
  #normal: number | undefined;

  constructor(anchor: string) {
    this.#anchor = anchor;
  }

  /** The start frame: output starts at the cursor. */
  begin(emulator: PaneEmulator): void {
    if (!emulator.alternate) this.#normal = emulator.cursorRow;
  }

  /** A sequence took effect (the terminal is as it left it). */
  observe(effect: Effect, emulator: PaneEmulator): void {
    if (emulator.alternate) return;
    const row = emulator.cursorRow;
    const home = emulator.buffer.cursorX === 0 && emulator.buffer.cursorY === 0;
    if (this.#normal === undefined || effect === "clear" || effect === "reset") {
      this.#normal = row;
    } else if (effect === "erase" && home) {
      this.#normal = row;
    } else if (effect === "history") {
      this.#normal = Math.max(this.#normal, emulator.firstRow);
    } else this.#normal = Math.min(this.#normal, row);
  }

  /** The output as the screen shown now holds it. */
  read(emulator: PaneEmulator): RunOutput {
    const view = this.view(emulator);
    return "text" in view ? { text: view.text, missedRows: 0 } : normalRows(emulator, view.start);
  }

  /**
   * Where the output is now: its first row on the normal screen, or the alternate screen's text
   * (src/live/run_delta.ts reads what is new since an earlier answer from it).
   */
  view(emulator: PaneEmulator): OutputView {
    if (emulator.alternate) return { text: alternateRows(emulator, this.#anchor) };
    return { emulator, start: this.#normal ?? emulator.cursorRow };
  }

  /** The newest row of output holding text ("" when there is none yet). */
  newestRow(emulator: PaneEmulator): string {
    const lines = this.read(emulator).text.split("\n");
    return lines.findLast((line) => line !== "") ?? "";
  }
}

/**
 * Rows `start` … the last one holding the command's output, as text: the row of the terminal's
 * cursor (or a row with text below it) counts when it holds text — output without a final
 * newline — and not when the cursor waits at the start of an empty row.
 */
export function normalRows(emulator: PaneEmulator, start: number): RunOutput {
  const last = lastOutputRow(emulator);
  if (last < start) return { text: "", missedRows: 0 };
  const from = Math.max(start, emulator.firstRow);
  if (last < from) return { text: "", missedRows: from - start };
  return { text: emulator.text(from, last), missedRows: from - start };
}

/**
 * The last row of output on the normal screen: the cursor's row (or the last row with text below
 * it) when it holds text, else the row above it.
 */
export function lastOutputRow(emulator: PaneEmulator): number {
  const end = Math.max(emulator.cursorRow, emulator.lastTextRow());
  return emulator.rowText(end) !== "" ? end : end - 1;
}

/**
 * The alternate screen's output: the rows after the pane's echo of our typed line (found by
 * `anchor`, wrapped rows joined), or from its first row holding text, down to the last row of
 * output as on the normal screen.
 */
function alternateRows(emulator: PaneEmulator, anchor: string): string {
  const buffer = emulator.buffer;
  const rows = Array.from(
    { length: emulator.rows },
    (_, y) => buffer.getLine(buffer.baseY + y),
  );
  const texts = rows.map((line) => trimEnd(line?.translateToString(true) ?? ""));
  let start = texts.findIndex((text) => text !== "");
  let line = "";
  for (let y = 0; y < rows.length; y++) {
    line = rows[y]?.isWrapped ? line + (rows[y]?.translateToString(true) ?? "") : texts[y];
    if (line.includes(anchor)) start = y + 1;
  }
  const lastText = texts.findLastIndex((text) => text !== "");
  const end = Math.max(buffer.cursorY, lastText);
  const last = texts[end] !== "" ? end : end - 1;
  if (start < 0 || last < start) return "";
  let out = "";
  for (let y = start; y <= last; y++) {
    if (y > start && !rows[y]?.isWrapped) out += "\n";
    const continues = y < last && rows[y + 1]?.isWrapped;
    out += continues ? rows[y]?.translateToString(false) ?? "" : texts[y];
  }
  return out;
}
