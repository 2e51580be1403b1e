/**
 * The only server-side module that imports the MCP SDK. Subpaths other than `/server` type as
 * `any` under `deno check` unless their declarations are named explicitly (docs/design.md §8.5).
 */
export { Server } from "@modelcontextprotocol/sdk/server";
// @ts-types="npm:@modelcontextprotocol/sdk@^1.32.2/types"
export {
  CallToolRequestSchema,
  type CallToolResult,
  CancelledNotificationSchema,
  ErrorCode as JsonRpcErrorCode,
  InitializedNotificationSchema,
  InitializeRequestSchema,
  type JSONRPCMessage,
  JSONRPCMessageSchema,
  ListResourcesRequestSchema,
  ListToolsRequestSchema,
  McpError,
  PingRequestSchema,
  ProgressNotificationSchema,
  ReadResourceRequestSchema,
  type RequestId,
  type Tool,
} from "@modelcontextprotocol/sdk/types.js";
// @ts-types="npm:@modelcontextprotocol/sdk@^1.32.2/shared/transport"
export type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
// @ts-types="npm:@modelcontextprotocol/sdk@^1.32.2/server/webStandardStreamableHttp"
export { WebStandardStreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js";
