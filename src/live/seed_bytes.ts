/**
 * What a stream's terminal is seeded with (docs/design.md §7.2): tmux's capture of the screen as
 * bytes to write, and the tab stops a terminal starts with. Pure; src/live/emulator.ts uses them.
 */

/** Tab stops xterm and tmux start with: every 8 columns. */
export function defaultTabs(width: number): number[] {
  const tabs: number[] = [];
  for (let x = 8; x < width; x += 8) tabs.push(x);
  return tabs;
}

/**
 * A capture's lines as terminal output: each line from the left edge. Attributes carry from one
 * line to the next, as tmux prints them (a continued colour starts its next line with no sequence);
 * nothing scrolls, so no row is filled with a background. They are reset at the end.
 */
export function screenBytes(capture: string): string {
  const lines = capture.replace(/\n$/, "").split("\n");
  return "\x1b[H" + lines.join("\r\n") + "\x1b[0m";
}
