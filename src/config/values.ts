/**
 * Pure validators of single configuration values (docs/design.md §4): each takes the raw text and
 * where it came from, and returns the typed value or throws a one-line {@link ConfigError}. A
 * value's normalisation (lower-casing, de-duplicating) belongs here, beside its check.
 */
import {
  type Bounds,
  type Config,
  ConfigError,
  type Sourced,
  TOOLSET_NAMES,
  type ToolsetName,
} from "./types.ts";

/** `value` unless it holds a control character (refused: the message must stay one line). */
export function checked(name: string, value: string): string {
  // deno-lint-ignore no-control-regex -- control characters are exactly what we refuse
  if (/[\x00-\x1f\x7f]/.test(value)) {
    throw new ConfigError(`${name} contains a control character; use printable text only`);
  }
  return value;
}

/** A value that must not be empty (a path). */
export function nonEmpty({ source, value }: Sourced): string {
  if (!value) throw new ConfigError(`${source} must not be empty`);
  return value;
}

function splitList(value: string): string[] {
  return value.split(",").map((s) => s.trim()).filter((s) => s !== "");
}

/** A comma list of toolsets, in display order; `fallback` when unset. */
export function toolsetList(
  { source, value }: Sourced,
  fallback: readonly ToolsetName[],
): readonly ToolsetName[] {
  if (value === undefined) return fallback;
  const names = splitList(value);
  for (const name of names) {
    if (!(TOOLSET_NAMES as readonly string[]).includes(name)) {
      throw new ConfigError(
        `${source}: unknown toolset "${name.slice(0, 40)}"; valid toolsets: ${
          TOOLSET_NAMES.join(", ")
        }`,
      );
    }
  }
  return TOOLSET_NAMES.filter((t) => names.includes(t));
}

/** A comma list of tool names, each one of `known`, without repeats. */
export function toolList({ source, value }: Sourced, known: ReadonlySet<string>): string[] {
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

/** A decimal integer within `bounds`; its default when unset. `unit` ends the error message. */
export function bounded({ source, value }: Sourced, bounds: Bounds, unit: string): number {
  if (value === undefined) return bounds.default;
  const n = /^\d+$/.test(value) ? Number(value) : NaN;
  if (!(n >= bounds.min && n <= bounds.max)) {
    throw new ConfigError(
      `${source} must be an integer from ${bounds.min} to ${bounds.max} (${unit})`,
    );
  }
  return n;
}

/** A switch variable: 1/true/yes/on or 0/false/no/off; `fallback` when unset or empty. */
export function switchValue(name: string, value: string | undefined, fallback: boolean): boolean {
  if (value === undefined || value === "") return fallback;
  const v = value.toLowerCase();
  if (["1", "true", "yes", "on"].includes(v)) return true;
  if (["0", "false", "no", "off"].includes(v)) return false;
  throw new ConfigError(`${name} must be 1 or 0 (also true/false, yes/no, on/off)`);
}

/** A tmux socket name: non-empty, no `/`. */
export function socketName(name: string): string {
  if (name === "" || name.includes("/")) {
    throw new ConfigError(
      "socket name must be non-empty and contain no '/'; use --socket-path for a path",
    );
  }
  return name;
}

/** A tmux socket path: non-empty. */
export function socketPath(path: string): string {
  if (path === "") throw new ConfigError("socket path must not be empty");
  return path;
}

/** `--http HOST:PORT` or `--http PORT`; undefined when not given. */
export function httpAddress(value: string | undefined): Config["http"] {
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

/** The bearer token: printable ASCII of `min`+ characters, required when `host` is not loopback. */
export function httpToken(
  { source, value }: Sourced,
  host: string,
  min: number,
): string | undefined {
  if (value !== undefined && !/^[\x21-\x7e]+$/.test(value)) {
    throw new ConfigError(`${source} must be printable ASCII without spaces`);
  }
  if (value !== undefined && value.length < min) {
    throw new ConfigError(`${source} must be at least ${min} characters`);
  }
  if (value === undefined && !isLoopbackHost(host)) {
    throw new ConfigError(
      `--http ${host} is not a loopback address: give --http-token (or TMUX_MCP_HTTP_TOKEN) ` +
        "explicitly, or bind to 127.0.0.1",
    );
  }
  return value;
}

/** A comma list of Host names (`NAME` or `NAME:PORT`), lower case, without repeats. */
export function hostList({ source, value }: Sourced): string[] {
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

/** A comma list of Origins (`scheme://host[:port]`), lower case, without repeats. */
export function originList({ source, value }: Sourced): string[] {
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
