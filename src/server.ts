/**
 * MCP sessions: the SDK's low-level `Server` driven by the catalog, on a shared tmux host
 * (src/host.ts). Input is validated with the same zod schema that is advertised, so advertised
 * and enforced contracts cannot drift.
 */
import { CallConsent, type Elicit, GrantBook } from "./guard/ask.ts";
import {
  APP_TOOLS,
  appTools,
  denialHint,
  effectiveTools,
  toolListEntry,
  TOOLS,
} from "./catalog.ts";
import type { Config } from "./config.ts";
import { preview, ToolError } from "./errors.ts";
import { errorResult, type ToolResult } from "./results.ts";
import {
  CallToolRequestSchema,
  JsonRpcErrorCode,
  ListResourcesRequestSchema,
  ListToolsRequestSchema,
  McpError,
  ReadResourceRequestSchema,
  Server,
  type Transport,
} from "./sdk.ts";
import { TmuxHost } from "./host.ts";
import type { EnvReader } from "./tmux/core/runner.ts";
import type { LiveOptions, LiveStatus } from "./tmux/live/options.ts";
import type { ActingContext, ToolSpec } from "./tool_types.ts";
import {
  PANE_VIEW_META,
  PANE_VIEW_RESOURCE,
  PANE_VIEW_URI,
  rendersViews,
  VIEW_MIME_TYPE,
} from "./view/resource.ts";
import { PANE_VIEW_HTML } from "./generated/page_html.ts";
import { CAPABILITIES_URI, serverInstructions } from "./server/instructions.ts";
import { type ProgressExtra, progressFor } from "./server/call.ts";
import { callOnHosts, type HostCalls, hostSurface } from "./server/host_call.ts";
import { CAPABILITIES_RESOURCE, capabilitiesText } from "./server/capabilities.ts";
import { resultForSurface } from "./server/hints.ts";
import { SessionRecorder } from "./record/recorder.ts";

export { CAPABILITIES_URI, serverInstructions } from "./server/instructions.ts";
export { callTool } from "./server/call.ts";

/** Options of one MCP session on a host. */
export interface McpSessionOptions {
  /** The validated configuration; its socket and live mode must be the host's. */
  config: Config;
  /** This product's version. */
  version: string;
  /** Diagnostics sink (stderr in main.ts); never stdout. */
  log?: (message: string) => void;
  /** The clock grants expire by (tests move it); `Date.now` by default. */
  now?: () => number;
}

/** Options of {@link createTmuxMcpServer}: a host and one session from one configuration. */
export interface TmuxMcpServerOptions extends McpSessionOptions {
  /** Environment reader (Deno.env.get behind permission checks, or a test's own map). */
  env: EnvReader;
  /** Live-engine timings and caps (tests shorten them); docs/design.md §7.4's by default. */
  liveOptions?: Partial<LiveOptions>;
}

/** A JSON-RPC 2.0 message as a transport carries it. */
export interface JsonRpcMessage {
  /** Always "2.0". */
  jsonrpc: "2.0";
  /** The rest of the message: method, params, id, result or error. */
  [key: string]: unknown;
}

/**
 * A message transport in the shape of the MCP SDK's `Transport` (its stdio, in-memory and
 * Streamable HTTP transports all fit). Methods, so SDK transports with narrower message types
 * are accepted as they are.
 */
export interface McpTransport {
  /** Begin delivering messages (the server calls it on connect). */
  start(): Promise<void>;
  /** Send one message. */
  send(message: JsonRpcMessage, options?: unknown): Promise<void>;
  /** Close the connection; `onclose` follows. */
  close(): Promise<void>;
  /** Set by the server: called once the connection closed, for any reason. */
  onclose?(): void;
  /** Set by the server: called for out-of-band errors. */
  onerror?(error: Error): void;
  /** Set by the server: called for each message received. */
  onmessage?(message: JsonRpcMessage, extra?: unknown): void;
}

/** One MCP connection served on a host: the SDK server, the manifest's handlers, its tools. */
export interface McpSession {
  /** Serve this session over `transport` (one transport per session). */
  connect(transport: McpTransport): Promise<void>;
  /** Called once the connected transport closed (set it before connecting). */
  onclose?: () => void;
  /** Names of the tools it serves, in listing order. */
  readonly tools: readonly string[];
  /** Close this session only: the host, its streams and other sessions go on. */
  close(): Promise<void>;
}

/** A host with one session: what stdio serves, and what tests embed. */
export interface TmuxMcpServer extends McpSession {
  /** The control-mode engine's counters, when live mode is on. */
  readonly live?: LiveStatus;
  /** tmux's version string (`tmux 3.3a`); needs no running tmux server. */
  tmuxVersion(): Promise<string>;
  /** Close the session and the host: no tmux process of ours is left. */
  close(): Promise<void>;
}

/** Build a host and one session on it from one configuration; no transport is attached. */
export function createTmuxMcpServer(options: TmuxMcpServerOptions): TmuxMcpServer {
  const host = new TmuxHost({
    config: options.config,
    env: options.env,
    log: options.log,
    liveOptions: options.liveOptions,
  });
  const session = createMcpSession(host, options);
  const server: TmuxMcpServer = {
    connect: (transport) => session.connect(transport),
    tools: session.tools,
    live: host.live,
    tmuxVersion: () => host.tmuxVersion(),
    close: async () => {
      await host.close();
      await session.close();
    },
  };
  session.onclose = () => server.onclose?.();
  return server;
}

/**
 * Build one MCP session on a shared host: its own SDK `Server`, tool surface and requests, the
 * host's runner, input queue and live engine. Handlers receive a context narrowed to their
 * toolset: inspect handlers get no input queue.
 */
export function createMcpSession(host: TmuxHost, options: McpSessionOptions): McpSession {
  const { config, version } = options;
  const log = options.log ?? (() => {});
  // Remote hosts add `host` to the tools that name no object (docs/design.md §5.15).
  const tools = hostSurface(effectiveTools(config), [...host.remotes.keys()]);
  // App-only tools (docs/design.md §10.2) are served like any other, listed only to view hosts.
  const apps = appTools(tools);
  // Descriptions state the wait ceiling in force (docs/design.md §4).
  const listed = tools.map((t) => toolListEntry(t, tools, config.waitMaxMs));
  const withApps = [...listed, ...apps.map((t) => toolListEntry(t, tools, config.waitMaxMs))];
  const views = tools.some((t) => t.ui?.resourceUri === PANE_VIEW_URI);

  const server = new Server(
    { name: "tmux-mcp", title: "tmux", version },
    {
      capabilities: { tools: { listChanged: false }, resources: {} },
      instructions: serverInstructions(tools.map((t) => t.name), [...host.remotes.keys()]),
    },
  );
  server.setRequestHandler(ListToolsRequestSchema, () => ({
    tools: rendersViews(server.getClientCapabilities()) ? withApps : listed,
  }));

  // Grants belong to this session: another session's agent never inherits them (§6.11).
  const grants = new GrantBook(options.now);
  // Each remote host's own: pane ids repeat across hosts, and a listing prunes its host's only.
  const remoteGrants = new Map(
    [...host.remotes.keys()].map((n) => [n, new GrantBook(options.now)]),
  );
  // What this session started (a runId, §7.9) is redeemed only with this token.
  const owner = {};
  // With --record, this session's action log and pane recordings (docs/design.md §11).
  const recorder = host.record ? new SessionRecorder(host.record, version) : undefined;
  // Elicitation is the client's capability; the server declares nothing for it.
  const clientAnswers = () => server.getClientCapabilities()?.elicitation?.form !== undefined;
  const session = {
    server,
    host,
    config,
    log,
    grants,
    remoteGrants,
    owner,
    clientAnswers,
    tools,
    apps,
    recorder,
  };
  server.setRequestHandler(CallToolRequestSchema, callHandler(session));

  server.setRequestHandler(ListResourcesRequestSchema, () => ({
    resources: [CAPABILITIES_RESOURCE, ...(views ? [PANE_VIEW_RESOURCE] : [])],
  }));
  server.setRequestHandler(ReadResourceRequestSchema, async (request) => {
    const uri = request.params.uri;
    if (views && uri === PANE_VIEW_URI) {
      return {
        contents: [{ uri, mimeType: VIEW_MIME_TYPE, text: PANE_VIEW_HTML, _meta: PANE_VIEW_META }],
      };
    }
    if (uri !== CAPABILITIES_URI) {
      throw new McpError(JsonRpcErrorCode.InvalidParams, `Unknown resource: ${preview(uri, 64)}`);
    }
    const text = await capabilitiesText({ ...session, version, clientAnswers: clientAnswers() });
    return { contents: [{ uri, mimeType: "application/json", text }] };
  });

  const result: McpSession = {
    // The SDK's transports fit McpTransport; the cast only widens their message type back.
    connect: (transport) => server.connect(transport as unknown as Transport),
    tools: tools.map((t) => t.name),
    close: () => {
      recorder?.close();
      return server.close();
    },
  };
  server.onclose = () => {
    recorder?.close();
    result.onclose?.();
  };
  return result;
}

/** What the request handlers of one session share. */
interface SessionParts {
  server: Server;
  host: TmuxHost;
  config: Config;
  log: (message: string) => void;
  grants: GrantBook;
  /** The grants for each remote host's panes (docs/design.md §5.15). */
  remoteGrants: ReadonlyMap<string, GrantBook>;
  /** What this session started (a runId, §7.9) is redeemed only with this token. */
  owner: object;
  clientAnswers: () => boolean;
  tools: readonly ToolSpec[];
  apps: readonly ToolSpec[];
  /** This session's recording, with `--record` (docs/design.md §11). */
  recorder?: SessionRecorder;
}

/** The request data a call handler reads. */
type CallExtra = ProgressExtra & { signal: AbortSignal; requestId: string | number };

/**
 * The tools/call handler: the tool, its consent (asking the person when allowed), and a context
 * whose nested calls (the batch) reach only enabled tools, through the same pipeline.
 */
function callHandler(parts: SessionParts) {
  const { host, config, log, grants, tools, apps } = parts;
  const byName = new Map([...tools, ...apps].map((t) => [t.name, t]));
  const enabled = new Set(byName.keys());
  const built = new Set([...TOOLS, ...APP_TOOLS].map((t) => t.name));
  const denied = (name: string) =>
    errorResult(
      new ToolError("tool_denied", `${name} is not enabled on this server`, {
        hint: denialHint(name, config),
      }),
    );
  return async (
    request: { params: { name: string; arguments?: Record<string, unknown> } },
    extra: CallExtra,
  ): Promise<ToolResult> => {
    const name = request.params.name;
    const spec = byName.get(name);
    if (!spec) {
      if (built.has(name)) return denied(name);
      throw new McpError(JsonRpcErrorCode.InvalidParams, `Unknown tool: ${preview(name, 64)}`);
    }
    const remotes = [...host.remotes.keys()];
    /** The context of this request on one host (`args` unqualified, for the question). */
    const on = (
      name: string,
      args: unknown,
      tool: string,
      invoke: ActingContext["invoke"],
    ): ActingContext => {
      const target = host.remotes.get(name) ?? host;
      const audit = parts.recorder?.call({ host: name, live: target.live, signal: extra.signal });
      return {
        tmux: audit ? audit.tmux(target.tmux) : target.tmux,
        config,
        signal: extra.signal,
        live: target.live,
        shots: target.shots,
        requestId: extra.requestId,
        consent: new CallConsent({
          tool: target === host ? tool : `${tool} on host ${name}`,
          args,
          grants: parts.remoteGrants.get(name) ?? grants,
          elicit: config.ask && parts.clientAnswers() ? elicitFor(parts, extra) : undefined,
          timeoutMs: config.askTimeoutMs,
          observe: audit && ((note) => audit.consent(note)),
        }),
        channels: target.channels,
        progress: progressFor(extra),
        manifest: TOOLS,
        session: parts.owner,
        invoke,
        audit,
      };
    };
    // A nested call cannot nest again.
    const noNesting: ActingContext["invoke"] = (nested) =>
      Promise.resolve(
        errorResult(new ToolError("tool_denied", `${nested} cannot be called from a nested call`)),
      );
    const health = (h: string) => host.remotes.get(h)?.health;
    const nestedHosts: HostCalls = {
      remotes,
      health,
      context: (h, args, tool) => on(h, args, tool, noNesting),
    };
    const invoke: ActingContext["invoke"] = (nested, args) => {
      const target = byName.get(nested);
      return target ? callOnHosts(target, args, nestedHosts, log) : Promise.resolve(denied(nested));
    };
    const hosts: HostCalls = {
      remotes,
      health,
      context: (h, args, tool) => on(h, args, tool, invoke),
    };
    // A hint naming a tool this session does not serve says how to enable it (§4).
    const result = await callOnHosts(spec, request.params.arguments ?? {}, hosts, log);
    return resultForSurface(result, enabled, config);
  };
}

/** Ask the person through the client (MCP elicitation, docs/design.md §6.11) for one call. */
function elicitFor(
  { server, config, log }: SessionParts,
  extra: { signal: AbortSignal; requestId: string | number },
): Elicit {
  return async (message, requestedSchema) => {
    try {
      const result = await server.elicitInput({ mode: "form", message, requestedSchema }, {
        signal: extra.signal,
        timeout: config.askTimeoutMs,
        relatedRequestId: extra.requestId,
      });
      return result.action === "accept"
        ? { action: "accept", content: result.content ?? {} }
        : { action: result.action };
    } catch (error) {
      if (extra.signal.aborted) {
        throw new ToolError("cancelled", "the call was cancelled while the person was asked");
      }
      // The SDK cancels the request at the client when it times out.
      if (error instanceof McpError && error.code === JsonRpcErrorCode.RequestTimeout) {
        return { action: "timeout" };
      }
      const reason = error instanceof McpError ? `error ${error.code}` : "no valid answer";
      log(`elicitation failed: ${(error as Error)?.message ?? error}`);
      return { action: "failed", reason };
    }
  };
}
