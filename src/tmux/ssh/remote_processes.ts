/**
 * tmux on a remote host, through its ssh master (src/tmux/ssh/master.ts): the remote
 * {@link TmuxStarter}, over the same tmux argv as local processes (what follows `tmux`: `-u`, the
 * socket, the commands, from src/tmux/core/argv.ts). So the runner, the control clients and the route
 * work unchanged once a host hands them this instead of local processes (docs/design.md §5.15).
 *
 * Each call is one `ssh … -- DESTINATION 'exec sh -c …'` riding the master (src/tmux/ssh/quote.ts
 * says why that string is parsed the same by every login shell), running tmux inside the wrapper of
 * src/tmux/ssh/remote_wrap.ts: the remote client dies when our end of the channel closes (a call
 * given up, a connection dropped, this process killed), and a mark line (a random part of ours and
 * the pid tmux will have) comes right before tmux starts. The remote user's shell runs its start-up
 * files first, which may print on both streams: stdout before the mark is dropped, and stderr is
 * noise with a zero exit status; with tmux's failure, tmux's own message is the last line, which
 * the classification reads. Exit status 255 is ssh's own failure (tmux never exits 255), typed by
 * `classifySshFailure`. A control client whose ssh ended without the wrapper's exit status (we
 * killed it, or the connection failed) counts as ours until the host says its pid is gone.
 *
 * First contact opens the master and checks the host's tmux (at least {@link MIN_TMUX}). A host
 * that cannot be reached is not tried again for {@link BACKOFF_MS}: calls meanwhile fail at once
 * with the same error, so a listing across hosts never waits for it twice.
 */
import { ToolError } from "../../errors.ts";
import type { ControlChild, Output, TmuxStarter } from "../core/process.ts";
import { isSupported, MIN_TMUX, parseTmuxVersion } from "../core/version.ts";
import {
  checkCommand,
  classifySshFailure,
  remoteArgs,
  SshError,
  type SshMaster,
  type SshTarget,
} from "./master.ts";
import { remoteCommand } from "./quote.ts";
import { collectWrapped, untilMark } from "./remote_call.ts";
import { confirmArgv, type RemoteMode, wrappedArgv } from "./remote_wrap.ts";
import type { SshSpawner } from "./spawn.ts";

/** ssh's own exit status for its failures; tmux exits 0 or 1. */
const SSH_FAILED = 255;
/** The shell's "command not found". */
const NOT_FOUND = 127;
/** How long an unreachable host is not tried again. */
export const BACKOFF_MS = 30_000;
/** How long a call waits for a retry after the back-off before failing with what is retried. */
export const RETRY_WAIT_MS = 2_000;
/** How long a control client may take to say its pid. */
const START_TIMEOUT_MS = 10_000;
/** The longest pause between two checks that an abandoned remote client is gone. */
const CONFIRM_MAX_PAUSE_MS = 30_000;
/** How long an abandoned remote client is checked on before it is let go (the host stays away). */
const CONFIRM_GIVE_UP_MS = 600_000;

/** Starts tmux on one remote host. */
export class RemoteProcesses implements TmuxStarter {
  readonly #master: SshMaster;
  readonly #spawner: SshSpawner;
  #version: string | undefined;
  #failure: { error: ToolError; at: number } | undefined;
  #ready: Promise<void> | undefined;
  #attempted = false;
  /** The mark of remote_wrap.ts: printable ASCII (quote.ts), not known to the remote side ahead. */
  readonly #mark = `tmux-mcp-${crypto.randomUUID().replaceAll("-", "")} `;

  /** tmux on `master`'s host, over ssh processes from `spawner`. */
  constructor(master: SshMaster, spawner: SshSpawner) {
    this.#master = master;
    this.#spawner = spawner;
  }

  /** The host's name (`box1`). */
  get name(): string {
    return this.#master.name;
  }

  /** The ssh argv that runs `tmux ARGS` on the host in the wrapper, taking stdin as `mode` says. */
  sshArgs(args: readonly string[], mode: RemoteMode = "n"): string[] {
    return remoteArgs(this.#master.options, remoteCommand(wrappedArgv(this.#mark, mode, args)));
  }

  /**
   * Make sure the master is up and the host's tmux was checked, once; within the back-off after a
   * failure to reach the host, fail at once with it. Concurrent calls share one attempt. Once the
   * back-off is over, the retry runs in the background: a caller waits for it
   * {@link RETRY_WAIT_MS} at most, then fails with the failure being retried.
   */
  ready(signal?: AbortSignal): Promise<void> {
    const failed = this.failure();
    if (failed && Date.now() - this.#failure!.at < BACKOFF_MS) return Promise.reject(failed);
    if (this.#master.up && this.#version !== undefined) return Promise.resolve();
    // The attempt is shared, so no one caller's signal ends it (its own deadlines bound it): a
    // caller that gives up leaves, and the others, and the next call, get what it finds.
    if (!this.#ready) {
      this.#ready = this.#connect().finally(() => this.#ready = undefined);
      this.#ready.catch(() => {});
    }
    if (!failed) return leaveOnAbort(this.#ready, signal, this.#master.name);
    const brief = AbortSignal.timeout(RETRY_WAIT_MS);
    const wait = signal ? AbortSignal.any([signal, brief]) : brief;
    return leaveOnAbort(this.#ready, wait, this.#master.name, () => this.failure() ?? failed);
  }

  /** Whether first contact was made (or failed) once: later attempts are retries. */
  get contacted(): boolean {
    return this.#attempted;
  }

  /**
   * What calls fail with while the host is backed off (and while it is retried, until it answers):
   * the failure and when it was tried; undefined for a host that answers.
   */
  failure(): ToolError | undefined {
    const failed = this.#failure;
    if (!failed) return undefined;
    const ago = Math.round((Date.now() - failed.at) / 1000);
    const again = Date.now() - failed.at >= BACKOFF_MS ? "; trying again" : "";
    return new ToolError(
      failed.error.code,
      `${failed.error.message} (tried ${ago} s ago${again})`,
      {
        hint: failed.error.hint,
        retryable: failed.error.retryable,
        host: failed.error.host,
      },
    );
  }

  /**
   * Back the host off as unreachable now with `error` (src/tmux/ssh/health.ts found it silent):
   * calls fail at once for {@link BACKOFF_MS}, then a retry connects again.
   */
  backOff(error: ToolError): void {
    this.#failure = { error, at: Date.now() };
    this.#master.markDown();
  }

  async #connect(): Promise<void> {
    try {
      await this.#master.open();
      this.#version ??= await this.#checkVersion();
      this.#failure = undefined;
    } catch (error) {
      // Only a host that cannot be reached is backed off: a refused login or an old tmux is
      // reported each time, and a cancelled call says nothing about the host.
      if (error instanceof SshError && error.kind === "unreachable") {
        this.#failure = { error, at: Date.now() };
      }
      throw error;
    } finally {
      this.#attempted = true;
    }
  }

  /**
   * Run `tmux ARGS` remotely and collect its output; undefined when `signal` fired. An ssh failure
   * throws an `SshError`: `server_gone` with possible effects once the master was up (the command
   * may have run), else the connect failure.
   */
  async collect(
    args: string[],
    stdin: Uint8Array | string | undefined,
    signal: AbortSignal,
  ): Promise<Output | undefined> {
    await this.ready(signal);
    return await this.#collect(args, stdin, signal);
  }

  async #collect(
    args: string[],
    stdin: Uint8Array | string | undefined,
    signal: AbortSignal,
  ): Promise<Output | undefined> {
    const bytes = typeof stdin === "string" ? new TextEncoder().encode(stdin) : stdin;
    const mode: RemoteMode = bytes === undefined ? "n" : `d${bytes.length}`;
    const child = this.#spawner.child(this.sshArgs(args, mode), { stdin: "piped" });
    // The input goes after the pid its feeder waits for, never before the mark (a start-up file
    // that reads stdin would take it).
    const input = bytes && ((pid: number) => join(new TextEncoder().encode(`${pid}\n`), bytes));
    const out = await collectWrapped(child, this.#mark, input, signal);
    if (out === undefined) return undefined;
    if (out.code === SSH_FAILED) {
      this.#master.markDown();
      const stderr = new TextDecoder().decode(out.stderr);
      throw classifySshFailure(this.#master.options, stderr, true, "possible");
    }
    if (out.code === NOT_FOUND) throw tmuxMissing(this.#master.options);
    // What the login shell printed before the mark is not tmux's (on stdout: never; on stderr:
    // with a zero status).
    if (out.stdout === undefined) {
      throw new ToolError(
        "tmux_failed",
        "the remote shell never started tmux",
        {
          host: this.#master.name,
          hint: `Check that \`${checkCommand(this.#master.options)}\` prints tmux's version.`,
        },
      );
    }
    return {
      success: out.success,
      stdout: out.stdout,
      stderr: out.success ? new Uint8Array() : out.stderr,
    };
  }

  /**
   * Start a control client (`tmux ARGS`, a `-C attach`) remotely over the master, once its shell has
   * said the pid tmux will have (that line, and any login noise before it, never reaches the
   * control-mode reader); tmux starts only once we have answered with that pid (remote_wrap.ts).
   */
  async control(args: string[], signal?: AbortSignal): Promise<ControlChild> {
    await this.ready(signal);
    const process = this.#spawner.child(this.sshArgs(args, "s"), {
      stdin: "piped",
      stderr: "null",
    });
    const deadline = AbortSignal.timeout(START_TIMEOUT_MS);
    let started;
    try {
      started = await untilMark(
        process.stdout,
        this.#mark,
        signal ? AbortSignal.any([signal, deadline]) : deadline,
      );
      const writer = process.stdin.getWriter();
      await writer.write(new TextEncoder().encode(`${started.pid}\n`));
      writer.releaseLock();
    } catch (error) {
      try {
        process.kill("SIGKILL");
      } catch {
        // already gone
      }
      process.stdin.abort().catch(() => {});
      await process.status;
      throw error instanceof ToolError ? error : new ToolError(
        "server_gone",
        "the remote tmux client ended before it started",
        { host: this.#master.name },
      );
    }
    return {
      process,
      stdout: started.stream,
      clientPid: Promise.resolve(started.pid),
      gone: this.#gone(process, started.pid, args),
    };
  }

  /**
   * Settles once the control client `pid` is gone from the host. The wrapper exits only after
   * tmux, so its exit status through ssh proves it; an ssh killed by us or failed (255) proves
   * nothing, and the host is asked ({@link #confirm}).
   */
  async #gone(process: Deno.ChildProcess, pid: number, args: readonly string[]): Promise<void> {
    const status = await process.status;
    if (status.signal === null && status.code !== SSH_FAILED) return;
    await this.#confirm(pid, args);
  }

  /**
   * Ask the host, whenever its master is up, until it says `pid` is gone (killing it while it is
   * still our tmux client); pauses grow to {@link CONFIRM_MAX_PAUSE_MS}, and after
   * {@link CONFIRM_GIVE_UP_MS} of a host that stays away the pid is let go. The check never opens a
   * master (`ControlMaster=no`): a host closed meanwhile is not reopened for it.
   */
  async #confirm(pid: number, args: readonly string[]): Promise<void> {
    const argv = remoteArgs(this.#master.options, remoteCommand(confirmArgv(pid, args)))
      .map((arg) => arg === "ControlMaster=auto" ? "ControlMaster=no" : arg);
    const until = Date.now() + CONFIRM_GIVE_UP_MS;
    for (let pause = 250; Date.now() < until; pause = Math.min(pause * 2, CONFIRM_MAX_PAUSE_MS)) {
      if (this.#master.up) {
        const out = await this.#spawner.collect(argv, undefined, AbortSignal.timeout(20_000))
          .catch(() => undefined);
        if (out?.code === 0) return;
      }
      await new Promise<void>((resolve) => Deno.unrefTimer(setTimeout(resolve, pause)));
    }
  }

  /** First contact's check: the host's tmux, at least {@link MIN_TMUX}. */
  async #checkVersion(signal: AbortSignal = AbortSignal.timeout(60_000)): Promise<string> {
    const out = await this.#collect(["-V"], undefined, signal);
    const name = this.#master.name;
    if (out === undefined) {
      throw new ToolError("timeout", "tmux -V did not answer", { host: name });
    }
    const text = new TextDecoder().decode(out.stdout).trim();
    const release = parseTmuxVersion(text);
    if (!out.success || text === "") throw tmuxMissing(this.#master.options);
    if (release && !isSupported(release)) {
      throw new ToolError(
        "unsupported",
        `runs ${text.slice(0, 40)}; ${MIN_TMUX.major}.${MIN_TMUX.minor} or newer is needed`,
        { hint: `Upgrade tmux on ${name}, or remove it from --ssh.`, host: name },
      );
    }
    return text;
  }

  /** The host's `tmux -V`, once checked. */
  get version(): string | undefined {
    return this.#version;
  }
}

/**
 * `attempt`, or its caller's leaving when `signal` fires first: `timeout` (or `onTimeout`'s error)
 * when a deadline fired, else `cancelled` (the caller's own).
 */
function leaveOnAbort(
  attempt: Promise<void>,
  signal: AbortSignal | undefined,
  name: string,
  onTimeout: () => ToolError = () =>
    new ToolError("timeout", "still connecting over ssh", {
      hint: "Retry: the connection goes on being made.",
      retryable: true,
      host: name,
    }),
): Promise<void> {
  if (!signal) return attempt;
  const left = () =>
    signal.reason instanceof DOMException && signal.reason.name === "TimeoutError"
      ? onTimeout()
      : new ToolError("cancelled", "the call was cancelled");
  if (signal.aborted) return Promise.reject(left());
  return new Promise((resolve, reject) => {
    const onAbort = () => reject(left());
    signal.addEventListener("abort", onAbort, { once: true });
    attempt.then(resolve, reject).finally(() => signal.removeEventListener("abort", onAbort));
  });
}

function tmuxMissing(target: SshTarget): ToolError {
  const name = target.host.name;
  return new ToolError("tmux_not_found", "tmux is not on the remote PATH", {
    host: name,
    hint: `Install tmux on ${name}, on the PATH of non-interactive ssh commands ` +
      `(check with \`${checkCommand(target)}\`).`,
  });
}

function join(a: Uint8Array, b: Uint8Array): Uint8Array {
  const all = new Uint8Array(a.length + b.length);
  all.set(a);
  all.set(b, a.length);
  return all;
}
