/**
 * tmux-mcp CLI: argv and environment → Config → MCP server on stdio.
 * stdout carries only MCP messages; every diagnostic goes to stderr.
 * @module
 */
import { SURFACE, TOOLS } from "./src/catalog.ts";
import { ConfigError, helpText, parseConfig } from "./src/config.ts";
import { ToolError } from "./src/errors.ts";
import { createTmuxMcpServer } from "./src/server.ts";
import { type CloseReason, StdioTransport } from "./src/stdio_transport.ts";
import { describeSocket } from "./src/tmux/command.ts";
import { isSupported, MIN_TMUX, parseTmuxVersion } from "./src/tmux/version.ts";
import { VERSION } from "./src/version.ts";

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
  if (outcome.kind === "help") {
    console.log(helpText(VERSION));
    return 0;
  }
  if (outcome.kind === "version") {
    console.log(VERSION);
    return 0;
  }
  const { config } = outcome;
  if (config.http) {
    say(`--http (Streamable HTTP) is not available in ${VERSION}; omit it to serve over stdio`);
    return 2;
  }

  const built = createTmuxMcpServer({ config, env: readEnv, version: VERSION, log: say });
  const missing = config.tools.filter((name) => !TOOLS.some((t) => t.name === name));
  if (missing.length > 0) {
    say(`not in ${VERSION} yet, so not served: ${missing.join(", ")}`);
  }
  say(
    `${VERSION} · ${describeSocket(config.socket)} · toolsets ${
      config.toolsets.join(",") || "(none)"
    } · ${built.tools.length} tools`,
  );
  for (const set of config.toolsets.filter((set) => !TOOLS.some((t) => t.toolset === set))) {
    say(`toolset ${set} has no tools in ${VERSION} yet, so it adds nothing`);
  }
  if (built.tools.length === 0) say("no tools are enabled: clients will see an empty list");
  try {
    const version = await built.tmuxVersion();
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

  const transport = new StdioTransport({ log: say });
  let stopping = false;
  /** One way out for every reason: say why, detach our tmux clients (bounded), exit. */
  const shutdown = (reason: CloseReason) => {
    if (stopping) return;
    stopping = true;
    say(`shutting down: ${reason.message}`);
    let timer: ReturnType<typeof setTimeout> | undefined;
    const bound = new Promise<void>((resolve) => {
      timer = setTimeout(() => {
        say(`closing took over ${SHUTDOWN_BOUND_MS} ms; exiting without waiting for tmux`);
        resolve();
      }, SHUTDOWN_BOUND_MS);
    });
    void Promise.race([built.close().catch(() => {}), bound]).finally(() => {
      clearTimeout(timer);
      Deno.exit(reason.error ? 1 : 0);
    });
  };
  // The transport closes on end of input, on a read or write failure, or when the server closes
  // it; in every case nobody can talk to us any more, so the process ends.
  built.onclose = () =>
    shutdown(transport.closeReason ?? { error: false, message: "the connection closed" });
  for (const signal of ["SIGTERM", "SIGINT"] as const) {
    try {
      Deno.addSignalListener(signal, () => shutdown({ error: false, message: signal }));
    } catch {
      // not supported on this platform
    }
  }
  await built.connect(transport);
  return undefined;
}

if (import.meta.main) {
  const code = await main();
  if (code !== undefined) Deno.exit(code);
}
