/**
 * tmux on a remote host, through its ssh master (src/tmux/ssh/master.ts): the remote
 * {@link TmuxStarter}, over the same tmux argv as local processes (what follows `tmux`: `-u`, the
 * socket, the commands, from src/tmux/argv.ts). So the runner, the control clients and the route
 * work unchanged once a host hands them this instead of local processes (docs/design.md §5.15).
 *
 * Each call is one `ssh … -- DESTINATION 'exec sh -c …'` riding the master (src/tmux/ssh/quote.ts
 * says why that string is parsed the same by every login shell). The remote user's shell runs its
 * start-up files first, which may print on both streams, so `sh` prints a mark line (a random part
 * of ours, and the pid tmux will have) right before it becomes tmux: stdout before it is dropped,
 * and stderr is noise with a zero exit status; with tmux's failure, tmux's own message is the last
 * line, which the classification reads. Exit status 255 is ssh's own failure (tmux never exits 255), typed by
 * `classifySshFailure`.
 *
 * First contact opens the master and checks the host's tmux (at least {@link MIN_TMUX}). A host
 * that cannot be reached is not tried again for {@link BACKOFF_MS}: calls meanwhile fail at once
 * with the same error, so a listing across hosts never waits for it twice.
 */
import { ToolError } from "../../errors.ts";
import type { ControlChild, Output, TmuxStarter } from "../process.ts";
import { isSupported, MIN_TMUX, parseTmuxVersion } from "../version.ts";
import {
  checkCommand,
  classifySshFailure,
  remoteArgs,
  SshError,
  type SshMaster,
  type SshTarget,
} from "./master.ts";
import { remoteCommand } from "./quote.ts";
import type { SshSpawner } from "./spawn.ts";

/** ssh's own exit status for its failures; tmux exits 0 or 1. */
const SSH_FAILED = 255;
/** The shell's "command not found". */
const NOT_FOUND = 127;
/** How long an unreachable host is not tried again. */
export const BACKOFF_MS = 30_000;
/** How long a call waits for a retry after the back-off before failing with what is retried. */
export const RETRY_WAIT_MS = 2_000;
/**
 * The line the remote `sh` prints right before it becomes tmux: a mark with this process's own
 * random part (so the login shell's start-up files cannot print it ahead of us, short of reading
 * the command they run), then the pid that `exec` hands to tmux. Whatever comes before it on
 * stdout is the login shell's, never tmux's.
 */
function markScript(mark: string): string {
  return `echo "${mark}$$"; exec "$@"`;
}
const NEWLINE = 0x0a;
/** Login-shell noise skipped before that line, at most. */
const MAX_NOISE_BYTES = 65_536;

/** Starts tmux on one remote host. */
export class RemoteProcesses implements TmuxStarter {
  readonly #master: SshMaster;
  readonly #spawner: SshSpawner;
  #version: string | undefined;
  #failure: { error: ToolError; at: number } | undefined;
  #ready: Promise<void> | undefined;
  #attempted = false;
  /** The mark of {@link markScript}: printable ASCII (quote.ts), not known to the remote side ahead. */
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

  /** The ssh argv that runs `tmux ARGS` on the host, after the mark line. */
  sshArgs(args: readonly string[]): string[] {
    const argv = ["sh", "-c", markScript(this.#mark), "sh", "tmux", ...args];
    return remoteArgs(this.#master.options, remoteCommand(argv));
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
    const out = await this.#spawner.collect(this.sshArgs(args), stdin, signal);
    if (out === undefined) return undefined;
    if (out.code === SSH_FAILED) {
      this.#master.markDown();
      const stderr = new TextDecoder().decode(out.stderr);
      throw classifySshFailure(this.#master.options, stderr, true, "possible");
    }
    if (out.code === NOT_FOUND) throw tmuxMissing(this.#master.options);
    // What the login shell printed before the mark is not tmux's (on stdout: never; on stderr:
    // with a zero status).
    const found = findMarkLine(out.stdout, this.#mark);
    if (found === undefined) {
      throw new ToolError(
        "tmux_failed",
        `host ${this.#master.name}: the remote shell never started tmux`,
        {
          hint: `Check that \`ssh ${this.#master.name} tmux -V\` prints only tmux's version.`,
        },
      );
    }
    return {
      success: out.success,
      stdout: out.stdout.subarray(found.rest),
      stderr: out.success ? new Uint8Array() : out.stderr,
    };
  }

  /**
   * Start a control client (`tmux ARGS`, a `-C attach`) remotely over the master. Its shell says
   * the pid tmux will have before it starts tmux; that line (and any login noise before it) never
   * reaches the control-mode reader.
   */
  async control(args: string[], signal?: AbortSignal): Promise<ControlChild> {
    await this.ready(signal);
    const remote = remoteCommand(["sh", "-c", markScript(this.#mark), "sh", "tmux", ...args]);
    const process = this.#spawner.child(remoteArgs(this.#master.options, remote), {
      stdin: "piped",
      stderr: "null",
    });
    const { stream, pid } = afterMarkLine(process.stdout, this.#mark);
    return { process, stdout: stream, clientPid: pid };
  }

  /** First contact's check: the host's tmux, at least {@link MIN_TMUX}. */
  async #checkVersion(signal: AbortSignal = AbortSignal.timeout(60_000)): Promise<string> {
    const out = await this.#collect(["-V"], undefined, signal);
    const name = this.#master.name;
    if (out === undefined) throw new ToolError("timeout", `host ${name}: tmux -V did not answer`);
    const text = new TextDecoder().decode(out.stdout).trim();
    const release = parseTmuxVersion(text);
    if (!out.success || text === "") throw tmuxMissing(this.#master.options);
    if (release && !isSupported(release)) {
      throw new ToolError(
        "unsupported",
        `host ${name} runs ${
          text.slice(0, 40)
        }; ${MIN_TMUX.major}.${MIN_TMUX.minor} or newer is needed`,
        { hint: `Upgrade tmux on ${name}, or remove it from --ssh.` },
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
    new ToolError("timeout", `host ${name}: still connecting over ssh`, {
      hint: "Retry: the connection goes on being made.",
      retryable: true,
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

/**
 * The control stream after the mark line, and the pid it names. Whatever the login shell printed
 * before it is dropped (at most {@link MAX_NOISE_BYTES}); a stream that ends first rejects the pid.
 */
function afterMarkLine(
  source: ReadableStream<Uint8Array>,
  mark: string,
): { stream: ReadableStream<Uint8Array>; pid: Promise<number> } {
  const pid = Promise.withResolvers<number>();
  pid.promise.catch(() => {});
  let head: Uint8Array | undefined = new Uint8Array();
  const stream = source.pipeThrough(
    new TransformStream<Uint8Array, Uint8Array>({
      transform(chunk, out) {
        if (head === undefined) return out.enqueue(chunk);
        const joined = new Uint8Array(head.length + chunk.length);
        joined.set(head);
        joined.set(chunk, head.length);
        const found = findMarkLine(joined, mark);
        if (found === undefined) {
          if (joined.length > MAX_NOISE_BYTES) {
            pid.reject(new ToolError("tmux_failed", "the remote shell never started tmux"));
            head = undefined;
            return;
          }
          head = joined;
          return;
        }
        head = undefined;
        pid.resolve(found.pid);
        if (found.rest < joined.length) out.enqueue(joined.subarray(found.rest));
      },
      flush() {
        pid.reject(new ToolError("server_gone", "the remote tmux client ended before it started"));
      },
    }),
  );
  return { stream, pid: pid.promise };
}

/** The mark line in `bytes` (at its start or after a newline): its pid and where the rest starts. */
function findMarkLine(bytes: Uint8Array, text: string): { pid: number; rest: number } | undefined {
  const mark = [...new TextEncoder().encode(text)];
  for (let at = 0; at + mark.length <= bytes.length; at++) {
    if (at > 0 && bytes[at - 1] !== NEWLINE) continue;
    if (!mark.every((byte, i) => bytes[at + i] === byte)) continue;
    let end = at + mark.length;
    let digits = "";
    while (end < bytes.length && bytes[end] >= 0x30 && bytes[end] <= 0x39) {
      digits += String.fromCharCode(bytes[end++]);
    }
    if (end < bytes.length && bytes[end] === NEWLINE && digits !== "") {
      return { pid: Number(digits), rest: end + 1 };
    }
  }
  return undefined;
}

function tmuxMissing(target: SshTarget): ToolError {
  const name = target.host.name;
  return new ToolError("tmux_not_found", `host ${name}: tmux is not on the remote PATH`, {
    hint: `Install tmux on ${name}, on the PATH of non-interactive ssh commands ` +
      `(check with \`${checkCommand(target)}\`).`,
  });
}
