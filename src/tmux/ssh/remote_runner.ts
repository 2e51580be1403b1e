/**
 * tmux on a remote host, through its ssh master (src/tmux/ssh/master.ts): the remote counterpart
 * of {@link TmuxProcesses}, with the same two methods over the same tmux argv (what follows
 * `tmux`: `-u`, the socket, the commands, from src/tmux/argv.ts). So the runner, the control
 * clients and the route work unchanged once a host hands them this instead of local processes.
 *
 * Each call is one `ssh … -- DESTINATION 'exec sh -c …'` riding the master (src/tmux/ssh/quote.ts
 * says why that string is parsed the same by every login shell). The remote user's shell runs its
 * start-up files first, which may print to stderr: with a zero exit status that is noise and is
 * dropped; with tmux's failure, tmux's own message is the last line, which the classification
 * reads. Exit status 255 is ssh's own failure (tmux never exits 255), typed by
 * `classifySshFailure`.
 */
import { ToolError } from "../../errors.ts";
import type { Output, TmuxProcesses } from "../process.ts";
import { isSupported, MIN_TMUX, parseTmuxVersion } from "../version.ts";
import { classifySshFailure, remoteArgs, type SshMaster } from "./master.ts";
import { remoteCommand } from "./quote.ts";
import type { SshSpawner } from "./spawn.ts";

/** ssh's own exit status for its failures; tmux exits 0 or 1. */
const SSH_FAILED = 255;
/** The shell's "command not found". */
const NOT_FOUND = 127;

/** Starts tmux on one remote host: the same shape as {@link TmuxProcesses}. */
export class RemoteProcesses implements Pick<TmuxProcesses, "collect" | "child"> {
  readonly #master: SshMaster;
  readonly #spawner: SshSpawner;

  /** tmux on `master`'s host, over ssh processes from `spawner`. */
  constructor(master: SshMaster, spawner: SshSpawner) {
    this.#master = master;
    this.#spawner = spawner;
  }

  /** The ssh argv that runs `tmux ARGS` on the host. */
  sshArgs(args: readonly string[]): string[] {
    return remoteArgs(this.#master.options, remoteCommand(["tmux", ...args]));
  }

  /**
   * Run `tmux ARGS` remotely (the master opened first) and collect its output; undefined when
   * `signal` fired. An ssh failure throws an `SshError`: `server_gone` with possible effects once
   * the master was up (the command may have run), else the connect failure.
   */
  async collect(
    args: string[],
    stdin: Uint8Array | string | undefined,
    signal: AbortSignal,
  ): Promise<Output | undefined> {
    await this.#master.open(signal);
    const out = await this.#spawner.collect(this.sshArgs(args), stdin, signal);
    if (out === undefined) return undefined;
    if (out.code === SSH_FAILED) {
      this.#master.markDown();
      const stderr = new TextDecoder().decode(out.stderr);
      throw classifySshFailure(this.#master.name, stderr, true, "possible");
    }
    if (out.code === NOT_FOUND) throw tmuxMissing(this.#master.name);
    // Login-shell noise with a zero status is not tmux's: drop it.
    return {
      success: out.success,
      stdout: out.stdout,
      stderr: out.success ? new Uint8Array() : out.stderr,
    };
  }

  /**
   * Start `tmux ARGS` remotely as a long-lived child (a control client); the caller owns it and
   * must end it. Open the master first: when it is down this ssh connects (and becomes it) itself.
   */
  child(
    args: string[],
    options: { stdin: "null" | "piped"; stderr: "null" | "piped" },
  ): Deno.ChildProcess {
    return this.#spawner.child(this.sshArgs(args), options);
  }
}

/**
 * First contact with a host: open its master and check its tmux (`tmux -V`, at least
 * {@link MIN_TMUX}). Returns the version string.
 */
export async function checkRemoteTmux(
  processes: RemoteProcesses,
  name: string,
  signal: AbortSignal = AbortSignal.timeout(60_000),
): Promise<string> {
  const out = await processes.collect(["-V"], undefined, signal);
  if (out === undefined) throw new ToolError("timeout", `host ${name}: tmux -V did not answer`);
  const text = new TextDecoder().decode(out.stdout).trim();
  const release = parseTmuxVersion(text);
  if (!out.success || text === "") throw tmuxMissing(name);
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

function tmuxMissing(name: string): ToolError {
  return new ToolError("tmux_not_found", `host ${name}: tmux is not on the remote PATH`, {
    hint: `Install tmux on ${name}, on the PATH of non-interactive ssh commands ` +
      `(check with \`ssh ${name} tmux -V\`).`,
  });
}
