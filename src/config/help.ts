/** The `--help` text, rendered from the option table (docs/design.md §4). */
import { OPTIONS, type OptionSpec } from "./options.ts";

/** Where descriptions start. */
const COLUMN = 29;

/** `--help` text. */
export function helpText(version: string): string {
  return `tmux-mcp ${version} — an MCP server (stdio, or Streamable HTTP) that lets AI agents observe and drive tmux safely.

Usage: tmux-mcp [options]

${OPTIONS.flatMap(optionLines).join("\n")}

Without a socket option: inside tmux, the server of $TMUX; otherwise tmux's default socket.
Flags win over TMUX_MCP_* variables, which win over LIBTMUX_* aliases.
`;
}

function optionLines(option: OptionSpec): string[] {
  const flag = `  ${option.short ? `-${option.short}, ` : "    "}--${option.name}${
    option.arg ? ` ${option.arg}` : ""
  }`;
  const indent = " ".repeat(COLUMN);
  const lines = option.help.map((text, i) =>
    i === 0 ? `${flag.padEnd(COLUMN - 2)}  ${text}` : `${indent}${text}`
  );
  const variables = option.envHelp ?? option.env.join(", ");
  return variables === "" ? lines : [...lines, `${indent}env ${variables}`];
}
