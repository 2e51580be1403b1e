/**
 * tmux-mcp as a library: build the MCP server for embedding or tests, and attach any transport.
 *
 * @example
 * ```ts
 * import { createTmuxMcpServer, parseConfig, SURFACE } from "jsr:@tmux-mcp/tmux-mcp/mod";
 * ```
 * @module
 */
export { CAPABILITIES_URI, createTmuxMcpServer, serverInstructions } from "./src/server.ts";
export type { TmuxMcpServer, TmuxMcpServerOptions } from "./src/server.ts";
export { type Config, ConfigError, parseConfig, type ParseOutcome } from "./src/config.ts";
export { SURFACE, TOOLS } from "./src/catalog.ts";
export { ToolError } from "./src/errors.ts";
export { VERSION } from "./src/version.ts";
