/**
 * The per-pane input queue (docs/design.md §6.6): input to one pane is serialized, so two concurrent calls
 * never interleave their keys (a paste, its 150 ms pause and its Enter stay together). One
 * instance per MCP server, held in its {@link TmuxContext}; no module state, so two servers in one
 * process never wait on each other.
 */
import { ToolError } from "../../errors.ts";

/** How long a call waits for a pane another call holds before giving up with `busy`. */
const QUEUE_WAIT_MS = 30_000;

/** Releases what {@link PaneQueue.acquire} took; calling it twice is harmless. */
export type Release = () => void;

/** FIFO locks keyed by pane id. */
export class PaneQueue {
  /** Per pane: a promise that settles when the last queued holder has released it. */
  readonly #tails = new Map<string, Promise<void>>();

  /**
   * Wait until every pane in `paneIds` is free, then hold them all. Panes are taken one by one in
   * one global order, so two callers asking for overlapping sets can never deadlock. Fails with
   * `cancelled` when `signal` aborts and with `busy` after `waitMs`; nothing stays held then.
   */
  async acquire(
    paneIds: Iterable<string>,
    signal?: AbortSignal,
    waitMs: number = QUEUE_WAIT_MS,
  ): Promise<Release> {
    const keys = [...new Set(paneIds)].sort(comparePaneIds);
    const deadline = AbortSignal.timeout(waitMs);
    const releases: Release[] = [];
    try {
      for (const key of keys) releases.push(await this.#acquireOne(key, signal, deadline, waitMs));
    } catch (error) {
      for (const release of releases.reverse()) release();
      throw error;
    }
    let released = false;
    return () => {
      if (released) return;
      released = true;
      for (const release of releases.reverse()) release();
    };
  }

  /** Panes currently held or waited for (tests check that nothing leaks). */
  get size(): number {
    return this.#tails.size;
  }

  async #acquireOne(
    key: string,
    signal: AbortSignal | undefined,
    deadline: AbortSignal,
    waitMs: number,
  ): Promise<Release> {
    const previous = this.#tails.get(key) ?? Promise.resolve();
    let open!: () => void;
    const mine = new Promise<void>((resolve) => open = resolve);
    // Whoever queues after us waits for the previous holder AND for us; releasing early (on
    // abort) therefore never lets a successor overtake a holder that is still sending.
    const tail = previous.then(() => mine);
    this.#tails.set(key, tail);
    void tail.then(() => {
      if (this.#tails.get(key) === tail) this.#tails.delete(key);
    });
    try {
      await waitFor(previous, signal, deadline, waitMs);
    } catch (error) {
      open();
      throw error;
    }
    return open;
  }
}

/** Pane ids in numeric order (`%2` before `%10`); anything else after, by text. */
function comparePaneIds(a: string, b: string): number {
  const na = /^%(\d+)$/.exec(a)?.[1];
  const nb = /^%(\d+)$/.exec(b)?.[1];
  if (na !== undefined && nb !== undefined) return Number(na) - Number(nb);
  return a < b ? -1 : a > b ? 1 : 0;
}

/** Resolve when `turn` settles; reject on cancellation or when the deadline passes first. */
function waitFor(
  turn: Promise<void>,
  signal: AbortSignal | undefined,
  deadline: AbortSignal,
  waitMs: number,
): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    const stop = () => {
      signal?.removeEventListener("abort", onCancel);
      deadline.removeEventListener("abort", onDeadline);
    };
    const onCancel = () => {
      stop();
      reject(new ToolError("cancelled", "the call was cancelled while waiting for its pane"));
    };
    const onDeadline = () => {
      stop();
      reject(
        new ToolError("busy", `another input call held the pane for more than ${waitMs} ms`, {
          hint: "Another call is still typing into this pane; retry shortly.",
        }),
      );
    };
    if (signal?.aborted) return onCancel();
    signal?.addEventListener("abort", onCancel, { once: true });
    deadline.addEventListener("abort", onDeadline, { once: true });
    turn.then(() => {
      stop();
      resolve();
    });
  });
}
