/** Host-qualified ids (src/server/host_ids.ts): table-driven, no tmux, no ssh. */
import { z } from "zod";
import { assertEquals, assertThrows } from "../../tests/support/assert.ts";
import { ToolError } from "../errors.ts";
import { nestedCall, tmuxId, tmuxVariables } from "../id_marks.ts";
import { boundMerged, mergeListings, namesNoObject, planHost, qualifyResult } from "./host_ids.ts";

const REMOTES = new Set(["box1", "gpu-2"]);

const pane = tmuxId("pane", z.string().regex(/^%\d+$/));

/** Arguments as tools declare them: ids marked, text not. */
const INPUT = z.object({
  paneId: pane.optional(),
  otherPaneId: pane.optional(),
  session: tmuxId("session").optional(),
  cursor: tmuxId("cursor").optional(),
  keys: z.string().optional(),
  name: z.string().optional(),
  pattern: z.string().optional(),
  rows: z.array(z.object({ paneId: pane, keys: z.string() })).optional(),
}).strict();

/** A read batch's arguments: nested calls, each routed by itself. */
const BATCH = z.object({
  operations: z.array(z.object({ tool: z.string(), arguments: nestedCall().optional() })),
});

const PLANS: Array<[string, z.ZodType, unknown, string | undefined, unknown]> = [
  ["a local pane", INPUT, { paneId: "%3", keys: "x" }, "local", { paneId: "%3", keys: "x" }],
  ["a remote pane", INPUT, { paneId: "box1:%3" }, "box1", { paneId: "%3" }],
  ["local: is the local host", INPUT, { paneId: "local:%3" }, "local", { paneId: "%3" }],
  [
    "text that reads like an id is not touched",
    INPUT,
    { paneId: "box1:%0", keys: "gpu-2:%1" },
    "box1",
    {
      paneId: "%0",
      keys: "gpu-2:%1",
    },
  ],
  ["a session name on a host", INPUT, { session: "gpu-2:build" }, "gpu-2", { session: "build" }],
  ["a cursor", INPUT, { paneId: "box1:%1", cursor: "box1:ltxc1.ab.0" }, "box1", {
    paneId: "%1",
    cursor: "ltxc1.ab.0",
  }],
  ["host names the host and is dropped", INPUT, { host: "gpu-2", name: "x" }, "gpu-2", {
    name: "x",
  }],
  ["with host, a plain id is that host's", INPUT, { host: "box1", session: "w" }, "box1", {
    session: "w",
  }],
  ["nothing named", INPUT, { pattern: "x" }, undefined, { pattern: "x" }],
  [
    "rows",
    INPUT,
    { rows: [{ paneId: "box1:%1", keys: "a:b" }, { paneId: "box1:%2", keys: "" }] },
    "box1",
    {
      rows: [{ paneId: "%1", keys: "a:b" }, { paneId: "%2", keys: "" }],
    },
  ],
  [
    "a key the schema does not know is left for it to refuse",
    INPUT,
    { paneID: "box1:%1" },
    undefined,
    {
      paneID: "box1:%1",
    },
  ],
  [
    "a value of another type is left for the schema",
    INPUT,
    { paneId: 3, session: ["box1:x"] },
    undefined,
    {
      paneId: 3,
      session: ["box1:x"],
    },
  ],
  [
    "nested calls route themselves",
    BATCH,
    { operations: [{ tool: "capture_pane", arguments: { paneId: "box1:%1" } }] },
    undefined,
    { operations: [{ tool: "capture_pane", arguments: { paneId: "box1:%1" } }] },
  ],
];

Deno.test("planHost: the host the marked fields name, and the arguments on it", () => {
  for (const [what, input, args, host, rest] of PLANS) {
    const plan = planHost(input, args, REMOTES);
    assertEquals([plan.host, plan.args], [host, rest], what);
  }
});

Deno.test("planHost: an unknown host, two hosts in one call and a batch's own host are refused", () => {
  const refused: Array<[z.ZodType, unknown]> = [
    [INPUT, { paneId: "box9:%1" }],
    [INPUT, { host: "box9" }],
    [INPUT, { host: 5 }],
    [INPUT, { paneId: "box1:%1", otherPaneId: "%2" }],
    [INPUT, { host: "gpu-2", paneId: "box1:%1" }],
    [INPUT, { host: "box1", session: "local:work" }],
    [INPUT, { rows: [{ paneId: "box1:%1" }, { paneId: "gpu-2:%1" }] }],
    [BATCH, { host: "box1", operations: [] }],
  ];
  for (const [input, args] of refused) {
    const error = assertThrows(() => planHost(input, args, REMOTES), ToolError);
    assertEquals(error.code, "invalid_arguments", JSON.stringify(args));
  }
});

Deno.test("planHost: an agent's __proto__ key stays data", () => {
  const args = JSON.parse('{"__proto__": {"paneId": "box1:%1"}, "keys": "x"}');
  const { host, args: out } = planHost(INPUT, args, REMOTES);
  assertEquals(host, undefined);
  assertEquals(Object.getPrototypeOf(out), Object.prototype);
  assertEquals(Object.hasOwn(out as object, "__proto__"), true);
});

/** A result as tools declare it. */
const OUTPUT = z.object({
  paneId: tmuxId("pane"),
  resolvedPaneIds: z.array(pane),
  rows: z.array(
    z.object({
      windowId: tmuxId("window"),
      sessionId: tmuxId("session"),
      sessionName: tmuxId("session"),
      windowName: z.string(),
      activePaneId: tmuxId("pane").nullable(),
    }).strict(),
  ),
  text: z.string(),
  cursor: tmuxId("cursor").optional(),
  values: tmuxVariables({
    pane_id: "pane",
    session_name: "session",
    hook_pane: "pane",
    x_list: "sessions",
  }),
}).strict();

const QUALIFIED: Array<[string, Record<string, unknown>, Record<string, unknown>]> = [
  ["ids, arrays of ids, rows", {
    paneId: "%3",
    resolvedPaneIds: ["%3", "%4"],
    rows: [{
      windowId: "@1",
      sessionId: "$0",
      sessionName: "build",
      windowName: "%5",
      activePaneId: null,
    }],
  }, {
    paneId: "box1:%3",
    resolvedPaneIds: ["box1:%3", "box1:%4"],
    rows: [{
      windowId: "box1:@1",
      sessionId: "box1:$0",
      sessionName: "box1:build",
      windowName: "%5",
      activePaneId: null,
    }],
  }],
  ["text stays; a cursor is qualified", { text: "%3 is here", cursor: "ltxc1.ab.0" }, {
    text: "%3 is here",
    cursor: "box1:ltxc1.ab.0",
  }],
  ["tmux variables by their names; empty ones name nothing", {
    values: {
      pane_id: "%3",
      session_name: "build",
      hook_pane: "",
      x_list: "a,b",
      window_name: "@1",
    },
  }, {
    values: {
      pane_id: "box1:%3",
      session_name: "box1:build",
      hook_pane: "",
      x_list: "box1:a,box1:b",
      window_name: "@1",
    },
  }],
  ["names of the variables' prototype are no kinds", {
    values: { constructor: "%1", toString: "@2" },
  }, {
    values: { constructor: "%1", toString: "@2" },
  }],
];

Deno.test("qualifyResult: the answering host's name before every marked field's value", () => {
  for (const [what, data, qualified] of QUALIFIED) {
    assertEquals(qualifyResult(OUTPUT, data, "box1"), qualified, what);
  }
  // Symbol keys (attached content blocks) are kept.
  const attached = Symbol("attached");
  const out = qualifyResult(OUTPUT, { paneId: "%1", [attached]: [1] }, "box1");
  assertEquals([out.paneId, out[attached]], ["box1:%1", [1]]);
});

Deno.test("namesNoObject: tools without a required id take host; batches never", () => {
  const cases: Array<[string, z.ZodType, boolean]> = [
    [
      "a pattern and an optional session",
      z.object({ pattern: z.string(), session: tmuxId("session").optional() }),
      true,
    ],
    ["a required pane", z.object({ paneId: pane, keys: z.string() }), false],
    [
      "a described required session",
      z.object({ session: tmuxId("session").describe("Destination.") }),
      false,
    ],
    [
      "rows that each name a pane",
      z.object({ operations: z.array(z.object({ paneId: pane })) }),
      false,
    ],
    ["a batch of calls", BATCH, false],
    ["nothing", z.object({}), true],
  ];
  for (const [what, input, takesHost] of cases) assertEquals(namesNoObject(input), takesHost, what);
});

Deno.test("mergeListings: rows joined with their host, counts summed, failures noted once", () => {
  const merged = mergeListings([
    { host: "local", data: { panes: [{ paneId: "%0" }], panesSearched: 1, truncated: false } },
    {
      host: "box1",
      data: { panes: [{ paneId: "box1:%0" }], panesSearched: 2, truncated: true, note: "cut" },
    },
    { host: "gpu-2", error: new ToolError("host_unreachable", "cannot be reached") },
    { host: "gpu-3", error: new ToolError("timeout", "slow", { host: "gpu-3" }) },
  ]);
  assertEquals(merged, {
    panes: [{ paneId: "%0" }, { paneId: "box1:%0", host: "box1" }],
    panesSearched: 3,
    truncated: true,
    note: "host box1: cut; host gpu-2: cannot be reached; host gpu-3: slow",
  });
});

Deno.test("boundMerged: rows joined from several hosts keep one listing's bounds, disclosed", () => {
  const rows = Array.from({ length: 1_200 }, (_, i) => ({ paneId: `%${i}` }));
  const cut = boundMerged({ panes: rows, note: "host b: x" }, true);
  assertEquals((cut.panes as unknown[]).length, 1_000);
  assertEquals(cut.truncated, true);
  assertEquals(cut.note, "host b: x; 200 more panes across hosts left out (at most 1000 rows)");
  const matches = boundMerged({ matches: rows.slice(0, 1_001), panesSearched: 3 }, false);
  assertEquals([(matches.matches as unknown[]).length, matches.truncated], [1_000, undefined]);
  assertEquals(boundMerged({ panes: rows.slice(0, 3) }, true), { panes: rows.slice(0, 3) });
});
