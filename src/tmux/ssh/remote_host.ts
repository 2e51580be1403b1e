/**
 * What a remote host is made of: its ssh master and the tmux starter that rides it, built from one
 * `--ssh` host (docs/design.md §5.15). The host (src/host.ts) gives the starter to its runner.
 */
import type { SshHostSpec } from "./destination.ts";
import { defaultControlPath, SshMaster } from "./master.ts";
import { RemoteProcesses } from "./remote_processes.ts";
import { SshSpawner } from "./spawn.ts";

/** One remote host's ssh side. */
export interface RemoteHost {
  /** How tools and listings call it. */
  readonly name: string;
  /** Its connection, closed (`ssh -O exit`) when the host closes. */
  readonly master: SshMaster;
  /** tmux there, for the host's runner. */
  readonly starter: RemoteProcesses;
}

/** Options of {@link remoteHost}: the ssh settings of the configuration. */
export interface RemoteHostOptions {
  /** `--ssh-config`. */
  sshConfig?: string;
  /** `--ssh-control-dir`; `~/.ssh` when absent. */
  sshControlDir?: string;
  /** The environment ssh is started with (reduced when loader variables are set). */
  env: (name: string) => string | undefined;
  /** Diagnostics (stderr). */
  log: (message: string) => void;
}

/** Build (but do not start) the ssh side of one configured host. */
export function remoteHost(spec: SshHostSpec, options: RemoteHostOptions): RemoteHost {
  const spawner = new SshSpawner(options.env, options.log);
  const controlPath = options.sshControlDir === undefined
    ? defaultControlPath(Deno.pid, spec.name)
    : `${options.sshControlDir.replace(/\/+$/, "")}/tmcp-${Deno.pid}-${spec.name}`;
  const master = new SshMaster(
    { host: spec, configFile: options.sshConfig, controlPath },
    spawner,
  );
  return { name: spec.name, master, starter: new RemoteProcesses(master, spawner) };
}
