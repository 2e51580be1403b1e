/**
 * One OpenSSH connection per remote host, shared by every ssh we start for it: a master with
 * `ControlMaster`/`ControlPath`, and everything else riding it (src/tmux/ssh/remote_processes.ts).
 *
 * - `BatchMode=yes`: ssh never prompts (our stdio is MCP); a password, a passphrase or an unknown
 *   host key fails at once instead. The person's `StrictHostKeyChecking` is kept: with BatchMode,
 *   its default (`ask`) refuses an unknown key.
 * - `ControlPersist` is short: a master ends that long after its last client, so one cannot outlive
 *   a killed server for long (its control clients end with their stdin). `-O exit` at close.
 * - `ControlPath` defaults to `~/.ssh/tmcp-PID-NAME` ({@link defaultControlPath}). ssh creates the
 *   socket itself, so this process needs no write permission for it: Deno's permissions bind us,
 *   not the ssh we start. `~/.ssh` is the person's own (ssh expands `~` from the password database,
 *   not from `$HOME`), unlike a shared /tmp where another user could plant a path first; ssh binds
 *   the socket with umask 0177 and a master serves only clients of its own uid (it checks the
 *   peer's credentials), and the PID keeps two servers of ours from sharing (and closing) one
 *   master. The path stays short: a Unix socket path has about 104 bytes.
 * - The person's config may forward ports, the agent or X11 to this host, or run a LocalCommand;
 *   none of that is ours to set up, so every ssh of ours turns it off. `EscapeChar=none`: text an
 *   agent sends to a control client's stdin (`~.`) is never read by ssh.
 */
import { ToolError } from "../../errors.ts";
import type { SshHostSpec } from "./destination.ts";
import type { SshSpawner } from "./spawn.ts";

/** How ssh reaches one host. */
export interface SshMasterOptions {
  /** The host as configured (`--ssh`). */
  host: SshHostSpec;
  /** `--ssh-config`: passed as `-F` to every ssh; ssh's own lookup when absent. */
  configFile?: string;
  /** The master's socket (see {@link defaultControlPath}). */
  controlPath: string;
  /** `ConnectTimeout`, in seconds: also bounds the wait for a silent host's SSH banner. */
  connectTimeoutSec?: number;
  /** `ControlPersist`, in seconds. */
  persistSec?: number;
  /** `ServerAliveInterval`, in seconds (3 unanswered probes drop the connection). */
  aliveIntervalSec?: number;
}

/**
 * The defaults of {@link SshMasterOptions}. Keep-alives every 3 s, 3 of them unanswered: a master
 * whose host went silent (a network that drops packets, a stopped sshd) ends by itself about 12 s
 * later, even when no call of ours notices (src/tmux/ssh/health.ts notices sooner).
 */
const SSH_DEFAULTS = { connectTimeoutSec: 10, persistSec: 30, aliveIntervalSec: 3 };

/** What a person runs to check a host as we reach it: `ssh [-F FILE] DESTINATION tmux -V`. */
export function checkCommand(options: Pick<SshMasterOptions, "host" | "configFile">): string {
  const config = options.configFile === undefined ? "" : `-F ${shellWord(options.configFile)} `;
  return `ssh ${config}${shellWord(options.host.destination)} tmux -V`;
}

/** `text` as one word of a POSIX shell line, for a person to paste (quoted only when needed). */
function shellWord(text: string): string {
  return /^[A-Za-z0-9_@%+=:,./~-]+$/.test(text) ? text : `'${text.replaceAll("'", `'\\''`)}'`;
}

/** `~/.ssh/tmcp-PID-NAME`: private to the user, distinct per server process and host. */
export function defaultControlPath(pid: number, name: string): string {
  return `~/.ssh/tmcp-${pid}-${name}`;
}

/** Options every ssh of ours passes, before `--` and the destination. */
export function sshCommonArgs(options: SshMasterOptions): string[] {
  const o = { ...SSH_DEFAULTS, ...options };
  const set = (name: string, value: string | number) => ["-o", `${name}=${value}`];
  return [
    ...(options.configFile !== undefined ? ["-F", options.configFile] : []),
    ...set("BatchMode", "yes"),
    ...set("ControlPath", options.controlPath),
    ...set("ControlPersist", `${o.persistSec}s`),
    ...set("ConnectTimeout", o.connectTimeoutSec),
    ...set("ServerAliveInterval", o.aliveIntervalSec),
    ...set("ServerAliveCountMax", 3),
    ...set("ClearAllForwardings", "yes"),
    ...set("ForwardAgent", "no"),
    ...set("ForwardX11", "no"),
    ...set("PermitLocalCommand", "no"),
    ...set("EscapeChar", "none"),
  ];
}

/** Start the master: authenticate, then go to the background (`-f`) holding the connection. */
export function masterStartArgs(options: SshMasterOptions): string[] {
  return [
    ...sshCommonArgs(options),
    "-o",
    "ControlMaster=yes",
    "-N",
    "-f",
    "--",
    options.host.destination,
  ];
}

/** Ask the master something (`check`, `exit`) over its socket; starts no connection. */
export function masterControlArgs(options: SshMasterOptions, op: "check" | "exit"): string[] {
  return [...sshCommonArgs(options), "-O", op, "--", options.host.destination];
}

/**
 * Run `remote` (a string from src/tmux/ssh/quote.ts) on the host over the master. `auto`: when
 * the master has gone (idle past `ControlPersist`), this ssh becomes the new one. The person's
 * `RemoteCommand` for the host (`tmux new -A` on login is common) would refuse a command of ours,
 * and `-T` overrides their `RequestTTY`.
 */
export function remoteArgs(options: SshMasterOptions, remote: string): string[] {
  return [
    ...sshCommonArgs(options),
    "-o",
    "ControlMaster=auto",
    "-o",
    "RemoteCommand=none",
    "-T",
    "--",
    options.host.destination,
    remote,
  ];
}

/** Why ssh could not reach or use a host. */
type SshFailureKind = "unreachable" | "auth" | "host_key" | "setup" | "dropped";

/**
 * The code of each kind: a connection that dropped mid-call is the server gone (the next call
 * reconnects); the rest say the host, not tmux, is at fault.
 */
const SSH_CODES = {
  unreachable: "host_unreachable",
  auth: "host_denied",
  host_key: "host_denied",
  setup: "host_denied",
  dropped: "server_gone",
} as const;

/**
 * A failure of ssh itself (exit status 255), typed: the code says what the agent may do (retry or
 * not), the hint what the person can check.
 */
export class SshError extends ToolError {
  /** What went wrong, for the host registry (back off on `unreachable`). */
  readonly kind: SshFailureKind;

  /** An ssh failure of `kind`, with the code and hint of {@link sshError}. */
  constructor(
    kind: SshFailureKind,
    message: string,
    options: {
      hint: string;
      effects?: "none" | "possible";
      retryable: boolean;
      host: string;
    },
  ) {
    super(SSH_CODES[kind], message, options);
    this.name = "SshError";
    this.kind = kind;
  }
}

const UNREACHABLE = [
  /Connection refused/,
  /Connection timed out/,
  /timed out during banner exchange/,
  /kex_exchange_identification/,
  /No route to host/,
  /Network is unreachable/,
  /Could not resolve hostname/,
  /Name or service not known/,
  /Connection closed by .* port \d+$/m,
  /Connection reset by/,
];
/**
 * A name that does not resolve: a typo in `--ssh` or the ssh config far more often than a passing
 * fault (a DNS server that is down says "Temporary failure", which is retried as unreachable).
 */
const UNKNOWN_NAME = [
  /Could not resolve hostname (?!.*Temporary failure)/,
  /Name or service not known/,
  /nodename nor servname provided/,
  /No address associated with hostname/,
];
const HOST_KEY = [
  /Host key verification failed/,
  /REMOTE HOST IDENTIFICATION HAS CHANGED/,
  /No .* host key is known/,
];
const AUTH = [/Permission denied \(/, /Too many authentication failures/];
const SETUP = [
  /ControlPath too long/,
  /path too long/i,
  /unix_listener/,
  /[Bb]ad configuration option/,
  /[Cc]an't open user config file/,
  /[Bb]ad owner or permissions/,
  /terminating, \d+ bad configuration options/,
];
const DROPPED = [
  /Broken pipe/,
  /client_loop: send disconnect/,
  /Connection to .* closed by remote host/,
  /Timeout, server .* not responding/,
  /mux_client_request_session: .*failed/,
  /Control socket connect/,
];

/** Which host an ssh failure is about, as {@link checkCommand} names it. */
export type SshTarget = Pick<SshMasterOptions, "host" | "configFile">;

/**
 * Classify ssh's stderr after exit status 255. `contacted`: the master was up (or the command may
 * have started), so a connection that failed is one that dropped (`server_gone`, effects as given).
 * Each hint names the command a person runs to check the host (with `-F` when `--ssh-config` is
 * set).
 */
export function classifySshFailure(
  target: SshTarget,
  stderr: string,
  contacted: boolean,
  effects: "none" | "possible" = "none",
): SshError {
  const name = target.host.name;
  const lines = stderr.split(/\r?\n/).map((l) => l.trim()).filter((l) => l !== "");
  const said = (lines.at(-1) ?? "ssh exited with status 255 and printed nothing").slice(0, 200);
  const check = `check with \`${checkCommand(target)}\` as the user this server runs as`;
  const match = (patterns: RegExp[]) => patterns.some((p) => p.test(stderr));
  if (match(HOST_KEY)) {
    return new SshError("host_key", "its host key is not known or has changed", {
      host: name,
      hint: `A person must verify and accept the host key of ${name} once (${check}); ` +
        "this server never prompts.",
      retryable: false,
    });
  }
  if (match(AUTH)) {
    return new SshError("auth", `ssh could not log in (${said})`, {
      host: name,
      hint: `ssh must log in without a prompt (a key, an agent); ${check}.`,
      retryable: false,
    });
  }
  if (match(SETUP)) {
    return new SshError("setup", `ssh could not start (${said})`, {
      host: name,
      hint:
        `Check the ssh configuration for ${name} (--ssh-config, --ssh-control-dir, ~/.ssh); ${check}.`,
      retryable: false,
    });
  }
  if (contacted && (match(DROPPED) || !match(UNREACHABLE))) {
    return new SshError("dropped", `the ssh connection dropped (${said})`, {
      host: name,
      hint: "Retry: the next call reconnects; list again before acting on ids.",
      effects,
      retryable: true,
    });
  }
  if (match(UNKNOWN_NAME)) {
    return new SshError("unreachable", `cannot be reached over ssh (${said})`, {
      host: name,
      hint: `ssh cannot resolve the host name of ${name}: check the name in --ssh and in the ssh ` +
        `configuration (a typo?); ${check}.`,
      retryable: false,
    });
  }
  return new SshError("unreachable", `cannot be reached over ssh (${said})`, {
    host: name,
    hint: `Try again later; ${check}.`,
    retryable: true,
  });
}

/** The master connection of one host: opened on first use, checked, closed at shutdown. */
export class SshMaster {
  readonly options: SshMasterOptions;
  readonly #spawner: SshSpawner;
  #opening: Promise<void> | undefined;
  #up = false;

  /** A master for `options.host`; nothing is started until {@link open}. */
  constructor(options: SshMasterOptions, spawner: SshSpawner) {
    this.options = options;
    this.#spawner = spawner;
  }

  /** The host's name (`box1`). */
  get name(): string {
    return this.options.host.name;
  }

  /** Whether the master was up when last opened or checked. */
  get up(): boolean {
    return this.#up;
  }

  /**
   * Make sure the master runs: check it, start it when it does not. Concurrent calls share one
   * attempt. Fails with an {@link SshError} (the connect timeout bounds an unreachable host).
   * Once up, no check is spent per call: a command finding the master gone becomes the new one
   * (`ControlMaster=auto`), and a failed one calls {@link markDown}.
   */
  open(signal?: AbortSignal): Promise<void> {
    if (this.#up) return Promise.resolve();
    this.#opening ??= this.#open(signal).finally(() => this.#opening = undefined);
    return this.#opening;
  }

  async #open(signal?: AbortSignal): Promise<void> {
    if (await this.pid(signal) !== undefined) {
      this.#up = true;
      return;
    }
    const out = await this.#run(masterStartArgs(this.options), signal);
    if (!out.success) throw classifySshFailure(this.options, out.stderr, false);
    this.#up = true;
  }

  /** The master's pid when it answers `-O check`, else undefined. */
  async pid(signal?: AbortSignal): Promise<number | undefined> {
    const out = await this.#run(masterControlArgs(this.options, "check"), signal);
    const m = /Master running \(pid=(\d+)\)/.exec(out.stderr);
    this.#up = out.success && m !== null;
    return this.#up && m ? Number(m[1]) : undefined;
  }

  /** A command through the master failed at the ssh level: check again before the next one. */
  markDown(): void {
    this.#up = false;
  }

  /** Ask the master to exit (`-O exit`): its clients end with it. Quiet when none runs. */
  async close(): Promise<void> {
    this.#up = false;
    await this.#run(masterControlArgs(this.options, "exit")).catch(() => {});
  }

  async #run(
    args: string[],
    signal?: AbortSignal,
  ): Promise<{ success: boolean; stderr: string }> {
    // Bounded by ssh's own ConnectTimeout; the margin covers authentication on a slow host.
    const seconds = (this.options.connectTimeoutSec ?? SSH_DEFAULTS.connectTimeoutSec) * 3;
    const deadline = AbortSignal.timeout(seconds * 1000);
    let out;
    try {
      out = await this.#spawner.collect(
        args,
        undefined,
        signal ? AbortSignal.any([signal, deadline]) : deadline,
      );
    } catch (error) {
      if (error instanceof Deno.errors.NotFound) {
        throw new ToolError("unsupported", "ssh is not installed or not on PATH", {
          hint: "Install the OpenSSH client; remote hosts are reached with ssh.",
        });
      }
      throw error;
    }
    if (out === undefined) {
      if (signal?.aborted) throw new ToolError("cancelled", "the call was cancelled");
      throw new SshError(
        "unreachable",
        `ssh did not finish within ${seconds} s`,
        {
          host: this.name,
          hint: `Try again later; check with \`${checkCommand(this.options)}\`.`,
          retryable: true,
        },
      );
    }
    return { success: out.success, stderr: new TextDecoder().decode(out.stderr) };
  }
}
