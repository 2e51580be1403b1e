/**
 * Configuration: flags, `TMUX_MCP_*` environment and `LIBTMUX_*` aliases folded into one frozen,
 * validated {@link Config} (docs/design.md §4). Precedence: flag > `TMUX_MCP_*` > `LIBTMUX_*`.
 * Any invalid input is a {@link ConfigError} whose message is one line naming what is valid.
 */
import { parseArgs } from "node:util";
import type { EnvReader, SocketSpec } from "./tmux/command.ts";
import { callerIdentity } from "./tmux/targets.ts";

/** The four toolsets, in display order. */
export const TOOLSETS = ["inspect", "manage", "execute", "teardown"] as const;
/** One toolset name. */
export type Toolset = typeof TOOLSETS[number];
/** Toolsets enabled when nothing is configured. */
export const DEFAULT_TOOLSETS: readonly Toolset[] = ["inspect", "manage", "execute"];

/** Bounds of `--wait-max-ms`. */
export const WAIT_MAX_MS = { default: 30_000, min: 1_000, max: 600_000 } as const;

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
  /** `--http HOST:PORT`, when given. */
  readonly http?: { readonly host: string; readonly port: number };
  /** The bearer token for `--http`. */
  readonly httpToken?: string;
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

/** Every tool name this server knows, by toolset (the planned surface, built or not). */
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
  help: { type: "boolean", short: "h" },
  version: { type: "boolean", short: "V" },
} as const;

const VALID_FLAGS = Object.keys(OPTIONS).map((k) => `--${k}`).join(", ");

/** `--help` text. */
export function helpText(version: string): string {
  return `tmux-mcp ${version} — an MCP server (stdio) that lets AI agents observe and drive tmux safely.

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
      --http HOST:PORT       Streamable HTTP instead of stdio (not available in this build)
      --http-token TOKEN     bearer token for --http         env TMUX_MCP_HTTP_TOKEN
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
  const httpToken = pick("http-token", "TMUX_MCP_HTTP_TOKEN").value;
  if (flagValue("http-token") !== undefined && !http) {
    throw new ConfigError("--http-token needs --http HOST:PORT");
  }

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
    ...(http && httpToken !== undefined ? { httpToken } : {}),
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
  const match = /^(\[[0-9a-fA-F:.]+\]|[A-Za-z0-9.-]+):(\d{1,5})$/.exec(value);
  const port = match ? Number(match[2]) : NaN;
  if (!match || !(port >= 1 && port <= 65535)) {
    throw new ConfigError(
      "--http must be HOST:PORT, e.g. 127.0.0.1:8765 or [::1]:8765 (port 1..65535)",
    );
  }
  return { host: match[1], port };
}

function deepFreeze<T>(value: T): T {
  if (value && typeof value === "object") {
    for (const v of Object.values(value)) deepFreeze(v);
    Object.freeze(value);
  }
  return value;
}
