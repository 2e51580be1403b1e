/**
 * Pane generations: an opaque token that changes when a pane's process is replaced, so an agent
 * holding an old one gets `stale_target` instead of acting on another process (docs/design.md
 * §6.9).
 */
import { preview, ToolError } from "../../errors.ts";

/**
 * A pane's generation: changes when the pane's process is replaced (respawn, kill and recreate)
 * or the server restarts and reuses ids. Opaque to agents.
 */
export function generationOf(serverPid: number, panePid: number): string {
  return `g${serverPid.toString(36)}.${panePid.toString(36)}`;
}

/** Refuse a pane whose generation differs from the one the agent holds (`stale_target`). */
export function checkGeneration(
  pane: { paneId: string; generation: string },
  expected: string | undefined,
): void {
  if (expected !== undefined && expected !== pane.generation) {
    throw new ToolError(
      "stale_target",
      `pane ${pane.paneId} was replaced since generation ${preview(expected, 32)} was read`,
      { hint: "The id now names another process; call list_panes and decide again." },
    );
  }
}
