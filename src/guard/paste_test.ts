/**
 * paste_text's rules (src/guard/paste.ts) against made-up panes: when a paste without Enter is
 * refused for a program without bracketed paste, and when the Enter after the pause is; no tmux.
 */
import { assert, assertEquals } from "../../tests/support/assert.ts";
import { cohortChangedRefusal, type PasteInput, unbracketedRefusal } from "./paste.ts";

/** Bracketed paste per pane: %1 on, %2 off, anything else unknown (not streamed). */
const modes: Record<string, boolean> = { "%1": true, "%2": false };
const bracketed = (id: string) => modes[id];

Deno.test("unbracketedRefusal: only a multi-line paste without Enter into a known-unbracketed program", () => {
  const cases: Array<[string, PasteInput, string[], string | undefined]> = [
    ["one line", { text: "echo hi", enter: false }, ["%2"], undefined],
    ["lines with Enter after", { text: "a\nb", enter: true }, ["%2"], undefined],
    ["lines into a bracketing program", { text: "a\nb", enter: false }, ["%1"], undefined],
    ["lines into a pane of unknown mode", { text: "a\nb", enter: false }, ["%9"], undefined],
    ["LF into an unbracketed program", { text: "a\nb", enter: false }, ["%2"], "%2"],
    ["a lone CR counts as a line end", { text: "a\rb", enter: false }, ["%2"], "%2"],
    ["a synchronized partner unbracketed", { text: "a\nb", enter: false }, ["%1", "%2"], "%2"],
  ];
  for (const [name, paste, receivers, refusedPane] of cases) {
    const refusal = unbracketedRefusal(paste, receivers, bracketed);
    assertEquals(refusal && /pane (%\d+)/.exec(refusal.message)?.[1], refusedPane, name);
    if (refusal) {
      assertEquals([refusal.code, refusal.effects], ["target_denied", "none"], name);
      assert(refusal.hint.includes("enter: true"), refusal.hint);
    }
  }
});

Deno.test("cohortChangedRefusal: the Enter goes only to the panes the paste reached, in order", () => {
  const cases: Array<[string, string[], string[], boolean]> = [
    ["the same pane", ["%1"], ["%1"], false],
    ["the same cohort", ["%1", "%2"], ["%1", "%2"], false],
    ["a partner joined", ["%1"], ["%1", "%2"], true],
    ["a partner left", ["%1", "%2"], ["%1"], true],
    ["another partner", ["%1", "%2"], ["%1", "%3"], true],
  ];
  for (const [name, pasted, now, refused] of cases) {
    const refusal = cohortChangedRefusal(pasted, now);
    assertEquals(refusal !== undefined, refused, name);
    if (refusal) {
      assertEquals([refusal.code, refusal.effects], ["target_denied", "possible"], name);
      assert(refusal.hint.startsWith("The text was pasted but Enter was not pressed"));
    }
  }
});
