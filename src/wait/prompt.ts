/**
 * The default wait after input (docs/design.md §7.10 rule 5), pure: whether a program sits
 * waiting for input, told from where the terminal cursor rests once output has stopped. The
 * caller says when the pane changed and whether the change went beyond the input's own line
 * (src/wait/input_watch.ts), and reads the cursor's row (live: src/live/echo.ts; polled: a
 * snapshot of the screen).
 */

/** How long output must have stopped before the cursor is read. */
export const PROMPT_SETTLE_MS = 300;

/**
 * Characters a prompt may end with when no blank follows them (`Name:`, `Continue?`, `>`, `$`,
 * `#`); most prompts end with a blank (`>>> `, `(Pdb) `, `[y/N] `, `$ `). `%` and `]` are left
 * out: progress lines end with them (`45%`, `[####  ]`).
 */
const PROMPT_END = /[:?>$#]$/;

/**
 * Whether `left`, the text of the cursor's row left of the cursor, reads as a prompt: some text,
 * then a blank right before the cursor, or a character of {@link PROMPT_END}.
 */
export function promptBefore(left: string): boolean {
  const text = left.trimEnd();
  return text !== "" && (text.length < left.length || PROMPT_END.test(text));
}

/** Zero-width code points: combining marks, joiners, variation selectors. */
const ZERO_WIDTH = /^[\p{M}\u200b-\u200f\u2060\ufe00-\ufe0f]$/u;

/**
 * Code points a terminal draws two cells wide (East Asian wide and fullwidth, most emoji): close
 * enough for reading a polled row up to the cursor, which tmux gives in cells.
 */
function wide(code: number): boolean {
  return (code >= 0x1100 && code <= 0x115f) || (code >= 0x2e80 && code <= 0xa4cf) ||
    (code >= 0xac00 && code <= 0xd7a3) || (code >= 0xf900 && code <= 0xfaff) ||
    (code >= 0xfe30 && code <= 0xfe4f) || (code >= 0xff00 && code <= 0xff60) ||
    (code >= 0xffe0 && code <= 0xffe6) || (code >= 0x1f300 && code <= 0x1faff) ||
    (code >= 0x20000 && code <= 0x3fffd);
}

/**
 * The text of a screen row (as `capture-pane` prints it, trailing blanks trimmed) left of cell
 * column `x`: the cells past the row's text are blanks.
 */
export function leftOfColumn(row: string, x: number): string {
  let cells = 0;
  let out = "";
  for (const ch of row) {
    const width = ZERO_WIDTH.test(ch) ? 0 : wide(ch.codePointAt(0)!) ? 2 : 1;
    if (cells + width > x) return out;
    cells += width;
    out += ch;
  }
  return out + " ".repeat(Math.max(0, x - cells));
}

/**
 * What the cursor says once output stopped: `prompt` (after prompt text on the normal screen),
 * `quiet` (a full-screen program, whose cursor says nothing: its screen settled), or nothing.
 */
export type Readiness = "prompt" | "quiet" | undefined;

/** The readiness of a screen: under the alternate screen, or by the text left of the cursor. */
export function readiness(alternate: boolean, left: string): Readiness {
  if (alternate) return "quiet";
  return promptBefore(left) ? "prompt" : undefined;
}
