/**
 * tmux-mcp CLI: argv and environment → Config → MCP server on stdio, or on Streamable HTTP with
 * `--http` (docs/design.md §2.4). stdout carries only MCP messages; every diagnostic goes to stderr.
 * @module
 */
import { effectiveTools, SURFACE } from "./src/catalog.ts";
import { type Config, ConfigError, helpText, parseConfig } from "./src/config.ts";
import { ToolError } from "./src/errors.ts";
import { TmuxHost } from "./src/host.ts";
import { generateToken } from "./src/http/access.ts";
import { type HttpServer, serveHttp } from "./src/http/server.ts";
import { runCheck } from "./src/doctor/doctor.ts";
import { createTmuxMcpServer } from "./src/server.ts";
import { type CloseReason, StdioTransport } from "./src/stdio_transport.ts";
import { describeSocket } from "./src/tmux/core/argv.ts";
import {
  isSupported,
  liveRiskNotice,
  MIN_TMUX,
  parseTmuxVersion,
} from "./src/tmux/core/version.ts";
import { VERSION } from "./src/base/version.ts";

// The bundle (`deno task bundle`) is plain JavaScript: under Node it would load and exit 0 without
// serving anything. Say what it needs instead, and fail.
const runtime = globalThis as { Deno?: unknown; process?: { exit(code: number): never } };
if (runtime.Deno === undefined) {
  console.error("tmux-mcp: this program needs Deno (https://deno.com): run it with `deno run`");
  runtime.process?.exit(1);
  throw new Error("tmux-mcp needs Deno");
}

/** Read a variable; unset or not in the `--allow-env` list both read as undefined. */
function readEnv(name: string): string | undefined {
  try {
    return Deno.env.get(name);
  } catch {
    return undefined;
  }
}

/**
 * Remove the HTTP token from our own environment once the configuration holds it (or, over stdio,
 * ignored it), so no process we start — tmux clients, a tmux server one of them starts, ssh —
 * inherits the credential (docs/design.md §5.12).
 */
function forgetToken(): void {
  try {
    Deno.env.delete("TMUX_MCP_HTTP_TOKEN");
  } catch {
    // Not in our --allow-env list: then we could not read it either.
  }
}

/**
 * How long shutdown waits for our tmux clients to detach before exiting anyway. Closing is bounded
 * on its own (ControlClient kills a client that lingers); this bounds whatever else may hang.
 */
const SHUTDOWN_BOUND_MS = 2_000;

function say(line: string): void {
  console.error(`tmux-mcp: ${line}`);
}

async function main(): Promise<number | undefined> {
  let outcome;
  try {
    outcome = parseConfig(Deno.args, readEnv, SURFACE);
  } catch (error) {
    if (error instanceof ConfigError) {
      say(error.message);
      return 2;
    }
    throw error;
  }
  forgetToken();
  if (outcome.kind === "help") {
    console.log(helpText(VERSION));
    return 0;
  }
  if (outcome.kind === "version") {
    console.log(VERSION);
    return 0;
  }
  const { config } = outcome;
  if (outcome.kind === "check") {
    return await runCheck({ config, env: readEnv, version: VERSION, print: console.log, log: say });
  }
  const denied = sshDenied(config) ?? recordDenied(config);
  if (denied) {
    say(denied);
    return 2;
  }
  if (config.http) return await serveOverHttp(config, config.http);

  const built = createTmuxMcpServer({ config, env: readEnv, version: VERSION, log: say });
  if (await tmuxDenied(() => built.tmuxVersion(), config)) return 2;
  announce(config, built.tools.length);
  const refused = await checkTmux(() => built.tmuxVersion(), config);
  if (refused !== undefined) return refused;

  const transport = new StdioTransport({ log: say });
  let stopping = false;
  /** One way out for every reason: say why, detach our tmux clients (bounded), exit. */
  const shutdown = (reason: CloseReason) => {
    if (stopping) return;
    stopping = true;
    say(`shutting down: ${reason.message}`);
    exitAfter(built.close().catch(() => {}), reason.error ? 1 : 0);
  };
  // The transport closes on end of input, on a read or write failure, or when the server closes
  // it; in every case nobody can talk to us any more, so the process ends.
  built.onclose = () =>
    shutdown(transport.closeReason ?? { error: false, message: "the connection closed" });
  onSignals((signal) => shutdown({ error: false, message: signal }));
  await built.connect(transport);
  return undefined;
}

/**
 * Remote hosts widen what this process may run, so the person grants it (docs/design.md §5.15):
 * with `--ssh` but no permission to run `ssh`, one line saying how, before anything starts.
 */
function sshDenied(config: Config): string | undefined {
  if (config.ssh.length === 0) return undefined;
  const { state } = Deno.permissions.querySync({ name: "run", command: "ssh" });
  if (state === "granted") return undefined;
  return "--ssh needs permission to run ssh: start with --allow-run=tmux,ssh " +
    "(deno task start:ssh); a compiled binary cannot reach remote hosts";
}

/**
 * Without permission to run tmux every call would fail with Deno's refusal dressed as a tmux
 * error: say how to start instead (one line) and answer true. Deno reads a tmux missing from PATH
 * as not granted too, so when the permission is not plainly granted, `tmux -V` tells the two
 * apart: refused (NotCapable) is the permission, a missing tmux is left to {@link checkTmux}.
 */
async function tmuxDenied(tmuxVersion: () => Promise<string>, config: Config): Promise<boolean> {
  if (Deno.permissions.querySync({ name: "run", command: "tmux" }).state === "granted") {
    return false;
  }
  try {
    await tmuxVersion();
    return false;
  } catch (error) {
    const refused = error instanceof Deno.errors.NotCapable ||
      error instanceof Deno.errors.PermissionDenied;
    if (!refused) return false;
  }
  say(
    `this server needs permission to run tmux: start with --allow-run=${
      config.ssh.length > 0 ? "tmux,ssh (deno task start:ssh)" : "tmux (deno task start)"
    }`,
  );
  return true;
}

/**
 * Recording writes only where the person allows (docs/design.md §11.3): with `--record DIR` but no
 * permission to read and write DIR (Deno needs read for stat and readDir), one line
 * saying how, before anything starts.
 */
function recordDenied(config: Config): string | undefined {
  if (!config.record) return undefined;
  const path = config.record.dir;
  const granted = (["read", "write"] as const).every((name) =>
    Deno.permissions.querySync({ name, path }).state === "granted"
  );
  if (granted) return undefined;
  return `--record needs permission to read and write ${path}: start with ` +
    `--allow-read=${path} --allow-write=${path} (deno task start:record, with TMUX_MCP_RECORD ` +
    "set to the directory); a compiled binary cannot record";
}

/** The startup lines: version, socket, toolsets and tool count, and a warning when it is none. */
function announce(config: Config, toolCount: number): void {
  say(
    `${VERSION} · ${describeSocket(config.socket)} · toolsets ${
      config.toolsets.join(",") || "(none)"
    } · ${toolCount} tools${
      config.ssh.length ? ` · hosts ${config.ssh.map((h) => h.name).join(", ")} over ssh` : ""
    }`,
  );
  if (toolCount === 0) say("no tools are enabled: clients will see an empty list");
}

/** Check tmux's version: an exit status when it is too old, undefined to go on serving. */
async function checkTmux(
  tmuxVersion: () => Promise<string>,
  config: Config,
): Promise<number | undefined> {
  try {
    const version = await tmuxVersion();
    const risk = liveRiskNotice(version, config.live, config.socketSource);
    if (risk) say(risk);
    const release = parseTmuxVersion(version);
    if (release && !isSupported(release)) {
      say(
        `${version} is older than tmux ${MIN_TMUX.major}.${MIN_TMUX.minor}, the oldest this ` +
          "server supports (its guards rely on pane-level synchronize-panes and client flags " +
          `added in ${MIN_TMUX.major}.${MIN_TMUX.minor}); install a newer tmux`,
      );
      return 2;
    }
  } catch (error) {
    if (error instanceof ToolError && error.code === "tmux_not_found") {
      say(
        "tmux was not found on PATH; install it (e.g. `apt-get install tmux`, `brew install tmux`). " +
          "Until then every tool answers tmux_not_found.",
      );
    } else {
      say(`tmux -V failed: ${(error as Error).message}`);
    }
  }
  return undefined;
}

/**
 * Serve Streamable HTTP: one host, one MCP session per client (docs/design.md §2.4). Runs until
 * SIGTERM or SIGINT, which stop accepting, end every session and its waits, detach our tmux
 * clients and exit 0, within {@link SHUTDOWN_BOUND_MS}.
 */
async function serveOverHttp(
  config: Config,
  http: NonNullable<Config["http"]>,
): Promise<number | undefined> {
  const host = new TmuxHost({ config, env: readEnv, log: say });
  if (await tmuxDenied(() => host.tmuxVersion(), config)) return 2;
  announce(config, effectiveTools(config).length);
  const refused = await checkTmux(() => host.tmuxVersion(), config);
  if (refused !== undefined) return refused;
  const token = config.httpToken ?? generateToken();
  let server: HttpServer;
  try {
    server = await serveHttp({ host, config, version: VERSION, token, log: say });
  } catch (error) {
    const where = `${http.host}:${http.port}`;
    if (error instanceof Deno.errors.NotCapable || error instanceof Deno.errors.PermissionDenied) {
      say(
        `--http needs network permission for ${where} only: run with --allow-net=${where} ` +
          "(deno task start:http serves 127.0.0.1:8765)",
      );
    } else if (error instanceof Deno.errors.AddrInUse) {
      say(`${where} is already in use; choose another port`);
    } else {
      say(`cannot listen on ${where}: ${(error as Error).message}`);
    }
    await host.close();
    return 2;
  }
  say(`serving Streamable HTTP at ${server.url}`);
  if (config.httpToken === undefined) {
    // The one place a token is ever written: the generated one, once, for the person starting us.
    say(
      `no --http-token given; this run's token (clients send "Authorization: Bearer <token>"): ` +
        token,
    );
  }
  let stopping = false;
  const shutdown = (reason: string) => {
    if (stopping) return;
    stopping = true;
    say(`shutting down: ${reason}`);
    // Sessions and host close together: the sessions' waits end, the control clients detach.
    exitAfter(Promise.all([server.close().catch(() => {}), host.close().catch(() => {})]), 0);
  };
  onSignals(shutdown);
  return undefined;
}

/** Exit with `code` once `closing` settles, or after {@link SHUTDOWN_BOUND_MS} if it hangs. */
function exitAfter(closing: Promise<unknown>, code: number): void {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const bound = new Promise<void>((resolve) => {
    timer = setTimeout(() => {
      say(`closing took over ${SHUTDOWN_BOUND_MS} ms; exiting without waiting for tmux`);
      resolve();
    }, SHUTDOWN_BOUND_MS);
  });
  void Promise.race([closing, bound]).finally(() => {
    clearTimeout(timer);
    Deno.exit(code);
  });
}

/** Call `stop` on SIGTERM and SIGINT, where the platform has them. */
function onSignals(stop: (signal: "SIGTERM" | "SIGINT") => void): void {
  for (const signal of ["SIGTERM", "SIGINT"] as const) {
    try {
      Deno.addSignalListener(signal, () => stop(signal));
    } catch {
      // not supported on this platform
    }
  }
}

if (import.meta.main) {
  const code = await main();
  if (code !== undefined) Deno.exit(code);
}
