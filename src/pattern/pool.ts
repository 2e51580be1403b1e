/**
 * The pattern workers (docs/design.md §7.7 rule 10): one agent pattern over one long line can cost
 * RE2 seconds, and re2js has no region API to cut that scan into yielding pieces (windows of a line
 * would break `^`, `$`, `\b` and matches across their edges). Such a line is matched whole in a
 * worker instead, while the event loop serves every other call. Workers start on first use, each
 * runs one job at a time, and a job its caller gave up on (cancelled, or past its deadline) costs
 * its worker, which is terminated and replaced on the next job: RE2 cannot be interrupted.
 */
import { ToolError } from "../errors.ts";
import type { PatternAnswer, PatternJob } from "./worker.ts";
import { PATTERN_WORKER_JS } from "../generated/pattern_worker_js.ts";

/** Bounds of the pattern workers. */
export const WORKER_LIMITS = {
  /** Workers at once (each scans one line at a time). */
  workers: 2,
  /** Jobs waiting for a worker; beyond them a match is refused with `busy`. */
  queued: 64,
  /** An idle worker is ended after this long. */
  idleMs: 10_000,
} as const;

/** When a job is given up: the call's signal, and a deadline (ms since the epoch). */
export interface MatchBounds {
  signal: AbortSignal;
  deadline: number;
}

interface Job extends Omit<PatternJob, "id"> {
  id: number;
  bounds: MatchBounds;
  resolve: (at: number) => void;
  reject: (error: ToolError) => void;
  onAbort: () => void;
  timer?: ReturnType<typeof setTimeout>;
  slot?: Slot;
}

interface Slot {
  worker: Worker;
  job?: Job;
  idle?: ReturnType<typeof setTimeout>;
}

const queue: Job[] = [];
const slots: Slot[] = [];
let nextId = 1;
let scriptUrl: string | undefined;
let stats = { started: 0, terminated: 0, answered: 0 };

/**
 * Where `line` first matches the RE2 program `source` (`flags` as RE2JS's), matched in a worker:
 * a UTF-16 index or -1, the same answer as in this thread. Rejects with `cancelled` when the
 * signal aborts, `timeout` at the deadline, `busy` when too many lines wait for a worker.
 */
export function matchInWorker(
  source: string,
  flags: number,
  line: string,
  bounds: MatchBounds,
): Promise<number> {
  if (bounds.signal.aborted) return Promise.reject(cancelled());
  if (Date.now() >= bounds.deadline) return Promise.reject(late(line.length));
  if (queue.length >= WORKER_LIMITS.queued) {
    return Promise.reject(
      new ToolError(
        "busy",
        `${WORKER_LIMITS.queued} long lines already wait to be matched against patterns`,
        { hint: "Retry shortly, or match a literal without ignoreCase (it needs no worker)." },
      ),
    );
  }
  return new Promise<number>((resolve, reject) => {
    const job: Job = {
      id: nextId++,
      source,
      flags,
      line,
      bounds,
      resolve,
      reject,
      onAbort: () => {},
    };
    job.onAbort = () => abandon(job, cancelled());
    bounds.signal.addEventListener("abort", job.onAbort, { once: true });
    if (Number.isFinite(bounds.deadline)) {
      job.timer = setTimeout(() => abandon(job, late(line.length)), bounds.deadline - Date.now());
    }
    queue.push(job);
    pump();
  });
}

/** What the workers do now; how many were started and terminated, and jobs answered (for tests). */
export function workerStats(): {
  running: number;
  queued: number;
  workers: number;
  started: number;
  terminated: number;
  answered: number;
} {
  return {
    running: slots.filter((s) => s.job).length,
    queued: queue.length,
    workers: slots.length,
    ...stats,
  };
}

function cancelled(): ToolError {
  return new ToolError("cancelled", "the call was cancelled");
}

function late(chars: number): ToolError {
  return new ToolError("timeout", `matching a ${chars}-character line ran past the call's time`, {
    hint: "Allow more time, or use a simpler pattern.",
  });
}

/** Stop listening for the job's end (it is settled or about to be). */
function release(job: Job): void {
  clearTimeout(job.timer);
  job.bounds.signal.removeEventListener("abort", job.onAbort);
}

/** Give up a job: out of the queue, or its worker terminated mid-scan. */
function abandon(job: Job, error: ToolError): void {
  release(job);
  const at = queue.indexOf(job);
  if (at >= 0) queue.splice(at, 1);
  else if (job.slot) retire(job.slot);
  job.reject(error);
  // After every job one signal gives up has let go: a fresh worker only for a job still wanted.
  queueMicrotask(pump);
}

/** Hand waiting jobs to free workers, starting workers up to the bound. */
function pump(): void {
  while (queue.length > 0) {
    let slot = slots.find((s) => !s.job);
    if (!slot) {
      if (slots.length >= WORKER_LIMITS.workers) return;
      slot = start();
    }
    const job = queue.shift()!;
    clearTimeout(slot.idle);
    slot.job = job;
    job.slot = slot;
    const message: PatternJob = {
      id: job.id,
      source: job.source,
      flags: job.flags,
      line: job.line,
    };
    slot.worker.postMessage(message);
  }
}

function start(): Slot {
  scriptUrl ??= URL.createObjectURL(new Blob([PATTERN_WORKER_JS], { type: "text/javascript" }));
  const slot: Slot = { worker: new Worker(scriptUrl, { type: "module" }) };
  stats = { ...stats, started: stats.started + 1 };
  slots.push(slot);
  slot.worker.onmessage = ({ data }: MessageEvent<PatternAnswer>) => {
    const job = slot.job;
    if (!job || data.id !== job.id) return;
    slot.job = undefined;
    job.slot = undefined;
    release(job);
    if ("error" in data) {
      job.reject(new ToolError("internal_error", `a pattern worker failed: ${data.error}`));
    } else {
      stats = { ...stats, answered: stats.answered + 1 };
      job.resolve(data.at);
    }
    const idle = setTimeout(() => retire(slot), WORKER_LIMITS.idleMs);
    Deno.unrefTimer(idle);
    slot.idle = idle;
    pump();
  };
  slot.worker.onerror = (event) => {
    event.preventDefault();
    const job = slot.job;
    retire(slot);
    if (job) {
      release(job);
      job.reject(new ToolError("internal_error", `a pattern worker failed: ${event.message}`));
    }
    pump();
  };
  return slot;
}

/** End a worker (idle, failed, or busy with an abandoned job); the next job starts a fresh one. */
function retire(slot: Slot): void {
  clearTimeout(slot.idle);
  const at = slots.indexOf(slot);
  if (at < 0) return;
  slots.splice(at, 1);
  slot.worker.terminate();
  if (slot.job) slot.job.slot = undefined;
  slot.job = undefined;
  stats = { ...stats, terminated: stats.terminated + 1 };
}
