/**
 * The one-shot tmux runner: the only code that starts tmux processes.
 *
 * argv only (never a shell), `-u` always (UTF-8 output regardless of locale), the pinned socket on
 * every call, optional stdin, a deadline and an AbortSignal, central escaping of a trailing `;`,
 * and classification of failures into typed errors. See docs/design.md §5.1–§5.4 and §5.13.
 *
 * With live mode on, the host installs a {@link ControlPath} (src/tmux/route.ts): commands it can
 * frame safely go over a control-mode connection instead, and everything else (and everything
 * while that path is not ready) is spawned as before (docs/design.md §5.14).
 */
import { classifyTmuxFailure, type Effects, preview, ToolError } from "../errors.ts";

/** Which tmux server this process talks to. */
export type SocketSpec =
  | { kind: "default" }
  | { kind: "name"; name: string }
  | { kind: "path"; path: string };

/** One tmux command: its name followed by its arguments (unescaped). */
export type TmuxCommand = readonly string[];

/** Options of one invocation. */
export interface RunOptions {
  /** Bytes or text written to tmux's stdin (e.g. `load-buffer -`). */
  stdin?: Uint8Array | string;
  /** Abort to kill the invocation; reported as `cancelled`. */
  signal?: AbortSignal;
  /** Deadline in milliseconds; reported as `timeout`. */
  timeoutMs?: number;
  /** `possible` when the commands may change state, so failures say so. */
  effects?: Effects;
}

/** What one invocation printed; `error` when a command of the chain failed (see runPartial). */
export interface PartialResult {
  stdout: string;
  error?: ToolError;
}

/**
 * Another way to run commands than spawning tmux (the control channel, docs/design.md §5.14).
 * It answers with the result, or with why the spawn path must run the commands instead — which
 * it does only when nothing was executed, or only reads were (running a read twice is harmless).
 */
export interface ControlPath {
  runPartial(
    commands: readonly TmuxCommand[],
    options: RunOptions,
  ): Promise<PartialResult | string>;
}

/** Reads one environment variable; returns undefined when unset or not permitted. */
export type EnvReader = (name: string) => string | undefined;

/**
 * Variables passed to tmux when the environment must be reduced (a loader variable such as
 * `LD_PRELOAD` is set and Deno refuses to spawn with it). Each is in the `--allow-env` list.
 */
export const REDUCED_ENV_NAMES = [
  "HOME",
  "PATH",
  "USER",
  "SHELL",
  "TERM",
  "LANG",
  "LC_ALL",
  "LC_CTYPE",
  "TMUX_TMPDIR",
] as const;

const DEFAULT_TIMEOUT_MS = 10_000;

/** Escape one argument so tmux cannot read its trailing `;` as a command separator. */
export function escapeArgument(arg: string): string {
  if (arg.includes("\0")) {
    throw new ToolError("invalid_arguments", "a value contains a NUL byte, which tmux cannot take");
  }
  // tmux strips a trailing `;` (separator) and turns a trailing `\;` into `;`; inserting one
  // backslash before the final `;` therefore always yields the original text.
  return arg.endsWith(";") ? `${arg.slice(0, -1)}\\;` : arg;
}

/** Refuse an agent value that tmux would read as a flag where it is placed positionally. */
export function refuseFlagLike(value: string, what: string): string {
  if (value.startsWith("-")) {
    throw new ToolError("invalid_arguments", `${what} must not start with "-": ${preview(value)}`, {
      hint: `tmux would read it as an option; choose a ${what} that does not begin with "-".`,
    });
  }
  return value;
}

/** Options of a {@link TmuxRunner}. */
export interface TmuxRunnerOptions {
  socket: SocketSpec;
  env: EnvReader;
  /** Called once when the runner falls back to a reduced environment. */
  onNotice?: (message: string) => void;
  defaultTimeoutMs?: number;
  /** Told which path each call took, and how long it took (`TMUX_MCP_DEBUG=1`); never results. */
  onDebug?: (message: string) => void;
}

/** Options of a control-mode client. */
export interface ControlSpawnOptions {
  /** `attach -f` client flags, e.g. `no-output` (tmux 3.2+). */
  clientFlags?: readonly string[];
}

/** Spawns tmux for one or more chained commands; one instance per server (no module state). */
export class TmuxRunner {
  readonly socket: SocketSpec;
  #env: EnvReader;
  #notice: (message: string) => void;
  #timeoutMs: number;
  #reducedEnv: Record<string, string> | undefined;
  #control: ControlPath | undefined;
  #debug: ((message: string) => void) | undefined;
  #controlStarts: Promise<void> = Promise.resolve();

  constructor(options: TmuxRunnerOptions) {
    this.socket = options.socket;
    this.#env = options.env;
    this.#notice = options.onNotice ?? (() => {});
    this.#timeoutMs = options.defaultTimeoutMs ?? DEFAULT_TIMEOUT_MS;
    this.#debug = options.onDebug;
  }

  /**
   * Run `start` (spawning a control client and waiting until it answers) after every other start
   * of this runner's has finished. tmux 3.3a can crash while a control client identifies itself: a
   * notification sent to it then (another client's attach is one) meets its control state not yet
   * made (checked: SIGSEGV reading address 0x20 in `control_write`). Our own clients, the live
   * engine's and the control route's, therefore never start at the same time.
   */
  controlStart<T>(start: () => Promise<T>): Promise<T> {
    const run = this.#controlStarts.then(start);
    this.#controlStarts = run.then(() => {}, () => {});
    return run;
  }

  /** The deadline of a call that does not set its own, in milliseconds. */
  get defaultTimeoutMs(): number {
    return this.#timeoutMs;
  }

  /**
   * Send the commands it can carry over `path` from now on (undefined: spawn everything). The host
   * installs its control route when live mode is on (docs/design.md §5.14).
   */
  useControlPath(path: ControlPath | undefined): void {
    this.#control = path;
  }

  /** The full argv (after `tmux`) for these commands: global flags, escaped args, bare `;`. */
  argv(commands: TmuxCommand | readonly TmuxCommand[]): string[] {
    const list = isCommandList(commands) ? commands : [commands];
    const args = ["-u", ...socketArgs(this.socket)];
    list.forEach((command, i) => {
      if (i > 0) args.push(";");
      args.push(...command.map(escapeArgument));
    });
    return args;
  }

  /** Run the commands in one tmux invocation and return stdout (UTF-8, invalid bytes replaced). */
  async run(
    commands: TmuxCommand | readonly TmuxCommand[],
    options: RunOptions = {},
  ): Promise<string> {
    const result = await this.runPartial(commands, options);
    if (result.error) throw result.error;
    return result.stdout;
  }

  /**
   * Like {@link run}, but a command that tmux rejects does not discard what the commands before
   * it printed: a chain stops at its first failing command, and its earlier output is returned
   * with the error. Spawn failures, timeouts and cancellation still throw.
   */
  async runPartial(
    commands: TmuxCommand | readonly TmuxCommand[],
    options: RunOptions = {},
  ): Promise<PartialResult> {
    const list = isCommandList(commands) ? commands : [commands];
    if (!this.#control || options.stdin !== undefined) {
      if (!this.#debug) return await this.spawnPartial(list, options);
      return await this.#timed("spawn", list, () => this.spawnPartial(list, options));
    }
    const control = this.#control;
    let fallback = "";
    const routed = await this.#timed("control", list, async () => {
      const result = await control.runPartial(list, options);
      if (typeof result === "string") fallback = result;
      return result;
    }, () => fallback);
    if (typeof routed !== "string") return routed;
    return await this.#timed(
      `spawn (${routed})`,
      list,
      () => this.spawnPartial(list, options),
    );
  }

  /** Run `fn`, telling the debug log which path it was, which commands and how long it took. */
  async #timed<T>(
    path: string,
    list: readonly TmuxCommand[],
    fn: () => Promise<T>,
    declined: () => string = () => "",
  ): Promise<T> {
    if (!this.#debug) return await fn();
    const started = performance.now();
    let outcome = "";
    try {
      return await fn();
    } catch (error) {
      outcome = ` failed: ${error instanceof ToolError ? error.code : "internal"}`;
      throw error;
    } finally {
      // Command names only: arguments may hold text an agent typed.
      const names = list.map((c) => c[0]).join(",");
      const ms = (performance.now() - started).toFixed(3);
      if (!declined()) this.#debug(`tmux: ${path} ${ms} ms ${names}${outcome}`);
    }
  }

  /** {@link runPartial} on the spawn path only: one tmux process for the whole chain. */
  async spawnPartial(
    commands: TmuxCommand | readonly TmuxCommand[],
    options: RunOptions = {},
  ): Promise<PartialResult> {
    const args = this.argv(commands);
    const effects = options.effects ?? "none";
    const timeoutMs = options.timeoutMs ?? this.#timeoutMs;
    const deadline = AbortSignal.timeout(timeoutMs);
    const signal = options.signal ? AbortSignal.any([options.signal, deadline]) : deadline;
    if (options.signal?.aborted) {
      throw new ToolError("cancelled", "the call was cancelled before tmux was started");
    }
    let output: Output | undefined;
    try {
      output = await this.#spawn(args, options.stdin, signal);
    } catch (error) {
      if (error instanceof ToolError) throw error.withEffects(effects);
      if (options.signal?.aborted) {
        throw new ToolError("cancelled", "the call was cancelled", { effects });
      }
      if (deadline.aborted) {
        throw new ToolError("timeout", `tmux did not answer within ${timeoutMs} ms`, { effects });
      }
      if (error instanceof Deno.errors.NotFound) {
        throw new ToolError("tmux_not_found", "tmux is not installed or not on PATH");
      }
      throw new ToolError("tmux_failed", `could not start tmux: ${(error as Error).message}`, {
        cause: error,
      });
    }
    // A tmux client killed by our signal may still exit 0, so check the signals first.
    if (options.signal?.aborted) {
      throw new ToolError("cancelled", "the call was cancelled", { effects });
    }
    if (deadline.aborted || output === undefined) {
      throw new ToolError("timeout", `tmux did not answer within ${timeoutMs} ms`, { effects });
    }
    const decoder = new TextDecoder();
    const stdout = decoder.decode(output.stdout);
    if (output.success) return { stdout };
    const { code, message } = classifyTmuxFailure(decoder.decode(output.stderr));
    return { stdout, error: new ToolError(code, message, { effects }) };
  }

  /** `tmux -V`, trimmed: works without a server; `tmux_not_found` when tmux is missing. */
  async version(signal?: AbortSignal): Promise<string> {
    const deadline = AbortSignal.timeout(this.#timeoutMs);
    let out: Output | undefined;
    try {
      out = await this.#spawn(
        ["-V"],
        undefined,
        signal ? AbortSignal.any([signal, deadline]) : deadline,
      );
    } catch (error) {
      if (error instanceof Deno.errors.NotFound) {
        throw new ToolError("tmux_not_found", "tmux is not installed or not on PATH");
      }
      throw error;
    }
    if (out === undefined) {
      if (signal?.aborted) throw new ToolError("cancelled", "the call was cancelled");
      throw new ToolError("timeout", `tmux -V did not answer within ${this.#timeoutMs} ms`);
    }
    return new TextDecoder().decode(out.stdout).trim();
  }

  /**
   * Start a persistent control-mode client (`tmux -C attach -E -t $N`) with the same socket and
   * environment policy as every other invocation. `-E`: without it the attach copies the
   * `update-environment` variables from our environment into the session's, marking those we lack
   * as removed (checked: a person's `SSH_AUTH_SOCK` became `-SSH_AUTH_SOCK`). The caller owns the
   * child and must end it; start it inside {@link controlStart}.
   */
  spawnControl(sessionId: string, options: ControlSpawnOptions = {}): Deno.ChildProcess {
    if (!/^\$\d+$/.test(sessionId)) throw new Error("internal: control attach needs a session id");
    const flags = options.clientFlags ?? [];
    if (flags.some((f) => !/^[a-z-]+$/.test(f))) throw new Error("internal: bad client flag");
    return this.#spawnChild(
      [
        "-u",
        ...socketArgs(this.socket),
        "-C",
        "attach",
        "-E",
        ...(flags.length ? ["-f", flags.join(",")] : []),
        "-t",
        sessionId,
      ],
      { stdin: "piped", stderr: "null" },
    );
  }

  /**
   * Start tmux and collect its output, or give up when `signal` fires (then resolve undefined).
   * Giving up cannot wait for EOF: a stopped tmux server holds our pipes open (the client hands its
   * fds to the server), even after the client is dead. So the client is killed and our ends of the
   * pipes are released by cancelling the readers; a write tmux never reads is left behind.
   */
  async #spawn(
    args: string[],
    stdin: Uint8Array | string | undefined,
    signal: AbortSignal,
  ): Promise<Output | undefined> {
    const child = this.#spawnChild(args, {
      stdin: stdin === undefined ? "null" : "piped",
      stderr: "piped",
    });
    const out = child.stdout.getReader();
    const err = child.stderr.getReader();
    const writer = stdin === undefined ? undefined : child.stdin.getWriter();
    const given = Promise.withResolvers<undefined>();
    const giveUp = () => given.resolve(undefined);
    signal.addEventListener("abort", giveUp, { once: true });
    if (signal.aborted) giveUp();
    const reads = Promise.all([readAll(out), readAll(err), child.status]);
    if (writer && stdin !== undefined) {
      const bytes = typeof stdin === "string" ? new TextEncoder().encode(stdin) : stdin;
      // A failed write means tmux exited before reading everything; its exit status tells.
      void writer.write(bytes).then(() => writer.close()).catch(() => {});
    }
    let output: Output | undefined;
    try {
      const done = await Promise.race([reads, given.promise]);
      if (done !== undefined) {
        const [stdout, stderr, status] = done;
        output = { success: status.success, stdout, stderr };
      }
      return output;
    } finally {
      signal.removeEventListener("abort", giveUp);
      if (output === undefined) {
        try {
          child.kill("SIGKILL");
        } catch {
          // it exited meanwhile
        }
        // Not awaited beyond the readers and the exit: an unread stdin write may never finish.
        writer?.abort().catch(() => {});
        await Promise.allSettled([out.cancel(), err.cancel()]);
        await reads.catch(() => {});
      }
    }
  }

  #spawnChild(
    args: string[],
    options: { stdin: "null" | "piped"; stderr: "null" | "piped" },
  ): Deno.ChildProcess {
    const make = () =>
      new Deno.Command("tmux", {
        args,
        stdin: options.stdin,
        stdout: "piped",
        stderr: options.stderr,
        ...(this.#reducedEnv ? { clearEnv: true, env: this.#reducedEnv } : {}),
      }).spawn();
    try {
      return make();
    } catch (error) {
      // Deno refuses to spawn while LD_*/DYLD_* loader variables are set (unless --allow-run is
      // unscoped, which we never ask for). Fall back to a reduced, explicit environment once.
      if (
        this.#reducedEnv === undefined && error instanceof Deno.errors.NotCapable &&
        /environment variable/.test(error.message)
      ) {
        this.#reducedEnv = this.#buildReducedEnv();
        this.#notice(
          "a loader variable (LD_*/DYLD_*) is set: tmux is started with a reduced environment " +
            `(${REDUCED_ENV_NAMES.join(", ")}), so new tmux servers' shells see only those`,
        );
        return make();
      }
      throw error;
    }
  }

  #buildReducedEnv(): Record<string, string> {
    const env: Record<string, string> = {};
    for (const name of REDUCED_ENV_NAMES) {
      const value = this.#env(name);
      if (value !== undefined) env[name] = value;
    }
    return env;
  }
}

/** What one finished tmux invocation produced. */
interface Output {
  success: boolean;
  stdout: Uint8Array;
  stderr: Uint8Array;
}

/** Everything a reader yields until EOF (or until it is cancelled), as one array. */
async function readAll(reader: ReadableStreamDefaultReader<Uint8Array>): Promise<Uint8Array> {
  const chunks: Uint8Array[] = [];
  let size = 0;
  while (true) {
    const { done, value } = await reader.read();
    if (done) break;
    chunks.push(value);
    size += value.length;
  }
  if (chunks.length === 1) return chunks[0];
  const all = new Uint8Array(size);
  let at = 0;
  for (const chunk of chunks) {
    all.set(chunk, at);
    at += chunk.length;
  }
  return all;
}

function isCommandList(
  commands: TmuxCommand | readonly TmuxCommand[],
): commands is readonly TmuxCommand[] {
  return commands.length > 0 && Array.isArray(commands[0]);
}

function socketArgs(socket: SocketSpec): string[] {
  switch (socket.kind) {
    case "name":
      return ["-L", socket.name];
    case "path":
      return ["-S", socket.path];
    default:
      return [];
  }
}

/** Human-readable name of a socket choice, for notes and the startup line. */
export function describeSocket(socket: SocketSpec): string {
  switch (socket.kind) {
    case "name":
      return `socket name "${socket.name}"`;
    case "path":
      return `socket ${socket.path}`;
    default:
      return "tmux's default socket";
  }
}
