/**
 * Streamable HTTP (docs/design.md §2.4): the handler of src/http/handler.ts under node:http, which
 * (unlike `Deno.serve` in Deno 2.9) closes connections whose headers or request do not arrive in
 * time and caps connections. Limits: {@link HTTP_LIMITS}.
 *
 * An accept that fails for want of descriptors stops the runtime's listener without a word (Deno
 * 2.9.6, for `Deno.serve` and node:http alike), so the listener is checked with a connection to
 * itself and reopened on the same port when it no longer accepts.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import { type AddressInfo, Server as NetServer } from "node:net";
import { createHttpHandler, type HttpHandler, type HttpOptions, MCP_PATH } from "./handler.ts";
import { checkingIntervalMs, type HttpLimits, resolveLimits } from "./limits.ts";
import { sendResponse, toRequest } from "./node_bridge.ts";
import { failure } from "./responses.ts";
import { CLOSE_GRACE_MS, pauseUnlessAborted, settlesWithin } from "../base/timing.ts";

export { createHttpHandler, type HttpHandler, type HttpOptions, MCP_PATH } from "./handler.ts";
export { HTTP_LIMITS, type HttpLimits } from "./limits.ts";

/** A running HTTP server. */
export interface HttpServer {
  /** Where MCP is served, e.g. `http://127.0.0.1:8765/mcp`. */
  readonly url: string;
  /** The bound port (the configured one, or the one the system chose for port 0). */
  readonly port: number;
  /** Sessions open now. */
  readonly sessions: number;
  /** Stop accepting, close every session and wait for open responses to end (at most 1 s). */
  close(): Promise<void>;
}

/**
 * Serve MCP over HTTP on the configured address (`port` overrides it; 0 lets the system choose).
 * Rejects with `Deno.errors.AddrInUse` when the port is taken, and with what the runtime throws
 * without `--allow-net` (`NotCapable`/`PermissionDenied`).
 */
export async function serveHttp(options: HttpOptions & { port?: number }): Promise<HttpServer> {
  const http = options.config.http;
  if (!http) throw new Error("serveHttp needs a configuration with http set");
  const log = options.log ?? (() => {});
  const limits = resolveLimits(options.config, options.limits);
  const hostname = http.host.replace(/^\[(.*)\]$/, "$1");
  setUpSignalHandling();
  requireNetPermission(http.host, options.port ?? http.port);
  // The handler needs the bound port (port 0 picks one), so it is built right after binding.
  const ready: { handler?: HttpHandler; origin: string } = { origin: "" };
  const respond = (incoming: IncomingMessage, outgoing: ServerResponse) => {
    void answer(incoming, outgoing, ready.origin, ready.handler, log);
  };
  const listeners = new Listeners(limits, respond, log);
  const port = await listeners.open(hostname, options.port ?? http.port);
  const origin = `http://${http.host}:${port}`;
  const served = createHttpHandler({ ...options, bound: http.host, port });
  Object.assign(ready, { handler: served, origin });
  listeners.watch(hostname, port);
  return {
    url: `${origin}${MCP_PATH}`,
    port,
    get sessions() {
      return served.sessions;
    },
    async close() {
      // Sessions first: their SSE responses end, so the connections have nothing left to send.
      listeners.stopAccepting();
      await served.close();
      await listeners.drain();
    },
  };
}

/**
 * Have the runtime set up its signal handling now, while descriptors are free. Deno 2.9.6 does it
 * the first time anything listens for a signal — it takes a socket pair — and panics when no
 * descriptor is left (ext/signals, an `unwrap`). The runtime itself listens for SIGUSR1 about half
 * a second after start, and main.ts for SIGTERM and SIGINT once serving: a flood of connections at
 * that moment ended the process (checked under `ulimit -n`). Once set up, listening for another
 * signal takes no descriptor. The listener is removed at once, so SIGINT keeps its default action.
 */
function setUpSignalHandling(): void {
  const ignore = () => {};
  try {
    Deno.addSignalListener("SIGINT", ignore);
    Deno.removeSignalListener("SIGINT", ignore);
  } catch {
    // A platform without signals: nothing to set up.
  }
}

/** Answer one node request through the web handler; our own failures answer 500 and are logged. */
async function answer(
  incoming: IncomingMessage,
  outgoing: ServerResponse,
  origin: string,
  handler: HttpHandler | undefined,
  log: (message: string) => void,
): Promise<void> {
  try {
    const request = toRequest(incoming, outgoing, origin);
    let response: Response;
    if (!handler) response = failure(503, "Service Unavailable: the server is starting");
    else if (!request) response = failure(400, "Bad Request: the request line cannot be read");
    else {
      const peer = {
        remoteAddr: {
          transport: "tcp" as const,
          hostname: incoming.socket.remoteAddress ?? "?",
          port: incoming.socket.remotePort ?? 0,
        },
      };
      response = await handler.handle(request, peer);
    }
    await sendResponse(response, outgoing);
  } catch (error) {
    // A client gone or cut off by a deadline mid-request is no fault of ours: nothing to log.
    if (incoming.destroyed || outgoing.destroyed) {
      outgoing.destroy();
      return;
    }
    log(`http: internal error: ${(error as Error)?.stack ?? error}`);
    if (!outgoing.headersSent) {
      await sendResponse(failure(500, "Internal Server Error: see the server's stderr"), outgoing)
        .catch(() => {});
    } else {
      outgoing.destroy();
    }
  }
}

/**
 * The node:http servers behind one address: the current listener, and earlier ones whose
 * listening stopped (replaced after a failed accept) while their connections finish.
 */
class Listeners {
  readonly #servers = new Set<Server>();
  #current?: Server;
  #timer?: ReturnType<typeof setInterval>;
  #accepted = 0;
  #checking = false;

  constructor(
    readonly limits: HttpLimits,
    readonly respond: (incoming: IncomingMessage, outgoing: ServerResponse) => void,
    readonly log: (message: string) => void,
  ) {}

  /** Listen on `hostname:port`; the bound port. */
  async open(hostname: string, port: number): Promise<number> {
    const server = createServer({
      headersTimeout: this.limits.headersTimeoutMs,
      requestTimeout: this.limits.requestTimeoutMs,
      connectionsCheckingInterval: checkingIntervalMs(this.limits),
      // A request without Host is the handler's to refuse (403, check 1), not node's (400).
      requireHostHeader: false,
    }, this.respond);
    server.maxConnections = this.limits.maxConnections;
    server.on("connection", () => this.#accepted++);
    await new Promise<void>((resolve, reject) => {
      server.once("error", (error: Error & { code?: string }) => {
        reject(
          error.code === "EADDRINUSE" ? new Deno.errors.AddrInUse(error.message) : error,
        );
      });
      server.listen({ host: hostname, port }, () => resolve());
    });
    server.on("error", (error) => this.log(`http: listener error: ${error.message}`));
    this.#servers.add(server);
    server.once("close", () => this.#servers.delete(server));
    this.#current = server;
    return (server.address() as AddressInfo).port;
  }

  /** Check the listener every `listenerCheckMs` and reopen it when it stopped accepting. */
  watch(hostname: string, port: number): void {
    this.#timer = setInterval(() => {
      if (this.#checking) return;
      this.#checking = true;
      this.#check(hostname, port).finally(() => this.#checking = false);
    }, this.limits.listenerCheckMs);
  }

  /** Stop listening; open connections go on. */
  stopAccepting(): void {
    clearInterval(this.#timer);
    this.#timer = undefined;
    for (const server of this.#servers) server.close();
  }

  /** Wait for open connections to end, cutting them after {@link CLOSE_GRACE_MS}. */
  async drain(): Promise<void> {
    const servers = [...this.#servers];
    for (const server of servers) server.closeIdleConnections();
    const closed = Promise.all(
      servers.map((server) => new Promise<void>((resolve) => server.close(() => resolve()))),
    );
    await settlesWithin(closed, CLOSE_GRACE_MS);
    for (const server of servers) server.closeAllConnections();
    await closed;
  }

  async #check(hostname: string, port: number): Promise<void> {
    const before = this.#accepted;
    let probe: Deno.Conn;
    try {
      probe = await Deno.connect({ hostname, port });
    } catch (error) {
      if (error instanceof Deno.errors.ConnectionRefused) await this.#reopen(hostname, port);
      // Anything else (out of descriptors ourselves): try again at the next check.
      return;
    }
    // Accepted, or closed at once over the connection cap (node:http under Deno emits no `drop`):
    // either way the listener works. A dead one leaves the probe in the kernel's queue, unread.
    let answered = false;
    void probe.read(new Uint8Array(1)).catch(() => null).then(() => answered = true);
    try {
      const deadline = Date.now() + this.limits.listenerCheckMs;
      while (
        !answered && this.#accepted === before && Date.now() < deadline && this.#timer !== undefined
      ) {
        await pauseUnlessAborted(20);
      }
    } finally {
      probe.close();
    }
    const dead = !answered && this.#accepted === before;
    if (dead && this.#timer !== undefined) await this.#reopen(hostname, port);
  }

  async #reopen(hostname: string, port: number): Promise<void> {
    this.log(
      "http: the listener stopped accepting connections (out of descriptors?); reopening it",
    );
    const stopped = this.#current;
    this.#current = undefined;
    if (stopped) stopListening(stopped);
    try {
      await this.open(hostname, port);
      this.log("http: listening again");
    } catch (error) {
      this.log(`http: cannot listen again yet: ${(error as Error).message}`);
    }
  }
}

/**
 * Close `server`'s listening socket only. node:http's own `close()` also stops enforcing the
 * header and request deadlines on the connections the server still has (it clears its checking
 * interval; Deno 2.9.6 as Node), and after a failed accept those connections are the ones holding
 * the descriptors: closed that way, they stayed open for good and every new listener died in turn
 * (checked). The deadlines are checked until the last connection ends; then `close()` ends that.
 */
function stopListening(server: Server): void {
  NetServer.prototype.close.call(server);
  server.once("close", () => server.close());
}

/**
 * Refuse at once without permission to listen: node:http's listen reports a missing permission
 * as an uncaught exception on a later tick (checked on Deno 2.9.6), which no caller could catch.
 */
function requireNetPermission(host: string, port: number): void {
  const { state } = Deno.permissions.querySync({ name: "net", host: `${host}:${port}` });
  if (state !== "granted") {
    throw new Deno.errors.NotCapable(`Requires net access to "${host}:${port}"`);
  }
}
