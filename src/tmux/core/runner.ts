/**
 * The one-shot tmux runner: the only code that starts tmux processes.
 *
 * argv only (never a shell), `-u` always (UTF-8 output regardless of locale), the pinned socket on
 * every call, optional stdin, a deadline and an AbortSignal, central escaping of a trailing `;`
 * (src/tmux/core/argv.ts),
 * and classification of failures into typed errors. See docs/design.md §5.1–§5.4 and §5.13.
 *
 * With live mode on, the host installs a {@link ControlPath} (src/tmux/control/route.ts): commands it can
 * frame safely go over a control-mode connection instead, and everything else (and everything
 * while that path is not ready) is spawned as before (docs/design.md §5.14).
 */
import { classifyTmuxFailure, type Effects, ToolError } from "../../errors.ts";
import { chainArgs, commandList, controlArgs, type SocketSpec, type TmuxCommand } from "./argv.ts";
import { AttachGate, type GateWait } from "./attach_gate.ts";
import { notifies } from "./notifying.ts";
import { type ControlChild, type Output, TmuxProcesses, type TmuxStarter } from "./process.ts";

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
  /**
   * For a notifying command whose consequences go on after it returns (a pane's shell that
   * will delete our buffer): the attach gate stays held until this settles (docs/design.md §7.4).
   */
  holdGateUntil?: Promise<unknown>;
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

const DEFAULT_TIMEOUT_MS = 10_000;
/** Options of a {@link TmuxRunner}. */
interface TmuxRunnerOptions {
  socket: SocketSpec;
  env: EnvReader;
  /** Called once when the runner falls back to a reduced environment. */
  onNotice?: (message: string) => void;
  defaultTimeoutMs?: number;
  /** Told which path each call took, and how long it took (`TMUX_MCP_DEBUG=1`); never results. */
  onDebug?: (message: string) => void;
  /** Where tmux runs: a remote host's ssh starter; local processes by default. */
  starter?: TmuxStarter;
}

/** Options of a control-mode client. */
export interface ControlSpawnOptions {
  /** `attach -f` client flags, e.g. `no-output` (tmux 3.2+). */
  clientFlags?: readonly string[];
}

/** Spawns tmux for one or more chained commands; one instance per server (no module state). */
export class TmuxRunner {
  readonly socket: SocketSpec;
  readonly #processes: TmuxStarter;
  #timeoutMs: number;
  #control: ControlPath | undefined;
  #debug: ((message: string) => void) | undefined;
  /**
   * Orders our control clients' attaches against our commands that make tmux notify control
   * clients, and against our detaches (src/tmux/core/attach_gate.ts, docs/design.md §7.4).
   */
  readonly gate: AttachGate = new AttachGate();

  constructor(options: TmuxRunnerOptions) {
    this.socket = options.socket;
    this.#processes = options.starter ??
      new TmuxProcesses(options.env, options.onNotice ?? (() => {}));
    this.#timeoutMs = options.defaultTimeoutMs ?? DEFAULT_TIMEOUT_MS;
    this.#debug = options.onDebug;
  }

  /**
   * Run `start` (spawning a control client and waiting until tmux has answered its attach) alone:
   * no other start of this runner's and no notifying command of ours runs meanwhile. tmux 3.3a
   * crashes when a notification reaches a control client still identifying itself (checked:
   * SIGSEGV reading address 0x20 in `control_write`); docs/design.md §7.4.
   */
  controlStart<T>(start: () => Promise<T>): Promise<T> {
    this.#debug?.(`tmux: attach (${this.gate.stats().attaches + 1} so far)`);
    return this.gate.attaching(start);
  }

  /**
   * Detach one of our control clients: `detach` runs (and the gate stays held until it has
   * settled) only while none of ours attaches and nothing of ours notifies, since a client's
   * detach notifies every other and a client on its way out may have no control state left.
   */
  controlStop(detach: () => Promise<void>): Promise<void> {
    this.#debug?.(`tmux: detach (${this.gate.stats().detaches + 1} so far)`);
    return this.gate.detaching(detach);
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
    return chainArgs(this.socket, commandList(commands));
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
    const list = commandList(commands);
    if (!notifies(list)) return await this.#runAny(list, options);
    return await this.gate.notifying(
      () => this.#runAny(list, options),
      this.#gateWait(options),
      options.holdGateUntil,
    );
  }

  /** How long a notifying command waits for an attach in progress: within its own deadline. */
  #gateWait(options: RunOptions): GateWait {
    return { signal: options.signal, timeoutMs: options.timeoutMs ?? this.#timeoutMs };
  }

  /** {@link runPartial} once the gate allows it: over the control path, or spawned. */
  async #runAny(list: readonly TmuxCommand[], options: RunOptions): Promise<PartialResult> {
    if (!this.#control || options.stdin !== undefined) {
      if (!this.#debug) return await this.#spawn(list, options);
      return await this.#timed("spawn", list, () => this.#spawn(list, options));
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
      () => this.#spawn(list, options),
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
    const list = commandList(commands);
    if (!notifies(list)) return await this.#spawn(list, options);
    return await this.gate.notifying(() => this.#spawn(list, options), this.#gateWait(options));
  }

  async #spawn(commands: readonly TmuxCommand[], options: RunOptions): Promise<PartialResult> {
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
      output = await this.#processes.collect(args, options.stdin, signal);
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
      out = await this.#processes.collect(
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
   * Start a persistent control-mode client (`tmux -C attach -E -t $N`, see `controlArgs`) with the
   * same socket and environment policy as every other invocation. The caller owns the child and
   * must end it: start it inside {@link controlStart}, detach it inside {@link controlStop}.
   */
  spawnControl(sessionId: string, options: ControlSpawnOptions = {}): Promise<ControlChild> {
    return this.#processes.control(controlArgs(this.socket, sessionId, options.clientFlags ?? []));
  }
}
