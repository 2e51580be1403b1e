/**
 * argv and environment → one frozen, validated {@link Config} (docs/design.md §4), driven by the
 * option table: `parseArgs` options, which variables are read and in what precedence (flag >
 * `TMUX_MCP_*` > `LIBTMUX_*`) all come from {@link OPTIONS}.
 */
import { parseArgs } from "node:util";
import type { EnvReader } from "../tmux/core/runner.ts";
import {
  type ConfigPart,
  type OptionContext,
  type OptionInput,
  OPTIONS,
  type OptionSpec,
} from "./options.ts";
import { resolveSocket } from "./socket.ts";
import {
  type Config,
  ConfigError,
  type ParseOutcome,
  type Sourced,
  type Surface,
  TOOLSETS,
} from "./types.ts";
import { checked } from "./values.ts";

const PARSE_ARGS_OPTIONS = Object.fromEntries(
  OPTIONS.map((o) => [
    o.name,
    {
      type: o.type,
      ...(o.short ? { short: o.short } : {}),
      ...(o.multiple ? { multiple: true } : {}),
    },
  ]),
);

const VALID_FLAGS = OPTIONS.map((o) => `--${o.name}`).join(", ");

/**
 * Parse and validate argv and environment against the known tool surface. `cwd` resolves a
 * relative socket path once, here (Deno 2.9.6 answers `Deno.cwd()` without --allow-read).
 */
export function parseConfig(
  argv: readonly string[],
  env: EnvReader,
  surface: Surface,
  cwd: () => string = () => Deno.cwd(),
): ParseOutcome {
  const values = parseFlags(argv);
  if (values.help) return { kind: "help" };
  if (values.version) return { kind: "version" };

  const flag = (option: OptionSpec) => {
    const v = values[option.name];
    if (Array.isArray(v)) return v.map((text) => checked(`--${option.name}`, text));
    return typeof v === "string" ? checked(`--${option.name}`, v) : v;
  };
  /** Source `index` of an option: 0 its flag, then its variables. */
  const read = (option: OptionSpec, index: number): Sourced => {
    if (index === 0) {
      const v = flag(option);
      return { source: `--${option.name}`, value: typeof v === "string" ? v : undefined };
    }
    const name = option.env[index - 1];
    const v = env(name);
    return { source: name, value: v === undefined ? undefined : checked(name, v) };
  };
  const input = (option: OptionSpec): OptionInput => ({
    flag: () => flag(option),
    pick: () => {
      // Every source is read (and checked), even those a higher one overrides.
      const sources = Array.from({ length: 1 + option.env.length }, (_, i) => read(option, i));
      return sources.find((s) => s.value !== undefined) ?? sources[0];
    },
  });

  const byScope = (scope: OptionSpec["scope"]) => OPTIONS.filter((o) => o.scope === scope);
  const [nameOption, pathOption] = byScope("socket");
  const config: ConfigPart = resolveSocket(nameOption, pathOption, read, env);
  const { socket } = config;
  if (socket?.kind === "path") config.socket = { kind: "path", path: absolute(socket.path, cwd) };
  const context: OptionContext = { tools: new Set(TOOLSETS.flatMap((t) => surface[t])) };
  for (const option of byScope("setting")) {
    Object.assign(config, option.apply!(input(option), context));
  }

  const { http } = config;
  for (const option of byScope("http")) {
    if (flag(option) !== undefined && !http) {
      throw new ConfigError(`--${option.name} needs --http HOST:PORT`);
    }
  }
  // The HTTP variables are read only with --http: a stdio server ignores them.
  if (http) {
    for (const option of byScope("http")) {
      Object.assign(config, option.apply!(input(option), { ...context, http }));
    }
  }
  // The ssh options shape the hosts of --ssh: without one they would be silently ignored.
  for (const option of byScope("ssh")) {
    if (read(option, 0).value !== undefined && !config.ssh?.length) {
      throw new ConfigError(`--${option.name} needs --ssh NAME=DESTINATION`);
    }
    if (config.ssh?.length) Object.assign(config, option.apply!(input(option), context));
  }
  // The caps shape --record's directory: without it they would be silently ignored.
  if (config.record) config.record = { ...config.record, dir: absolute(config.record.dir, cwd) };
  for (const option of byScope("record")) {
    if (read(option, 0).value !== undefined && !config.record) {
      throw new ConfigError(`--${option.name} needs --record DIR`);
    }
    if (config.record) {
      Object.assign(config, option.apply!(input(option), { ...context, record: config.record }));
    }
  }
  return { kind: values.check ? "check" : "run", config: deepFreeze(config as Config) };
}

/** The flags, strictly: unknown options, missing values and positionals are one-line errors. */
function parseFlags(
  argv: readonly string[],
): Record<string, string | string[] | boolean | undefined> {
  try {
    const { values } = parseArgs({
      args: [...argv],
      options: PARSE_ARGS_OPTIONS,
      strict: true,
      allowPositionals: false,
    });
    return values as Record<string, string | string[] | boolean | undefined>;
  } catch (error) {
    throw new ConfigError(`${describeParseError(error)}; valid options: ${VALID_FLAGS}`);
  }
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

function deepFreeze<T>(value: T): T {
  if (value && typeof value === "object") {
    for (const v of Object.values(value)) deepFreeze(v);
    Object.freeze(value);
  }
  return value;
}

/**
 * A socket path as one that names the same file from any directory: a pane's shell reaches the
 * server through it from its own directory (docs/design.md §7.9).
 */
function absolute(path: string, cwd: () => string): string {
  if (path.startsWith("/")) return path;
  const base = cwd();
  return `${base.endsWith("/") ? base : `${base}/`}${path}`;
}
