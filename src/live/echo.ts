/**
 * Telling a pane's answer to input apart from the echo of that input (docs/design.md §7.10): which
 * lines are the echo (never matched by a wait's pattern), whether output came beyond the line
 * the input was typed on (what starts a quiet timer), and what the cursor rests after (what the
 * default wait reads). Pure: it reads a terminal, never tmux.
 */
import type { PaneEmulator } from "./emulator.ts";

/** Typed lines recognized as the input's echo: the last ones typed bound the cost. */
const ECHO_LINES = 64;

/** Characters of a typed line whose echo, cut there, still counts as its echo (still arriving). */
const ECHO_PREFIX = 8;

/** Where the input is typed: the terminal's cursor when it was sent. */
export interface InputSpot {
  /** The row the terminal cursor was on (absolute, normal screen). */
  cursorRow: number;
  /** The first row of the logical line holding it. */
  lineFirst: number;
  /** The last row holding text then. */
  last: number;
  /** A full-screen program showed the alternate screen. */
  alternate: boolean;
}

/** Where input sent now would be typed. */
export function inputSpot(emulator: PaneEmulator): InputSpot {
  let lineFirst = emulator.cursorRow;
  while (lineFirst > emulator.firstRow && emulator.isWrapped(lineFirst)) lineFirst--;
  return {
    cursorRow: emulator.cursorRow,
    lineFirst,
    last: emulator.lastTextRow(),
    alternate: emulator.alternate,
  };
}

/** The lines of typed text whose echo is looked for: non-empty, trimmed, the last ones. */
export function echoLines(typed: string | undefined): string[] {
  return (typed ?? "").split(/[\r\n]+/).map((l) => l.trim()).filter((l) => l !== "")
    .slice(-ECHO_LINES);
}

/** Whether `line` ends with `typed`, or with its first {@link ECHO_PREFIX} or more characters. */
function endsWithTyped(line: string, typed: string): boolean {
  if (line.endsWith(typed)) return true;
  if (typed.length <= ECHO_PREFIX) return false;
  const head = typed.slice(0, ECHO_PREFIX);
  for (let i = line.indexOf(head); i >= 0; i = line.indexOf(head, i + 1)) {
    if (typed.startsWith(line.slice(i))) return true;
  }
  return false;
}

/**
 * Whether a logical line is the echo of the input. One typed line, when the line it was typed on
 * is known (`inputLine`, as it reads now): that line, ending with what was typed. Otherwise (a
 * multi-line input, a full-screen program, a polled screen): any line ending with a typed line.
 * Knowing the spot keeps a short answer such as `y` from hiding every output line ending in "y".
 */
export function isEcho(line: string, echo: readonly string[], inputLine?: string): boolean {
  const trimmed = line.trimEnd();
  if (echo.length === 1 && inputLine !== undefined) {
    return trimmed === inputLine.trimEnd() && endsWithTyped(trimmed, echo[0]);
  }
  return echo.some((typed) => endsWithTyped(trimmed, typed));
}

/** The logical line the input was typed on, as it reads now; undefined when it cannot be told. */
export function inputLineNow(emulator: PaneEmulator, spot: InputSpot): string | undefined {
  if (emulator.alternate || spot.alternate || spot.lineFirst < emulator.firstRow) return undefined;
  let last = spot.lineFirst;
  while (emulator.isWrapped(last + 1)) last++;
  return emulator.text(spot.lineFirst, last);
}

/**
 * Whether output came beyond the input's own line since `spot` (what starts the quiet timer): a
 * logical line below it holds text, the cursor went above it (a cleared or redrawn screen), or,
 * under a full-screen program, the screen changed (`changed`).
 */
export function outputBeyondInput(
  emulator: PaneEmulator,
  spot: InputSpot,
  changed: boolean,
): boolean {
  if (emulator.alternate || spot.alternate) return changed;
  let inputLast = spot.cursorRow;
  while (emulator.isWrapped(inputLast + 1)) inputLast++;
  return emulator.lastTextRow() > Math.max(inputLast, spot.last) ||
    (changed && emulator.cursorRow < spot.cursorRow);
}

/**
 * The text of the terminal cursor's row left of the cursor, blanks kept (what the default wait
 * after input reads, §7.10 rule 5); undefined under the alternate screen, where a full-screen
 * program's cursor says nothing about input being awaited.
 */
export function leftOfCursor(emulator: PaneEmulator): string | undefined {
  if (emulator.alternate) return undefined;
  const buffer = emulator.buffer;
  const line = buffer.getLine(buffer.baseY + buffer.cursorY);
  return line?.translateToString(false, 0, buffer.cursorX) ?? "";
}
