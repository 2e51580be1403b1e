/**
 * A headless terminal per streamed pane: xterm.js (`@xterm/headless`, the emulator VS Code's
 * terminal is built on) fed the pane's output bytes, so reads return rows as the terminal shows
 * them rather than the byte stream (docs/design.md §7.2). Unicode 11 widths, so wide characters
 * and emoji take the cells tmux gives them.
 *
 * Rows are numbered absolutely: row 0 is the first row of the emulator's normal screen, and rows
 * scrolled off the top of the bounded scrollback keep counting, so a number stays attached to the
 * same row while the pane prints (docs/design.md §7.3).
 *
 * Three xterm.js internals are used, all pinned with the exact package version in deno.json and
 * covered by src/live/emulator_test.ts and tests/tmux/fidelity_test.ts: `writeSync` (the public `write`
 * parses on a timer, which costs ~2 ms per wake-up under Deno), the normal buffer's trim event (the
 * public API does not say how many rows left the scrollback), and its cursor row (see
 * {@link PaneEmulator.resize}). {@link PaneEmulator.writeOutput} also reads the parser's state, the
 * UTF-8 decoder's pending bytes, the cursor column and the scroll region, to know when plain text
 * may skip the rows it would only scroll away (docs/design.md §7.2).
 */
import type { IBuffer, IBufferNamespace, IDisposable, Terminal } from "@xterm/headless";
import { plainCut } from "./plain_cut.ts";
import { defaultTabs, screenBytes } from "./seed_bytes.ts";
// The package's "module" field names a file it does not ship, which bundlers follow (`deno
// bundle` fails): its ESM build is imported by path; the types above are the package's own.
import * as headless from "@xterm/headless/lib-headless/xterm-headless.mjs";
import { Unicode11Addon } from "@xterm/addon-unicode11";
import { oversize } from "./pane_limits.ts";
import type { EmulatorSeed } from "./emulator_seed.ts";

const XTerminal = (headless as unknown as { Terminal: typeof Terminal }).Terminal;

/** The line list of xterm's normal buffer, as far as this module relies on it. */
interface LineList {
  readonly length: number;
  onTrim(listener: (amount: number) => void): IDisposable;
  /** A row, oldest first (what the public `getLine` wraps in a new object on every call). */
  get(index: number): BufferRow | undefined;
}

/** One row of xterm's buffer, as far as this module reads it. */
interface BufferRow {
  readonly isWrapped: boolean;
  translateToString(trimRight: boolean): string;
}

/** The internals this module reaches (see the header). */
interface Core {
  writeSync(data: Uint8Array | string): void;
  buffers: {
    /** `y`: the cursor's row on the screen; `ybase`: rows of scrollback above the screen. */
    normal: { lines: LineList; y: number; ybase: number };
    active: { x: number; scrollTop: number; scrollBottom: number };
  };
  _inputHandler: {
    /** The escape sequence parser: state 0 is ground (no sequence under way). */
    _parser: { currentState: number };
    /** A UTF-8 sequence split across writes waits here (first byte 0: none). */
    _utf8Decoder: { interim: Uint8Array };
  };
}

// The seed's shape has its own module (src/live/emulator_seed.ts); callers import it from here.
export type { EmulatorSeed } from "./emulator_seed.ts";

// What a followed pane may cost (docs/design.md §7.2), where the tools that create panes find it.
export { HISTORY_ROWS, oversize, PANE_LIMITS } from "./pane_limits.ts";

/** The longest single write to xterm: its parse buffer's initial length. */
const WRITE_SLICE = 4096;

/** A headless terminal fed one pane's output. */
export class PaneEmulator {
  readonly #term: Terminal;
  readonly #core: Core;
  /**
   * xterm's buffer namespace, taken once: `Terminal.buffer` checks an option through a proxy on
   * every access, which reads of a flood made millions of times. Its `normal` and `active` follow
   * a full reset.
   */
  readonly #buffers: IBufferNamespace;
  /** Rows that left the top of the normal buffer (scrolled out of the scrollback, or erased). */
  #trimmed = 0;
  #lines: LineList;
  #trimHook: IDisposable;
  /** Whether the stream has shown the program setting or resetting bracketed paste. */
  #pasteKnown = false;
  /** See {@link historyFloor}. */
  #floor = 0;
  /** See {@link resizes}. */
  #resizes = 0;
  readonly #scrollback: number;

  /** Throws `unsupported` (see {@link oversize}) for a size beyond {@link PANE_LIMITS}. */
  constructor(cols: number, rows: number, scrollback: number) {
    const refused = oversize("", cols, rows);
    if (refused) throw refused;
    this.#scrollback = scrollback;
    this.#term = new XTerminal({
      cols,
      rows,
      scrollback,
      allowProposedApi: true,
      logLevel: "off",
      // tmux's `scroll-on-clear` (on by default): clearing the screen keeps its rows as history.
      scrollOnEraseInDisplay: true,
      // tmux reflows the cursor's line on resize like any other.
      reflowCursorLine: true,
    });
    this.#term.loadAddon(new Unicode11Addon());
    this.#term.unicode.activeVersion = "11";
    this.#core = (this.#term as unknown as { _core: Core })._core;
    this.#buffers = this.#term.buffer;
    this.#lines = this.#core.buffers.normal.lines;
    this.#trimHook = this.#lines.onTrim((n) => this.#trimmed += n);
    for (const final of ["h", "l"]) {
      this.#term.parser.registerCsiHandler({ prefix: "?", final }, (params) => {
        if (params.includes(2004)) this.#pasteKnown = true;
        return false; // xterm applies the mode itself
      });
    }
    // A full reset (RIS) sets every mode to its default, bracketed paste off.
    this.#term.parser.registerEscHandler({ final: "c" }, () => {
      this.#pasteKnown = true;
      return false;
    });
  }

  /** Columns and rows. */
  get cols(): number {
    return this.#term.cols;
  }

  get rows(): number {
    return this.#term.rows;
  }

  /** Apply output bytes (a UTF-8 sequence or escape split across calls is completed later). */
  write(data: Uint8Array | string): void {
    // xterm grows its parse buffer (4 bytes a unit, kept for good) to its longest write, up to
    // 512 KiB: written in slices of its initial size, it stays at 16 KiB. A sequence, a UTF-8
    // character or a surrogate pair cut between slices is completed by the next one.
    for (let at = 0; at < data.length; at += WRITE_SLICE) {
      this.#core.writeSync(
        typeof data === "string"
          ? data.slice(at, at + WRITE_SLICE)
          : data.subarray(at, at + WRITE_SLICE),
      );
      this.#rehook();
    }
  }

  /**
   * Apply a pane's output, as {@link write}, but without drawing the rows it would scroll out of
   * the terminal before anyone could read them (docs/design.md §7.2, lazy emulation): when the
   * output starts with plain text (printable ASCII, CR, LF) and what follows a line start in it
   * scrolls the whole terminal over by itself, the part before that line start is only
   * counted — its rows are added to the trimmed ones — and the rest is written. Every row, cursor
   * and count afterwards is what writing it all gives (src/live/emulator_skip_test.ts). Returns how
   * many bytes were only counted.
   */
  writeOutput(chunks: readonly Uint8Array[]): number {
    const skip = this.#skippable(chunks);
    let left = skip?.offset ?? 0;
    if (skip) {
      this.write("\r");
      this.#trimmed += skip.rows;
    }
    for (const chunk of chunks) {
      if (left < chunk.length) this.write(left > 0 ? chunk.subarray(left) : chunk);
      left = Math.max(0, left - chunk.length);
    }
    return skip?.offset ?? 0;
  }

  /**
   * Where plain text at the start of `chunks` (one run of output) may be cut: the last line start
   * (after CR LF) below which the plain text still advances the cursor `rows + scrollback` times
   * after the cursor is on the bottom row (so every row held afterwards is drawn by the rest
   * alike), and how many rows (line feeds and wraps) the text before it advances. Undefined when
   * nothing may be cut: xterm is inside a sequence, the alternate screen or a scroll region or
   * insert mode is on, or autowrap is off.
   */
  #skippable(chunks: readonly Uint8Array[]): { offset: number; rows: number } | undefined {
    const cols = this.#term.cols;
    const active = this.#core.buffers.active;
    // Rows scrolled in once both cursors (writing all, writing the rest) are on the bottom row.
    const atBottom = this.#buffers.active.cursorY === this.#term.rows - 1;
    const need = (atBottom ? 0 : this.#term.rows) + this.#term.rows + this.#scrollback;
    let total = 0;
    for (const chunk of chunks) total += chunk.length;
    if (total < need || this.alternate) return undefined;
    const input = this.#core._inputHandler;
    const modes = this.#term.modes;
    if (
      input._parser.currentState !== 0 || input._utf8Decoder.interim[0] !== 0 ||
      active.scrollTop !== 0 || active.scrollBottom !== this.#term.rows - 1 ||
      !modes.wraparoundMode || modes.insertMode
    ) return undefined;
    return plainCut(chunks, active.x, cols, need);
  }

  /**
   * Resize as tmux resized the pane; xterm reflows wrapped lines as tmux does. Throws
   * `unsupported` beyond {@link PANE_LIMITS}.
   */
  resize(cols: number, rows: number): void {
    if (cols === this.#term.cols && rows === this.#term.rows) return;
    // Never grown past the bound: the stream is ended with this error instead.
    const refused = oversize("", cols, rows);
    if (refused) throw refused;
    if (rows > this.#term.rows && !this.alternate) this.#grow(rows);
    this.#term.resize(cols, rows);
    this.#rehook();
    // tmux reflowed the rows this terminal no longer holds as well, and the line the oldest held
    // rows end may have reflowed differently here (its start is gone): from the first line that
    // starts in the held rows on, the two number rows alike again.
    let start = this.firstRow;
    while (start < this.screenTop && this.isWrapped(start)) start++;
    this.#floor = Math.max(this.#floor, start);
    this.#resizes++;
  }

  /**
   * Add rows as tmux does (docs/design.md §7.2), before any reflow, as tmux orders them: tmux pulls
   * rows back from its history wherever the cursor is, while xterm.js does so only with the cursor
   * on the bottom row and otherwise adds blank rows below. So the cursor is put on the bottom row
   * for xterm's resize, then moved down by the rows that came back.
   */
  #grow(rows: number): void {
    const buffer = this.#core.buffers.normal;
    const { y, ybase } = buffer;
    buffer.y = this.#term.rows - 1;
    this.#term.resize(this.#term.cols, rows);
    buffer.y = y + (ybase - buffer.ybase);
  }

  /**
   * After a resize, match tmux's cursor row (read from tmux at this point of the stream): when
   * narrowing wraps lines, tmux scrolls the rows above into its history while xterm.js, with an
   * empty history, drops blank rows below the cursor instead. Scroll up by the difference. Returns
   * whether anything moved.
   */
  align(cursorX: number, cursorY: number, cols: number, rows: number): boolean {
    if (this.alternate || cols !== this.cols || rows !== this.rows) return false;
    const lower = this.#normal.cursorY - cursorY;
    if (lower <= 0) return false;
    this.write(
      `\x1b[${rows};1H${"\n".repeat(lower)}\x1b[${cursorY + 1};${Math.min(cursorX, cols - 1) + 1}H`,
    );
    return true;
  }

  /**
   * Start from tmux's rendering: the normal screen (and, when the alternate one is shown, that
   * one over it), then the modes a capture cannot show and the cursor.
   */
  seed(seed: EmulatorSeed): void {
    this.resize(seed.width, seed.height);
    if (seed.normal) {
      this.write(screenBytes(seed.normal.screen));
      this.write(`\x1b[${seed.normal.cursorY + 1};${seed.normal.cursorX + 1}H\x1b[?1049h\x1b[H`);
    }
    this.write(screenBytes(seed.screen));
    if (seed.scrollUpper !== 0 || seed.scrollLower !== seed.height - 1) {
      this.write(`\x1b[${seed.scrollUpper + 1};${seed.scrollLower + 1}r`);
    }
    if (seed.tabs.join() !== defaultTabs(seed.width).join()) {
      this.write("\x1b[3g" + seed.tabs.map((x) => `\x1b[1;${x + 1}H\x1bH`).join(""));
    }
    if (seed.insert) this.write("\x1b[4h");
    if (seed.cursorKeys) this.write("\x1b[?1h");
    if (seed.keypad) this.write("\x1b=");
    if (!seed.wrap) this.write("\x1b[?7l");
    const top = seed.origin ? seed.scrollUpper : 0;
    if (seed.origin) this.write("\x1b[?6h");
    const y = seed.cursorY - top + 1;
    if (seed.cursorX < seed.width || !seed.wrap) {
      this.write(`\x1b[${y};${Math.min(seed.cursorX, seed.width - 1) + 1}H`);
      return;
    }
    // The cursor waits past the last column: print that column's character again, so the next
    // character wraps as it would in tmux (its colours are lost, its text is not).
    const line = this.#active.getLine(this.#active.baseY + seed.cursorY);
    const last = line?.getCell(seed.width - 1);
    const lead = last?.getWidth() === 0 ? line?.getCell(seed.width - 2) : undefined;
    const x = lead ? seed.width - 1 : seed.width;
    this.write(`\x1b[${y};${x}H${(lead ?? last)?.getChars() || " "}`);
  }

  /**
   * The screen shown (normal or alternate) as xterm.js holds it, with attributes, for drawing a
   * screenshot (docs/design.md §9). Read it only; it changes as the pane prints.
   */
  get buffer(): IBuffer {
    return this.#buffers.active;
  }

  /** True while the program shows the alternate screen (full-screen programs). */
  get alternate(): boolean {
    return this.#buffers.active.type === "alternate";
  }

  /**
   * Whether the program asked for bracketed paste (DECSET 2004); undefined until the stream has
   * shown it set or reset, since tmux 3.3 offers no format for it and a capture cannot show it.
   */
  get bracketedPaste(): boolean | undefined {
    return this.#pasteKnown ? this.#term.modes.bracketedPasteMode : undefined;
  }

  /**
   * The modes the bytes of a key press depend on (src/record/key_bytes.ts): application cursor
   * keys and application keypad, as the program set them (the seed carries tmux's).
   */
  get keyModes(): { cursor: boolean; keypad: boolean } {
    const modes = this.#term.modes;
    return { cursor: modes.applicationCursorKeysMode, keypad: modes.applicationKeypadMode };
  }

  /** The cursor on the screen shown: column and row from its top. */
  get cursor(): { x: number; y: number } {
    return { x: this.#active.cursorX, y: this.#active.cursorY };
  }

  /** The visible rows of the screen shown, trailing blanks removed (what `capture-pane -p` prints). */
  screenRows(): string[] {
    const buffer = this.#active;
    const rows: string[] = [];
    for (let y = 0; y < this.#term.rows; y++) {
      rows.push(trimEnd(buffer.getLine(buffer.baseY + y)?.translateToString(true) ?? ""));
    }
    return rows;
  }

  /**
   * The oldest row whose number still matches tmux's count of the rows that scrolled into its
   * history (docs/design.md §7.3): rows above it were there before a resize (tmux reflowed them
   * too, unseen here) or a full reset (which dropped them here and pushed them into tmux's
   * history), so they cannot be read back.
   */
  get historyFloor(): number {
    return this.#floor;
  }

  /** Resizes and full resets so far: reading rows back from tmux is void across one. */
  get resizes(): number {
    return this.#resizes;
  }

  /** Absolute number of the oldest row still held (normal screen). */
  get firstRow(): number {
    return this.#trimmed;
  }

  /** Absolute number of the row after the last one held (normal screen). */
  get endRow(): number {
    return this.#trimmed + this.#normal.length;
  }

  /** Absolute number of the normal screen's top row (rows above it are scrollback). */
  get screenTop(): number {
    return this.#trimmed + this.#normal.baseY;
  }

  /** Absolute row of the normal screen's cursor (kept while the alternate screen is shown). */
  get cursorRow(): number {
    return this.#trimmed + this.#normal.baseY + this.#normal.cursorY;
  }

  /** Text of an absolute row of the normal screen, trailing blanks removed ("" when not held). */
  rowText(row: number): string {
    return trimEnd(this.#row(row - this.#trimmed)?.translateToString(true) ?? "");
  }

  /** Whether an absolute row continues the row above it (the line wrapped there). */
  isWrapped(row: number): boolean {
    return this.#row(row - this.#trimmed)?.isWrapped ?? false;
  }

  /** The last absolute row of the normal screen holding text (`firstRow - 1` when none does). */
  lastTextRow(): number {
    for (let i = this.#normal.length - 1; i >= 0; i--) {
      if (trimEnd(this.#row(i)?.translateToString(true) ?? "") !== "") {
        return this.#trimmed + i;
      }
    }
    return this.#trimmed - 1;
  }

  /**
   * Rows `from` … `to` of the normal screen as text: a wrapped row continues the line above it,
   * other rows end with a newline between them; trailing blanks of each line removed.
   */
  text(from: number, to: number): string {
    let out = "";
    for (let row = Math.max(from, this.firstRow); row <= to; row++) {
      const line = this.#row(row - this.#trimmed);
      if (!line) break;
      if (row > from && !line.isWrapped) out += "\n";
      const continues = row < to && this.isWrapped(row + 1);
      out += continues ? line.translateToString(false) : trimEnd(line.translateToString(true));
    }
    return out;
  }

  /** Free the terminal. */
  dispose(): void {
    this.#trimHook.dispose();
    this.#term.dispose();
  }

  /** A row of the normal buffer by index (xterm's list wraps around, without a bounds check). */
  #row(index: number): BufferRow | undefined {
    return index >= 0 && index < this.#lines.length ? this.#lines.get(index) : undefined;
  }

  get #normal() {
    return this.#buffers.normal;
  }

  get #active() {
    return this.#buffers.active;
  }

  /** A full reset (RIS) replaces xterm's buffers: count the old rows as gone, follow the new ones. */
  #rehook(): void {
    const lines = this.#core.buffers.normal.lines;
    if (lines === this.#lines) return;
    this.#trimmed += this.#lines.length;
    this.#trimHook.dispose();
    this.#lines = lines;
    this.#trimHook = lines.onTrim((n) => this.#trimmed += n);
    this.#floor = Math.max(this.#floor, this.#trimmed);
    this.#resizes++;
  }
}

/**
 * A row's text without trailing spaces, as `capture-pane` prints it (xterm trims only cells never
 * written; a space written there stays).
 */
function trimEnd(text: string): string {
  let end = text.length;
  while (end > 0 && text.charCodeAt(end - 1) === 0x20) end--;
  return end === text.length ? text : text.slice(0, end);
}
