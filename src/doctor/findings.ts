/**
 * The doctor's rules (`--check`, docs/design.md §4.1): what it found — tmux, the socket and who is
 * attached there, the permissions granted, each `--ssh` host — turned into one line each. A
 * `problem` stops the server from doing its work and makes `--check` exit 1; a `warning` is a risk
 * or a gap it can work with; both say their fix on the same line. Pure: doctor.ts gathers facts.
 */
import type { ToolError } from "../errors.ts";
import {
  isSupported,
  LAST_KNOWN_CRASHING,
  liveRiskNotice,
  MIN_TMUX,
  parseTmuxVersion,
} from "../tmux/core/version.ts";
import type { PermissionFacts } from "./permissions.ts";

/** How bad a finding is. */
export type Level = "ok" | "warning" | "problem";

/** One line of the report. */
export interface Finding {
  level: Level;
  text: string;
  /** What to do about it; every warning and problem has one. */
  fix?: string;
}

/** The configuration the doctor judges against. */
export interface CheckedConfig {
  live: boolean;
  socketSource: "flag" | "env" | "tmux-env" | "default";
  /** `--http`, as `HOST:PORT`. */
  http?: string;
  /** The `--ssh` hosts, by name. */
  ssh: readonly { name: string; destination: string }[];
}

/** What `tmux -V` said locally: the version, or why it could not say. */
export type TmuxFacts = { version: string } | { error: ToolError };

/** The tmux server the configuration pins. */
export type SocketFacts =
  & { described: string }
  & (
    | { running: true; path: string; sessions: number; people: ReadonlyMap<string, number> }
    | { running: false }
    | { error: ToolError }
  );

/** One `--ssh` host: what `tmux -V` said there, or why it could not. */
export type HostFacts = { name: string; destination: string } & TmuxFacts;

/** Everything the doctor looked at. */
export interface Facts {
  config: CheckedConfig;
  tmux: TmuxFacts;
  /** Undefined when tmux itself could not be run (nothing to ask about the socket). */
  socket?: SocketFacts;
  permissions: PermissionFacts;
  /** Undefined when ssh may not run (the permission finding says so). */
  hosts?: readonly HostFacts[];
}

const MINIMUM = `${MIN_TMUX.major}.${MIN_TMUX.minor}`;

/** Every finding, in report order: tmux, socket, permissions, hosts. */
export function findings(facts: Facts): Finding[] {
  return [
    ...tmuxFindings(facts.tmux, facts.config),
    ...(facts.socket ? [socketFinding(facts.socket, facts.config)] : []),
    // Deno resolves --allow-run=tmux on PATH at start: no tmux there reads as no permission too.
    ...permissionFindings(facts.permissions, facts.config, !missingTmux(facts.tmux)),
    ...(facts.hosts ?? []).map(hostFinding),
  ];
}

/** The report's lines (a finding, its fix after a dash) and the exit status: 1 with any problem. */
export function report(all: readonly Finding[]): { lines: string[]; status: 0 | 1 } {
  const problems = all.filter((f) => f.level === "problem").length;
  const warnings = all.filter((f) => f.level === "warning").length;
  const lines = all.map((f) => `${f.level.padEnd(8)} ${f.text}${f.fix ? ` — fix: ${f.fix}` : ""}`);
  const count = (n: number, what: string) => `${n} ${what}${n === 1 ? "" : "s"}`;
  lines.push(
    problems === 0
      ? `no problems${warnings ? ` (${count(warnings, "warning")})` : ""}: the server can start`
      : `${count(problems, "problem")}${warnings ? `, ${count(warnings, "warning")}` : ""}`,
  );
  return { lines, status: problems === 0 ? 0 : 1 };
}

function tmuxFindings(tmux: TmuxFacts, config: CheckedConfig): Finding[] {
  if ("error" in tmux) {
    if (missingTmux(tmux)) {
      return [{
        level: "problem",
        text: "tmux is not on PATH",
        fix: `install tmux ${MINIMUM} or newer (apt-get install tmux, brew install tmux); a GUI ` +
          "client needs its directory in the server's env.PATH",
      }];
    }
    return [{
      level: "problem",
      text: `tmux -V failed: ${tmux.error.message}`,
      fix: "check the tmux on PATH (run `tmux -V` as the user the server runs as)",
    }];
  }
  const { version } = tmux;
  const release = parseTmuxVersion(version);
  if (release && !isSupported(release)) {
    return [{
      level: "problem",
      text: `${version} is older than tmux ${MINIMUM}, the oldest this server supports`,
      fix: `install tmux ${MINIMUM} or newer`,
    }];
  }
  const named = release ? version : `${version} (no release number: taken as ${MINIMUM} or newer)`;
  const crash = `the control-client crash of every release up to at least ${LAST_KNOWN_CRASHING}`;
  const risk = liveRiskNotice(version, config.live, config.socketSource);
  if (risk) {
    return [{ level: "ok", text: `${named} (${MINIMUM} or newer needed)` }, {
      level: "warning",
      text: `${version} has ${crash}: live mode attaches to the tmux server you work in, and one ` +
        "of your own commands landing while it attaches can crash that server",
      fix: "give the agent its own server (--socket-name agent) or turn live mode off (--no-live)",
    }];
  }
  const why = config.live
    ? "which stays in the agent's own server"
    : "which cannot happen: live mode is off";
  return [{ level: "ok", text: `${named} (${MINIMUM} or newer needed); it has ${crash}, ${why}` }];
}

function socketFinding(socket: SocketFacts, config: CheckedConfig): Finding {
  const own = config.socketSource === "flag" || config.socketSource === "env";
  if ("error" in socket) {
    return {
      level: "problem",
      text: `${socket.described} cannot be used: ${socket.error.message}`,
      fix: "check the socket option and that the socket belongs to the user the server runs as",
    };
  }
  if (!socket.running) {
    if (own) {
      return {
        level: "ok",
        text: `${socket.described}: no tmux server yet; the agent's first create_session starts it`,
      };
    }
    return {
      level: "warning",
      text: `${socket.described}: no tmux server is running, so the agent sees no panes`,
      fix: "start tmux, or give the agent a server of its own (--socket-name agent)",
    };
  }
  const people = [...socket.people].filter(([, n]) => n > 0);
  const count = people.reduce((sum, [, n]) => sum + n, 0);
  const sessions = `${socket.sessions} session${socket.sessions === 1 ? "" : "s"}`;
  const attached = count === 0
    ? "no one attached"
    : `${count} ${count === 1 ? "person" : "people"} attached (${
      people.map(([name]) => name).join(", ")
    }): the panes they look at are guarded`;
  return {
    level: "ok",
    text: `${socket.described} (${socket.path}): a server with ${sessions}; ${attached}`,
  };
}

function missingTmux(tmux: TmuxFacts): boolean {
  return "error" in tmux && tmux.error.code === "tmux_not_found";
}

function permissionFindings(
  p: PermissionFacts,
  config: CheckedConfig,
  tmuxFound: boolean,
): Finding[] {
  const found: Finding[] = [];
  const env = `--allow-env=${p.env.wanted.join(",")}`;
  if (!p.run.tmux && tmuxFound) {
    found.push({
      level: "problem",
      text: "the server may not run tmux",
      fix: `grant --allow-run=tmux (deno task start; the npm package and the binary do)`,
    });
  }
  if (config.ssh.length > 0 && !p.run.ssh) {
    found.push({
      level: "problem",
      text: `--ssh needs permission to run ssh; the hosts were not checked`,
      fix: "grant --allow-run=tmux,ssh (deno task start:ssh; the npm package adds it with --ssh; " +
        "a release binary cannot reach remote hosts)",
    });
  }
  if (config.http && !p.net.http) {
    found.push({
      level: "problem",
      text: `--http needs permission to listen on ${config.http}`,
      fix: `grant --allow-net=${config.http} (the npm package adds it with --http)`,
    });
  }
  if (p.env.missing.length > 0) {
    found.push({
      level: "warning",
      text: `the server may not read ${p.env.missing.join(", ")}`,
      fix: `grant ${env}`,
    });
  }
  const broad = [
    ...(p.run.any ? ["any program"] : []),
    ...(p.read ? ["every file (read)"] : []),
    ...(p.write ? ["every file (write)"] : []),
    ...(p.net.any ? ["the whole network"] : []),
    ...(p.env.any ? ["every variable"] : []),
    ...(p.ffi ? ["native libraries (ffi)"] : []),
    ...(p.sys ? ["system information (sys)"] : []),
  ];
  if (broad.length > 0) {
    found.push({
      level: "warning",
      text: `the server was granted more than it needs: ${broad.join(", ")}`,
      fix: `grant only --allow-run=tmux ${env} and what --ssh or --http add (deno task start)`,
    });
  }
  if (found.some((f) => f.level === "problem")) return found;
  const programs = p.run.any ? "any program" : p.run.ssh ? "tmux and ssh" : "tmux";
  const net = p.net.any ? "the whole network" : p.net.http ? `listen on ${config.http} only` : "";
  const nothing = [
    ...(!p.read && !p.write ? ["files"] : []),
    ...(!net ? ["network"] : []),
    ...(!p.run.any ? ["other programs"] : []),
  ];
  const text = [
    `permissions: run ${programs}`,
    p.env.any
      ? "read every variable"
      : `read ${p.env.wanted.length - p.env.missing.length} of the ${p.env.wanted.length} ` +
        "variables it uses",
    ...(net ? [net] : []),
    ...(nothing.length ? [`no ${nothing.join(", no ")}`] : []),
  ].join("; ");
  return [{ level: "ok", text }, ...found];
}

function hostFinding(host: HostFacts): Finding {
  const name = `host ${host.name} (ssh ${host.destination})`;
  if ("error" in host) {
    return { level: "problem", text: `${name}: ${host.error.message}`, fix: host.error.hint };
  }
  const release = parseTmuxVersion(host.version);
  if (release && !isSupported(release)) {
    return {
      level: "problem",
      text: `${name}: ${host.version} is older than tmux ${MINIMUM}`,
      fix: `install tmux ${MINIMUM} or newer on ${host.name}`,
    };
  }
  return { level: "ok", text: `${name}: ${host.version} answers in BatchMode` };
}
