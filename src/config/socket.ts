/**
 * Which tmux server to pin (docs/design.md §4): the socket options are resolved together, level by
 * level (flags, `TMUX_MCP_*`, `LIBTMUX_*`), a name and a path at one level being exclusive; without
 * any, the server of `$TMUX`, else tmux's default socket.
 */
import type { SocketSpec } from "../tmux/core/argv.ts";
import type { EnvReader } from "../tmux/core/runner.ts";
import { callerIdentity } from "../tmux/core/caller.ts";
import type { OptionSpec } from "./options.ts";
import { type Config, ConfigError, type Sourced } from "./types.ts";
import { socketName, socketPath } from "./values.ts";

/** One source of an option, checked: 0 is its flag, then its variables in table order. */
type SourceReader = (option: OptionSpec, index: number) => Sourced;

/** The pinned socket and where the choice came from. */
export function resolveSocket(
  nameOption: OptionSpec,
  pathOption: OptionSpec,
  read: SourceReader,
  env: EnvReader,
): { socket: SocketSpec; socketSource: Config["socketSource"] } {
  // Every source is read (and checked) first, so a bad value anywhere is reported.
  const levels = Array.from({ length: 1 + nameOption.env.length }, (_, i) => ({
    name: read(nameOption, i),
    path: read(pathOption, i),
  }));
  for (const [level, sources] of levels.entries()) {
    const socketSource = level === 0 ? "flag" : "env";
    // An empty socket variable (common in client config templates) means "not set".
    const given = (v: string | undefined) => level === 0 ? v : v || undefined;
    const name = given(sources.name.value);
    const path = given(sources.path.value);
    if (name !== undefined && path !== undefined) {
      throw new ConfigError(
        `${sources.name.source} and ${sources.path.source} are exclusive; ` +
          "give a socket name or a socket path, not both",
      );
    }
    if (name !== undefined) {
      return { socket: { kind: "name", name: socketName(name) }, socketSource };
    }
    if (path !== undefined) {
      return { socket: { kind: "path", path: socketPath(path) }, socketSource };
    }
  }
  // Inside tmux, pin the server we were started from by its socket path.
  const caller = callerIdentity(env("TMUX"), env("TMUX_PANE"));
  if (caller) {
    return { socket: { kind: "path", path: caller.socketPath }, socketSource: "tmux-env" };
  }
  return { socket: { kind: "default" }, socketSource: "default" };
}
