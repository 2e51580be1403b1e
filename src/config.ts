/**
 * Configuration: flags, `TMUX_MCP_*` environment and `LIBTMUX_*` aliases folded into one frozen,
 * validated {@link Config} (docs/design.md §4). Precedence: flag > `TMUX_MCP_*` > `LIBTMUX_*`.
 * Any invalid input is a {@link ConfigError} whose message is one line naming what is valid.
 */
import { parseArgs } from "node:util";
import type { SocketSpec } from "./tmux/argv.ts";
import type { EnvReader } from "./tmux/command.ts";
import { callerIdentity } from "./tmux/targets.ts";

/** The four toolsets, in display order. */
export const TOOLSETS = ["inspect", "manage", "execute", "teardown"] as const;
/** One toolset name. */
export type Toolset = typeof TOOLSETS[number];
/** Toolsets enabled when nothing is configured. */
export const DEFAULT_TOOLSETS: readonly Toolset[] = ["inspect", "manage", "execute"];

/** Bounds of `--wait-max-ms`. */
export const WAIT_MAX_MS = { default: 30_000, min: 1_000, max: 600_000 } as const;

/** Bounds of `--http-idle-ms`: how long an HTTP session may sit unused before it is closed. */
export const HTTP_IDLE_MS = { default: 600_000, min: 10_000, max: 86_400_000 } as const;

/** Bounds of `--http-max-sessions`: HTTP sessions open at once. */
export const HTTP_MAX_SESSIONS = { default: 16, min: 1, max: 256 } as const;

/** Shortest `--http-token` accepted (a generated one is 43 characters). */
export const HTTP_TOKEN_MIN = 16;

/** Bounds of `--ask-timeout-ms`: how long a person has to answer (docs/design.md §6.11). */
export const ASK_TIMEOUT_MS = { default: 120_000, min: 1_000, max: 600_000 } as const;

/** The validated configuration of one server. */
export interface Config {
  /** The tmux server every call is pinned to. */
  readonly socket: SocketSpec;
  /** Where the socket choice came from, for the startup line and capabilities. */
  readonly socketSource: "flag" | "env" | "tmux-env" | "default";
  /** Toolsets whose tools are served. */
  readonly toolsets: readonly Toolset[];
  /** Tools added one by one (`--tools`). */
  readonly tools: readonly string[];
  /** Tools removed (`--exclude-tools`); wins over both of the above. */
  readonly excludeTools: readonly string[];
  /** The ceiling of every wait, in milliseconds. */
  readonly waitMaxMs: number;
  /** Whether panes are streamed over control-mode connections (`--no-live` turns it off). */
  readonly live: boolean;
  /** Whether a person allowed input to panes they are watching. */
  readonly allowWatchedPanes: boolean;
  /** Whether a person may be asked instead of refusing (`--no-ask` turns it off). */
  readonly ask: boolean;
  /** How long a person has to answer a question, in milliseconds. */
  readonly askTimeoutMs: number;
  /** `--http HOST:PORT`, when given (a bare port binds to 127.0.0.1). */
  readonly http?: { readonly host: string; readonly port: number };
  /** The bearer token for `--http`; absent means one is generated at start. */
  readonly httpToken?: string;
  /** Extra Host names accepted over HTTP (`--http-allowed-hosts`), lower case. */
  readonly httpAllowedHosts?: readonly string[];
  /** Extra Origins accepted over HTTP (`--http-allowed-origins`), as URL origins. */
  readonly httpAllowedOrigins?: readonly string[];
  /** How long an HTTP session may sit unused before it is closed, in milliseconds. */
  readonly httpIdleMs?: number;
  /** HTTP sessions open at once; one more is refused with 503. */
  readonly httpMaxSessions?: number;
}

/** What the command line asks for. */
export type ParseOutcome =
  | { kind: "run"; config: Config }
  | { kind: "help" }
  | { kind: "version" };

/** Invalid configuration; `message` is a single line fit for stderr. */
export class ConfigError extends Error {
  /** A one-line message naming what is wrong and what is valid. */
  constructor(message: string) {
    super(message);
    this.name = "ConfigError";
  }
}

/** Every tool name this server knows, by toolset (the catalog derives it from the manifest). */
export type Surface = Readonly<Record<Toolset, readonly string[]>>;

const OPTIONS = {
  "socket-name": { type: "string", short: "L" },
  "socket-path": { type: "string", short: "S" },
  toolsets: { type: "string" },
  tools: { type: "string" },
  "exclude-tools": { type: "string" },
  "wait-max-ms": { type: "string" },
  "no-live": { type: "boolean" },
  "allow-watched-panes": { type: "boolean" },
  "no-ask": { type: "boolean" },
  "ask-timeout-ms": { type: "string" },
  http: { type: "string" },
  "http-token": { type: "string" },
  "http-allowed-hosts": { type: "string" },
  "http-allowed-origins": { type: "string" },
  "http-idle-ms": { type: "string" },
  "http-max-sessions": { type: "string" },
  help: { type: "boolean", short: "h" },
  version: { type: "boolean", short: "V" },
} as const;

const VALID_FLAGS = Object.keys(OPTIONS).map((k) => `--${k}`).join(", ");

/** `--help` text. */
export function helpText(version: string): string {
  return `tmux-mcp ${version} — an MCP server (stdio, or Streamable HTTP) that lets AI agents observe and drive tmux safely.

Usage: tmux-mcp [options]

  -L, --socket-name NAME     tmux socket name (tmux -L)     env TMUX_MCP_SOCKET_NAME, LIBTMUX_SOCKET
  -S, --socket-path PATH     tmux socket path (tmux -S)     env TMUX_MCP_SOCKET_PATH, LIBTMUX_SOCKET_PATH
      --toolsets LIST        comma list of ${TOOLSETS.join(", ")}; "" = none
                             (default ${
    DEFAULT_TOOLSETS.join(",")
  })   env TMUX_MCP_TOOLSETS, LIBTMUX_TOOLSETS
      --tools LIST           add tools by name               env TMUX_MCP_TOOLS, LIBTMUX_TOOLS
      --exclude-tools LIST   remove tools by name (wins)     env TMUX_MCP_EXCLUDE_TOOLS, LIBTMUX_EXCLUDE_TOOLS
      --wait-max-ms N        ceiling for every wait, ${WAIT_MAX_MS.min}..${WAIT_MAX_MS.max} (default ${WAIT_MAX_MS.default})
                             env TMUX_MCP_WAIT_MAX_MS
      --no-live              no control-mode connections     env TMUX_MCP_LIVE=0
      --allow-watched-panes  let input and teardown reach panes a person is watching
                             env TMUX_MCP_ALLOW_WATCHED_PANES=1
      --no-ask               refuse instead of asking the person (MCP elicitation)
                             env TMUX_MCP_ASK=0
      --ask-timeout-ms N     how long a person has to answer, ${ASK_TIMEOUT_MS.min}..${ASK_TIMEOUT_MS.max}
                             (default ${ASK_TIMEOUT_MS.default})   env TMUX_MCP_ASK_TIMEOUT_MS
      --http HOST:PORT       serve Streamable HTTP at http://HOST:PORT/mcp instead of stdio
                             (a bare PORT binds to 127.0.0.1); needs --allow-net=HOST:PORT
      --http-token TOKEN     bearer token clients must send, ${HTTP_TOKEN_MIN}+ characters; generated and
                             printed once when absent (required off loopback)  env TMUX_MCP_HTTP_TOKEN
      --http-allowed-hosts LIST    more Host names to accept (NAME or NAME:PORT)
                             env TMUX_MCP_HTTP_ALLOWED_HOSTS
      --http-allowed-origins LIST  more Origins to accept (scheme://host:port)
                             env TMUX_MCP_HTTP_ALLOWED_ORIGINS
      --http-idle-ms N       close a session unused this long, ${HTTP_IDLE_MS.min}..${HTTP_IDLE_MS.max} (default ${HTTP_IDLE_MS.default})
                             env TMUX_MCP_HTTP_IDLE_MS
      --http-max-sessions N  sessions open at once, ${HTTP_MAX_SESSIONS.min}..${HTTP_MAX_SESSIONS.max} (default ${HTTP_MAX_SESSIONS.default})
                             env TMUX_MCP_HTTP_MAX_SESSIONS
  -h, --help                 show this help
  -V, --version              print the version

Without a socket option: inside tmux, the server of $TMUX; otherwise tmux's default socket.
Flags win over TMUX_MCP_* variables, which win over LIBTMUX_* aliases.
`;
}

/** Parse and validate argv and environment against the known tool surface. */
export function parseConfig(
  argv: readonly string[],
  env: EnvReader,
  surface: Surface,
): ParseOutcome {
  let values: Record<string, string | boolean | undefined>;
  try {
    const parsed = parseArgs({
      args: [...argv],
      options: OPTIONS,
      strict: true,
      allowPositionals: false,
    });
    values = parsed.values;
  } catch (error) {
    throw new ConfigError(`${describeParseError(error)}; valid options: ${VALID_FLAGS}`);
  }
  if (values.help) return { kind: "help" };
  if (values.version) return { kind: "version" };

  const flagValue = (name: string) => {
    const v = values[name];
    return typeof v === "string" ? checked(`--${name}`, v) : undefined;
  };
  const envValue = (name: string) => {
    const v = env(name);
    return v === undefined ? undefined : checked(name, v);
  };
  /** The winning value and the name of its source, so errors blame the right flag or variable. */
  const pick = (flagName: string, envName: string, alias?: string): Sourced => {
    for (
      const [source, value] of [
        [`--${flagName}`, flagValue(flagName)],
        [envName, envValue(envName)],
        ...(alias ? [[alias, envValue(alias)]] : []),
      ] as Array<[string, string | undefined]>
    ) {
      if (value !== undefined) return { source, value };
    }
    return { source: `--${flagName}`, value: undefined };
  };

  // An empty socket variable (common in client config templates) means "not set".
  const socketEnv = (name: string) => envValue(name) || undefined;
  const { socket, socketSource } = resolveSocket(flagValue, socketEnv, env);

  const allTools = new Set(TOOLSETS.flatMap((t) => surface[t]));
  const toolsets = parseToolsets(pick("toolsets", "TMUX_MCP_TOOLSETS", "LIBTMUX_TOOLSETS"));
  const tools = parseToolNames(pick("tools", "TMUX_MCP_TOOLS", "LIBTMUX_TOOLS"), allTools);
  const excludeTools = parseToolNames(
    pick("exclude-tools", "TMUX_MCP_EXCLUDE_TOOLS", "LIBTMUX_EXCLUDE_TOOLS"),
    allTools,
  );
  const waitMaxMs = parseWaitMax(pick("wait-max-ms", "TMUX_MCP_WAIT_MAX_MS"));
  const live = values["no-live"]
    ? false
    : parseBool("TMUX_MCP_LIVE", envValue("TMUX_MCP_LIVE"), true);
  const allowWatchedPanes = values["allow-watched-panes"]
    ? true
    : parseBool("TMUX_MCP_ALLOW_WATCHED_PANES", envValue("TMUX_MCP_ALLOW_WATCHED_PANES"), false);
  const ask = values["no-ask"] ? false : parseBool("TMUX_MCP_ASK", envValue("TMUX_MCP_ASK"), true);
  const askTimeoutMs = parseMs(pick("ask-timeout-ms", "TMUX_MCP_ASK_TIMEOUT_MS"), ASK_TIMEOUT_MS);
  const http = parseHttp(flagValue("http"));
  for (
    const name of [
      "http-token",
      "http-allowed-hosts",
      "http-allowed-origins",
      "http-idle-ms",
      "http-max-sessions",
    ]
  ) {
    if (flagValue(name) !== undefined && !http) {
      throw new ConfigError(`--${name} needs --http HOST:PORT`);
    }
  }
  // The HTTP variables are read only with --http: a stdio server ignores them.
  const httpOptions = http ? parseHttpOptions(http, pick) : {};

  const config: Config = {
    socket,
    socketSource,
    toolsets,
    tools,
    excludeTools,
    waitMaxMs,
    live,
    allowWatchedPanes,
    ask,
    askTimeoutMs,
    ...(http ? { http } : {}),
    ...httpOptions,
  };
  return { kind: "run", config: deepFreeze(config) };
}

function describeParseError(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  const raw = /'(-[^']*)'/.exec(message)?.[1];
  // The option text is the user's; keep the line single and short.
  // deno-lint-ignore no-control-regex -- control characters are exactly what we strip
  const option = raw === undefined ? undefined : raw.replace(/[\x00-\x1f\x7f]/g, "?").slice(0, 40);
  if (/Unknown option/.test(message)) return `unknown option ${option ?? ""}`.trim();
  if (/argument missing/.test(message)) return `option ${option ?? ""} needs a value`;
  if (/positional/i.test(message)) return "unexpected argument (this server takes only options)";
  return message.split("\n")[0];
}

function checked(name: string, value: string): string {
  // deno-lint-ignore no-control-regex -- control characters are exactly what we refuse
  if (/[\x00-\x1f\x7f]/.test(value)) {
    throw new ConfigError(`${name} contains a control character; use printable text only`);
  }
  return value;
}

function resolveSocket(
  flagValue: (n: string) => string | undefined,
  envValue: (n: string) => string | undefined,
  env: EnvReader,
): { socket: SocketSpec; socketSource: Config["socketSource"] } {
  const levels: Array<[Config["socketSource"], string | undefined, string | undefined, string]> = [
    ["flag", flagValue("socket-name"), flagValue("socket-path"), "--socket-name and --socket-path"],
    [
      "env",
      envValue("TMUX_MCP_SOCKET_NAME"),
      envValue("TMUX_MCP_SOCKET_PATH"),
      "TMUX_MCP_SOCKET_NAME and TMUX_MCP_SOCKET_PATH",
    ],
    [
      "env",
      envValue("LIBTMUX_SOCKET"),
      envValue("LIBTMUX_SOCKET_PATH"),
      "LIBTMUX_SOCKET and LIBTMUX_SOCKET_PATH",
    ],
  ];
  for (const [source, name, path, both] of levels) {
    if (name !== undefined && path !== undefined) {
      throw new ConfigError(`${both} are exclusive; give a socket name or a socket path, not both`);
    }
    if (name !== undefined) {
      if (name === "" || name.includes("/")) {
        throw new ConfigError(
          "socket name must be non-empty and contain no '/'; use --socket-path for a path",
        );
      }
      return { socket: { kind: "name", name }, socketSource: source };
    }
    if (path !== undefined) {
      if (path === "") throw new ConfigError("socket path must not be empty");
      return { socket: { kind: "path", path }, socketSource: source };
    }
  }
  // Inside tmux, pin the server we were started from by its socket path.
  const caller = callerIdentity(env("TMUX"), env("TMUX_PANE"));
  if (caller) {
    return { socket: { kind: "path", path: caller.socketPath }, socketSource: "tmux-env" };
  }
  return { socket: { kind: "default" }, socketSource: "default" };
}

function splitList(value: string): string[] {
  return value.split(",").map((s) => s.trim()).filter((s) => s !== "");
}

/** A configured value and where it came from (a flag or a variable name). */
interface Sourced {
  source: string;
  value: string | undefined;
}

function parseToolsets({ source, value }: Sourced): readonly Toolset[] {
  if (value === undefined) return DEFAULT_TOOLSETS;
  const names = splitList(value);
  for (const name of names) {
    if (!(TOOLSETS as readonly string[]).includes(name)) {
      throw new ConfigError(
        `${source}: unknown toolset "${name.slice(0, 40)}"; valid toolsets: ${TOOLSETS.join(", ")}`,
      );
    }
  }
  return TOOLSETS.filter((t) => names.includes(t));
}

function parseToolNames({ source, value }: Sourced, known: Set<string>): string[] {
  if (value === undefined) return [];
  const names = [...new Set(splitList(value))];
  for (const name of names) {
    if (!known.has(name)) {
      throw new ConfigError(
        `${source}: unknown tool "${name.slice(0, 40)}"; valid tools: ${[...known].join(", ")}`,
      );
    }
  }
  return names;
}

function parseWaitMax({ source, value }: Sourced): number {
  if (value === undefined) return WAIT_MAX_MS.default;
  const n = /^\d+$/.test(value) ? Number(value) : NaN;
  if (!(n >= WAIT_MAX_MS.min && n <= WAIT_MAX_MS.max)) {
    throw new ConfigError(
      `${source} must be an integer from ${WAIT_MAX_MS.min} to ${WAIT_MAX_MS.max} (milliseconds)`,
    );
  }
  return n;
}

function parseMs(
  { source, value }: Sourced,
  bounds: { default: number; min: number; max: number },
): number {
  if (value === undefined) return bounds.default;
  const n = /^\d+$/.test(value) ? Number(value) : NaN;
  if (!(n >= bounds.min && n <= bounds.max)) {
    throw new ConfigError(
      `${source} must be an integer from ${bounds.min} to ${bounds.max} (milliseconds)`,
    );
  }
  return n;
}

function parseBool(name: string, value: string | undefined, fallback: boolean): boolean {
  if (value === undefined || value === "") return fallback;
  const v = value.toLowerCase();
  if (["1", "true", "yes", "on"].includes(v)) return true;
  if (["0", "false", "no", "off"].includes(v)) return false;
  throw new ConfigError(`${name} must be 1 or 0 (also true/false, yes/no, on/off)`);
}

function parseHttp(value: string | undefined): Config["http"] {
  if (value === undefined) return undefined;
  // A bare port binds to loopback: the safe default (docs/design.md §2.4).
  const match = /^(?:(\[[0-9a-fA-F:.]+\]|[A-Za-z0-9.-]+):)?(\d{1,5})$/.exec(value);
  const port = match ? Number(match[2]) : NaN;
  if (!match || !(port >= 1 && port <= 65535)) {
    throw new ConfigError(
      "--http must be HOST:PORT or PORT, e.g. 127.0.0.1:8765 or [::1]:8765 (port 1..65535)",
    );
  }
  return { host: (match[1] ?? "127.0.0.1").toLowerCase(), port };
}

/** Whether a `--http` host is a loopback address: 127.0.0.0/8, `[::1]` or `localhost`. */
export function isLoopbackHost(host: string): boolean {
  return host === "localhost" || host === "[::1]" || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(host);
}

/** The HTTP-only fields of {@link Config}: token, allowed hosts and origins, session limits. */
function parseHttpOptions(
  http: NonNullable<Config["http"]>,
  pick: (flagName: string, envName: string) => Sourced,
): Partial<Config> {
  const token = pick("http-token", "TMUX_MCP_HTTP_TOKEN");
  if (token.value !== undefined && !/^[\x21-\x7e]+$/.test(token.value)) {
    throw new ConfigError(`${token.source} must be printable ASCII without spaces`);
  }
  if (token.value !== undefined && token.value.length < HTTP_TOKEN_MIN) {
    throw new ConfigError(`${token.source} must be at least ${HTTP_TOKEN_MIN} characters`);
  }
  if (token.value === undefined && !isLoopbackHost(http.host)) {
    throw new ConfigError(
      `--http ${http.host} is not a loopback address: give --http-token (or TMUX_MCP_HTTP_TOKEN) ` +
        "explicitly, or bind to 127.0.0.1",
    );
  }
  return {
    ...(token.value !== undefined ? { httpToken: token.value } : {}),
    httpAllowedHosts: parseAllowedHosts(pick("http-allowed-hosts", "TMUX_MCP_HTTP_ALLOWED_HOSTS")),
    httpAllowedOrigins: parseAllowedOrigins(
      pick("http-allowed-origins", "TMUX_MCP_HTTP_ALLOWED_ORIGINS"),
    ),
    httpIdleMs: parseBounded(pick("http-idle-ms", "TMUX_MCP_HTTP_IDLE_MS"), HTTP_IDLE_MS, "ms"),
    httpMaxSessions: parseBounded(
      pick("http-max-sessions", "TMUX_MCP_HTTP_MAX_SESSIONS"),
      HTTP_MAX_SESSIONS,
      "sessions",
    ),
  };
}

function parseAllowedHosts({ source, value }: Sourced): string[] {
  if (value === undefined) return [];
  const hosts = splitList(value).map((h) => h.toLowerCase());
  for (const host of hosts) {
    if (!/^(\[[0-9a-f:.]+\]|[a-z0-9.-]+)(:\d{1,5})?$/.test(host)) {
      throw new ConfigError(
        `${source}: "${host.slice(0, 40)}" is not a host name; give NAME or NAME:PORT, ` +
          "e.g. mcp.example.com,host.docker.internal:8765",
      );
    }
  }
  return [...new Set(hosts)];
}

function parseAllowedOrigins({ source, value }: Sourced): string[] {
  if (value === undefined) return [];
  const origins = splitList(value);
  for (const origin of origins) {
    let parsed: URL | undefined;
    try {
      parsed = new URL(origin);
    } catch {
      parsed = undefined;
    }
    // An origin is exactly scheme://host[:port]: no path, no trailing slash, nothing else.
    if (!parsed || !/^https?:$/.test(parsed.protocol) || parsed.origin !== origin.toLowerCase()) {
      throw new ConfigError(
        `${source}: "${origin.slice(0, 60)}" is not an origin; give scheme://host[:port], ` +
          "e.g. https://mcp.example.com",
      );
    }
  }
  return [...new Set(origins.map((o) => o.toLowerCase()))];
}

function parseBounded(
  { source, value }: Sourced,
  bounds: { default: number; min: number; max: number },
  unit: string,
): number {
  if (value === undefined) return bounds.default;
  const n = /^\d+$/.test(value) ? Number(value) : NaN;
  if (!(n >= bounds.min && n <= bounds.max)) {
    throw new ConfigError(
      `${source} must be an integer from ${bounds.min} to ${bounds.max} (${unit})`,
    );
  }
  return n;
}

function deepFreeze<T>(value: T): T {
  if (value && typeof value === "object") {
    for (const v of Object.values(value)) deepFreeze(v);
    Object.freeze(value);
  }
  return value;
}
