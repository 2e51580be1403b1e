/** Id marks (src/id_marks.ts): what the walk finds through zod's wrappers, table-driven. */
import { z } from "zod";
import { assert, assertEquals, assertThrows } from "../tests/support/assert.ts";
import {
  anyMark,
  idMark,
  nestedCall,
  qualifiedPattern,
  requiresId,
  rewriteIds,
  tmuxId,
  tmuxVariables,
} from "./id_marks.ts";

const pane = tmuxId("pane", z.string().regex(/^%\d+$/));
const edit = (id: string, kind: string) => `${kind}=${id}`;

const WALKS: Array<[string, z.ZodType, unknown, unknown]> = [
  ["a marked string", pane, "%1", "pane=%1"],
  ["an unmarked string", z.string(), "%1", "%1"],
  ["through optional and nullable", z.object({ a: pane.optional(), b: pane.nullable() }), {
    a: "%1",
    b: null,
  }, { a: "pane=%1", b: null }],
  ["through describe", z.object({ a: pane.describe("x") }), { a: "%1" }, { a: "pane=%1" }],
  ["arrays and nested objects", z.object({ rows: z.array(z.object({ w: tmuxId("window") })) }), {
    rows: [{ w: "@1" }, { w: "@2" }],
  }, { rows: [{ w: "window=@1" }, { w: "window=@2" }] }],
  ["a record's values", z.record(z.string(), tmuxId("run")), { a: "r1" }, { a: "run=r1" }],
  [
    "a union: the option of the value's type",
    z.union([z.int(), tmuxId("target")]),
    "x",
    "target=x",
  ],
  ["a union: no option fits", z.union([z.int(), tmuxId("target")]), true, true],
  ["catchall fields", z.object({}).catchall(tmuxId("session")), { s: "w" }, { s: "session=w" }],
  ["variables by name", tmuxVariables({ pane_id: "pane", l: "sessions" }), {
    pane_id: "%1",
    l: "a,b",
    other: "%2",
  }, { pane_id: "pane=%1", l: "session=a,session=b", other: "%2" }],
  ["a nested call is left alone", z.object({ arguments: nestedCall() }), {
    arguments: { paneId: "%1" },
  }, { arguments: { paneId: "%1" } }],
  ["a value not of the schema's shape", z.object({ a: z.array(pane) }), { a: "%1" }, { a: "%1" }],
];

Deno.test("rewriteIds: every marked string, through wrappers, arrays, records and unions", () => {
  for (const [what, schema, value, out] of WALKS) {
    assertEquals(rewriteIds(schema, value, edit), out, what);
  }
});

Deno.test("idMark: a mark survives describe and further checks; a wrapper is not marked", () => {
  assertEquals(idMark(pane.describe("x")), { kind: "pane" });
  assertEquals(idMark(pane.optional()), undefined, "a wrapper is walked through, not marked");
  // A check added after the mark makes a clone of it, which keeps the mark.
  assertEquals(idMark(pane.max(9)), { kind: "pane" });
  assertEquals(idMark(z.string()), undefined);
});

Deno.test("requiresId and anyMark: what a schema holds", () => {
  const cases: Array<[string, z.ZodType, boolean, boolean]> = [
    ["a required id", z.object({ p: pane }), true, true],
    ["an optional id", z.object({ p: pane.optional() }), false, true],
    ["an id in required rows", z.object({ r: z.array(z.object({ p: pane })) }), true, true],
    [
      "an id in optional rows",
      z.object({ r: z.array(z.object({ p: pane })).optional() }),
      false,
      true,
    ],
    ["no id", z.object({ t: z.string() }), false, false],
  ];
  for (const [what, schema, required, held] of cases) {
    assertEquals(requiresId(schema), required, what);
    assertEquals(anyMark(schema, (m) => "kind" in m), held, what);
  }
  assert(anyMark(z.object({ a: z.array(z.object({ x: nestedCall() })) }), (m) => "call" in m));
});

Deno.test("qualifiedPattern: an optional host prefix after the anchor", () => {
  const qualified = new RegExp(qualifiedPattern("^%\\d+$"));
  for (const id of ["%3", "box1:%3"]) assert(qualified.test(id), id);
  for (const id of ["box1:%x", "%3 ", "x"]) assert(!qualified.test(id), id);
  assertThrows(() => qualifiedPattern("%\\d+$"), Error);
});
