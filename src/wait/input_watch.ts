/**
 * The hooks of a wait after input beside its pattern (docs/design.md §7.10 rules 3 and 4): quiet
 * (output stopped for `quietMs`, the timer started only by output beyond the input's line) and
 * program change (the pane's foreground program, read every {@link POLL_MS}, differs from the one
 * at the mark, on two looks in a row). The live and the polled wait after input share them.
 */
import { paneFate } from "../tmux/read/queries.ts";
import type { InspectContext } from "../tool_types.ts";
import type { FollowedPane, PaneGone } from "./fate.ts";
import { POLL_MS } from "./poll.ts";
import { QuietTimer } from "./quiet.ts";

/** How a hook ends the wait. */
export type InputVerdict =
  | { outcome: "quiet" }
  | { outcome: "program_changed"; currentCommand: string }
  | { outcome: PaneGone };

/**
 * How soon a changed program is read again before the wait believes it. tmux names a pane's
 * program from the foreground process's command line, and while a shell's child is between fork
 * and exec that can read as nothing, which tmux answers with the first word of the pane's start
 * command (seen: `env` for a pane started as `env -i … bash`). A program seen twice in a row is one.
 */
const CONFIRM_MS = 50;

/** The quiet and program-change hooks of one wait after input. */
export class InputWatch {
  readonly #quiet: QuietTimer | undefined;
  /** When the pane's program is read next (Infinity: never, no programChange). */
  #nextLook: number;
  /** A changed program seen once, waiting for the look that confirms it. */
  #candidate: string | undefined;

  constructor(
    private readonly ctx: InspectContext,
    /** The pane, and its foreground program when the input was sent. */
    private readonly pane: FollowedPane & { command: string },
    plan: { quietMs?: number; programChange: boolean },
  ) {
    this.#quiet = plan.quietMs === undefined ? undefined : new QuietTimer(plan.quietMs);
    this.#nextLook = plan.programChange ? Date.now() : Infinity;
  }

  /**
   * The pane's output changed; `beyond` tells (asked only while the quiet timer has not started)
   * whether output came beyond the input's own line: the echo alone never starts the timer.
   */
  changed(beyond: () => boolean): void {
    const quiet = this.#quiet;
    if (quiet) quiet.changed(Date.now(), quiet.started || beyond());
  }

  /**
   * Whether the wait ends now: quiet; or, when the program is due to be read, a changed program
   * or a pane gone. A look that fails is no answer: the next one is.
   */
  async check(): Promise<InputVerdict | undefined> {
    if (this.#quiet?.quiet(Date.now())) return { outcome: "quiet" };
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
    return Math.min(this.#quiet?.at ?? Infinity, this.#nextLook);
  }
}
