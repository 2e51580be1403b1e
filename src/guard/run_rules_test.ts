import { assert, assertEquals } from "../../tests/support/assert.ts";
import { synchronizedRunRefusal } from "./run_rules.ts";

Deno.test("synchronizedRunRefusal: a command goes to one pane, never a synchronized window", () => {
  const cases: Array<[string, string[], string | undefined]> = [
    ["its pane alone", ["%1"], undefined],
    ["nothing listed (the preflight found only the target)", [], undefined],
    ["a synchronized pair", ["%1", "%2"], "typed into 2 panes"],
    ["a synchronized window of four", ["%1", "%2", "%3", "%4"], "typed into 4 panes"],
  ];
  for (const [what, cohort, says] of cases) {
    const refusal = synchronizedRunRefusal("%1", cohort);
    if (says === undefined) {
      assertEquals(refusal, undefined, what);
      continue;
    }
    assertEquals(refusal?.code, "target_denied", what);
    assert(refusal!.message.includes(says) && refusal!.message.includes("pane %1"), what);
    assert(refusal!.hint?.includes("set_synchronize_panes"), what);
  }
});
