/**
 * Streamable HTTP (docs/design.md §2.4): MCP at `/mcp` under `Deno.serve`, one MCP session per
 * client on one shared tmux host, each carried by the SDK's web-standard transport. Every request
 * passes these checks, in this order, before any MCP code sees it:
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
 * A session ends on DELETE, after its idle time with no request open (a held SSE stream counts as
 * open), or when the server closes; its waits in progress end with it (the SDK aborts their
 * handlers), and the host, its streams and the other sessions go on.
 */
import type { Config } from "../config.ts";
import type { TmuxHost } from "../host.ts";
import { checkText } from "../jsonrpc.ts";
import {
  JsonRpcErrorCode,
  type JSONRPCMessage,
  WebStandardStreamableHTTPServerTransport,
} from "../sdk.ts";
import { createMcpSession, type McpSession } from "../server.ts";
import {
  bearerMatches,
  defaultHosts,
  defaultOrigins,
  hostAllowed,
  originAllowed,
  tokenDigest,
} from "./access.ts";

/** The one path MCP is served at. */
export const MCP_PATH = "/mcp";

/** Sizes and times of an HTTP server. */
export interface HttpLimits {
  /** A session with no request open for this long is closed. */
  idleMs: number;
  /** Sessions open at once; an `initialize` beyond is answered 503. */
  maxSessions: number;
  /** The largest request body read; a larger one is answered 413. */
  maxBodyBytes: number;
  /**
   * How often an open SSE stream gets a comment line. Besides keeping proxies from timing it out,
   * the write is how a client that vanished without closing is noticed (its session then idles).
   */
  keepAliveMs: number;
}

/** docs/design.md §2.4's numbers; `--http-idle-ms` and `--http-max-sessions` change the first two. */
export const HTTP_LIMITS: HttpLimits = {
  idleMs: 600_000,
  maxSessions: 16,
  maxBodyBytes: 4 * 1024 * 1024,
  keepAliveMs: 15_000,
};

/** Options of {@link createHttpHandler} and {@link serveHttp}. */
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

/** The request handler behind `Deno.serve`, usable on its own (the conformance script wraps it). */
export interface HttpHandler {
  /** Answer one request. */
  handle(request: Request, info?: Deno.ServeHandlerInfo): Promise<Response>;
  /** Sessions open now. */
  readonly sessions: number;
  /** Refuse new requests (503) and close every session; their waits end. */
  close(): Promise<void>;
}

/** A running HTTP server. */
export interface HttpServer {
  /** Where MCP is served, e.g. `http://127.0.0.1:8765/mcp`. */
  readonly url: string;
  /** The bound port (the configured one, or the one the system chose for port 0). */
  readonly port: number;
  /** Sessions open now. */
  readonly sessions: number;
  /** Stop accepting, close every session and wait for open responses to end. */
  close(): Promise<void>;
}

interface Entry {
  /** Set once the SDK initialized the session. */
  id?: string;
  transport: WebStandardStreamableHTTPServerTransport;
  session: McpSession;
  /** Requests whose responses are still open (an SSE stream stays open while it is held). */
  open: number;
  timer?: ReturnType<typeof setTimeout>;
  ended: boolean;
}

/** How often a repeated refusal of one kind is logged at most. */
const REFUSAL_LOG_MS = 60_000;

/**
 * Build the handler for a server bound to `bound:port`. Allowed hosts are the bound address (and
 * the loopback names for a loopback or wildcard bind) plus `--http-allowed-hosts`; allowed origins
 * are `http://` those defaults on that port plus `--http-allowed-origins`.
 */
export function createHttpHandler(
  options: HttpOptions & { bound: string; port: number },
): HttpHandler {
  const { host, config, version } = options;
  const log = options.log ?? (() => {});
  const limits: HttpLimits = {
    ...HTTP_LIMITS,
    ...(config.httpIdleMs !== undefined ? { idleMs: config.httpIdleMs } : {}),
    ...(config.httpMaxSessions !== undefined ? { maxSessions: config.httpMaxSessions } : {}),
    ...options.limits,
  };
  const hosts = [...defaultHosts(options.bound), ...(config.httpAllowedHosts ?? [])];
  const origins = [
    ...defaultOrigins(options.bound, options.port),
    ...(config.httpAllowedOrigins ?? []),
  ];
  const digest = tokenDigest(options.token);
  const sessions = new Map<string, Entry>();
  const entries = new Set<Entry>();
  let closing = false;

  const refusals = new Map<string, { at: number; since: number }>();
  /** Log a refusal, at most once a minute per kind (a scanner must not flood stderr). */
  const noteRefusal = (kind: string, info?: Deno.ServeHandlerInfo) => {
    const now = Date.now();
    const seen = refusals.get(kind);
    if (seen && now - seen.at < REFUSAL_LOG_MS) {
      seen.since++;
      return;
    }
    const from = info?.remoteAddr && "hostname" in info.remoteAddr
      ? ` from ${info.remoteAddr.hostname}`
      : "";
    const more = seen?.since ? ` (${seen.since} more since the last note)` : "";
    log(`http: refused a request${from}: ${kind}${more}`);
    refusals.set(kind, { at: now, since: 0 });
  };

  const short = (id: string | undefined) => (id ?? "?").slice(0, 8);

  const forget = (entry: Entry, why: string) => {
    if (entry.ended) return;
    entry.ended = true;
    clearTimeout(entry.timer);
    entries.delete(entry);
    if (entry.id !== undefined) {
      sessions.delete(entry.id);
      log(`http: session ${short(entry.id)} ended (${why}); ${sessions.size} open`);
    }
  };

  /** Start the idle clock once nothing is open. */
  const arm = (entry: Entry) => {
    clearTimeout(entry.timer);
    if (entry.open > 0 || entry.ended) return;
    entry.timer = setTimeout(() => {
      forget(entry, `unused for ${describeMs(limits.idleMs)}`);
      entry.session.close().catch(() => {});
    }, limits.idleMs);
  };

  /** Run one request on a session: its clock stops while the response is open. */
  const run = async (entry: Entry, answer: () => Promise<Response>): Promise<Response> => {
    entry.open++;
    clearTimeout(entry.timer);
    let response: Response;
    try {
      response = await answer();
    } catch (error) {
      entry.open--;
      arm(entry);
      throw error;
    }
    return whenDone(response, () => {
      entry.open--;
      arm(entry);
    });
  };

  const openSession = async (request: Request, message: JSONRPCMessage): Promise<Response> => {
    if (entries.size >= limits.maxSessions) {
      noteRefusal("session cap reached");
      return failure(
        503,
        `Service Unavailable: this server keeps at most ${limits.maxSessions} sessions open; ` +
          "end one (DELETE with its Mcp-Session-Id) or wait until an unused one expires",
        { "retry-after": "10" },
      );
    }
    const transport = new WebStandardStreamableHTTPServerTransport({
      sessionIdGenerator: () => crypto.randomUUID(),
      onsessioninitialized: (id) => {
        entry.id = id;
        sessions.set(id, entry);
        log(`http: session ${short(id)} opened; ${sessions.size} open`);
      },
      maxRequestBodySize: limits.maxBodyBytes,
      keepAliveMs: limits.keepAliveMs,
    });
    const session = createMcpSession(host, { config, version, log });
    const entry: Entry = { transport, session, open: 0, ended: false };
    entries.add(entry);
    session.onclose = () => forget(entry, "closed");
    await session.connect(transport);
    const response = await run(
      entry,
      () => transport.handleRequest(request, { parsedBody: message }),
    );
    // Refused by the transport (wrong Accept or Content-Type…): nothing to keep.
    if (entry.id === undefined) {
      forget(entry, "not initialized");
      await session.close();
    }
    return response;
  };

  const post = async (request: Request, info?: Deno.ServeHandlerInfo): Promise<Response> => {
    const text = await readBody(request, limits.maxBodyBytes);
    if (text === undefined) {
      noteRefusal("body too large", info);
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
      if (sessionId !== null && !sessions.has(sessionId)) return sessionNotFound();
      return json(200, checked.reply);
    }
    const message = checked.message;
    if (sessionId === null) {
      if ("method" in message && message.method === "initialize") {
        return await openSession(request, message);
      }
      return failure(
        400,
        "Bad Request: Mcp-Session-Id header is required; start a session with initialize",
      );
    }
    const entry = sessions.get(sessionId);
    if (!entry) return sessionNotFound();
    return await run(entry, () => entry.transport.handleRequest(request, { parsedBody: message }));
  };

  /** GET (the SSE stream for server messages) and DELETE (end the session). */
  const onSession = async (request: Request): Promise<Response> => {
    const sessionId = request.headers.get("mcp-session-id");
    if (sessionId === null) return failure(400, "Bad Request: Mcp-Session-Id header is required");
    const entry = sessions.get(sessionId);
    if (!entry) return sessionNotFound();
    if (request.method === "DELETE") forget(entry, "DELETE");
    return await run(entry, () => entry.transport.handleRequest(request));
  };

  return {
    get sessions() {
      return sessions.size;
    },
    async handle(request, info) {
      if (closing) return failure(503, "Service Unavailable: the server is shutting down");
      if (!hostAllowed(request.headers.get("host"), hosts)) {
        noteRefusal("Host not allowed", info);
        return failure(
          403,
          "Forbidden: this Host is not served (DNS-rebinding protection); the server's owner " +
            "can add it with --http-allowed-hosts",
        );
      }
      if (!originAllowed(request.headers.get("origin"), origins)) {
        noteRefusal("Origin not allowed", info);
        return failure(
          403,
          "Forbidden: this Origin is not allowed; the server's owner can add it with " +
            "--http-allowed-origins",
        );
      }
      const authorization = request.headers.get("authorization");
      if (!await bearerMatches(authorization, await digest)) {
        noteRefusal(authorization === null ? "no token" : "wrong token", info);
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
      if (new URL(request.url).pathname !== MCP_PATH) {
        return failure(404, `Not Found: MCP is served at ${MCP_PATH}`);
      }
      if (request.method === "POST") return await post(request, info);
      if (request.method === "GET" || request.method === "DELETE") {
        return await onSession(request);
      }
      return failure(405, "Method Not Allowed: use POST, GET or DELETE", {
        allow: "GET, POST, DELETE",
      });
    },
    async close() {
      closing = true;
      const open = [...entries];
      for (const entry of open) forget(entry, "server closing");
      await Promise.all(open.map((entry) => entry.session.close().catch(() => {})));
    },
  };
}

/**
 * Serve MCP over HTTP on the configured address (`port` overrides it; 0 lets the system choose).
 * Throws what `Deno.serve` throws: `NotCapable`/`PermissionDenied` without `--allow-net`,
 * `AddrInUse` when the port is taken.
 */
export function serveHttp(options: HttpOptions & { port?: number }): HttpServer {
  const http = options.config.http;
  if (!http) throw new Error("serveHttp needs a configuration with http set");
  const log = options.log ?? (() => {});
  // The handler needs the bound port (port 0 picks one), so it is built right after binding;
  // no request can arrive before this function returns.
  const server = Deno.serve({
    hostname: http.host.replace(/^\[(.*)\]$/, "$1"),
    port: options.port ?? http.port,
    onListen: () => {}, // Deno would print "Listening on…" to stdout
    onError: (error) => {
      log(`http: internal error: ${(error as Error)?.stack ?? error}`);
      return failure(500, "Internal Server Error: see the server's stderr");
    },
  }, (request, info) => served.handle(request, info));
  const port = server.addr.port;
  const served = createHttpHandler({ ...options, bound: http.host, port });
  return {
    url: `http://${http.host}:${port}${MCP_PATH}`,
    port,
    get sessions() {
      return served.sessions;
    },
    async close() {
      // Sessions first: their SSE responses end, so shutdown has nothing left to wait for.
      const stopped = server.shutdown();
      await served.close();
      await stopped;
    },
  };
}

/** Read a body up to `max` bytes; undefined when it is larger (declared or as it arrives). */
async function readBody(request: Request, max: number): Promise<string | undefined> {
  if (Number(request.headers.get("content-length")) > max) return undefined;
  if (!request.body) return "";
  const reader = request.body.getReader();
  const parts: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > max) {
      await reader.cancel().catch(() => {});
      return undefined;
    }
    parts.push(value);
  }
  const bytes = new Uint8Array(size);
  let at = 0;
  for (const part of parts) {
    bytes.set(part, at);
    at += part.byteLength;
  }
  return new TextDecoder().decode(bytes);
}

/** The same response, calling `done` once its body ended or the client went away. */
function whenDone(response: Response, done: () => void): Response {
  if (!response.body) {
    done();
    return response;
  }
  let finished = false;
  const finish = () => {
    if (!finished) {
      finished = true;
      done();
    }
  };
  const reader = response.body.getReader();
  const body = new ReadableStream<Uint8Array>({
    async pull(controller) {
      try {
        const { done: end, value } = await reader.read();
        if (end) {
          controller.close();
          finish();
        } else {
          controller.enqueue(value);
        }
      } catch (error) {
        controller.error(error);
        finish();
      }
    },
    async cancel(reason) {
      finish();
      await reader.cancel(reason).catch(() => {});
    },
  });
  return new Response(body, { status: response.status, headers: response.headers });
}

/** `10 min`, `90 s`, `0.4 s`: for log lines. */
function describeMs(ms: number): string {
  return ms >= 60_000 && ms % 60_000 === 0 ? `${ms / 60_000} min` : `${ms / 1000} s`;
}

function rpcError(code: number, message: string) {
  return { jsonrpc: "2.0", id: null, error: { code, message } };
}

function json(status: number, body: unknown, headers: Record<string, string> = {}): Response {
  return new Response(JSON.stringify(body), {
    status,
    headers: { "content-type": "application/json", ...headers },
  });
}

/** An HTTP-level refusal, with a JSON-RPC error body (id null) as the SDK's transport writes. */
function failure(status: number, message: string, headers: Record<string, string> = {}): Response {
  return json(status, rpcError(-32000, message), headers);
}

function sessionNotFound(): Response {
  // -32001 is what the SDK's transport answers for an unknown session; clients then start anew.
  return json(
    404,
    rpcError(-32001, "Session not found: it ended or expired; start a new one with initialize"),
  );
}
