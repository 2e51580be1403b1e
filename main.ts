/**
 * tmux-mcp CLI: argv and environment → Config → MCP server on stdio.
 * stdout carries only MCP messages; every diagnostic goes to stderr.
 * @module
 */
import process from "node:process";
import { SURFACE, TOOLS } from "./src/catalog.ts";
import { ConfigError, helpText, parseConfig } from "./src/config.ts";
import { ToolError } from "./src/errors.ts";
import { StdioServerTransport } from "./src/sdk.ts";
import { createTmuxMcpServer } from "./src/server.ts";
import { describeSocket } from "./src/tmux/command.ts";
import { tmuxVersion } from "./src/tmux/queries.ts";
import { VERSION } from "./src/version.ts";

/** Read a variable; unset or not in the `--allow-env` list both read as undefined. */
function readEnv(name: string): string | undefined {
  try {
    return Deno.env.get(name);
  } catch {
    return undefined;
  }
}

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
  try {
    await tmuxVersion(built.tmux);
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

  const transport = new StdioServerTransport();
  // The stdio transport does not end on EOF by itself; a client closing our stdin means goodbye.
  const shutdown = () => void built.close().finally(() => Deno.exit(0));
  process.stdin.on("end", shutdown);
  // Detach our control clients on the way out, so no tmux process of ours outlives us.
  for (const signal of ["SIGTERM", "SIGINT"] as const) {
    try {
      Deno.addSignalListener(signal, shutdown);
    } catch {
      // not supported on this platform
    }
  }
  await built.server.connect(transport);
  return undefined;
}

if (import.meta.main) {
  const code = await main();
  if (code !== undefined) Deno.exit(code);
}
