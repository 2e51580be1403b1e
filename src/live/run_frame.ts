/**
 * Framed commands (docs/design.md §7.9): how run_shell_command knows where a command's output
 * begins and ends, and what it exited with, from the pane's own output stream.
 *
 * The pane's shell prints two invisible OSC sequences around the command, each carrying a
 * per-call 128-bit nonce: `ESC ] 7735 ; tmux-mcp ; <nonce> ; start BEL` before it and
 * `ESC ] 7735 ; tmux-mcp ; <nonce> ; exit ; <$?> BEL` after it. tmux and xterm.js ignore an OSC
 * they do not know, so neither reaches a screen, a capture or a rendered read; the stream sees
 * them in the raw bytes, possibly split across chunks, and reads the terminal's cursor row right
 * after each (src/live/stream.ts applies the bytes up to that point first). The output is the
 * rendered rows between the two.
 *
 * While a framed command runs, its pane is marked busy (src/live/run_marks.ts, docs/design.md
 * §6.12). This module neither spawns nor speaks tmux.
 */
import type { ToolError } from "../errors.ts";
import type { PaneEmulator } from "./emulator.ts";
import { OutputStart, type RunOutput, startEvents } from "./run_output.ts";
import {
  deltaSince,
  linesGiven,
  positionOf,
  type RunDelta,
  type RunPosition,
} from "./run_delta.ts";
import type { OutputTap } from "./stream.ts";
import { randomHex } from "../base/random.ts";
import { concatBytes } from "../base/utf8.ts";

/** The OSC number of our frames: one no terminal we know of assigns (tmux 3.3a ignores it). */
const FRAME_OSC = 7735;

/** A fresh 128-bit frame nonce (32 lowercase hex digits). */
export function frameNonce(): string {
  return randomHex(16);
}

/**
 * The two `printf` formats the shell runs around the command: `start` takes no argument, `exit`
 * takes `"$?"` (fish: `$status`). Only the escape notation (`\033`, `\007`) is in the text, and
 * neither holds `'` or `\\`, so it reads the same in POSIX and fish single quotes, and a shell that
 * traces its commands (`set -x`, `fish_trace`) shows it as text, never as a frame.
 *
 * After the start frame, `\r` and erase-to-end-of-line empty the row the output starts on: dash
 * reads lines through the terminal's own echo, which shows a line typed ahead before the prompt
 * it follows, so that prompt can land on this row.
 */
export function frameFormats(nonce: string): { start: string; exit: string } {
  if (!/^[0-9a-f]{32}$/.test(nonce)) throw new Error("internal: not a frame nonce");
  const head = `\\033]${FRAME_OSC};tmux-mcp;${nonce};`;
  return { start: `${head}start\\007\\r\\033[K`, exit: `${head}exit;%d\\007` };
}

/** A frame found in the stream: where it ends in the chunk, and what it says. */
interface FrameEvent {
  /** Offset in the chunk just past the frame's BEL. */
  offset: number;
  /** `start`, or the command's exit status. */
  frame: "start" | { status: number };
}

/** Longest frame body after the prefix: `exit;` and up to three digits (`$?` is 0–255). */
const MAX_BODY = 8;
const BEL = 0x07;
const ESC = 0x1b;

/**
 * Finds one nonce's frames in a byte stream fed chunk by chunk, a frame split across chunks
 * included. Frames with another nonce, or malformed ones, are not frames.
 */
export class FrameScanner {
  readonly #prefix: Uint8Array;
  /** Bytes of the previous chunks that may begin a frame. */
  #carry: Uint8Array = new Uint8Array(0);

  constructor(nonce: string) {
    this.#prefix = new TextEncoder().encode(`\x1b]${FRAME_OSC};tmux-mcp;${nonce};`);
  }

  /** The frames that end in `chunk`, in order. */
  scan(chunk: Uint8Array): FrameEvent[] {
    const base = this.#carry.length;
    const data = base === 0 ? chunk : concatBytes([this.#carry, chunk]);
    const events: FrameEvent[] = [];
    let from = 0;
    let pending = -1;
    for (;;) {
      const at = this.#find(data, from);
      if (at < 0) break;
      const body = at + this.#prefix.length;
      const bel = data.indexOf(BEL, body);
      if (bel < 0 && data.length - body <= MAX_BODY) {
        pending = at;
        break;
      }
      if (bel >= 0 && bel - body <= MAX_BODY) {
        const text = String.fromCharCode(...data.subarray(body, bel));
        const exit = /^exit;(\d{1,3})$/.exec(text);
        if (text === "start") events.push({ offset: bel + 1 - base, frame: "start" });
        else if (exit) events.push({ offset: bel + 1 - base, frame: { status: Number(exit[1]) } });
      }
      from = at + 1;
    }
    this.#carry = pending >= 0 ? data.slice(pending) : this.#prefixTail(data);
    return events;
  }

  /** Where the prefix occurs in `data` at or after `from`, or -1. */
  #find(data: Uint8Array, from: number): number {
    const prefix = this.#prefix;
    for (let at = data.indexOf(ESC, from); at >= 0; at = data.indexOf(ESC, at + 1)) {
      if (at + prefix.length > data.length) return -1;
      let i = 1;
      while (i < prefix.length && data[at + i] === prefix[i]) i++;
      if (i === prefix.length) return at;
    }
    return -1;
  }

  /** The longest end of `data` that begins the prefix (what a next chunk may complete). */
  #prefixTail(data: Uint8Array): Uint8Array {
    const prefix = this.#prefix;
    for (let n = Math.min(prefix.length - 1, data.length); n > 0; n--) {
      const start = data.length - n;
      let i = 0;
      while (i < n && data[start + i] === prefix[i]) i++;
      if (i === n) return data.slice(start);
    }
    return new Uint8Array(0);
  }
}

/**
 * What a line editor prints as it starts reading a line: bash's readline and zsh's zle turn
 * bracketed paste on at each prompt. Seen before a command's start frame, it tells that the pane's
 * shell is at a prompt again without having started the command (docs/design.md §7.9).
 */
const EDITOR_READS = "\x1b[?2004h";
const LATIN1 = new TextDecoder("latin1");

/** Answers' places remembered per run, by the cursor each carried (the oldest goes first). */
const GIVEN_MAX = 32;

/** An answer's place in a run's output, and what followed it until the command ended. */
export interface Given {
  at: RunPosition | "end";
  /** The output after it up to the end, kept when the command ended. */
  after?: RunDelta;
}

const NOTHING: RunDelta = { text: "", missedRows: 0, redrawn: 0 };

/** Who runs a framed command: the pane, its process and its shell when it was typed. */
interface RunOwner {
  paneId: string;
  generation: string;
  /** The shell that read the line (`pane_current_command`), e.g. `bash`. */
  shell: string;
  /** Our buffer's name, which the pane's echo of the typed line shows (see {@link OutputStart}). */
  buffer: string;
  /** Programs the command replaces the shell with (`exec python3 …`), by name. */
  execs: ReadonlySet<string>;
}

/**
 * One framed command, watching its pane's stream for its frames: where its output starts, and
 * when it ended with which status. It stays on the stream after the call that started it returns
 * (a timeout, a cancelled call), so its pane stays busy until the end frame comes.
 */
export class FramedRun implements OutputTap {
  readonly paneId: string;
  readonly generation: string;
  readonly shell: string;
  readonly execs: ReadonlySet<string>;
  readonly nonce: string = frameNonce();
  /** When the run was made, just before its line was typed (ms since epoch). */
  readonly typedAt: number = Date.now();
  /**
   * A key was pressed into the pane while the command ran (send_keys with a key name): the next
   * busy check may find the command interrupted (docs/design.md §6.12).
   */
  keyPressed = false;
  /** Called once the command ended (end frame) or its stream did. */
  onSettled?: () => void;
  readonly #scanner: FrameScanner;
  readonly #start: OutputStart;
  #started = false;
  #exit: (RunOutput & { status: number }) | undefined;
  #lost: (RunOutput & { reason: ToolError }) | undefined;
  readonly #begun = Promise.withResolvers<void>();
  #editorAt: number | undefined;
  #editorCarry = "";
  readonly #given = new Map<string, Given>();
  #latest: Given | undefined;

  constructor(owner: RunOwner) {
    this.paneId = owner.paneId;
    this.generation = owner.generation;
    this.shell = owner.shell;
    this.execs = owner.execs;
    this.#scanner = new FrameScanner(this.nonce);
    this.#start = new OutputStart(owner.buffer);
  }

  /**
   * Settles once the start frame came or the run settled: by then the pane's shell has deleted our
   * buffer, a command that makes tmux notify control clients (src/tmux/execute/run.ts holds the attach
   * gate until then).
   */
  get begun(): Promise<void> {
    return this.#begun.promise;
  }

  /** The shell printed the start frame: the command is running (or ran). */
  get started(): boolean {
    return this.#started;
  }

  /** The end frame was seen: the command's status and output. */
  get exit(): (RunOutput & { status: number }) | undefined {
    return this.#exit;
  }

  /** The stream ended before the end frame: why, and the output until then. */
  get lost(): (RunOutput & { reason: ToolError }) | undefined {
    return this.#lost;
  }

  /**
   * When a line editor was seen starting to read a line before the start frame (ms since epoch):
   * the shell came back to a prompt without starting the command (see {@link EDITOR_READS}).
   */
  get editorAt(): number | undefined {
    return this.#editorAt;
  }

  /** The end frame came or the stream ended: nothing more will be learned. */
  get settled(): boolean {
    return this.#exit !== undefined || this.#lost !== undefined;
  }

  scan(bytes: Uint8Array): Array<{ offset: number; then: (emulator: PaneEmulator) => void }> {
    if (this.settled) return [];
    if (!this.#started && this.#editorAt === undefined) this.#seekEditor(bytes);
    const frames = this.#scanner.scan(bytes).map(({ offset, frame }) => ({
      offset,
      then: (emulator: PaneEmulator) => {
        if (this.settled) return;
        if (frame === "start") {
          if (!this.#started) this.#start.begin(emulator);
          this.#started = true;
          this.#begun.resolve();
          return;
        }
        // An end frame without a start frame cannot be ours (the shell prints them in order).
        if (!this.#started) return;
        this.#exit = { status: frame.status, ...this.#start.read(emulator) };
        this.#resolve(emulator);
        this.#begun.resolve();
        this.onSettled?.();
      },
    }));
    // Between the frames, whatever moves the cursor up, clears or switches screens moves the start.
    const moves = startEvents(bytes).map(({ offset, effect }) => ({
      offset,
      then: (emulator: PaneEmulator) => {
        if (this.#started && !this.settled) this.#start.observe(effect, emulator);
      },
    }));
    // A frame and a move ending at the same byte: the frame first (stable sort in the stream).
    return [...frames, ...moves].sort((a, b) => a.offset - b.offset);
  }

  ended(reason: ToolError, emulator: PaneEmulator | undefined): void {
    if (this.settled) return;
    const output = emulator && this.#started
      ? this.#start.read(emulator)
      : { text: "", missedRows: 0 };
    this.#lost = { reason, ...output };
    this.#resolve(emulator);
    this.#begun.resolve();
    this.onSettled?.();
  }

  /** The output so far, as the terminal shows it now ("" before the start frame). */
  output(emulator: PaneEmulator | undefined): RunOutput {
    if (this.#exit) return { text: this.#exit.text, missedRows: this.#exit.missedRows };
    if (this.#lost) return { text: this.#lost.text, missedRows: this.#lost.missedRows };
    if (!emulator || !this.#started) return { text: "", missedRows: 0 };
    return this.#start.read(emulator);
  }

  /**
   * The output after `from` (an earlier answer's place; undefined: from the start) as the terminal
   * shows it now, or as it was at the end; and the place an answer giving it leaves the output at.
   */
  since(
    emulator: PaneEmulator | undefined,
    from: Given | undefined,
  ): { delta: RunDelta; next: Given } {
    const end = this.#exit ?? this.#lost;
    if (end) {
      const all = { text: end.text, missedRows: end.missedRows };
      if (!from) return { delta: { ...all, redrawn: 0 }, next: { at: "end" } };
      const rest = from.at === "end" ? NOTHING : { ...all, redrawn: linesGiven(from.at) };
      return { delta: from.after ?? rest, next: { at: "end" } };
    }
    if (!emulator || !this.#started) {
      return { delta: NOTHING, next: from ?? { at: { kind: "none" } } };
    }
    const view = this.#start.view(emulator);
    const at = from?.at === "end" ? undefined : from?.at;
    return {
      delta: deltaSince(view, at ?? { kind: "none" }),
      next: { at: positionOf(view) },
    };
  }

  /** Remember an answer's place: the next answer follows it, and `cursor` names it for a later one. */
  gave(next: Given, cursor?: string): void {
    this.#latest = next;
    if (cursor === undefined) return;
    this.#given.delete(cursor);
    this.#given.set(cursor, next);
    while (this.#given.size > GIVEN_MAX) this.#given.delete(this.#given.keys().next().value!);
  }

  /** The place of the answer that carried `cursor`, if it is still remembered. */
  given(cursor: string): Given | undefined {
    return this.#given.get(cursor);
  }

  /** The place of the newest answer (undefined before the first). */
  get latest(): Given | undefined {
    return this.#latest;
  }

  /** The command ended: keep what followed each answer's place, while the terminal shows it. */
  #resolve(emulator: PaneEmulator | undefined): void {
    if (!emulator || !this.#started) return;
    const view = this.#start.view(emulator);
    for (const given of new Set([...this.#given.values(), this.#latest])) {
      if (given && given.at !== "end" && !given.after) given.after = deltaSince(view, given.at);
    }
  }

  /** Look for {@link EDITOR_READS} in output before the start frame, split across chunks too. */
  #seekEditor(bytes: Uint8Array): void {
    const text = this.#editorCarry + LATIN1.decode(bytes);
    if (text.includes(EDITOR_READS)) this.#editorAt = Date.now();
    this.#editorCarry = text.slice(-(EDITOR_READS.length - 1));
  }

  /** The newest row of output holding text, for progress ("" when there is none yet). */
  newestRow(emulator: PaneEmulator | undefined): string {
    return emulator && this.#started ? this.#start.newestRow(emulator) : "";
  }
}

/** Whether the command replaced its shell: it started and an `exec`'d program is in front. */
export function replaced(
  run: Pick<FramedRun, "started" | "execs">,
  currentCommand: string,
): boolean {
  return run.started && run.execs.has(currentCommand);
}
