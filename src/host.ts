/**
 * The tmux host: everything that belongs to one tmux server rather than to one MCP connection —
 * the runner, who called us, the registry of our own control clients, the per-pane input queue
 * and the live engine. One per process (per tmux server), shared by every MCP session, so two
 * sessions never interleave keystrokes in one pane, never take each other's control client for a
 * person, and read the same streams (docs/design.md §2.3).
 */
import type { Config } from "./config.ts";
import { ShotGate } from "./render/gate.ts";
import { ChannelWaiters } from "./tmux/manage/channels.ts";
import { type EnvReader, TmuxRunner } from "./tmux/core/runner.ts";
import type { TmuxContext } from "./tmux/core/context.ts";
import { LiveEngine } from "./tmux/live/engine.ts";
import { LIVE_DEFAULTS, type LiveOptions } from "./tmux/live/options.ts";
import { PaneQueue } from "./tmux/core/pane_queue.ts";
import { tmuxVersion } from "./tmux/read/queries.ts";
import { ControlRoute } from "./tmux/control/route.ts";
import { callerIdentity } from "./tmux/core/caller.ts";
import { RemoteHealth } from "./tmux/ssh/health.ts";
import { type RemoteHost, remoteHost } from "./tmux/ssh/remote_host.ts";
import { RecordPlace } from "./record/files.ts";

/** Options of {@link TmuxHost}. */
export interface TmuxHostOptions {
  /**
   * The socket, live mode and remote hosts come from here; the rest of the configuration is per
   * session.
   */
  config:
    & Pick<Config, "socket" | "live">
    & Partial<Pick<Config, "ssh" | "sshConfig" | "sshControlDir" | "record">>;
  /** Environment reader (Deno.env.get behind permission checks, or a test's own map). */
  env: EnvReader;
  /** Diagnostics sink (stderr in main.ts); never stdout. */
  log?: (message: string) => void;
  /** Live-engine timings and caps (tests shorten them); docs/design.md §7.4's by default. */
  liveOptions?: Partial<LiveOptions>;
}

/** The name of the host tmux-mcp runs on, in listings and `host` arguments. */
export const LOCAL_HOST = "local";

/**
 * The process-wide part of the server: one per tmux server. The local host also holds one host per
 * `--ssh` machine (docs/design.md §5.15), each with its own runner, engine and guard.
 */
export class TmuxHost {
  /** {@link LOCAL_HOST}, or the remote host's name (`box1`). */
  readonly name: string;
  /** The remote hosts, by name (only the local host has any). */
  readonly remotes: ReadonlyMap<string, TmuxHost>;
  readonly #remote: RemoteHost | undefined;
  /**
   * What funnel functions take (for sessions on this host, not for embedders).
   * @internal
   */
  readonly tmux: TmuxContext;
  /**
   * The control-mode engine; undefined with `--no-live` (for sessions on this host).
   * @internal
   */
  readonly live?: LiveEngine;
  /**
   * Our `tmux wait-for` waiters, one per channel (64 channels at most), reused across waits and
   * signalled at close (docs/design.md §7.8; for sessions on this host).
   * @internal
   */
  readonly channels: ChannelWaiters;
  /**
   * Ordinary commands over one control connection (docs/design.md §5.14); undefined with
   * `--no-live` (for tests and the bench).
   * @internal
   */
  readonly route?: ControlRoute;
  /**
   * Screenshots drawn at once, for every session on this host (docs/design.md §9.5).
   * @internal
   */
  readonly shots: ShotGate = new ShotGate();
  /**
   * A remote host's health: first contact, silence, back-off (src/tmux/ssh/health.ts); undefined
   * for the local host.
   * @internal
   */
  readonly health?: RemoteHealth;
  /**
   * Where sessions on this host record, with `--record` (docs/design.md §11); only the local host
   * has one, and remote panes are recorded into it.
   * @internal
   */
  readonly record?: RecordPlace;
  #closed = false;

  /** Build the host; nothing is started until a session calls a tool. */
  constructor(options: TmuxHostOptions, remote?: RemoteHost) {
    const log = options.log ?? (() => {});
    this.name = remote?.name ?? LOCAL_HOST;
    this.#remote = remote;
    const ownClientPids = new Set<number>();
    // Which path each tmux call took, on stderr only (docs/design.md §5.14).
    const debug = options.env("TMUX_MCP_DEBUG") === "1" ? log : undefined;
    const runner = new TmuxRunner({
      socket: options.config.socket,
      env: options.env,
      onNotice: log,
      onDebug: debug,
      starter: remote?.starter,
    });
    this.tmux = {
      runner,
      // The caller's own pane is local: a remote server never holds it.
      caller: remote ? undefined : callerIdentity(options.env("TMUX"), options.env("TMUX_PANE")),
      ownClientPids,
      inputQueue: new PaneQueue(),
    };
    const liveOptions = { ...LIVE_DEFAULTS, ...options.liveOptions };
    this.live = options.config.live
      ? new LiveEngine(this.tmux, ownClientPids, liveOptions, log)
      : undefined;
    this.route = options.config.live
      ? new ControlRoute(runner, ownClientPids, liveOptions, log)
      : undefined;
    runner.useControlPath(this.route);
    this.channels = new ChannelWaiters(this.tmux.runner);
    // The probe is `tmux -V` over the host's connection: it needs ssh and sshd, not a tmux server.
    this.health = remote
      ? new RemoteHealth(remote, (signal) => runner.version(signal), log)
      : undefined;
    const { ssh = [], sshConfig, sshControlDir, record } = options.config;
    if (record && !remote) this.record = new RecordPlace(record.dir, record, log);
    this.remotes = new Map(
      remote ? [] : ssh.map((spec) => {
        const made = remoteHost(spec, { sshConfig, sshControlDir, env: options.env, log });
        const config = { socket: spec.socket, live: options.config.live };
        return [spec.name, new TmuxHost({ ...options, config }, made)];
      }),
    );
  }

  /** Whether {@link close} was called. */
  get closed(): boolean {
    return this.#closed;
  }

  /** tmux's version string (`tmux 3.3a`); needs no running tmux server. */
  tmuxVersion(): Promise<string> {
    return tmuxVersion(this.tmux);
  }

  /**
   * Detach every control connection: waits in progress end with `server_gone`, and no tmux
   * process of ours is left. Sessions on this host should be closed first (or right after).
   */
  async close(): Promise<void> {
    this.#closed = true;
    this.tmux.runner.useControlPath(undefined);
    await Promise.all([
      this.live?.close(),
      this.channels.close(),
      this.route?.close(),
      ...[...this.remotes.values()].map((host) => host.close()),
    ]);
    // The master goes last: every client of ours rode it (nothing of ours outlives it).
    await this.#remote?.master.close();
  }
}
