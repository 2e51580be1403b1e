/**
 * Starting `ssh`: argv only, never a shell, with this process's environment, or, once Deno has
 * refused that (a loader variable such as `LD_PRELOAD` is set), with a reduced one that keeps the
 * person's agent (`SSH_AUTH_SOCK`). The ssh layer's counterpart of src/tmux/process.ts.
 */
import { type Output, REDUCED_ENV_NAMES } from "../process.ts";

/** Variables ssh keeps when the environment must be reduced. */
const SSH_ENV_NAMES = [
  ...REDUCED_ENV_NAMES.filter((name) => name !== "TMUX_TMPDIR"),
  "SSH_AUTH_SOCK",
] as const;

/** Starts ssh processes for one server (no module state). */
export class SshSpawner {
  readonly #env: (name: string) => string | undefined;
  readonly #notice: (message: string) => void;
  readonly #program: string;
  #reducedEnv: Record<string, string> | undefined;

  /** `program` is `ssh` but for tests of a missing ssh. */
  constructor(
    env: (name: string) => string | undefined,
    notice: (message: string) => void,
    program = "ssh",
  ) {
    this.#env = env;
    this.#notice = notice;
    this.#program = program;
  }

  /**
   * Run ssh to completion and collect its output, or give up when `signal` fires (then resolve
   * undefined). Giving up cannot wait for EOF: an ssh riding a master hands its stdio to the master
   * (checked: killing the client leaves our pipes open until the remote command ends), so the
   * client is killed and our ends are released by cancelling the readers. A master that ssh
   * backgrounds (`-f`, `ControlPersist`) points its own stdio at /dev/null (checked).
   */
  async collect(
    args: readonly string[],
    stdin: Uint8Array | string | undefined,
    signal: AbortSignal,
  ): Promise<(Output & { code: number }) | undefined> {
    if (signal.aborted) return undefined;
    const child = this.child(args, { stdin: stdin === undefined ? "null" : "piped" });
    const out = child.stdout.getReader();
    const err = child.stderr.getReader();
    const given = Promise.withResolvers<undefined>();
    const giveUp = () => given.resolve(undefined);
    signal.addEventListener("abort", giveUp, { once: true });
    const reads = Promise.all([readAll(out), readAll(err), child.status]);
    const writer = stdin === undefined ? undefined : child.stdin.getWriter();
    if (writer && stdin !== undefined) {
      const bytes = typeof stdin === "string" ? new TextEncoder().encode(stdin) : stdin;
      // A failed write means the remote command exited before reading everything.
      void writer.write(bytes).then(() => writer.close()).catch(() => {});
    }
    let done: [Uint8Array, Uint8Array, Deno.CommandStatus] | undefined;
    try {
      done = await Promise.race([reads, given.promise]);
      if (done === undefined) return undefined;
      const [stdout, stderr, status] = done;
      return { success: status.success, code: status.code, stdout, stderr };
    } finally {
      signal.removeEventListener("abort", giveUp);
      if (done === undefined) {
        try {
          child.kill("SIGKILL");
        } catch {
          // it exited meanwhile
        }
        writer?.abort().catch(() => {});
        await Promise.allSettled([out.cancel(), err.cancel()]);
        await reads.catch(() => {});
      }
    }
  }

  /** Start ssh with `args`; the caller owns the child and must end it. */
  child(
    args: readonly string[],
    options: { stdin: "null" | "piped"; stderr?: "null" | "piped" },
  ): Deno.ChildProcess {
    const make = () =>
      new Deno.Command(this.#program, {
        args: [...args],
        stdin: options.stdin,
        stdout: "piped",
        stderr: options.stderr ?? "piped",
        ...(this.#reducedEnv ? { clearEnv: true, env: this.#reducedEnv } : {}),
      }).spawn();
    try {
      return make();
    } catch (error) {
      if (
        this.#reducedEnv === undefined && error instanceof Deno.errors.NotCapable &&
        /environment variable/.test(error.message)
      ) {
        this.#reducedEnv = {};
        for (const name of SSH_ENV_NAMES) {
          const value = this.#env(name);
          if (value !== undefined) this.#reducedEnv[name] = value;
        }
        this.#notice(
          "a loader variable (LD_*/DYLD_*) is set: ssh is started with a reduced environment " +
            `(${SSH_ENV_NAMES.join(", ")})`,
        );
        return make();
      }
      throw error;
    }
  }
}

/** Everything a reader yields until EOF (or until it is cancelled), as one array. */
async function readAll(reader: ReadableStreamDefaultReader<Uint8Array>): Promise<Uint8Array> {
  const chunks: Uint8Array[] = [];
  let size = 0;
  try {
    while (true) {
      const { done, value } = await reader.read();
      if (done) break;
      chunks.push(value);
      size += value.length;
    }
  } catch {
    // killed: what arrived is all there is
  }
  const all = new Uint8Array(size);
  let at = 0;
  for (const chunk of chunks) {
    all.set(chunk, at);
    at += chunk.length;
  }
  return all;
}
