/**
 * `--check`: what a server with this configuration would find, one line each, then exit 0, or 1
 * when something stops it from working (docs/design.md §4.1). It asks tmux for its version and the
 * pinned server for its sessions and clients, reads the permissions granted, and asks each `--ssh`
 * host for `tmux -V` over ssh in BatchMode — all through the funnel, with live mode off, so no
 * control client of ours ever attaches (the crash of §7.4 cannot happen here).
 */
import type { Config } from "../config.ts";
import { ToolError } from "../errors.ts";
import { TmuxHost } from "../host.ts";
import type { EnvReader } from "../tmux/core/runner.ts";
import { describeSocket } from "../tmux/core/argv.ts";
import { snapshot } from "../tmux/read/queries.ts";
import { type Facts, findings, type HostFacts, report, type SocketFacts } from "./findings.ts";
import { type PermissionQuery, readPermissions } from "./permissions.ts";

/** Options of {@link runCheck}. */
export interface CheckOptions {
  config: Config;
  env: EnvReader;
  /** This build's version, for the first line. */
  version: string;
  /** Where the report goes, a line at a time (stdout). */
  print: (line: string) => void;
  /** Diagnostics of the funnel (stderr). */
  log: (line: string) => void;
  /** Deno.permissions.querySync by default. */
  query?: PermissionQuery;
}

/** Check the setup, print the report, and answer the exit status. */
export async function runCheck(options: CheckOptions): Promise<0 | 1> {
  const { config } = options;
  options.print(`tmux-mcp ${options.version} --check: what a server with these options finds`);
  const host = new TmuxHost({
    config: { ...config, live: false },
    env: options.env,
    log: options.log,
  });
  try {
    const facts = await gather(
      host,
      config,
      options.query ?? ((d) => Deno.permissions.querySync(d).state),
    );
    const { lines, status } = report(findings(facts));
    for (const line of lines) options.print(line);
    return status;
  } finally {
    await host.close();
  }
}

async function gather(host: TmuxHost, config: Config, query: PermissionQuery): Promise<Facts> {
  const permissions = readPermissions(query, { ssh: config.ssh.length > 0, http: config.http });
  const [tmux, hosts] = await Promise.all([
    versionOf(host),
    permissions.run.ssh || config.ssh.length === 0
      ? Promise.all([...host.remotes.values()].map((remote) => hostFacts(remote, config)))
      : undefined,
  ]);
  return {
    config: {
      live: config.live,
      socketSource: config.socketSource,
      ...(config.http ? { http: `${config.http.host}:${config.http.port}` } : {}),
      ssh: config.ssh,
    },
    tmux,
    ...("version" in tmux ? { socket: await socketFacts(host, config) } : {}),
    permissions,
    ...(hosts ? { hosts } : {}),
  };
}

async function versionOf(host: TmuxHost): Promise<{ version: string } | { error: ToolError }> {
  try {
    return { version: await host.tmuxVersion() };
  } catch (error) {
    return { error: asToolError(error) };
  }
}

async function hostFacts(remote: TmuxHost, config: Config): Promise<HostFacts> {
  const spec = config.ssh.find((s) => s.name === remote.name)!;
  return { name: spec.name, destination: spec.destination, ...await versionOf(remote) };
}

/** The pinned server: its socket's path, its sessions, and the people attached to each. */
async function socketFacts(host: TmuxHost, config: Config): Promise<SocketFacts> {
  const described = config.socketSource === "tmux-env"
    ? "the tmux server you are in ($TMUX)"
    : describeSocket(config.socket);
  try {
    const snap = await snapshot(host.tmux, { server: true, sessions: true });
    const names = new Map(snap.sessions.map((s) => [s.sessionId, s.sessionName]));
    const people = new Map(
      [...snap.watched].map(([id, count]) => [names.get(id) ?? id, count] as const),
    );
    return {
      described,
      running: true,
      path: snap.server?.socketPath ?? "?",
      sessions: snap.sessions.length,
      people,
    };
  } catch (error) {
    const failure = asToolError(error);
    if (failure.code === "server_not_running") return { described, running: false };
    return { described, error: failure };
  }
}

function asToolError(error: unknown): ToolError {
  if (error instanceof ToolError) return error;
  return new ToolError("internal_error", (error as Error)?.message ?? String(error));
}
