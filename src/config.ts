/**
 * Configuration: flags, `TMUX_MCP_*` environment and `LIBTMUX_*` aliases folded into one frozen,
 * validated {@link Config} (docs/design.md §4). Precedence: flag > `TMUX_MCP_*` > `LIBTMUX_*`.
 * Any invalid input is a {@link ConfigError} whose message is one line naming what is valid.
 *
 * The parts live in src/config/: the option table (options.ts) feeds parsing (parse.ts, socket.ts)
 * and `--help` (help.ts); single values are checked by the pure validators of values.ts.
 */
export { helpText } from "./config/help.ts";
export { ASK_TIMEOUT_MS, WAIT_MAX_MS } from "./config/options.ts";
export { parseConfig } from "./config/parse.ts";
export {
  type Config,
  ConfigError,
  CORE,
  DEFAULT_TOOLSETS,
  type ParseOutcome,
  type Surface,
  type Toolset,
  TOOLSET_NAMES,
  type ToolsetName,
  TOOLSETS,
} from "./config/types.ts";
export { isLoopbackHost } from "./config/values.ts";
