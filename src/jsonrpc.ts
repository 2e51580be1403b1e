/**
 * JSON-RPC boundary checks, shared by every transport: one inbound text (or already-parsed value)
 * becomes either a message for the MCP server or the error reply JSON-RPC 2.0 prescribes. The
 * SDK drops what it cannot parse without a word and answers a wrong-typed `params` with an
 * internal error holding a zod dump; here each gets its standard code and a short message.
 */
import {
  CallToolRequestSchema,
  CancelledNotificationSchema,
  InitializedNotificationSchema,
  InitializeRequestSchema,
  JsonRpcErrorCode,
  type JSONRPCMessage,
  JSONRPCMessageSchema,
  ListResourcesRequestSchema,
  ListToolsRequestSchema,
  PingRequestSchema,
  ProgressNotificationSchema,
  ReadResourceRequestSchema,
  type RequestId,
} from "./sdk.ts";

/** An error reply; `id` is null when the request's id cannot be read. */
export interface JsonRpcErrorReply {
  jsonrpc: "2.0";
  id: RequestId | null;
  error: { code: number; message: string };
}

/** What to do with one inbound message. */
export type Checked =
  | { kind: "message"; message: JSONRPCMessage }
  /** Not for the server. `reply` is absent where JSON-RPC forbids one (notifications, responses). */
  | { kind: "refused"; reason: string; reply?: JsonRpcErrorReply };

interface Schema {
  safeParse(value: unknown): {
    success: boolean;
    error?: { issues: ReadonlyArray<{ path: PropertyKey[]; message: string }> };
  };
}

/** The methods this server handles, with the SDK schema their whole request must satisfy. */
const SERVED: Readonly<Record<string, Schema>> = {
  "initialize": InitializeRequestSchema,
  "ping": PingRequestSchema,
  "tools/list": ListToolsRequestSchema,
  "tools/call": CallToolRequestSchema,
  "resources/list": ListResourcesRequestSchema,
  "resources/read": ReadResourceRequestSchema,
  "notifications/initialized": InitializedNotificationSchema,
  "notifications/cancelled": CancelledNotificationSchema,
  "notifications/progress": ProgressNotificationSchema,
};

/** Longest message text an error reply carries. */
const MESSAGE_MAX = 160;

/** An error reply with a message capped to {@link MESSAGE_MAX} characters. */
export function errorReply(
  id: RequestId | null,
  code: number,
  message: string,
): JsonRpcErrorReply {
  const text = message.length > MESSAGE_MAX ? `${message.slice(0, MESSAGE_MAX - 1)}…` : message;
  return { jsonrpc: "2.0", id, error: { code, message: text } };
}

/** The reply to a message too large to read: its id is unknown, so it is null. */
export function oversizeReply(maxBytes: number): JsonRpcErrorReply {
  return errorReply(
    null,
    JsonRpcErrorCode.InvalidRequest,
    `Invalid Request: a message over ${maxBytes} bytes was skipped unread`,
  );
}

/** Check one line of text as received (no trailing newline). */
export function checkText(text: string): Checked {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    // The parser's own message quotes the input, which may hold anything; it is not repeated.
    return refuse(null, JsonRpcErrorCode.ParseError, "Parse error: the message is not valid JSON");
  }
  return checkValue(value);
}

/** Check one parsed JSON value (a transport that parses itself, such as HTTP, starts here). */
export function checkValue(value: unknown): Checked {
  if (Array.isArray(value)) {
    return refuse(
      null,
      JsonRpcErrorCode.InvalidRequest,
      "Invalid Request: batches are not supported",
    );
  }
  if (!isObject(value)) {
    return refuse(null, JsonRpcErrorCode.InvalidRequest, "Invalid Request: expected an object");
  }
  const hasId = "id" in value;
  const id = isRequestId(value.id) ? value.id : null;
  if (!("method" in value)) {
    // A response (to a request of ours); JSON-RPC never answers a response.
    const parsed = JSONRPCMessageSchema.safeParse(value);
    return parsed.success
      ? { kind: "message", message: parsed.data }
      : { kind: "refused", reason: "an invalid response was ignored" };
  }
  // A request, or a notification when it has no id: then nothing may be replied.
  const reply = hasId;
  const refuseHere = (code: number, message: string): Checked =>
    reply ? refuse(id, code, message) : { kind: "refused", reason: `notification: ${message}` };
  if (hasId && id === null) {
    return refuse(
      null,
      JsonRpcErrorCode.InvalidRequest,
      "Invalid Request: id must be a string or an integer",
    );
  }
  if (value.jsonrpc !== "2.0") {
    return refuseHere(JsonRpcErrorCode.InvalidRequest, 'Invalid Request: jsonrpc must be "2.0"');
  }
  if (typeof value.method !== "string") {
    return refuseHere(JsonRpcErrorCode.InvalidRequest, "Invalid Request: method must be a string");
  }
  const method = value.method;
  const schema = Object.hasOwn(SERVED, method) ? SERVED[method] : undefined;
  // Only a served method is named: any other name is the client's text, not repeated.
  const what = schema ? ` for ${method}` : "";
  if ("params" in value && !isObject(value.params)) {
    return refuseHere(
      JsonRpcErrorCode.InvalidParams,
      `Invalid params${what}: params must be an object`,
    );
  }
  const checked = schema?.safeParse({ method, params: value.params });
  if (checked && !checked.success) {
    return refuseHere(
      JsonRpcErrorCode.InvalidParams,
      `Invalid params${what}: ${describe(checked.error?.issues ?? [])}`,
    );
  }
  const parsed = JSONRPCMessageSchema.safeParse(value);
  if (!parsed.success) {
    return refuseHere(
      JsonRpcErrorCode.InvalidRequest,
      "Invalid Request: only jsonrpc, id, method and params are allowed",
    );
  }
  return { kind: "message", message: parsed.data };
}

function refuse(id: RequestId | null, code: number, message: string): Checked {
  return { kind: "refused", reason: message, reply: errorReply(id, code, message) };
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function isRequestId(value: unknown): value is RequestId {
  return typeof value === "string" || Number.isSafeInteger(value);
}

/** The first issues, by path (under params) and zod's message; never the rejected values. */
function describe(issues: ReadonlyArray<{ path: PropertyKey[]; message: string }>): string {
  return issues.slice(0, 2).map((issue) => {
    const path = issue.path[0] === "params" ? issue.path.slice(1) : issue.path;
    return `${path.length ? path.map(String).join(".") : "params"}: ${issue.message}`;
  }).join("; ") || "does not match the method's schema";
}
