/**
 * run_shell_command's own rule (docs/design.md §7.9), pure: a command is typed into one pane only.
 * In a window with synchronize-panes on, tmux copies the typed line into every pane of the window,
 * so each would run it and the frames of all of them would mix.
 */
import { ToolError } from "../errors.ts";

/**
 * Refuse a command whose input would reach more than its own pane: `cohort` is every pane the
 * input preflight found input to `paneId` reaches (the pane itself first).
 */
export function synchronizedRunRefusal(
  paneId: string,
  cohort: readonly string[],
): ToolError | undefined {
  if (cohort.length <= 1) return undefined;
  return new ToolError(
    "target_denied",
    `pane ${paneId} is in a window with synchronize-panes on: the command would be typed into ` +
      `${cohort.length} panes at once`,
    {
      hint: "Pick a pane of another window, or turn synchronization off with " +
        "set_synchronize_panes {enabled: false} first.",
    },
  );
}
