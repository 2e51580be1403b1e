/** The lean rules (docs/design.md §3.1): what a result leaves out, what it keeps, and its schema. */
import { assert, assertEquals } from "../tests/support/assert.ts";
import { LEAN_RULES, leanData, leanJsonSchema } from "./lean.ts";

/** A bounded text as textResult builds it, nothing cut. */
const UNCUT = {
  truncated: false,
  truncatedLines: 0,
  truncatedBytes: 0,
  lineLimit: 200,
  byteLimit: 65_536,
  encoding: "utf-8",
  terminalContent: "data",
};
/** The same text, cut. */
const CUT = { ...UNCUT, truncated: true, truncatedLines: 3, truncatedBytes: 40, lineLimit: 2 };
const WAITED = { elapsedMs: 51, timeoutMs: 30_000, timeoutClamped: false };
const CLAMPED = { elapsedMs: 30_002, timeoutMs: 30_000, timeoutClamped: true };
const CURSOR = "ltxc1.0123456789abcdef0123456789abcdef.7";

/** What capture_pane keeps (seed 004), and the read batch (seeds 000, 001). */
const CAPTURE_KEEPS = ["truncated", "lineLimit", "byteLimit", "encoding"];
const BATCH_KEEPS = ["truncated", "truncatedBytes"];

/** [what, the fields the tool keeps, full data, lean data]. */
const CASES: Array<[string, string[], Record<string, unknown>, Record<string, unknown>]> = [
  [
    "a quick run: only what happened",
    [],
    {
      paneId: "%1",
      resolvedPaneIds: ["%1"],
      outcome: "completed",
      exitStatus: 0,
      output: "hi",
      ...UNCUT,
      cursor: CURSOR,
      ...WAITED,
    },
    {
      paneId: "%1",
      outcome: "completed",
      exitStatus: 0,
      output: "hi",
      terminalContent: "data",
      cursor: CURSOR,
      elapsedMs: 51,
    },
  ],
  [
    "a cut, clamped run keeps the counts, the limits and the timeout that applied",
    [],
    { paneId: "%1", outcome: "timeout", output: "x", ...CUT, runId: "r1", ...CLAMPED },
    {
      paneId: "%1",
      outcome: "timeout",
      output: "x",
      truncated: true,
      truncatedLines: 3,
      truncatedBytes: 40,
      lineLimit: 2,
      byteLimit: 65_536,
      terminalContent: "data",
      runId: "r1",
      ...CLAMPED,
    },
  ],
  [
    "a first capture_since did not wait: no elapsedMs, no stream defaults",
    [],
    {
      text: "$",
      ...UNCUT,
      cursor: CURSOR,
      paneId: "%1",
      generation: "g.1",
      streaming: true,
      missedRows: 0,
      missedBytes: 0,
      alternateScreen: false,
      seedRace: false,
      outcome: "started",
      elapsedMs: 1,
      timeoutMs: 0,
      timeoutClamped: false,
    },
    {
      text: "$",
      terminalContent: "data",
      cursor: CURSOR,
      paneId: "%1",
      generation: "g.1",
      outcome: "started",
    },
  ],
  [
    "polled, on the alternate screen, missed rows, raced seed: all news",
    [],
    {
      text: "",
      ...UNCUT,
      paneId: "%1",
      generation: "g.1",
      streaming: false,
      missedRows: 4,
      missedBytes: 0,
      alternateScreen: true,
      seedRace: true,
      outcome: "timeout",
      ...WAITED,
      note: "polled",
    },
    {
      text: "",
      terminalContent: "data",
      paneId: "%1",
      generation: "g.1",
      streaming: false,
      missedRows: 4,
      alternateScreen: true,
      seedRace: true,
      outcome: "timeout",
      elapsedMs: 51,
      note: "polled",
    },
  ],
  [
    "send_keys: its constant `sent`, and receivers that are only the pane named",
    [],
    { paneId: "%2", resolvedPaneIds: ["%2"], sent: true },
    { paneId: "%2" },
  ],
  [
    "synchronized receivers are news",
    [],
    { paneId: "%2", resolvedPaneIds: ["%2", "%3"], bytes: 5 },
    { paneId: "%2", resolvedPaneIds: ["%2", "%3"], bytes: 5 },
  ],
  [
    "capture_pane keeps what seed 004 requires, not the zero counts",
    CAPTURE_KEEPS,
    { text: "a", ...UNCUT, paneId: "%1", generation: "g", start: 0, end: 23 },
    {
      text: "a",
      truncated: false,
      lineLimit: 200,
      byteLimit: 65_536,
      encoding: "utf-8",
      terminalContent: "data",
      paneId: "%1",
      generation: "g",
      start: 0,
      end: 23,
    },
  ],
  [
    "the read batch keeps its own accounting (seeds 000, 001)",
    BATCH_KEEPS,
    {
      results: [],
      succeeded: 0,
      failed: 0,
      stoppedAt: null,
      truncated: false,
      truncatedBytes: 0,
      onError: "stop",
    },
    {
      results: [],
      succeeded: 0,
      failed: 0,
      stoppedAt: null,
      truncated: false,
      truncatedBytes: 0,
      onError: "stop",
    },
  ],
  [
    "wait_for_text on timeout: no match to report",
    [],
    {
      outcome: "timeout",
      matchedLine: null,
      patternIndex: null,
      matchedAtEntry: false,
      text: "",
      ...UNCUT,
      paneId: "%0",
      generation: "g",
      streaming: true,
      missedRows: 0,
      ...WAITED,
    },
    {
      outcome: "timeout",
      text: "",
      terminalContent: "data",
      paneId: "%0",
      generation: "g",
      elapsedMs: 51,
    },
  ],
  [
    "wait_for_text matched at entry, at index 0",
    [],
    { outcome: "matched", matchedLine: "ok", patternIndex: 0, matchedAtEntry: true },
    { outcome: "matched", matchedLine: "ok", patternIndex: 0, matchedAtEntry: true },
  ],
  [
    "search_panes: no failure and no limit reached",
    [],
    {
      matches: [],
      panesSearched: 3,
      panesMatched: 0,
      panesFailed: 0,
      paneLimitClamped: false,
      lineLimitClamped: true,
      byteLimitClamped: false,
      timeLimitClamped: false,
    },
    { matches: [], panesSearched: 3, panesMatched: 0, lineLimitClamped: true },
  ],
  [
    "a kill says what ended, not what did not",
    [],
    {
      paneId: "%1",
      panesEnded: ["%1"],
      windowEnded: true,
      sessionEnded: false,
      serverExited: false,
    },
    { paneId: "%1", panesEnded: ["%1"], windowEnded: true },
  ],
  [
    "nothing withheld",
    [],
    { variables: [], withheld: [] },
    { variables: [] },
  ],
  [
    "a server started, names withheld: news",
    [],
    { sessionId: "$0", serverStarted: true, withheld: ["TOKEN"] },
    { sessionId: "$0", serverStarted: true, withheld: ["TOKEN"] },
  ],
  [
    "a field no rule names is never touched, whatever its value",
    [],
    { windowId: "@1", panes: [], zoomed: false, active: false, historyLines: 0, note: "" },
    { windowId: "@1", panes: [], zoomed: false, active: false, historyLines: 0, note: "" },
  ],
  [
    "a wait that did not wait has no elapsedMs; a clamp to 0 keeps both",
    [],
    { channel: "c", outcome: "timeout", elapsedMs: 0, timeoutMs: 0, timeoutClamped: true },
    { channel: "c", outcome: "timeout", timeoutMs: 0, timeoutClamped: true },
  ],
];

Deno.test("leanData: each case leaves out exactly the fields that say nothing, in order", () => {
  for (const [what, keeps, full, lean] of CASES) {
    const before = structuredClone(full);
    const got = leanData(full, keeps);
    assertEquals(got, lean, what);
    assertEquals(JSON.stringify(got), JSON.stringify(lean), `${what}: key order`);
    assertEquals(full, before, `${what}: the handler's data is not changed`);
  }
});

Deno.test("leanData is pure and keeps symbol keys (content blocks attached to the data)", () => {
  const mark = Symbol("attached");
  const full = { truncated: false, text: "a", [mark]: ["image"] };
  const lean = leanData(full);
  assertEquals(full.truncated, false, "the handler's data is not changed");
  assertEquals([lean.truncated, lean[mark]], [undefined, ["image"]]);
  const news = { truncated: true };
  assert(leanData(news) === news, "nothing to leave out: the same object");
});

Deno.test("leanJsonSchema: lean fields optional and described, never-news fields gone, the rest as is", () => {
  const schema = {
    type: "object",
    properties: {
      text: { type: "string" },
      truncated: { type: "boolean" },
      truncatedLines: { type: "integer", description: "Lines dropped from the top." },
      lineLimit: { type: "integer" },
      encoding: { type: "string", const: "utf-8" },
      missedBytes: { type: "integer" },
      timeoutMs: { type: "integer" },
    },
    required: ["text", "truncated", "truncatedLines", "lineLimit", "encoding", "missedBytes"],
    additionalProperties: false,
  };
  type Schema = {
    required: string[];
    properties: Record<string, { type?: string; description?: string }>;
  };
  const lean = leanJsonSchema(schema) as Schema;
  assertEquals(Object.keys(lean), ["type", "properties", "required", "additionalProperties"]);
  assertEquals(lean.required, ["text"]);
  assertEquals(Object.keys(lean.properties), [
    "text",
    "truncated",
    "truncatedLines",
    "lineLimit",
    "timeoutMs",
  ]);
  assertEquals(
    lean.properties.truncatedLines,
    {
      type: "integer",
      description: "Lines dropped from the top. Present only when something was cut.",
    },
  );
  assert(/only when/.test(lean.properties.timeoutMs.description ?? ""));
  assertEquals(schema.required.length, 6, "the input schema is not changed");
  // capture_pane keeps seed 004's required keys; only its zero counts become optional.
  const capture = leanJsonSchema(schema, CAPTURE_KEEPS) as Schema;
  assertEquals(capture.required, ["text", "truncated", "lineLimit", "encoding"]);
  assert("encoding" in capture.properties && !("missedBytes" in capture.properties));
  // Nothing to lean: the same schema.
  const plain = { type: "object", properties: { windowId: { type: "string" } } };
  assert(leanJsonSchema(plain) === plain);
});

Deno.test("the rules name each field once", () => {
  const keys = LEAN_RULES.map((rule) => rule.key);
  assertEquals(keys.filter((key, i) => keys.indexOf(key) !== i), []);
});
