/**
 * One pane's live stream: the output tmux forwards, applied to the pane's headless terminal
 * (src/live/emulator.ts) once that is seeded, the reads the server remembers, and the callers
 * waiting for the screen to change (docs/design.md §7.2–§7.3).
 */
import { ToolError } from "../errors.ts";
import { type EmulatorSeed, PaneEmulator } from "./emulator.ts";
import { newStreamId, type ReadMark, ReadMemory } from "./cursor.ts";

/** Output held while a stream is being seeded; past it the oldest is dropped (a seed race). */
const PENDING_LIMIT = 1 << 20;

/**
 * Output held unapplied (lazy emulation, docs/design.md §7.2) is applied once this much waits, or
 * when the terminal is read, or {@link APPLY_IDLE_MS} after it arrived: one write of a larger run
 * lets the terminal skip more of the rows it would scroll away unread.
 */
const UNAPPLIED_LIMIT = 1 << 15;
const APPLY_IDLE_MS = 50;

/**
 * Waiters are woken at once by a change, then at most once per this many ms while changes keep
 * coming (docs/design.md §7.2): a flood is read in a few large steps rather than one per pipe
 * read, each of which rendered and matched the whole kept history again.
 */
const WAKE_INTERVAL_MS = 10;

/** Why a wait ended. */
type WaitOutcome = "changed" | "timeout";

type Change = { bytes: Uint8Array } | { cols: number; rows: number };

/**
 * Sees a stream's output bytes before they are rendered, and may ask for the terminal at points
 * inside them: how run_shell_command finds its frames (docs/design.md §7.9).
 */
export interface OutputTap {
  /** Offsets in `bytes` after which the terminal is wanted (ascending), each with its use. */
  scan(bytes: Uint8Array): Array<{ offset: number; then: (emulator: PaneEmulator) => void }>;
  /** The stream ended; the terminal as it was, before it is freed (undefined if never seeded). */
  ended(reason: ToolError, emulator: PaneEmulator | undefined): void;
}

/**
 * Sees everything a stream receives, as it arrives and before anything else does: the recorder of
 * docs/design.md §11, which writes the output a pane printed in the order the pane printed it. It
 * never changes how the stream renders (unlike an {@link OutputTap}, it wants no terminal).
 */
export interface OutputObserver {
  /** Output bytes, exactly as tmux forwarded them. */
  output(bytes: Uint8Array): void;
  /** tmux resized the pane. */
  resized(cols: number, rows: number): void;
  /** The stream ended (the pane closed or was replaced, the connection was lost…). */
  ended(reason: ToolError): void;
}

/** The rendered output of one pane and the callers waiting for it to change. */
export class PaneStream {
  readonly id: string = newStreamId();
  readonly paneId: string;
  /** The pane's generation; the seed's, once seeded (the pane may be respawned meanwhile). */
  generation: string;
  readonly sessionId: string;
  /** The window holding the pane, as the last layout change or check showed it. */
  windowId: string;
  /** Last time a caller used this stream (ms since epoch). */
  lastUsed: number = Date.now();
  /** Callers blocked in {@link waitForChange}; a stream with waiters is in use. */
  waiters: number = 0;
  #received = 0;
  #changes = 0;
  /** Changes received before the seed, with their numbers; undefined once seeded. */
  #pending: { index: number; change: Change }[] | undefined = [];
  #pendingBytes = 0;
  /** Number of the newest change dropped from {@link #pending} (-1: none). */
  #droppedThrough = -1;
  #emulator: PaneEmulator | undefined;
  /** Output received for the seeded terminal but not yet applied to it. */
  #unapplied: Uint8Array[] = [];
  #unappliedBytes = 0;
  #applyTimer: ReturnType<typeof setTimeout> | undefined;
  #seedRace = false;
  readonly #scrollback: number;
  readonly #reads = new ReadMemory();
  #wake = new Set<(error?: ToolError) => void>();
  /** When waiters were last woken (performance.now()), and the timer of a deferred wake. */
  #wokeAt = -Infinity;
  /** Notifications so far (changes, alignments, the seed), woken or deferred. */
  #notified = 0;
  #wakeTimer: ReturnType<typeof setTimeout> | undefined;
  readonly #taps = new Set<OutputTap>();
  readonly #observers = new Set<OutputObserver>();
  #ended: ToolError | undefined;

  constructor(
    pane: { paneId: string; generation: string; sessionId: string; windowId: string },
    scrollback: number,
  ) {
    this.paneId = pane.paneId;
    this.generation = pane.generation;
    this.sessionId = pane.sessionId;
    this.windowId = pane.windowId;
    this.#scrollback = scrollback;
  }

  /** Output bytes received since the stream started: the position cursors carry. */
  get position(): number {
    return this.#received;
  }

  /** Changes received (output chunks and resizes): a seed is clean if none arrived during it. */
  get changes(): number {
    return this.#changes;
  }

  /** The pane's terminal, once seeded, with all output received so far applied. */
  get emulator(): PaneEmulator | undefined {
    this.#apply();
    return this.#emulator;
  }

  /** True when output kept arriving while the seed was captured (some may show twice). */
  get seedRace(): boolean {
    return this.#seedRace;
  }

  /** Why the stream ended (connection lost…), if it has. */
  get ended(): ToolError | undefined {
    return this.#ended;
  }

  /** Bytes the pane printed: applied to the terminal, or held until it is seeded. */
  receive(bytes: Uint8Array): void {
    if (bytes.length === 0 || this.#ended) return;
    for (const observer of this.#observers) observer.output(bytes);
    this.#received += bytes.length;
    this.#changes++;
    if (this.#emulator && this.#taps.size > 0) {
      this.#write(this.#emulator, bytes);
      this.#notify();
      return;
    }
    if (this.#emulator) {
      // Applied when read (or soon): a flood read once a chunk skips the rows it scrolls away.
      this.#unapplied.push(bytes);
      this.#unappliedBytes += bytes.length;
      if (this.#unappliedBytes >= UNAPPLIED_LIMIT) this.#apply();
      // A waiter reads the terminal as soon as it wakes; only output nobody waits for needs a timer.
      else if (this.waiters === 0) {
        this.#applyTimer ??= setTimeout(() => this.#apply(), APPLY_IDLE_MS);
      }
      this.#notify();
      return;
    }
    this.#hold({ bytes });
  }

  /** Let `tap` see the output from now on (see {@link OutputTap}). */
  tap(tap: OutputTap): void {
    this.#apply(); // a tap sees only output received after it
    if (!this.#ended) this.#taps.add(tap);
  }

  /** Stop showing the output to `tap`. */
  untap(tap: OutputTap): void {
    this.#taps.delete(tap);
  }

  /**
   * Let `observer` see what the stream receives from now on (see {@link OutputObserver}); the
   * stream is in use while it does. Call it and read {@link emulator} in one synchronous step to
   * have the screen the observed output continues.
   */
  observe(observer: OutputObserver): void {
    if (!this.#ended) this.#observers.add(observer);
  }

  /** Stop showing the stream to `observer`. */
  unobserve(observer: OutputObserver): void {
    this.#observers.delete(observer);
  }

  /**
   * Someone waits on the stream, or a tap or an observer watches it: it must not expire or be
   * closed for room.
   */
  get inUse(): boolean {
    return this.waiters > 0 || this.#taps.size > 0 || this.#observers.size > 0;
  }

  /** tmux resized the pane; true when the terminal was resized now (not held for the seed). */
  resize(cols: number, rows: number): boolean {
    if (this.#ended) return false;
    for (const observer of this.#observers) observer.resized(cols, rows);
    this.#changes++;
    this.#apply();
    if (this.#emulator) {
      this.#emulator.resize(cols, rows);
      this.#notify();
      return true;
    }
    this.#hold({ cols, rows });
    return false;
  }

  /** Align the terminal's rows with tmux's cursor after a resize (see PaneEmulator.align). */
  align(cursorX: number, cursorY: number, cols: number, rows: number): void {
    if (this.emulator?.align(cursorX, cursorY, cols, rows)) this.#notify();
  }

  /**
   * Start the terminal from tmux's rendering, captured when `fromChange` changes had been
   * received; later changes are applied on top. `raced`: changes kept arriving while the seed
   * was captured, so it may show some output twice.
   */
  seed(seed: EmulatorSeed, fromChange: number, raced: boolean): void {
    if (this.#ended || !this.#pending) return;
    const emulator = new PaneEmulator(seed.width, seed.height, this.#scrollback);
    emulator.seed(seed);
    for (const { index, change } of this.#pending) {
      if (index < fromChange) continue;
      if ("bytes" in change) emulator.write(change.bytes);
      else emulator.resize(change.cols, change.rows);
    }
    this.#pending = undefined;
    this.#pendingBytes = 0;
    this.#seedRace = raced || this.#droppedThrough >= fromChange;
    this.#emulator = emulator;
    this.#notify();
  }

  /**
   * Remember where a read left the rows; returns the offset its cursor carries (see
   * {@link ReadMemory.remember}: the bytes received so far, unless another read holds it).
   */
  remember(mark: ReadMark): number {
    return this.#reads.remember(mark, this.#received);
  }

  /** The read a cursor's offset names, if still remembered (using it keeps it longer). */
  recall(offset: number): ReadMark | undefined {
    return this.#reads.recall(offset);
  }

  /**
   * Wait until the terminal changes (output applied, resize), `ms` pass, or `signal` aborts.
   * Costs nothing while idle: it sleeps on the stream, which the control connection feeds. While
   * changes keep coming, a wake may come up to {@link WAKE_INTERVAL_MS} after its change; a change
   * during the wait is never answered `timeout`.
   */
  waitForChange(ms: number, signal: AbortSignal): Promise<WaitOutcome> {
    if (this.#ended) return Promise.reject(this.#ended);
    if (signal.aborted) return Promise.reject(new ToolError("cancelled", "the call was cancelled"));
    this.waiters++;
    return new Promise<WaitOutcome>((resolve, reject) => {
      const done = (outcome: WaitOutcome | ToolError) => {
        this.#wake.delete(wake);
        clearTimeout(timer);
        signal.removeEventListener("abort", onAbort);
        this.waiters--;
        this.lastUsed = Date.now();
        if (outcome instanceof ToolError) reject(outcome);
        else resolve(outcome);
      };
      const wake = (error?: ToolError) => {
        if (error) done(error);
        else if (this.#notified !== from) done("changed");
      };
      const onAbort = () => done(new ToolError("cancelled", "the call was cancelled"));
      // A change whose wake is deferred (WAKE_INTERVAL_MS) still ends the wait as a change, and a
      // deferred wake for changes before the wait began does not end it.
      const from = this.#notified;
      const timer = setTimeout(() => done(this.#notified !== from ? "changed" : "timeout"), ms);
      signal.addEventListener("abort", onAbort, { once: true });
      this.#wake.add(wake);
    });
  }

  /** End the stream (pane gone, connection lost, expired): waiters fail with `reason`. */
  end(reason: ToolError): void {
    if (this.#ended) return;
    this.#apply();
    this.#ended = reason;
    this.#pending = undefined;
    this.#reads.clear();
    for (const tap of [...this.#taps]) tap.ended(reason, this.#emulator);
    this.#taps.clear();
    for (const observer of [...this.#observers]) observer.ended(reason);
    this.#observers.clear();
    this.#emulator?.dispose();
    this.#emulator = undefined;
    clearTimeout(this.#wakeTimer);
    this.#wakeTimer = undefined;
    for (const wake of [...this.#wake]) wake(reason);
  }

  /** Apply the output held unapplied, as one run (see {@link PaneEmulator.writeOutput}). */
  #apply(): void {
    if (this.#applyTimer !== undefined) {
      clearTimeout(this.#applyTimer);
      this.#applyTimer = undefined;
    }
    if (this.#unappliedBytes === 0 || !this.#emulator) return;
    const chunks = this.#unapplied;
    this.#unapplied = [];
    this.#unappliedBytes = 0;
    this.#emulator.writeOutput(chunks);
  }

  #hold(change: Change): void {
    if (!this.#pending) return;
    this.#pending.push({ index: this.#changes - 1, change });
    if (!("bytes" in change)) return;
    this.#pendingBytes += change.bytes.length;
    while (this.#pendingBytes > PENDING_LIMIT) {
      const oldest = this.#pending.shift()!;
      if ("bytes" in oldest.change) this.#pendingBytes -= oldest.change.bytes.length;
      this.#droppedThrough = oldest.index;
    }
  }

  /** Apply output, stopping where a tap wants to see the terminal. */
  #write(emulator: PaneEmulator, bytes: Uint8Array): void {
    if (this.#taps.size === 0) {
      emulator.write(bytes);
      return;
    }
    const stops = [...this.#taps].flatMap((tap) => tap.scan(bytes))
      .sort((a, b) => a.offset - b.offset);
    let done = 0;
    for (const stop of stops) {
      if (stop.offset > done) emulator.write(bytes.subarray(done, stop.offset));
      done = Math.max(done, stop.offset);
      stop.then(emulator);
    }
    if (done < bytes.length) emulator.write(bytes.subarray(done));
  }

  #notify(): void {
    this.#notified++;
    if (this.#wakeTimer !== undefined || this.#wake.size === 0) return;
    const since = performance.now() - this.#wokeAt;
    if (since >= WAKE_INTERVAL_MS) return this.#wakeAll();
    this.#wakeTimer = setTimeout(() => this.#wakeAll(), WAKE_INTERVAL_MS - since);
  }

  #wakeAll(): void {
    clearTimeout(this.#wakeTimer);
    this.#wakeTimer = undefined;
    this.#wokeAt = performance.now();
    for (const wake of [...this.#wake]) wake();
  }
}
