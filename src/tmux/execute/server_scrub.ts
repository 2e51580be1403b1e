/**
 * Our own configuration out of a tmux server we start (docs/design.md §5.13):
 *
 * - A server started by new-session copies the starting client's environment into its global
 *   environment and spawns the first pane from it during new-session: our configuration variables
 *   are removed by `set-environment -g -u` chained *before* new-session in the same invocation.
 *   Other `TMUX_MCP_*`/`LIBTMUX_*` names can only be listed once the server runs (our
 *   `--allow-env` cannot list our own environment): `show-environment -g` right after, then unset.
 */
import type { TmuxCommand } from "../core/argv.ts";
import type { TmuxContext } from "../core/context.ts";
import { ownVariables } from "../read/environment.ts";

/**
 * The configuration variables this server reads (src/config.ts), removed from the global
 * environment of a tmux server it starts: shells there (and run_shell_command) could print them,
 * and TMUX_MCP_HTTP_TOKEN is a credential.
 */
export const CONFIG_VARIABLES = [
  "TMUX_MCP_SOCKET_NAME",
  "TMUX_MCP_SOCKET_PATH",
  "TMUX_MCP_TOOLSETS",
  "TMUX_MCP_TOOLS",
  "TMUX_MCP_EXCLUDE_TOOLS",
  "TMUX_MCP_WAIT_MAX_MS",
  "TMUX_MCP_LIVE",
  "TMUX_MCP_ALLOW_WATCHED_PANES",
  "TMUX_MCP_ASK",
  "TMUX_MCP_ASK_TIMEOUT_MS",
  "TMUX_MCP_DEBUG",
  "TMUX_MCP_HTTP_TOKEN",
  "TMUX_MCP_HTTP_ALLOWED_HOSTS",
  "TMUX_MCP_HTTP_ALLOWED_ORIGINS",
  "TMUX_MCP_HTTP_IDLE_MS",
  "TMUX_MCP_HTTP_MAX_SESSIONS",
  "TMUX_MCP_SSH",
  "TMUX_MCP_SSH_CONFIG",
  "TMUX_MCP_SSH_CONTROL_DIR",
  "TMUX_MCP_RECORD",
  "TMUX_MCP_RECORD_FILE_BYTES",
  "TMUX_MCP_RECORD_DIR_BYTES",
  "LIBTMUX_SOCKET",
  "LIBTMUX_SOCKET_PATH",
  "LIBTMUX_TOOLSETS",
  "LIBTMUX_TOOLS",
  "LIBTMUX_EXCLUDE_TOOLS",
] as const;

/**
 * Unset every other `TMUX_MCP_*`/`LIBTMUX_*` variable from the global environment of a server we
 * just started: later panes and run_shell_command never see them. The first pane was spawned
 * before they could be listed and keeps them (docs/design.md §5.12).
 */
export async function scrubStartedServer(ctx: TmuxContext, signal?: AbortSignal): Promise<void> {
  const names = ownVariables(await ctx.runner.run(["show-environment", "-g", "-s"], { signal }));
  if (names.length === 0) return;
  await ctx.runner.run(names.map((name) => ["set-environment", "-g", "-u", name]), {
    signal,
    effects: "possible",
  });
}

/** The commands, chained before new-session, that keep our configuration out of a new server. */
export function unsetConfigVariables(): TmuxCommand[] {
  return CONFIG_VARIABLES.map((variable) => ["set-environment", "-g", "-u", variable]);
}
