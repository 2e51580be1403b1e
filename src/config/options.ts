/**
 * The option table: every flag once, with its variables, help and how its value is checked
 * (docs/design.md §4). parse.ts derives `parseArgs` options and the environment reading from it,
 * help.ts the `--help` text. Order matters: it is the order of `--help`, of the "valid options"
 * list, and of validation (the first invalid value is the one reported).
 */
import { parseSshSpecs, SshSpecError } from "../tmux/ssh/destination.ts";
import {
  type Bounds,
  type Config,
  ConfigError,
  DEFAULT_TOOLSETS,
  type Sourced,
  TOOLSET_NAMES,
  TOOLSETS,
} from "./types.ts";
import {
  bounded,
  hostList,
  httpAddress,
  httpToken,
  nonEmpty,
  originList,
  switchValue,
  toolList,
  toolsetList,
} from "./values.ts";

/** Bounds of `--wait-max-ms`: the ceiling of every wait, which descriptions state. */
export const WAIT_MAX_MS = { default: 30_000, min: 1_000, max: 600_000 } as const;

/** Bounds of `--http-idle-ms`: how long an HTTP session may sit unused before it is closed. */
const HTTP_IDLE_MS = { default: 600_000, min: 10_000, max: 86_400_000 } as const;

/** Bounds of `--http-max-sessions`: HTTP sessions open at once. */
const HTTP_MAX_SESSIONS = { default: 16, min: 1, max: 256 } as const;

/** Shortest `--http-token` accepted (a generated one is 43 characters). */
const HTTP_TOKEN_MIN = 16;

/** Bounds of `--ask-timeout-ms`: how long a person has to answer (docs/design.md §6.11). */
export const ASK_TIMEOUT_MS = { default: 120_000, min: 1_000, max: 600_000 } as const;

/** Bounds of `--record-file-bytes`: one recording file's size before it continues in a new part. */
const RECORD_FILE_BYTES = { default: 64 << 20, min: 4_096, max: 1 << 30 } as const;

/** Bounds of `--record-dir-bytes`: the recording directory's size before its oldest files go. */
const RECORD_DIR_BYTES = { default: 1 << 30, min: 16_384, max: 2 ** 40 } as const;

/** What an option reads, given to its `apply` by parse.ts (control characters already refused). */
export interface OptionInput {
  /** The flag: its text (each text of a repeated one), `true` for a given switch, or undefined. */
  flag(): string | string[] | boolean | undefined;
  /** The first of the flag and the variables (in table order) that is set, and its name. */
  pick(): Sourced;
}

/** What an option's value is checked against besides itself. */
export interface OptionContext {
  /** Every tool name of the surface. */
  readonly tools: ReadonlySet<string>;
  /** The `--http` address; set only for the options of scope `http`. */
  readonly http?: NonNullable<Config["http"]>;
  /** The `--record` directory and caps so far; set only for the options of scope `record`. */
  readonly record?: NonNullable<Config["record"]>;
}

/** Fields of {@link Config} an option sets. */
export type ConfigPart = { -readonly [K in keyof Config]?: Config[K] };

/**
 * One option. `scope` says how parse.ts treats it: `socket` options are resolved together, level by
 * level (socket.ts); `setting` options are applied in order; `http` ones need `--http`, and their
 * variables are read only with it; `ssh` ones need `--ssh` and `record` ones `--record`; `action`
 * ones: help and version stop parsing, check parses the rest and asks for the doctor instead of
 * the server.
 */
export interface OptionSpec {
  /** The long flag, without `--`. */
  readonly name: string;
  /** The one-letter flag, if any. */
  readonly short?: string;
  /** `boolean` for a switch that takes no value. */
  readonly type: "string" | "boolean";
  /** The value's placeholder in `--help`. */
  readonly arg?: string;
  /** The variables, in precedence order: `TMUX_MCP_*`, then the `LIBTMUX_*` alias. */
  readonly env: readonly string[];
  /** How `--help` writes the variable of a switch (its value that means the flag). */
  readonly envHelp?: string;
  /** The `--help` description, one entry a line. */
  readonly help: readonly string[];
  readonly scope: "socket" | "setting" | "http" | "ssh" | "record" | "action";
  /** The flag may be given more than once (`--ssh`). */
  readonly multiple?: true;
  /** The option's fields of {@link Config}, checked; absent for `socket` and `action`. */
  readonly apply?: (input: OptionInput, context: OptionContext) => ConfigPart;
}

/** A switch: the flag sets `field` to `flagged`, else the variable does, else `fallback`. */
function switched(
  field: "live" | "allowWatchedPanes" | "ask",
  flagged: boolean,
  fallback: boolean,
): OptionSpec["apply"] {
  return (input) => {
    if (input.flag()) return { [field]: flagged };
    const { source, value } = input.pick();
    return { [field]: switchValue(source, value, fallback) };
  };
}

/** A number within `bounds`. */
function number(
  field: "waitMaxMs" | "askTimeoutMs" | "httpIdleMs" | "httpMaxSessions",
  bounds: Bounds,
  unit: string,
): OptionSpec["apply"] {
  return (input) => ({ [field]: bounded(input.pick(), bounds, unit) });
}

const range = (b: Bounds) => `${b.min}..${b.max}`;

/** `--ssh`: every flag given, else the variable's values separated by whitespace. */
function sshHosts(input: OptionInput): ConfigPart {
  const given = input.flag();
  const { source, value } = input.pick();
  const texts = Array.isArray(given) ? given : value?.trim().split(/\s+/).filter((t) => t) ?? [];
  try {
    return { ssh: parseSshSpecs(texts) };
  } catch (error) {
    if (!(error instanceof SshSpecError)) throw error;
    // The table's sentences name `--ssh`; from the variable, they name it instead.
    throw new ConfigError(
      Array.isArray(given) ? error.message : error.message.replace(/^--ssh\b/, source),
    );
  }
}

/** Every option, in `--help` order. */
export const OPTIONS: readonly OptionSpec[] = [
  {
    name: "socket-name",
    short: "L",
    type: "string",
    arg: "NAME",
    env: ["TMUX_MCP_SOCKET_NAME", "LIBTMUX_SOCKET"],
    help: ["tmux socket name (tmux -L)"],
    scope: "socket",
  },
  {
    name: "socket-path",
    short: "S",
    type: "string",
    arg: "PATH",
    env: ["TMUX_MCP_SOCKET_PATH", "LIBTMUX_SOCKET_PATH"],
    help: ["tmux socket path (tmux -S)"],
    scope: "socket",
  },
  {
    name: "toolsets",
    type: "string",
    arg: "LIST",
    env: ["TMUX_MCP_TOOLSETS", "LIBTMUX_TOOLSETS"],
    help: [
      `comma list of ${TOOLSET_NAMES.join(", ")}; "" = none`,
      `(default ${DEFAULT_TOOLSETS.join(",")}: the everyday tools; all: ${TOOLSETS.join(",")})`,
    ],
    scope: "setting",
    apply: (input) => ({ toolsets: toolsetList(input.pick(), DEFAULT_TOOLSETS) }),
  },
  {
    name: "tools",
    type: "string",
    arg: "LIST",
    env: ["TMUX_MCP_TOOLS", "LIBTMUX_TOOLS"],
    help: ["add tools by name"],
    scope: "setting",
    apply: (input, { tools }) => ({ tools: toolList(input.pick(), tools) }),
  },
  {
    name: "exclude-tools",
    type: "string",
    arg: "LIST",
    env: ["TMUX_MCP_EXCLUDE_TOOLS", "LIBTMUX_EXCLUDE_TOOLS"],
    help: ["remove tools by name (wins)"],
    scope: "setting",
    apply: (input, { tools }) => ({ excludeTools: toolList(input.pick(), tools) }),
  },
  {
    name: "wait-max-ms",
    type: "string",
    arg: "N",
    env: ["TMUX_MCP_WAIT_MAX_MS"],
    help: [
      `ceiling for every wait, ${range(WAIT_MAX_MS)} (default ${WAIT_MAX_MS.default} = ${
        WAIT_MAX_MS.default / 1_000
      } s)`,
      "the waiting tools' descriptions state it",
    ],
    scope: "setting",
    apply: number("waitMaxMs", WAIT_MAX_MS, "milliseconds"),
  },
  {
    name: "no-live",
    type: "boolean",
    env: ["TMUX_MCP_LIVE"],
    envHelp: "TMUX_MCP_LIVE=0",
    help: ["no control-mode connections"],
    scope: "setting",
    apply: switched("live", false, true),
  },
  {
    name: "allow-watched-panes",
    type: "boolean",
    env: ["TMUX_MCP_ALLOW_WATCHED_PANES"],
    envHelp: "TMUX_MCP_ALLOW_WATCHED_PANES=1",
    help: ["let input and teardown reach panes a person is watching"],
    scope: "setting",
    apply: switched("allowWatchedPanes", true, false),
  },
  {
    name: "no-ask",
    type: "boolean",
    env: ["TMUX_MCP_ASK"],
    envHelp: "TMUX_MCP_ASK=0",
    help: ["refuse instead of asking the person (MCP elicitation)"],
    scope: "setting",
    apply: switched("ask", false, true),
  },
  {
    name: "ask-timeout-ms",
    type: "string",
    arg: "N",
    env: ["TMUX_MCP_ASK_TIMEOUT_MS"],
    help: [
      `how long a person has to answer, ${range(ASK_TIMEOUT_MS)}`,
      `(default ${ASK_TIMEOUT_MS.default})`,
    ],
    scope: "setting",
    apply: number("askTimeoutMs", ASK_TIMEOUT_MS, "milliseconds"),
  },
  {
    name: "http",
    type: "string",
    arg: "HOST:PORT",
    env: [],
    help: [
      "serve Streamable HTTP at http://HOST:PORT/mcp instead of stdio",
      "(a bare PORT binds to 127.0.0.1); needs --allow-net=HOST:PORT",
    ],
    scope: "setting",
    apply: (input) => {
      const http = httpAddress(input.flag() as string | undefined);
      return http ? { http } : {};
    },
  },
  {
    name: "http-token",
    type: "string",
    arg: "TOKEN",
    env: ["TMUX_MCP_HTTP_TOKEN"],
    help: [
      `bearer token clients must send, ${HTTP_TOKEN_MIN}+ characters; generated and`,
      "printed once when absent (required off loopback)",
    ],
    scope: "http",
    apply: (input, { http }) => {
      const token = httpToken(input.pick(), http!.host, HTTP_TOKEN_MIN);
      return token !== undefined ? { httpToken: token } : {};
    },
  },
  {
    name: "http-allowed-hosts",
    type: "string",
    arg: "LIST",
    env: ["TMUX_MCP_HTTP_ALLOWED_HOSTS"],
    help: ["more Host names to accept (NAME or NAME:PORT)"],
    scope: "http",
    apply: (input) => ({ httpAllowedHosts: hostList(input.pick()) }),
  },
  {
    name: "http-allowed-origins",
    type: "string",
    arg: "LIST",
    env: ["TMUX_MCP_HTTP_ALLOWED_ORIGINS"],
    help: ["more Origins to accept (scheme://host:port)"],
    scope: "http",
    apply: (input) => ({ httpAllowedOrigins: originList(input.pick()) }),
  },
  {
    name: "http-idle-ms",
    type: "string",
    arg: "N",
    env: ["TMUX_MCP_HTTP_IDLE_MS"],
    help: [
      `close a session unused this long, ${range(HTTP_IDLE_MS)} (default ${HTTP_IDLE_MS.default})`,
    ],
    scope: "http",
    apply: number("httpIdleMs", HTTP_IDLE_MS, "ms"),
  },
  {
    name: "http-max-sessions",
    type: "string",
    arg: "N",
    env: ["TMUX_MCP_HTTP_MAX_SESSIONS"],
    help: [
      `sessions open at once, ${range(HTTP_MAX_SESSIONS)} (default ${HTTP_MAX_SESSIONS.default})`,
    ],
    scope: "http",
    apply: number("httpMaxSessions", HTTP_MAX_SESSIONS, "sessions"),
  },
  {
    name: "ssh",
    type: "string",
    arg: "NAME=DEST",
    multiple: true,
    env: ["TMUX_MCP_SSH"],
    help: [
      "reach tmux on a remote host over ssh, as NAME (repeatable; the variable",
      "takes a space-separated list); DEST[,socket-name=N|,socket-path=P]",
      "needs --allow-run=tmux,ssh (deno task start:ssh)",
    ],
    scope: "setting",
    apply: sshHosts,
  },
  {
    name: "ssh-config",
    type: "string",
    arg: "PATH",
    env: ["TMUX_MCP_SSH_CONFIG"],
    help: ["pass -F PATH to every ssh (default: ssh's own lookup)"],
    scope: "ssh",
    apply: (input) => {
      const { value } = input.pick();
      return value === undefined ? {} : { sshConfig: nonEmpty(input.pick()) };
    },
  },
  {
    name: "ssh-control-dir",
    type: "string",
    arg: "DIR",
    env: ["TMUX_MCP_SSH_CONTROL_DIR"],
    help: ["where ssh keeps the connection sockets (default ~/.ssh; private to you)"],
    scope: "ssh",
    apply: (input) => {
      const { value } = input.pick();
      return value === undefined ? {} : { sshControlDir: nonEmpty(input.pick()) };
    },
  },
  {
    name: "record",
    type: "string",
    arg: "DIR",
    env: ["TMUX_MCP_RECORD"],
    help: [
      "keep an action log and asciicast recordings of the panes touched in DIR",
      "(they hold everything typed, secrets too); needs --allow-read=DIR",
      "--allow-write=DIR (deno task start:record); a compiled binary cannot record",
    ],
    scope: "setting",
    apply: (input) => {
      const { value } = input.pick();
      if (value === undefined) return {};
      const dir = nonEmpty(input.pick());
      return {
        record: {
          dir,
          fileBytes: RECORD_FILE_BYTES.default,
          dirBytes: RECORD_DIR_BYTES.default,
        },
      };
    },
  },
  {
    name: "record-file-bytes",
    type: "string",
    arg: "N",
    env: ["TMUX_MCP_RECORD_FILE_BYTES"],
    help: [
      `one recording file's size before it goes on in a new part, ${range(RECORD_FILE_BYTES)}`,
      `(default ${RECORD_FILE_BYTES.default})`,
    ],
    scope: "record",
    apply: (input, { record }) => ({
      record: { ...record!, fileBytes: bounded(input.pick(), RECORD_FILE_BYTES, "bytes") },
    }),
  },
  {
    name: "record-dir-bytes",
    type: "string",
    arg: "N",
    env: ["TMUX_MCP_RECORD_DIR_BYTES"],
    help: [
      `DIR's size before its oldest closed files are removed, ${range(RECORD_DIR_BYTES)}`,
      `(default ${RECORD_DIR_BYTES.default})`,
    ],
    scope: "record",
    apply: (input, { record }) => ({
      record: { ...record!, dirBytes: bounded(input.pick(), RECORD_DIR_BYTES, "bytes") },
    }),
  },
  {
    name: "check",
    type: "boolean",
    env: [],
    help: [
      "check the setup instead of serving: tmux, the socket and who is attached,",
      "the permissions granted, each --ssh host; exit 0, or 1 with a fix per problem",
    ],
    scope: "action",
  },
  { name: "help", short: "h", type: "boolean", env: [], help: ["show this help"], scope: "action" },
  {
    name: "version",
    short: "V",
    type: "boolean",
    env: [],
    help: ["print the version"],
    scope: "action",
  },
];
