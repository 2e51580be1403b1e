/**
 * The tmux environment: parsing `show-environment -s` output, which names count as secret, and
 * which are tmux-mcp's own.
 */

/**
 * Variable names whose values are withheld wherever they would be shown: they usually carry
 * credentials.
 */
export const SECRET_NAME = /TOKEN|SECRET|PASSWORD|PASSWD|KEY|CREDENTIAL|AUTH|COOKIE/i;

/** One environment variable; `value` is absent for variables marked removed. */
export interface EnvironmentEntry {
  name: string;
  value?: string;
  removed?: true;
}

/** Parse `show-environment -s`: `NAME="…"; export NAME;` or `unset NAME;` per variable. */
export function parseEnvironment(out: string): EnvironmentEntry[] {
  const entries: EnvironmentEntry[] = [];
  const pattern = /unset ([^\s;]+);\n|([^\s=;]+)="((?:[^"\\]|\\[\s\S])*)"; export \2;\n/g;
  for (const m of out.matchAll(pattern)) {
    if (m[1] !== undefined) entries.push({ name: m[1], removed: true });
    else entries.push({ name: m[2], value: m[3].replace(/\\([\s\S])/g, "$1") });
  }
  return entries;
}

/**
 * tmux-mcp's own variables, read or not (`TMUX_MCP_*` and the `LIBTMUX_*` aliases): none of them
 * belongs in the environment of a tmux server we start (docs/design.md §5.12).
 */
const OWN_NAME = /^(?:TMUX_MCP|LIBTMUX)_/;

/** The names of tmux-mcp's own variables set in `show-environment -s` output. */
export function ownVariables(out: string): string[] {
  return parseEnvironment(out).filter((e) => !e.removed && OWN_NAME.test(e.name)).map((e) =>
    e.name
  );
}
