/** Our HTTP server in process (src/http/server.ts), for the HTTP tests: one host, a free port. */
import { SURFACE } from "../../src/catalog.ts";
import { parseConfig } from "../../src/config.ts";
import { TmuxHost } from "../../src/host.ts";
import { type HttpLimits, type HttpServer, serveHttp } from "../../src/http/server.ts";
import type { LiveOptions } from "../../src/tmux/live/options.ts";
import { cleanEnv, type TmuxFixture } from "./fixture.ts";

/** A running HTTP server and the host behind it; its log lines are kept. */
export interface Served extends AsyncDisposable {
  server: HttpServer;
  host: TmuxHost;
  url: string;
  port: number;
  logs: string[];
  close(): Promise<void>;
}

/**
 * Serve the fixture's tmux server over HTTP on a free loopback port with bearer `token`, configured
 * from `args` (after `-S` and `--http`), with `limits` and `liveOptions` shortened as a test needs.
 */
export async function serveFixture(
  fx: TmuxFixture,
  options: {
    token: string;
    args?: string[];
    limits?: Partial<HttpLimits>;
    liveOptions?: Partial<LiveOptions>;
  },
): Promise<Served> {
  const env = cleanEnv();
  const outcome = parseConfig(
    ["-S", fx.socket, "--http", "127.0.0.1:8765", ...options.args ?? []],
    () => undefined,
    SURFACE,
  );
  if (outcome.kind !== "run") throw new Error("expected a run configuration");
  const logs: string[] = [];
  const log = (m: string) => logs.push(m);
  const { config } = outcome;
  const host = new TmuxHost({
    config,
    env: (name) => env[name],
    log,
    liveOptions: options.liveOptions,
  });
  const server = await serveHttp({
    host,
    config,
    version: "test",
    token: options.token,
    log,
    limits: options.limits,
    port: 0,
  });
  const close = async () => {
    await server.close();
    await host.close();
  };
  return {
    server,
    host,
    url: server.url,
    port: server.port,
    logs,
    close,
    [Symbol.asyncDispose]: close,
  };
}

/** The body of a JSON-RPC `initialize` request (id 1) from a client named `name`. */
export function initializeRequest(name: string): string {
  return JSON.stringify({
    jsonrpc: "2.0",
    id: 1,
    method: "initialize",
    params: {
      protocolVersion: "2025-06-18",
      capabilities: {},
      clientInfo: { name, version: "1" },
    },
  });
}
