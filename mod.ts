/**
 * tmux-mcp as a library. A {@link TmuxHost} owns everything that belongs to one tmux server
 * (runner, input queue, live engine); {@link createMcpSession} serves one MCP connection on it,
 * and several sessions may share one host. {@link createTmuxMcpServer} is a host with one session,
 * as stdio serves it. Connect any MCP SDK transport to a session.
 *
 * @example
 * ```ts
 * import { createTmuxMcpServer, parseConfig, SURFACE } from "jsr:@tmux-mcp/tmux-mcp/mod";
 *
 * const outcome = parseConfig(["--socket-name", "agent"], (name) => Deno.env.get(name), SURFACE);
 * if (outcome.kind === "run") {
 *   const server = createTmuxMcpServer({ config: outcome.config, env: (n) => Deno.env.get(n), version: "embedded" });
 *   // await server.connect(transport); … await server.close();
 * }
 * ```
 * @module
 */
export {
  CAPABILITIES_URI,
  createMcpSession,
  createTmuxMcpServer,
  serverInstructions,
} from "./src/server.ts";
export type {
  McpSession,
  McpSessionOptions,
  TmuxMcpServer,
  TmuxMcpServerOptions,
} from "./src/server.ts";
export { TmuxHost, type TmuxHostOptions } from "./src/host.ts";
export {
  type Config,
  ConfigError,
  parseConfig,
  type ParseOutcome,
  type Surface,
  type Toolset,
  type ToolsetName,
  TOOLSETS,
} from "./src/config.ts";
export { SURFACE } from "./src/catalog.ts";
export { type Effects, type ErrorCode, ToolError, type ToolErrorOptions } from "./src/errors.ts";
export type { SocketSpec } from "./src/tmux/core/argv.ts";
export type { SshHostSpec } from "./src/tmux/ssh/destination.ts";
export type { EnvReader } from "./src/tmux/core/runner.ts";
export type { LiveOptions, LiveStats, LiveStatus } from "./src/tmux/live/options.ts";
export type { JsonRpcMessage, McpTransport } from "./src/server.ts";
export { VERSION } from "./src/base/version.ts";
