/** The vocabulary of configuration: toolsets, the {@link Config} shape and its one error type. */
import type { SocketSpec } from "../tmux/core/argv.ts";
import type { SshHostSpec } from "../tmux/ssh/destination.ts";

/** The four toolsets, in display order. */
export const TOOLSETS = ["inspect", "manage", "execute", "teardown"] as const;
/** One toolset name. */
export type Toolset = typeof TOOLSETS[number];
/**
 * `core`: a preset across the four toolsets, the tools whose spec says `core: true` (the everyday
 * loop, docs/design.md §4). It combines with the toolsets (`core,manage`); each tool still belongs
 * to exactly one of the four.
 */
export const CORE = "core";
/** One name `--toolsets` accepts: the core preset or a toolset. */
export type ToolsetName = "core" | Toolset;
/** What `--toolsets` accepts: the preset, then the four toolsets, in display order. */
export const TOOLSET_NAMES: readonly ToolsetName[] = [CORE, ...TOOLSETS];
/** Toolsets enabled when nothing is configured: the core preset alone. */
export const DEFAULT_TOOLSETS: readonly ToolsetName[] = [CORE];

/** The validated configuration of one server. */
export interface Config {
  /** The tmux server every call is pinned to. */
  readonly socket: SocketSpec;
  /** Where the socket choice came from, for the startup line and capabilities. */
  readonly socketSource: "flag" | "env" | "tmux-env" | "default";
  /** Toolsets whose tools are served, and `core` when the preset's tools are. */
  readonly toolsets: readonly ToolsetName[];
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
  /** Remote hosts reached over ssh (`--ssh`, docs/design.md §5.15); empty without. */
  readonly ssh: readonly SshHostSpec[];
  /** `--ssh-config`: passed to every ssh as `-F`. */
  readonly sshConfig?: string;
  /** `--ssh-control-dir`: where ssh puts the masters' sockets (`~/.ssh` by default). */
  readonly sshControlDir?: string;
  /**
   * `--record DIR`: the action log and pane recordings of every session go there, with their caps
   * (docs/design.md §11); absent, nothing is recorded.
   */
  readonly record?: {
    readonly dir: string;
    readonly fileBytes: number;
    readonly dirBytes: number;
  };
}

/** What the command line asks for. */
export type ParseOutcome =
  | { kind: "run"; config: Config }
  /** `--check`: the doctor looks at what a server of this configuration would find. */
  | { kind: "check"; config: Config }
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

/** A configured value and where it came from (a flag or a variable name), so errors blame it. */
export interface Sourced {
  readonly source: string;
  readonly value: string | undefined;
}

/** Inclusive bounds and default of a numeric option. */
export interface Bounds {
  readonly default: number;
  readonly min: number;
  readonly max: number;
}
