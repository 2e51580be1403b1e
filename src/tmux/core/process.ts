/**
 * Starting tmux processes and collecting what they print, for the runner (src/tmux/core/runner.ts),
 * which decides what to start: argv only, never a shell (docs/design.md §5.1).
 */
import { concatBytes } from "../../base/utf8.ts";

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

/** What one finished tmux invocation produced. */
export interface Output {
  success: boolean;
  stdout: Uint8Array;
  stderr: Uint8Array;
}

/** A long-lived tmux client (a control client) and how tmux knows it. */
export interface ControlChild {
  /** The process we started: tmux itself, or the ssh that runs it on a remote host. */
  readonly process: Deno.ChildProcess;
  /** What the tmux client writes (for a remote host, from the tmux client's first byte on). */
  readonly stdout: ReadableStream<Uint8Array>;
  /** The tmux client's pid on its own host (the `client_pid` tmux lists); rejects if never told. */
  readonly clientPid: Promise<number>;
  /**
   * Settles once the tmux client is gone from its host, for a client whose end `process` does not
   * prove (a remote one: its ssh may be killed first); absent, `process`'s exit proves it.
   */
  readonly gone?: Promise<void>;
}

/**
 * What a runner starts tmux with: {@link TmuxProcesses} here, or `RemoteProcesses` on a host
 * reached over ssh (src/tmux/ssh/remote_processes.ts). Both take the same tmux argv.
 */
export interface TmuxStarter {
  /** Run tmux with `args` and collect its output; undefined when `signal` fired. */
  collect(
    args: string[],
    stdin: Uint8Array | string | undefined,
    signal: AbortSignal,
  ): Promise<Output | undefined>;
  /** Start a control client with `args` (after anything the host needs first is ready). */
  control(args: string[], signal?: AbortSignal): Promise<ControlChild>;
}

/**
 * Starts tmux with this process's environment, or, once Deno has refused that, with a reduced one
 * (see {@link REDUCED_ENV_NAMES}); one instance per runner (no module state).
 */
export class TmuxProcesses implements TmuxStarter {
  readonly #spawner: ProgramSpawner;

  constructor(env: (name: string) => string | undefined, notice: (message: string) => void) {
    this.#spawner = new ProgramSpawner("tmux", REDUCED_ENV_NAMES, env, (names) =>
      notice(
        "a loader variable (LD_*/DYLD_*) is set: tmux is started with a reduced environment " +
          `(${names}), so new tmux servers' shells see only those`,
      ));
  }

  /**
   * Start tmux and collect its output, or give up when `signal` fires (then resolve undefined).
   * Giving up cannot wait for EOF: a stopped tmux server holds our pipes open (the client hands its
   * fds to the server), even after the client is dead. So the client is killed and our ends of the
   * pipes are released by cancelling the readers; a write tmux never reads is left behind.
   */
  async collect(
    args: string[],
    stdin: Uint8Array | string | undefined,
    signal: AbortSignal,
  ): Promise<Output | undefined> {
    const child = this.child(args, {
      stdin: stdin === undefined ? "null" : "piped",
      stderr: "piped",
    });
    return await collectChild(child, stdin, signal);
  }

  /** Start a control client; tmux lists it by the pid we started. */
  control(args: string[]): Promise<ControlChild> {
    const process = this.child(args, { stdin: "piped", stderr: "null" });
    return Promise.resolve({
      process,
      stdout: process.stdout,
      clientPid: Promise.resolve(process.pid),
    });
  }

  /** Start tmux with `args`; the caller owns the child and must end it. */
  child(
    args: string[],
    options: { stdin: "null" | "piped"; stderr: "null" | "piped" },
  ): Deno.ChildProcess {
    return this.#spawner.spawn(args, options);
  }
}

/**
 * Starts one program, argv only, with this process's environment, or, once Deno has refused that
 * (it refuses to spawn while LD_* or DYLD_* loader variables are set, unless --allow-run is
 * unscoped, which we never ask for), with a reduced, explicit one of `names`; the notice is given
 * once, with the names.
 */
export class ProgramSpawner {
  readonly #program: string;
  readonly #names: readonly string[];
  readonly #env: (name: string) => string | undefined;
  readonly #notice: (names: string) => void;
  #reducedEnv: Record<string, string> | undefined;

  constructor(
    program: string,
    names: readonly string[],
    env: (name: string) => string | undefined,
    notice: (names: string) => void,
  ) {
    this.#program = program;
    this.#names = names;
    this.#env = env;
    this.#notice = notice;
  }

  /** Start the program with `args` (stdout piped); the caller owns the child and must end it. */
  spawn(
    args: readonly string[],
    options: { stdin: "null" | "piped"; stderr: "null" | "piped" },
  ): Deno.ChildProcess {
    const make = () =>
      new Deno.Command(this.#program, {
        args: [...args],
        stdin: options.stdin,
        stdout: "piped",
        stderr: options.stderr,
        ...(this.#reducedEnv ? { clearEnv: true, env: this.#reducedEnv } : {}),
      }).spawn();
    try {
      return make();
    } catch (error) {
      if (
        this.#reducedEnv === undefined && error instanceof Deno.errors.NotCapable &&
        /environment variable/.test(error.message)
      ) {
        const env: Record<string, string> = {};
        for (const name of this.#names) {
          const value = this.#env(name);
          if (value !== undefined) env[name] = value;
        }
        this.#reducedEnv = env;
        this.#notice(this.#names.join(", "));
        return make();
      }
      throw error;
    }
  }
}

/**
 * Write `stdin` to a started child (stdout and stderr piped) and collect what it prints, or give
 * up when `signal` fires (then resolve undefined; see {@link readsOrGiveUp}).
 */
export async function collectChild(
  child: Deno.ChildProcess,
  stdin: Uint8Array | string | undefined,
  signal: AbortSignal,
): Promise<(Output & { code: number }) | undefined> {
  const out = child.stdout.getReader();
  const err = child.stderr.getReader();
  const writer = stdin === undefined ? undefined : child.stdin.getWriter();
  const reads = Promise.all([readAll(out), readAll(err), child.status]);
  if (writer && stdin !== undefined) {
    const bytes = typeof stdin === "string" ? new TextEncoder().encode(stdin) : stdin;
    // A failed write means the process exited before reading everything; its exit status tells.
    void writer.write(bytes).then(() => writer.close()).catch(() => {});
  }
  let done: Awaited<typeof reads> | undefined;
  try {
    done = await readsOrGiveUp(child, [out, err], reads, signal);
  } finally {
    // Not awaited: an unread stdin write may never finish.
    if (done === undefined) writer?.abort().catch(() => {});
  }
  if (done === undefined) return undefined;
  const [stdout, stderr, status] = done;
  return { success: status.success, code: status.code, stdout, stderr };
}

/**
 * Wait for `reads` (a started child's pipes read to their end, and its exit) unless `signal` fires
 * first: then resolve undefined, with the child killed and our ends of its pipes released by
 * cancelling `readers`, since a process that handed its descriptors on (a tmux client to its
 * server, an ssh to its master) can hold them open after its death. The same when `reads` fails.
 */
export async function readsOrGiveUp<T>(
  child: Deno.ChildProcess,
  readers: readonly ReadableStreamDefaultReader<Uint8Array>[],
  reads: Promise<T>,
  signal: AbortSignal,
): Promise<T | undefined> {
  const given = Promise.withResolvers<undefined>();
  const giveUp = () => given.resolve(undefined);
  signal.addEventListener("abort", giveUp, { once: true });
  if (signal.aborted) giveUp();
  let done: T | undefined;
  try {
    done = await Promise.race([reads, given.promise]);
    return done;
  } finally {
    signal.removeEventListener("abort", giveUp);
    if (done === undefined) {
      try {
        child.kill("SIGKILL");
      } catch {
        // it exited meanwhile
      }
      await Promise.allSettled(readers.map((reader) => reader.cancel()));
      await reads.catch(() => {});
    }
  }
}

/** Everything a reader yields until EOF (or until it is cancelled), as one array. */
export async function readAll(
  reader: ReadableStreamDefaultReader<Uint8Array>,
): Promise<Uint8Array> {
  const chunks: Uint8Array[] = [];
  while (true) {
    const { done, value } = await reader.read();
    if (done) return concatBytes(chunks);
    chunks.push(value);
  }
}

/** A reader of a child's pipe, or undefined when that pipe is not piped (Deno throws then). */
export function pipedReader(
  stream: () => ReadableStream<Uint8Array>,
): ReadableStreamDefaultReader<Uint8Array> | undefined {
  try {
    return stream().getReader();
  } catch {
    return undefined;
  }
}
