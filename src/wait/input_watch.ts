/**
 * The hooks of a wait after input beside its pattern (docs/design.md §7.10 rules 3–5): quiet
 * (output stopped for `quietMs`, the timer started only by output beyond the input's line),
 * program change (the pane's foreground program, read every {@link POLL_MS}, differs from the one
 * at the mark, on two looks in a row) and the default, readiness (output beyond the input's line,
 * then stopped for {@link PROMPT_SETTLE_MS}, and the cursor after prompt text or a full-screen
 * program shown). The live and the polled wait after input share them.
 */
import { paneFate } from "../tmux/read/queries.ts";
import type { InspectContext } from "../tool_types.ts";
import type { FollowedPane, PaneGone } from "./fate.ts";
import { POLL_MS } from "./poll.ts";
import { PROMPT_SETTLE_MS, type Readiness } from "./prompt.ts";
import { QuietTimer } from "./quiet.ts";

/** How a hook ends the wait. */
export type InputVerdict =
  | { outcome: "quiet" | "prompt" }
  | { outcome: "program_changed"; currentCommand: string }
  | { outcome: PaneGone };

/**
 * How soon a changed program is read again before the wait believes it. tmux names a pane's
 * program from the foreground process's command line, and while a shell's child is between fork
 * and exec that can read as nothing, which tmux answers with the first word of the pane's start
 * command (seen: `env` for a pane started as `env -i … bash`). A program seen twice in a row is one.
 */
const CONFIRM_MS = 50;

/** Reads where the cursor rests, for the readiness hook (a look may fail: no answer then). */
export type ReadCursor = () => Readiness | Promise<Readiness>;

/** The quiet, readiness and program-change hooks of one wait after input. */
export class InputWatch {
  readonly #quiet: QuietTimer | undefined;
  /** The readiness hook's settle: output stopped for {@link PROMPT_SETTLE_MS}. */
  readonly #settle: QuietTimer | undefined;
  /** The cursor was read since the last change (and said no): read it again after the next. */
  #looked = false;
  /** When the pane's program is read next (Infinity: never, no programChange). */
  #nextLook: number;
  /** A changed program seen once, waiting for the look that confirms it. */
  #candidate: string | undefined;

  constructor(
    private readonly ctx: InspectContext,
    /** The pane, and its foreground program when the input was sent. */
    private readonly pane: FollowedPane & { command: string },
    plan: { quietMs?: number; programChange: boolean; ready?: boolean },
    /** Where the cursor rests (the readiness hook asks only when `plan.ready`). */
    private readonly readCursor: ReadCursor = () => undefined,
  ) {
    this.#quiet = plan.quietMs === undefined ? undefined : new QuietTimer(plan.quietMs);
    this.#settle = plan.ready ? new QuietTimer(PROMPT_SETTLE_MS) : undefined;
    this.#nextLook = plan.programChange ? Date.now() : Infinity;
  }

  /**
   * The pane's output changed; `beyond` tells (asked only while a timer has not started) whether
   * output came beyond the input's own line: the echo alone never starts a timer.
   */
  changed(beyond: () => boolean): void {
    const now = Date.now();
    let past: boolean | undefined;
    const started = (timer: QuietTimer) => timer.started || (past ??= beyond());
    if (this.#quiet) this.#quiet.changed(now, started(this.#quiet));
    if (this.#settle) {
      this.#settle.changed(now, started(this.#settle));
      this.#looked = false;
    }
  }

  /**
   * Whether the wait ends now: quiet; ready (settled, and the cursor read once per settle says
   * so); or, when the program is due to be read, a changed program or a pane gone. A look that
   * fails is no answer: the next one is.
   */
  async check(): Promise<InputVerdict | undefined> {
    if (this.#quiet?.quiet(Date.now())) return { outcome: "quiet" };
    if (this.#settle?.quiet(Date.now()) && !this.#looked) {
      this.#looked = true;
      const ready = await this.readCursor();
      if (ready) return { outcome: ready };
    }
    if (Date.now() < this.#nextLook) return undefined;
    const { paneId, generation, command } = this.pane;
    const { fate, currentCommand } = await paneFate(
      this.ctx.tmux,
      paneId,
      generation,
      this.ctx.signal,
    );
    if (fate !== "alive") return { outcome: fate };
    if (currentCommand !== undefined && currentCommand !== command) {
      if (currentCommand === this.#candidate) return { outcome: "program_changed", currentCommand };
      this.#candidate = currentCommand;
      this.#nextLook = Date.now() + CONFIRM_MS;
      return undefined;
    }
    this.#candidate = undefined;
    this.#nextLook = Date.now() + POLL_MS;
    return undefined;
  }

  /** When {@link check} next has something to decide (ms since the epoch). */
  wakeAt(): number {
    const settled = this.#looked ? Infinity : this.#settle?.at ?? Infinity;
    return Math.min(this.#quiet?.at ?? Infinity, settled, this.#nextLook);
  }
}
