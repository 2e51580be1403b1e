/** The action log's decisions and outcomes, from a call's own state. */
import { assertEquals } from "../../tests/support/assert.ts";
import { type ConsentNote, guardDecision, outcomeOf, panesNamed, stamp } from "./action_line.ts";

const PANE = { paneId: "%3", generation: "g1" };

Deno.test("the guard's decision: asked (last answer), refused unasked, allowed, or none", () => {
  const once: ConsentNote = { answer: "allowed once", panes: [PANE], about: "a person watches" };
  const denied: ConsentNote = { answer: "denied", panes: [PANE], about: "a person watches" };
  const grant: ConsentNote = { grant: PANE };
  const refusal = { code: "target_denied", message: "pane %3 is watched" };
  const table: Array<
    [boolean, ConsentNote[], { code: string; message: string } | undefined, unknown]
  > = [
    [true, [], undefined, { decision: "allowed" }],
    [true, [grant], undefined, { decision: "allowed", by: "a grant from an earlier answer" }],
    [false, [], refusal, { decision: "refused", why: "pane %3 is watched" }],
    [false, [denied], refusal, {
      decision: "asked",
      answer: "denied",
      about: "a person watches",
      panes: [PANE],
    }],
    [true, [once], undefined, {
      decision: "asked",
      answer: "allowed once",
      about: "a person watches",
      panes: [PANE],
    }],
    [true, [denied, once], undefined, {
      decision: "asked",
      answer: "allowed once",
      about: "a person watches",
      panes: [PANE],
    }],
    // The guard never ran: a bad argument, a read.
    [false, [], { code: "invalid_arguments", message: "keys: too long" }, undefined],
    [false, [], undefined, undefined],
  ];
  for (const [checked, notes, error, expected] of table) {
    assertEquals(guardDecision(checked, notes, error), expected);
  }
});

Deno.test("outcomes keep the facts a person looks for and nothing of the result's shape", () => {
  assertEquals(outcomeOf({ data: { exitStatus: 0, outcome: "completed", output: "hi" } }), {
    ok: true,
    exitStatus: 0,
    outcome: "completed",
  });
  assertEquals(outcomeOf({ data: { completed: 2, failures: [{ index: 2 }] } }), {
    ok: true,
    completed: 2,
    failures: 1,
  });
  assertEquals(outcomeOf({ data: { sent: true } }), { ok: true });
  assertEquals(
    outcomeOf({ error: { code: "timeout", message: "no answer", effects: "possible" } }),
    { error: "timeout", message: "no answer", effects: "possible" },
  );
  assertEquals(outcomeOf({ error: { code: "target_not_found", message: "no %9" } }), {
    error: "target_not_found",
    message: "no %9",
  });
});

Deno.test("reads name their panes from their arguments; times are ISO 8601", () => {
  assertEquals(panesNamed({ paneId: "%1" }), ["%1"]);
  assertEquals(panesNamed({ paneIds: ["%1", 2, "%3"] }), ["%1", "%3"]);
  assertEquals(panesNamed({ session: "main" }), undefined);
  assertEquals(panesNamed(null), undefined);
  assertEquals(stamp(0), "1970-01-01T00:00:00.000Z");
});
