/**
 * One pane's recording (docs/design.md §11.2): an asciicast v2 file fed by the pane's live stream
 * from the moment the agent first touched it — a first frame drawn from the stream's terminal,
 * then every output chunk as it arrives (`o`), what was sent (`i`, written before it is sent, so
 * before its echo), a marker at each call that touches the pane (`m`) and each resize (`r`).
 * Past the file cap it continues in a new part that starts with the screen as it was then.
 */
import type { OutputObserver, PaneStream } from "../live/stream.ts";
import type { ToolError } from "../errors.ts";
import type { PaneInput } from "../tmux/core/context.ts";
import { castEvent, castHeader, castSize, OutputText } from "./asciicast.ts";
import { firstFrame } from "./first_frame.ts";
import { keyBytes } from "./key_bytes.ts";
import { PartedFile, type RecordPlace } from "./files.ts";

/** The marker before a paste into a program whose bracketed-paste mode the stream has not seen. */
const UNKNOWN_PASTE_MODE = "paste: the program's bracketed-paste mode is not known (set before " +
  "recording began), so the markers tmux adds when it is on are not recorded";

/** Where a recording goes and whom it tells. */
export interface RecordingPlace {
  place: RecordPlace;
  /** The session directory. */
  dir: string;
  /** The file's name (its first part). */
  name: string;
  /** The host the pane is on, for the title. */
  host: string;
  /** Writes a line to the session's action log. */
  note: (entry: Record<string, unknown>) => void;
}

/** A pane being recorded: an observer of its stream writing one asciicast file in parts. */
export class PaneRecording implements OutputObserver {
  readonly paneId: string;
  readonly generation: string;
  readonly #stream: PaneStream;
  readonly #where: RecordingPlace;
  readonly #file: PartedFile;
  readonly #text = new OutputText();
  /** performance.now() when the current part began: its events count from there. */
  #start = 0;
  #size: { cols: number; rows: number };
  /** The call that last put a marker here. */
  #marked = -1;
  #ended = false;

  /**
   * Start recording `stream` (seeded): observing it and drawing the first frame happen in one
   * synchronous step, so the recorded output continues exactly the screen drawn.
   */
  constructor(stream: PaneStream, where: RecordingPlace) {
    this.paneId = stream.paneId;
    this.generation = stream.generation;
    this.#stream = stream;
    this.#where = where;
    const emulator = stream.emulator;
    this.#size = { cols: emulator?.cols ?? 80, rows: emulator?.rows ?? 24 };
    this.#file = new PartedFile(where.place, where.dir, where.name, (part, previous) => {
      this.#start = performance.now();
      const now = this.#stream.emulator;
      if (now) this.#size = { cols: now.cols, rows: now.rows };
      const title = `tmux-mcp: ${where.host} ${this.paneId}` + (part > 1 ? ` (part ${part})` : "");
      const { cols: width, rows: height } = this.#size;
      const header = castHeader({ width, height, timestamp: Date.now() / 1000, title });
      if (previous) {
        where.note({ kind: "recording", event: "continued", ...this.#names(), from: previous });
      }
      return header + (now ? castEvent(0, "o", firstFrame(now)) : "");
    });
    stream.observe(this);
    // The first part, with the frame, now: before any output the observer sees.
    if (!this.#file.write(castEvent(0, "m", `recording ${where.host} ${this.paneId}`))) {
      this.close();
      return;
    }
    where.note({ kind: "recording", event: "started", ...this.#names() });
  }

  /** Whether it still records (its stream and the place both go on). */
  get live(): boolean {
    return !this.#ended;
  }

  /** Output the pane printed (see {@link OutputObserver}). */
  output(bytes: Uint8Array): void {
    const text = this.#text.decode(bytes);
    if (text !== "") this.#event("o", text);
  }

  /** The pane was resized: an `r` event when its size changed. */
  resized(cols: number, rows: number): void {
    if (cols === this.#size.cols && rows === this.#size.rows) return;
    this.#size = { cols, rows };
    this.#event("r", castSize(cols, rows));
  }

  /** The stream ended: say why, in the file and the log, and close. */
  ended(reason: ToolError): void {
    if (this.#ended) return;
    const rest = this.#text.flush();
    if (rest !== "") this.#event("o", rest);
    this.#event("m", `stream ended: ${reason.message}`);
    this.#where.note({ kind: "recording", event: "ended", ...this.#names(), why: reason.message });
    this.#finish();
  }

  /** A marker for call `call` of `tool`, once per call. */
  mark(call: number, tool: string): void {
    if (call === this.#marked) return;
    this.#marked = call;
    this.#event("m", `#${call} ${tool}`);
  }

  /**
   * What is about to be sent (it goes out after this returns): text as its bytes, a paste as the
   * bytes tmux pastes, a key as the bytes it sends in the pane's current modes — or, when those
   * are not known, by name in a marker.
   */
  input(inputs: readonly PaneInput[]): void {
    const emulator = this.#stream.emulator;
    for (const input of inputs) {
      if ("text" in input) {
        if (input.text !== "") this.#event("i", input.text);
      } else if ("paste" in input) {
        const body = input.paste.replaceAll("\n", "\r");
        // tmux adds the markers when the program asked for them; a stream knows only once it
        // has seen the program say so (tmux 3.3 has no format for it).
        const bracketed = emulator?.bracketedPaste;
        if (bracketed === undefined) this.#event("m", UNKNOWN_PASTE_MODE);
        this.#event("i", bracketed ? `\x1b[200~${body}\x1b[201~` : body);
      } else {
        const bytes = emulator && keyBytes(input.key, emulator.keyModes);
        if (bytes === undefined) this.#event("m", `key ${input.key}`);
        else if (bytes !== "") this.#event("i", bytes);
      }
    }
  }

  /** Stop recording (the session closed, or recording stopped): the stream goes on. */
  close(): void {
    if (this.#ended) return;
    const rest = this.#text.flush();
    if (rest !== "") this.#event("o", rest);
    this.#finish();
  }

  /** Write a last line though recording stopped, and close (see {@link PartedFile.last}). */
  last(text: string): void {
    if (this.#ended) return;
    this.#file.last(castEvent(this.#seconds(), "m", text));
    this.#finish();
  }

  /**
   * Append one event; a failure ends this recording. It runs inside the stream's own handling of
   * output, which nothing of the recorder's may break (docs/design.md §11.4).
   */
  #event(code: "o" | "i" | "m" | "r", data: string): void {
    if (this.#ended) return;
    let written = false;
    try {
      written = this.#file.write(castEvent(this.#seconds(), code, data));
    } catch {
      // A part's first frame could not be drawn: the recording ends here.
    }
    if (!written) this.#finish();
  }

  #seconds(): number {
    return (performance.now() - this.#start) / 1000;
  }

  #finish(): void {
    this.#ended = true;
    this.#stream.unobserve(this);
    this.#file.close();
  }

  #names() {
    return {
      host: this.#where.host,
      paneId: this.paneId,
      generation: this.generation,
      file: this.#file.current,
    };
  }
}
