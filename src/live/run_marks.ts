/**
 * The busy marks (docs/design.md §6.12): per pane, the framed command run_shell_command typed there
 * that still runs, from the moment its line is typed until its end frame (src/live/run_frame.ts).
 * The input guard consults them (src/guard/busy.ts refuses text to a marked pane, key presses
 * pass); run_shell_command's funnel (src/tmux/execute/run.ts) adds, resumes and releases them. They
 * belong to the live engine of one tmux host, so every MCP session sees the same marks. Beside
 * them, the tickets wait_for_command redeems for a command a call stopped waiting for (§7.9).
 */
import { type FramedRun, frameNonce, replaced } from "./run_frame.ts";
import type { PaneStream } from "./stream.ts";

/** What a busy check knows of a pane, from a fresh listing. */
export interface PaneNow {
  paneId: string;
  generation: string;
  dead: boolean;
  currentCommand: string;
}

/** What the end rules read of a framed command (a {@link FramedRun}). */
type MarkedRun = Pick<
  FramedRun,
  "settled" | "started" | "keyPressed" | "generation" | "shell" | "execs"
>;

/**
 * Whether a busy mark is over, from its command's state and a fresh look at its pane: the end
 * frame came (or the stream ended), the pane died or was replaced (another generation), its
 * foreground program is the same shell again after a key was pressed into it (the command was
 * interrupted and will print no end frame; or, before its start frame, the line still waiting for
 * a shell that runs its start-up files was flushed by C-c or read as an answer), or it is a
 * program the command replaces the shell with (`exec python3`: the pid stays, so only the name
 * tells; that shell will print no end frame). The shell in the foreground alone proves nothing:
 * it is also there while it runs a builtin loop or between two commands of a list.
 */
export function markOver(run: MarkedRun, streamEnded: boolean, pane: PaneNow): boolean {
  return run.settled || streamEnded || pane.dead || pane.generation !== run.generation ||
    replaced(run, pane.currentCommand) ||
    (run.keyPressed && pane.currentCommand === run.shell);
}

/**
 * The busy marks: per pane, the framed command still running there (docs/design.md §6.12). One
 * registry per live engine, so per tmux host: every MCP session sees the same marks.
 */
export class RunMarks {
  readonly #runs = new Map<string, { run: FramedRun; stream: PaneStream }>();

  /** Mark the pane busy with `run`, which from now on watches the stream's output. */
  add(run: FramedRun, stream: PaneStream): void {
    const previous = this.#runs.get(run.paneId);
    if (previous) this.release(previous.run);
    this.#runs.set(run.paneId, { run, stream });
    run.onSettled = () => this.release(run);
    stream.tap(run);
  }

  /** End a mark (its end frame came, its stream ended, or a check found it over). */
  release(run: FramedRun): void {
    const entry = this.#runs.get(run.paneId);
    if (entry?.run !== run) return;
    this.#runs.delete(run.paneId);
    entry.stream.untap(run);
  }

  /** The panes marked busy: a busy check needs their foreground program (the others' it does not). */
  marked(): string[] {
    return [...this.#runs.keys()];
  }

  /**
   * The framed command still running in this pane, if any; a mark found over by {@link markOver}
   * ends here.
   */
  pending(pane: PaneNow): FramedRun | undefined {
    const entry = this.#runs.get(pane.paneId);
    if (!entry) return undefined;
    const { run, stream } = entry;
    if (!markOver(run, stream.ended !== undefined, pane)) return run;
    this.release(run);
    return undefined;
  }

  /** Panes marked busy right now (tests check that nothing leaks). */
  get size(): number {
    return this.#runs.size;
  }

  /** Whether `run` still holds its pane's mark (it is followed and may yet end with a frame). */
  holds(run: FramedRun): boolean {
    return this.#runs.get(run.paneId)?.run === run;
  }

  readonly #tickets = new Map<string, RunTicket>();

  /**
   * Keep a command a call stopped waiting for, for wait_for_command, under a fresh runId that
   * only `owner` (the MCP session) may redeem (docs/design.md §7.9). The ticket holds the run,
   * whose end frame and output it keeps once they come.
   */
  ticket(ticket: Omit<RunTicket, "usedAt">): string {
    this.#prune();
    const runId = `run-${frameNonce().slice(0, 24)}`;
    this.#tickets.set(runId, { ...ticket, usedAt: Date.now() });
    return runId;
  }

  /** The ticket `runId` names, when `owner` holds it and it has not expired. */
  redeem(runId: string, owner: object): RunTicket | undefined {
    this.#prune();
    const ticket = this.#tickets.get(runId);
    if (ticket?.owner !== owner) return undefined;
    ticket.usedAt = Date.now();
    return ticket;
  }

  /** Forget a ticket once its answer was given. */
  forget(runId: string): void {
    this.#tickets.delete(runId);
  }

  /**
   * A ticket whose command still holds its mark stays; one that ended (or can no longer be
   * followed) is kept {@link TICKET_TTL_MS} after its last use, and at most {@link MAX_TICKETS}.
   */
  #prune(): void {
    const now = Date.now();
    for (const [runId, ticket] of this.#tickets) {
      if (!this.holds(ticket.run) && now - ticket.usedAt > TICKET_TTL_MS) {
        this.#tickets.delete(runId);
      }
    }
    for (const [runId] of this.#tickets) {
      if (this.#tickets.size < MAX_TICKETS) break;
      this.#tickets.delete(runId);
    }
  }
}

/** How long wait_for_command remembers a command that ended or stopped being followed. */
const TICKET_TTL_MS = 600_000;
/** Tickets one live engine keeps (the oldest goes first). */
const MAX_TICKETS = 256;

/** A command run_shell_command stopped waiting for, as wait_for_command finds it again. */
interface RunTicket {
  run: FramedRun;
  stream: PaneStream;
  /** Our buffer that held the command's script (deleted if the command never started). */
  buffer: string;
  /** The MCP session that started the command: only it may wait for it. */
  owner: object;
  usedAt: number;
}
