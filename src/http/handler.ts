/**
 * The request handler of the Streamable HTTP transport (docs/design.md §2.4): MCP at `/mcp`, one
 * MCP session per client on one shared tmux host. Every request passes these checks, in this
 * order, before any MCP code sees it:
 *
 * 1. Host: the `Host` header names an allowed host (DNS-rebinding protection) → else 403.
 * 2. Origin: absent (not a browser) or an allowed origin → else 403.
 * 3. Token: `Authorization: Bearer <token>`, compared in constant time → else 401 with
 *    `WWW-Authenticate: Bearer`. The token is never logged.
 * 4. Path `/mcp` → else 404; method POST, GET or DELETE → else 405.
 * 5. Body (POST): at most 4 MiB, declared or read → else 413; then the JSON-RPC checks every
 *    transport shares (src/jsonrpc.ts): -32700, -32600 (400) and -32602 (answered as JSON-RPC).
 * 6. Session: a POST without `Mcp-Session-Id` must be `initialize`, which opens a session unless
 *    the cap is reached (503); every other request names a live session (404 when unknown, ended
 *    or expired).
 *
 * The connection-level limits (deadlines, connection cap) are src/http/server.ts's.
 */
import type { Config } from "../config.ts";
import type { TmuxHost } from "../host.ts";
import { checkText } from "../jsonrpc.ts";
import { JsonRpcErrorCode } from "../sdk.ts";
import {
  bearerMatches,
  defaultHosts,
  defaultOrigins,
  hostAllowed,
  originAllowed,
  tokenDigest,
} from "./access.ts";
import { type HttpLimits, resolveLimits } from "./limits.ts";
import { failure, json, readBody, rpcError, sessionNotFound } from "./responses.ts";
import { SessionTable } from "./sessions.ts";

/** The one path MCP is served at. */
export const MCP_PATH = "/mcp";

/** Options of {@link createHttpHandler} and `serveHttp`. */
export interface HttpOptions {
  /** The tmux host every session shares. */
  host: TmuxHost;
  /** The validated configuration, with `http` set. */
  config: Config;
  /** This product's version. */
  version: string;
  /** The bearer token clients must send. */
  token: string;
  /** Diagnostics sink (stderr in main.ts). */
  log?: (message: string) => void;
  /** Overrides of the configured limits (tests shorten them). */
  limits?: Partial<HttpLimits>;
}

/** Who sent a request, for log lines (`Deno.ServeHandlerInfo` is one). */
interface RequestPeer {
  /** The client's address. */
  remoteAddr: Deno.Addr;
}

/** The request handler, usable on its own (the conformance script wraps it). */
export interface HttpHandler {
  /** Answer one request. */
  handle(request: Request, peer?: RequestPeer): Promise<Response>;
  /** Sessions open now. */
  readonly sessions: number;
  /** Refuse new requests (503) and close every session; their waits end. */
  close(): Promise<void>;
}

/** How often a repeated refusal of one kind is logged at most. */
const REFUSAL_LOG_MS = 60_000;

/** A refusal logger: at most one line a minute per kind, so a scanner cannot flood stderr. */
export function refusalLog(
  log: (message: string) => void,
  now: () => number = Date.now,
): (kind: string, peer?: RequestPeer) => void {
  const refusals = new Map<string, { at: number; since: number }>();
  return (kind, peer) => {
    const at = now();
    const seen = refusals.get(kind);
    if (seen && at - seen.at < REFUSAL_LOG_MS) {
      seen.since++;
      return;
    }
    const from = peer?.remoteAddr && "hostname" in peer.remoteAddr
      ? ` from ${peer.remoteAddr.hostname}`
      : "";
    const more = seen?.since ? ` (${seen.since} more since the last note)` : "";
    log(`http: refused a request${from}: ${kind}${more}`);
    refusals.set(kind, { at, since: 0 });
  };
}

/**
 * Build the handler for a server bound to `bound:port`. Allowed hosts are the bound address (and
 * the loopback names for a loopback or wildcard bind) plus `--http-allowed-hosts`; allowed origins
 * are `http://` those defaults on that port plus `--http-allowed-origins`.
 */
export function createHttpHandler(
  options: HttpOptions & { bound: string; port: number },
): HttpHandler {
  const { config } = options;
  const log = options.log ?? (() => {});
  const limits = resolveLimits(config, options.limits);
  const hosts = [...defaultHosts(options.bound), ...(config.httpAllowedHosts ?? [])];
  const origins = [
    ...defaultOrigins(options.bound, options.port),
    ...(config.httpAllowedOrigins ?? []),
  ];
  const noteRefusal = refusalLog(log);
  const admit = admission(hosts, origins, tokenDigest(options.token), noteRefusal);
  const sessions = new SessionTable({
    ...options,
    limits,
    log,
    onCapReached: () => noteRefusal("session cap reached"),
  });
  let closing = false;

  /** Checks 5 and 6 for a POST. */
  const post = async (request: Request, peer?: RequestPeer): Promise<Response> => {
    const text = await readBody(request, limits.maxBodyBytes);
    if (text === undefined) {
      noteRefusal("body too large", peer);
      return failure(
        413,
        `Payload Too Large: a request body must not exceed ${limits.maxBodyBytes} bytes`,
      );
    }
    const checked = checkText(text);
    const sessionId = request.headers.get("mcp-session-id");
    if (checked.kind === "refused") {
      // Without an id there is no request to answer: the HTTP status carries the refusal.
      if (!checked.reply || checked.reply.id === null) {
        return json(
          400,
          checked.reply ?? rpcError(JsonRpcErrorCode.InvalidRequest, checked.reason),
        );
      }
      if (sessionId !== null && !sessions.get(sessionId)) return sessionNotFound();
      return json(200, checked.reply);
    }
    const message = checked.message;
    if (sessionId === null) {
      if ("method" in message && message.method === "initialize") {
        return await sessions.open(request, message);
      }
      return failure(
        400,
        "Bad Request: Mcp-Session-Id header is required; start a session with initialize",
      );
    }
    const entry = sessions.get(sessionId);
    if (!entry) return sessionNotFound();
    return await sessions.run(
      entry,
      () => entry.transport.handleRequest(request, { parsedBody: message }),
    );
  };

  /** GET (the SSE stream for server messages) and DELETE (end the session). */
  const onSession = async (request: Request): Promise<Response> => {
    const sessionId = request.headers.get("mcp-session-id");
    if (sessionId === null) return failure(400, "Bad Request: Mcp-Session-Id header is required");
    const entry = sessions.get(sessionId);
    if (!entry) return sessionNotFound();
    if (request.method === "DELETE") sessions.forget(entry, "DELETE");
    return await sessions.run(entry, () => entry.transport.handleRequest(request));
  };

  return {
    get sessions() {
      return sessions.size;
    },
    async handle(request, peer) {
      if (closing) return failure(503, "Service Unavailable: the server is shutting down");
      const refused = await admit(request, peer);
      if (refused) return refused;
      if (request.method === "POST") return await post(request, peer);
      return await onSession(request);
    },
    async close() {
      closing = true;
      await sessions.closeAll();
    },
  };
}

/** Checks 1–4 (who may ask, and where): a refusal, or undefined to go on. */
function admission(
  hosts: readonly string[],
  origins: readonly string[],
  digest: Promise<Uint8Array>,
  noteRefusal: (kind: string, peer?: RequestPeer) => void,
): (request: Request, peer?: RequestPeer) => Promise<Response | undefined> {
  return async (request, peer) => {
    if (!hostAllowed(request.headers.get("host"), hosts)) {
      noteRefusal("Host not allowed", peer);
      return failure(
        403,
        "Forbidden: this Host is not served (DNS-rebinding protection); the server's owner " +
          "can add it with --http-allowed-hosts",
      );
    }
    if (!originAllowed(request.headers.get("origin"), origins)) {
      noteRefusal("Origin not allowed", peer);
      return failure(
        403,
        "Forbidden: this Origin is not allowed; the server's owner can add it with " +
          "--http-allowed-origins",
      );
    }
    const authorization = request.headers.get("authorization");
    if (!await bearerMatches(authorization, await digest)) {
      noteRefusal(authorization === null ? "no token" : "wrong token", peer);
      const challenge = authorization === null
        ? 'Bearer realm="tmux-mcp"'
        : 'Bearer realm="tmux-mcp", error="invalid_token"';
      return failure(
        401,
        "Unauthorized: send Authorization: Bearer <token> with the token tmux-mcp was " +
          "started with (--http-token, TMUX_MCP_HTTP_TOKEN, or the one it printed at start)",
        { "www-authenticate": challenge },
      );
    }
    if (pathOf(request.url) !== MCP_PATH) {
      return failure(404, `Not Found: MCP is served at ${MCP_PATH}`);
    }
    if (!["POST", "GET", "DELETE"].includes(request.method)) {
      return failure(405, "Method Not Allowed: use POST, GET or DELETE", {
        allow: "GET, POST, DELETE",
      });
    }
    return undefined;
  };
}

/** The path of a request URL; undefined when it does not parse (then nothing is served). */
function pathOf(url: string): string | undefined {
  try {
    return new URL(url).pathname;
  } catch {
    return undefined;
  }
}
