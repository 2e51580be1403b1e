/**
 * The MCP sessions of the HTTP server (docs/design.md §2.4): each an SDK web-standard transport
 * and an MCP session on the shared host, found by `Mcp-Session-Id`. A session ends on DELETE,
 * after its idle time with no request open (a held SSE stream counts as open), or when the server
 * closes; its waits in progress end with it (the SDK aborts their handlers).
 */
import type { Config } from "../config.ts";
import type { TmuxHost } from "../host.ts";
import { type JSONRPCMessage, WebStandardStreamableHTTPServerTransport } from "../sdk.ts";
import { createMcpSession, type McpSession } from "../server.ts";
import { describeMs, type HttpLimits } from "./limits.ts";
import { failure, whenDone } from "./responses.ts";

/** One session: its transport, its MCP session and its idle clock. */
interface SessionEntry {
  /** Set once the SDK initialized the session. */
  id?: string;
  transport: WebStandardStreamableHTTPServerTransport;
  session: McpSession;
  /** Requests whose responses are still open (an SSE stream stays open while it is held). */
  open: number;
  timer?: ReturnType<typeof setTimeout>;
  ended: boolean;
}

/** What a session table needs to open sessions. */
interface SessionOptions {
  host: TmuxHost;
  config: Config;
  version: string;
  limits: HttpLimits;
  log: (message: string) => void;
  /** Called when `initialize` is refused because the cap is reached. */
  onCapReached: () => void;
}

const short = (id: string | undefined) => (id ?? "?").slice(0, 8);

/** The live sessions of one HTTP server. */
export class SessionTable {
  readonly #byId = new Map<string, SessionEntry>();
  readonly #entries = new Set<SessionEntry>();
  readonly #options: SessionOptions;

  constructor(options: SessionOptions) {
    this.#options = options;
  }

  /** Initialized sessions open now. */
  get size(): number {
    return this.#byId.size;
  }

  /** The live session with this id. */
  get(id: string): SessionEntry | undefined {
    return this.#byId.get(id);
  }

  /** End a session's bookkeeping (idempotent); the caller closes its MCP session. */
  forget(entry: SessionEntry, why: string): void {
    if (entry.ended) return;
    entry.ended = true;
    clearTimeout(entry.timer);
    this.#entries.delete(entry);
    if (entry.id !== undefined) {
      this.#byId.delete(entry.id);
      this.#options.log(`http: session ${short(entry.id)} ended (${why}); ${this.size} open`);
    }
  }

  /** Run one request on a session: its idle clock stops while the response is open. */
  async run(entry: SessionEntry, answer: () => Promise<Response>): Promise<Response> {
    entry.open++;
    clearTimeout(entry.timer);
    let response: Response;
    try {
      response = await answer();
    } catch (error) {
      entry.open--;
      this.#arm(entry);
      throw error;
    }
    return whenDone(response, () => {
      entry.open--;
      this.#arm(entry);
    });
  }

  /** Answer an `initialize`: a new session unless the cap is reached (503). */
  async open(request: Request, message: JSONRPCMessage): Promise<Response> {
    const { limits, log } = this.#options;
    if (this.#entries.size >= limits.maxSessions) {
      this.#options.onCapReached();
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
        this.#byId.set(id, entry);
        log(`http: session ${short(id)} opened; ${this.size} open`);
      },
      maxRequestBodySize: limits.maxBodyBytes,
      keepAliveMs: limits.keepAliveMs,
    });
    const { host, config, version } = this.#options;
    const session = createMcpSession(host, { config, version, log });
    const entry: SessionEntry = { transport, session, open: 0, ended: false };
    this.#entries.add(entry);
    session.onclose = () => this.forget(entry, "closed");
    await session.connect(transport);
    const response = await this.run(
      entry,
      () => transport.handleRequest(request, { parsedBody: message }),
    );
    // Refused by the transport (wrong Accept or Content-Type…): nothing to keep.
    if (entry.id === undefined) {
      this.forget(entry, "not initialized");
      await session.close();
    }
    return response;
  }

  /** End every session; their waits end. */
  async closeAll(): Promise<void> {
    const open = [...this.#entries];
    for (const entry of open) this.forget(entry, "server closing");
    await Promise.all(open.map((entry) => entry.session.close().catch(() => {})));
  }

  /** Start the idle clock once nothing is open. */
  #arm(entry: SessionEntry): void {
    clearTimeout(entry.timer);
    if (entry.open > 0 || entry.ended) return;
    const { idleMs } = this.#options.limits;
    entry.timer = setTimeout(() => {
      this.forget(entry, `unused for ${describeMs(idleMs)}`);
      entry.session.close().catch(() => {});
    }, idleMs);
  }
}
