/**
 * Channels: the funnel for `tmux wait-for` and the host's registry of our waiters
 * (docs/design.md §7.8). One registry per tmux host, shared by its sessions, closed with it.
 *
 * tmux's own semantics (checked on 3.3a, docs/design.md §7.8): a signal with nobody waiting is
 * latched for the next waiter, a second one destroys the latch; a waiter whose client is killed
 * stays inside tmux and swallows the next signal; a waiting client exits 0 when the server is
 * killed (1 when it crashes). Hence, in order:
 *
 * 1. a channel name is checked before anything reaches tmux (`^[A-Za-z0-9_.-]{1,64}$`, not `-…`);
 * 2. a signal our waiter received while no call was waiting is kept for the next call, as tmux
 *    keeps one early signal (and dropped if the server was replaced meanwhile);
 * 3. at most one tmux waiter runs per channel; every call waiting on that channel listens to it;
 *    a call that times out or is cancelled stops listening and leaves the waiter running for the
 *    next call, since killing it would leave its twin inside tmux to swallow the next signal;
 * 4. at most {@link MAX_CHANNEL_WAITERS} channels have a waiter of ours at once: each holds a tmux
 *    client and one of the server's descriptors until its channel is signalled, and neither
 *    killing one (a ghost) nor signalling it (the person's waiters wake) is ours to do, so a new
 *    channel beyond the bound is refused with `busy`;
 * 5. when the waiter exits 0, the server's pid is read again: the same server means a signal,
 *    another one or none means `server_gone`;
 * 6. closing signals every channel we still wait on in one tmux invocation (our own signal wakes
 *    our waiter, and any other waiter of that channel), then kills what is left after a grace
 *    period (a frozen server): only those leave a ghost inside tmux.
 */
import { ToolError } from "../../errors.ts";
import type { TmuxRunner } from "../core/runner.ts";
import { refuseFlagLike } from "../core/argv.ts";
import { CLOSE_GRACE_MS, settlesWithin } from "../../base/timing.ts";

/** Channel names this server waits on and signals. */
const CHANNEL_NAME = /^[A-Za-z0-9_.-]{1,64}$/;

/**
 * How many channels may have a waiter of ours at once (docs/design.md §7.8): far below tmux's
 * descriptor limit, and few enough for closing to signal them all within its grace period.
 */
export const MAX_CHANNEL_WAITERS = 64;

/** How a wait on a channel ended. */
type ChannelOutcome = "signalled" | "timeout" | "server_gone";

/**
 * How long a waiter may run unheard. It lives until its channel is signalled or the host closes;
 * the runner needs a deadline, and this one is never reached in practice (about 24.8 days).
 */
const WAITER_LIFETIME_MS = 2_147_483_647;

/** Deadline of the short commands (signals, pid checks). */
const COMMAND_TIMEOUT_MS = 5_000;

/** Refuse a name that is not a channel name, without echoing it (docs/design.md §3.2). */
function checkChannel(name: string): string {
  refuseFlagLike(name, "channel name");
  if (!CHANNEL_NAME.test(name)) {
    throw new ToolError(
      "invalid_arguments",
      "a channel name is 1 to 64 letters, digits, '_', '.' or '-'",
      { hint: "Choose a name such as build-done or job_42.ready." },
    );
  }
  return name;
}

/** One `tmux wait-for` process of ours and the calls listening to it. */
interface Waiter {
  listeners: Set<(outcome: ChannelOutcome | ToolError) => void>;
  /** Settles once the process has exited and its listeners were told. */
  done: Promise<void>;
}

/** Our waiters, one per channel at most, and the signals they received while nobody listened. */
export class ChannelWaiters {
  readonly #runner: TmuxRunner;
  readonly #waiters = new Map<string, Waiter>();
  /** Signals received with no call waiting, by channel: the server pid they came from. */
  readonly #latched = new Map<string, number>();
  /** Kills every waiter left at close (a frozen server never lets them exit). */
  readonly #kill = new AbortController();
  #closed = false;

  constructor(runner: TmuxRunner) {
    this.#runner = runner;
  }

  /** Channels with a tmux waiter of ours running (for tests and diagnostics). */
  get waiting(): string[] {
    return [...this.#waiters.keys()];
  }

  /**
   * Wait until `channel` is signalled, `timeoutMs` passes or `signal` aborts (`cancelled`). A
   * server that is not running when the wait begins is `server_not_running`.
   */
  async wait(channel: string, timeoutMs: number, signal: AbortSignal): Promise<ChannelOutcome> {
    checkChannel(channel);
    if (this.#closed) throw new ToolError("server_gone", "the server is closing");
    if (signal.aborted) throw new ToolError("cancelled", "the call was cancelled");
    const latched = this.#latched.get(channel);
    if (latched !== undefined) {
      this.#latched.delete(channel);
      if (await this.#serverPid(signal) === latched) return "signalled";
    }
    const waiter = this.#waiters.get(channel) ?? this.#startBounded(channel);
    return await new Promise<ChannelOutcome>((resolve, reject) => {
      const finish = (outcome: ChannelOutcome | ToolError) => {
        waiter.listeners.delete(listener);
        clearTimeout(timer);
        signal.removeEventListener("abort", onAbort);
        if (outcome instanceof ToolError) reject(outcome);
        else resolve(outcome);
      };
      const listener = (outcome: ChannelOutcome | ToolError) => finish(outcome);
      const onAbort = () => finish(new ToolError("cancelled", "the call was cancelled"));
      const timer = setTimeout(() => finish("timeout"), timeoutMs);
      signal.addEventListener("abort", onAbort, { once: true });
      waiter.listeners.add(listener);
    });
  }

  /**
   * Signal `channel` (`tmux wait-for -S`): every waiter wakes, ours included; with none, tmux
   * keeps it for the next one. Returns how many calls of this host were waiting on it.
   */
  async signal(channel: string, signal: AbortSignal): Promise<{ waitersHere: number }> {
    checkChannel(channel);
    const waitersHere = this.#waiters.get(channel)?.listeners.size ?? 0;
    await this.#runner.run(["wait-for", "-S", channel], { signal, effects: "possible" });
    return { waitersHere };
  }

  /**
   * Wake and end every waiter of ours: a signal of our own per channel, all in one tmux
   * invocation, then, once the grace period is over, the processes still running are killed (a
   * frozen server: each leaves a ghost inside tmux). Listening calls end with `server_gone`.
   */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    this.#latched.clear();
    const left = [...this.#waiters.entries()];
    if (left.length === 0) return;
    const exited = Promise.all(left.map(([, w]) => w.done));
    // One process for every channel: one each took seconds for a few hundred on a busy machine.
    const signals = this.#runner.run(
      left.map(([channel]) => ["wait-for", "-S", channel]),
      { timeoutMs: CLOSE_GRACE_MS, effects: "possible" },
    ).catch(() => {});
    await settlesWithin(exited, CLOSE_GRACE_MS);
    this.#kill.abort();
    await Promise.all([exited, signals]);
  }

  /** {@link #start}, unless {@link MAX_CHANNEL_WAITERS} channels already have a waiter. */
  #startBounded(channel: string): Waiter {
    const count = this.#waiters.size;
    if (count >= MAX_CHANNEL_WAITERS) {
      throw new ToolError(
        "busy",
        `${count} channels already have a waiter of this server outstanding (at most ` +
          `${MAX_CHANNEL_WAITERS}); a waiter ends only when its channel is signalled`,
        {
          hint: "Signal a channel you no longer need with signal_channel (or let its script " +
            "signal it), then retry; waiting again on a channel already waited on is allowed.",
        },
      );
    }
    return this.#start(channel);
  }

  /** Start the channel's waiter: the server's pid, then `wait-for`, in one tmux invocation. */
  #start(channel: string): Waiter {
    const waiter: Waiter = { listeners: new Set(), done: Promise.resolve() };
    this.#waiters.set(channel, waiter);
    let pid = 0;
    waiter.done = this.#runner.run(
      [["display-message", "-p", "#{pid}"], ["wait-for", channel]],
      { signal: this.#kill.signal, timeoutMs: WAITER_LIFETIME_MS },
    ).then(
      async (out): Promise<ChannelOutcome | ToolError> => {
        pid = Number(out.trim());
        if (this.#closed) return "server_gone";
        // wait-for also returns 0 when the server is killed: a signal only if it still runs.
        const now = await this.#serverPid().catch(() => undefined);
        return now !== undefined && now === pid ? "signalled" : "server_gone";
      },
      (error): ChannelOutcome | ToolError => {
        // Killed by close, or the server went away while waiting.
        if (this.#closed || !(error instanceof ToolError)) return "server_gone";
        if (["server_gone", "cancelled", "timeout"].includes(error.code)) return "server_gone";
        // No server when the wait began, no tmux: the caller's error.
        return error;
      },
    ).then((outcome) => {
      this.#waiters.delete(channel);
      // Decided only now: a call may have started listening while the pid was read.
      if (outcome === "signalled" && waiter.listeners.size === 0 && !this.#closed) {
        this.#latched.set(channel, pid);
      }
      for (const listener of [...waiter.listeners]) listener(outcome);
    });
    return waiter;
  }

  /** The pid of the server answering on our socket now. */
  async #serverPid(signal?: AbortSignal): Promise<number | undefined> {
    const out = await this.#runner.run(["display-message", "-p", "#{pid}"], {
      signal,
      timeoutMs: COMMAND_TIMEOUT_MS,
    }).catch((error) => {
      if (error instanceof ToolError && error.code === "cancelled") throw error;
      return undefined;
    });
    const pid = Number(out?.trim());
    return out !== undefined && pid > 0 ? pid : undefined;
  }
}
