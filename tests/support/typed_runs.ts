/** Reading run_shell_command's typed lines back from a pane's screen (tests of every shell). */

/**
 * The rows of `screen` that show a typed run line, each joined with the row below it: a typed line
 * may wrap inside its buffer name (two names wrapped after the same three hex digits once counted
 * as one).
 */
export function typedRunLines(screen: string): string[] {
  const rows = screen.split("\n");
  return rows.flatMap((row, i) => row.includes("save-buffer") ? [row + (rows[i + 1] ?? "")] : []);
}

/**
 * The buffer names typed lines name: one per call. A shell may show a line twice on a busy
 * machine (echoed as typed, then redrawn at its prompt): the same buffer, so one call.
 */
export function runBuffers(lines: readonly string[]): Set<string | undefined> {
  return new Set(lines.map((l) => l.match(/save-buffer -b (tmux-mcp-[0-9a-f]+) -/)?.[1]));
}
