/**
 * The permissions the server runs with, and what each option that needs more adds (README
 * "Permissions", docs/design.md §4). One list, read by the doctor (`--check`) and by the npm
 * package's launcher (scripts/npm_package.ts writes it into the package); deno.json's start tasks
 * and the release binaries spell out the same flags, and tests check that they agree.
 */

/** The programs the server may start: tmux only. */
export const RUN_PROGRAMS: readonly string[] = ["tmux"];

/**
 * The variables the server may read: where tmux is and which pane called us, its own
 * configuration, and what a tmux it starts needs to find the person's shell, terminal and locale.
 */
export const ENV_VARIABLES: readonly string[] = [
  "TMUX",
  "TMUX_PANE",
  "TMUX_TMPDIR",
  "TMUX_MCP_*",
  "LIBTMUX_*",
  "HOME",
  "PATH",
  "USER",
  "SHELL",
  "TERM",
  "LANG",
  "LC_ALL",
  "LC_CTYPE",
];

/** What `--ssh` adds: ssh itself, and the agent socket it authenticates with. */
export const SSH_WIDENING: { readonly run: readonly string[]; readonly env: readonly string[] } = {
  run: ["ssh"],
  env: ["SSH_AUTH_SOCK"],
};

/** The permission flags of a server with no option that needs more: `deno task start`'s. */
export function baseFlags(): string[] {
  return [`--allow-run=${RUN_PROGRAMS.join(",")}`, `--allow-env=${ENV_VARIABLES.join(",")}`];
}
