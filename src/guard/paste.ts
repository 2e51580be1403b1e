/**
 * paste_text's own rules (docs/design.md §6.1), pure: a multi-line paste with `enter: false` into
 * a program known not to bracket pastes would run each line at once, which `enter: false` promises
 * not to do; and the Enter that follows a paste after a pause goes only to the panes the paste
 * reached, so a synchronized cohort that changed meanwhile refuses it.
 */
import { ToolError } from "../errors.ts";

/** What paste_text sends, as its rules see it. */
export interface PasteInput {
  text: string;
  /** Enter is pressed after the paste (and its pause). */
  enter: boolean;
}

/**
 * Refuse a multi-line paste with `enter: false` when a receiver's program is known (from its
 * stream) to have bracketed paste off. `bracketed` answers per pane: undefined when unknown (the
 * pane is not streamed, or its stream has not seen the mode yet), which lets the paste through as
 * the tool's description says.
 */
export function unbracketedRefusal(
  paste: PasteInput,
  receivers: readonly string[],
  bracketed: (paneId: string) => boolean | undefined,
): ToolError | undefined {
  if (paste.enter || !/[\r\n]/.test(paste.text)) return undefined;
  const open = receivers.find((id) => bracketed(id) === false);
  if (open === undefined) return undefined;
  return new ToolError(
    "target_denied",
    `the program in pane ${open} has bracketed paste off, so each pasted line would run at ` +
      "once although enter is false",
    { hint: "Pass enter: true if the lines should run, or paste one line at a time." },
  );
}

/**
 * Refuse the Enter after a paste when the panes that would receive it are not the ones the paste
 * reached (a pane joined or left the synchronized cohort during the pause). The paste happened.
 */
export function cohortChangedRefusal(
  pasted: readonly string[],
  now: readonly string[],
): ToolError | undefined {
  if (now.join() === pasted.join()) return undefined;
  return new ToolError("target_denied", "the synchronized panes changed during the paste", {
    hint:
      "The text was pasted but Enter was not pressed; check the panes and press Enter with send_keys.",
    effects: "possible",
  });
}
