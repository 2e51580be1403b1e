/**
 * Starting `ssh`: argv only, never a shell, with this process's environment, or, once Deno has
 * refused that (a loader variable such as `LD_PRELOAD` is set), with a reduced one that keeps the
 * person's agent (`SSH_AUTH_SOCK`). The ssh layer's counterpart of src/tmux/core/process.ts.
 */
import { collectChild, type Output, ProgramSpawner, REDUCED_ENV_NAMES } from "../core/process.ts";

/** Variables ssh keeps when the environment must be reduced. */
const SSH_ENV_NAMES = [
  ...REDUCED_ENV_NAMES.filter((name) => name !== "TMUX_TMPDIR"),
  "SSH_AUTH_SOCK",
] as const;

/** Starts ssh processes for one server (no module state). */
export class SshSpawner {
  readonly #spawner: ProgramSpawner;

  /** `program` is `ssh` but for tests of a missing ssh. */
  constructor(
    env: (name: string) => string | undefined,
    notice: (message: string) => void,
    program = "ssh",
  ) {
    this.#spawner = new ProgramSpawner(program, SSH_ENV_NAMES, env, (names) =>
      notice(
        "a loader variable (LD_*/DYLD_*) is set: ssh is started with a reduced environment " +
          `(${names})`,
      ));
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
    return await collectChild(child, stdin, signal);
  }

  /** Start ssh with `args`; the caller owns the child and must end it. */
  child(
    args: readonly string[],
    options: { stdin: "null" | "piped"; stderr?: "null" | "piped" },
  ): Deno.ChildProcess {
    return this.#spawner.spawn(args, { stdin: options.stdin, stderr: options.stderr ?? "piped" });
  }
}
