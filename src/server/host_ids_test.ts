/** Host-qualified ids (src/server/host_ids.ts): table-driven, no tmux, no ssh. */
import { assertEquals, assertThrows } from "../../tests/support/assert.ts";
import { ToolError } from "../errors.ts";
import { boundMerged, mergeListings, namesNoObject, planHost, qualifyResult } from "./host_ids.ts";

const REMOTES = new Set(["box1", "gpu-2"]);

const PLANS: Array<[string, unknown, string | undefined, unknown]> = [
  ["a local pane", { paneId: "%3", keys: "x" }, "local", { paneId: "%3", keys: "x" }],
  ["a remote pane", { paneId: "box1:%3" }, "box1", { paneId: "%3" }],
  ["local: is the local host", { paneId: "local:%3" }, "local", { paneId: "%3" }],
  ["text that reads like an id is not touched", { paneId: "box1:%0", keys: "gpu-2:%1" }, "box1", {
    paneId: "%0",
    keys: "gpu-2:%1",
  }],
  ["a session name on a host", { session: "gpu-2:build" }, "gpu-2", { session: "build" }],
  ["a cursor", { paneId: "box1:%1", cursor: "box1:ltxc1.ab.0" }, "box1", {
    paneId: "%1",
    cursor: "ltxc1.ab.0",
  }],
  ["host names the host and is dropped", { host: "gpu-2", name: "x" }, "gpu-2", { name: "x" }],
  ["nothing named", { pattern: "x" }, undefined, { pattern: "x" }],
  ["batch rows", { operations: [{ paneId: "box1:%1" }, { paneId: "box1:%2" }] }, "box1", {
    operations: [{ paneId: "%1" }, { paneId: "%2" }],
  }],
  [
    "nested calls route themselves",
    {
      operations: [{ tool: "capture_pane", arguments: { paneId: "box1:%1" } }],
    },
    undefined,
    { operations: [{ tool: "capture_pane", arguments: { paneId: "box1:%1" } }] },
  ],
];

Deno.test("planHost: the host an argument names, and the arguments on it", () => {
  for (const [what, args, host, rest] of PLANS) {
    const plan = planHost(args, REMOTES);
    assertEquals([plan.host, plan.args], [host, rest], what);
  }
});

Deno.test("planHost: an unknown host and two hosts in one call are refused", () => {
  for (
    const args of [
      { paneId: "box9:%1" },
      { host: "box9" },
      { paneId: "box1:%1", otherPaneId: "%2" },
      { host: "gpu-2", paneId: "box1:%1" },
      { operations: [{ paneId: "box1:%1" }, { paneId: "gpu-2:%1" }] },
    ]
  ) {
    const error = assertThrows(() => planHost(args, REMOTES), ToolError);
    assertEquals(error.code, "invalid_arguments", JSON.stringify(args));
  }
});

Deno.test("qualifyResult: ids of the answering host gain its name; text and symbols stay", () => {
  const attached = Symbol("attached");
  const data = {
    paneId: "%3",
    resolvedPaneIds: ["%3", "%4"],
    rows: [{
      windowId: "@1",
      sessionId: "$0",
      sessionName: "build",
      windowName: "%5",
      activePaneId: "%3",
    }],
    text: "%3 is here",
    cursor: "ltxc1.ab.0",
    [attached]: [1],
  };
  const out = qualifyResult(data, "box1");
  assertEquals(out.paneId, "box1:%3");
  assertEquals(out.resolvedPaneIds, ["box1:%3", "box1:%4"]);
  assertEquals(out.rows, [{
    windowId: "box1:@1",
    sessionId: "box1:$0",
    sessionName: "box1:build",
    windowName: "%5",
    activePaneId: "box1:%3",
  }]);
  assertEquals([out.text, out.cursor, out[attached]], ["%3 is here", "box1:ltxc1.ab.0", [1]]);
});

Deno.test("qualifyResult: tmux variables holding ids and session names, a new session's name", () => {
  const variables = {
    paneId: "%3",
    values: {
      pane_id: "%3",
      window_id: "@1",
      session_id: "$0",
      session_name: "build",
      client_session: "build",
      hook_pane: "",
      window_linked_sessions_list: "build,other",
      pane_current_command: "%3",
      window_name: "@1",
    },
    withheld: ["session_name"],
  };
  assertEquals(qualifyResult(variables, "box1", "get_tmux_variables"), {
    paneId: "box1:%3",
    values: {
      pane_id: "box1:%3",
      window_id: "box1:@1",
      session_id: "box1:$0",
      session_name: "box1:build",
      client_session: "box1:build",
      // Empty: outside a hook it names nothing.
      hook_pane: "",
      window_linked_sessions_list: "box1:build,box1:other",
      pane_current_command: "%3",
      window_name: "@1",
    },
    // Names of variables, not values.
    withheld: ["session_name"],
  });
  // `name` is the session's name in create_session's result, and nothing else's.
  const created = { sessionId: "$4", name: "work", windowId: "@5" };
  assertEquals(qualifyResult(created, "box1", "create_session"), {
    sessionId: "box1:$4",
    name: "box1:work",
    windowId: "box1:@5",
  });
  assertEquals(qualifyResult({ name: "logs", windowId: "@5" }, "box1", "create_window"), {
    name: "logs",
    windowId: "box1:@5",
  });
});

Deno.test("mergeListings: rows joined with their host, counts summed, failures noted", () => {
  const merged = mergeListings([
    { host: "local", data: { panes: [{ paneId: "%0" }], panesSearched: 1, truncated: false } },
    {
      host: "box1",
      data: { panes: [{ paneId: "box1:%0" }], panesSearched: 2, truncated: true, note: "cut" },
    },
    { host: "gpu-2", error: new ToolError("host_unreachable", "host gpu-2 cannot be reached") },
  ]);
  assertEquals(merged, {
    panes: [{ paneId: "%0" }, { paneId: "box1:%0", host: "box1" }],
    panesSearched: 3,
    truncated: true,
    note: "host box1: cut; host gpu-2 cannot be reached",
  });
});

Deno.test("namesNoObject: tools without a required id take host; batches never", () => {
  assertEquals(namesNoObject(["pattern", "session"], ["pattern"]), true);
  assertEquals(namesNoObject(["paneId", "keys"], ["paneId", "keys"]), false);
  assertEquals(namesNoObject(["names", "paneId"], ["names"]), true);
  assertEquals(namesNoObject(["operations", "onError"], ["operations"]), false);
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
