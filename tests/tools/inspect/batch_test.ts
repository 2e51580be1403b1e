// deno-lint-ignore-file no-explicit-any -- these tests walk untyped JSON Schema documents
/** call_read_tools_batch: the batch envelope, serial rows, stop/continue, the 1 MB ceiling. */
// deno-lint-ignore no-import-prefix -- dev tooling (deno.dev.lock): a start never fetches it
import { Ajv } from "npm:ajv@^8";
import { assert, assertEquals, assertMatch } from "../../support/assert.ts";
import { connectInProcess, fails, ok } from "../../support/client.ts";
import { eventually, TmuxFixture } from "../../support/fixture.ts";

const contract = JSON.parse(
  await Deno.readTextFile(new URL("../../fixtures/batch_contract.json", import.meta.url)),
);
const validateContractOutput = new Ajv({ strict: false }).compile(contract.output);

interface Row {
  index: number;
  tool: string;
  success: boolean;
  error: string | null;
  result:
    | { content: unknown[]; isError?: boolean; structuredContent?: Record<string, unknown> }
    | null;
  resultTruncated: boolean;
}
interface Batch {
  results: Row[];
  succeeded: number;
  failed: number;
  stoppedAt: number | null;
  truncated: boolean;
  truncatedBytes: number;
  onError: string;
}

function checked(batch: Batch): Batch {
  const valid = validateContractOutput(batch);
  assert(valid, JSON.stringify(validateContractOutput.errors));
  return batch;
}

Deno.test("batch: advertised input and annotations follow the batch contract", async () => {
  const { client, close } = await connectInProcess(["-L", "tmux-mcp-test-none"]);
  try {
    const { tools } = await client.listTools();
    const batch = tools.find((t) => t.name === "call_read_tools_batch")!;
    assertEquals(
      { ...batch.annotations, title: undefined },
      { ...contract.annotations, title: undefined },
    );
    assertMatch(batch.description!, /under one approval/);
    const ours = batch.inputSchema as Record<string, any>;
    const theirs = contract.input;
    assertEquals(ours.required, theirs.required);
    assertEquals(ours.additionalProperties, false);
    assertEquals(ours.properties.onError.enum, theirs.properties.onError.enum);
    const opsOurs = ours.properties.operations;
    const opsTheirs = theirs.properties.operations;
    assertEquals([opsOurs.minItems, opsOurs.maxItems], [opsTheirs.minItems, opsTheirs.maxItems]);
    const byTool = (variants: any[]) => new Map(variants.map((v) => [v.properties.tool.const, v]));
    const oursV = byTool(opsOurs.items.anyOf);
    const theirsV = byTool(opsTheirs.items.anyOf);
    assertEquals([...oursV.keys()].sort(), [...theirsV.keys()].sort());
    for (const [tool, theirVariant] of theirsV) {
      const mine = oursV.get(tool);
      assertEquals(mine.required, ["tool"], tool);
      assertEquals(mine.additionalProperties, false, tool);
      const myArgs = mine.properties.arguments;
      const theirArgs = theirVariant.properties.arguments;
      assertEquals(myArgs.additionalProperties, false, tool);
      assertEquals([...myArgs.required ?? []].sort(), [...theirArgs.required ?? []].sort(), tool);
      // Every contract argument exists with the same type; extensions (maxBytes, generation…) may add.
      for (const [name, prop] of Object.entries(theirArgs.properties as Record<string, any>)) {
        assert(name in myArgs.properties, `${tool}.${name}`);
        assertEquals(myArgs.properties[name].type, prop.type, `${tool}.${name}`);
        if (prop.pattern) {
          assertEquals(myArgs.properties[name].pattern, prop.pattern, `${tool}.${name}`);
        }
        if (prop.enum) assertEquals(myArgs.properties[name].enum, prop.enum, `${tool}.${name}`);
      }
    }
    assert(
      "maxBytes" in oursV.get("capture_pane").properties.arguments.properties,
      "extension shown",
    );
  } finally {
    await close();
  }
});

Deno.test("batch: rows run in order; stop ends at the first failure, continue runs all", async () => {
  await using fx = await TmuxFixture.start({ session: "b" });
  const { client, close } = await connectInProcess(["-S", fx.socket]);
  try {
    const operations = [
      { tool: "list_sessions" },
      { tool: "get_pane_info", arguments: { paneId: "%404" } }, // fails: no such pane
      { tool: "get_pane_info", arguments: { paneId: "%0" } },
    ];
    const stopped = checked(await ok<Batch>(client, "call_read_tools_batch", { operations }));
    assertEquals(stopped.results.map((r) => [r.index, r.tool, r.success]), [
      [0, "list_sessions", true],
      [1, "get_pane_info", false],
    ]);
    assertEquals([stopped.stoppedAt, stopped.succeeded, stopped.failed, stopped.onError], [
      1,
      1,
      1,
      "stop",
    ]);
    assertMatch(stopped.results[1].error!, /^target_not_found: no pane %404/);
    assertEquals(stopped.results[1].result!.isError, true);
    // A row's result is exactly what the direct call returns.
    const direct = await client.callTool({ name: "list_sessions", arguments: {} });
    assertEquals(stopped.results[0].result!.structuredContent, direct.structuredContent);
    assertEquals(stopped.results[0].result!.content, direct.content);

    const all = checked(
      await ok<Batch>(client, "call_read_tools_batch", { operations, onError: "continue" }),
    );
    assertEquals(all.results.map((r) => r.success), [true, false, true]);
    assertEquals([all.stoppedAt, all.succeeded, all.failed], [null, 2, 1]);
    assertEquals((all.results[2].result!.structuredContent as { paneId: string }).paneId, "%0");
  } finally {
    await close();
  }
});

Deno.test("batch: bad arguments, non-inspect and excluded tools fail as rows, not the call", async () => {
  await using fx = await TmuxFixture.start();
  const { client, close } = await connectInProcess([
    "-S",
    fx.socket,
    "--exclude-tools",
    "capture_pane",
  ]);
  try {
    const { tools } = await client.listTools();
    const schema = tools.find((t) => t.name === "call_read_tools_batch")!.inputSchema as any;
    const listed = schema.properties.operations.items.anyOf.map((v: any) =>
      v.properties.tool.const
    );
    assert(!listed.includes("capture_pane"), "an excluded tool is not in the union");
    assertEquals(listed.length, 15);
    const batch = checked(
      await ok<Batch>(client, "call_read_tools_batch", {
        onError: "continue",
        operations: [
          { tool: "get_pane_info", arguments: { paneId: "not-a-pane" } },
          { tool: "capture_pane", arguments: { paneId: "%0" } },
          { tool: "send_keys", arguments: { paneId: "%0", keys: "rm -rf /" } },
          { tool: "get_tmux_variables", arguments: { names: ["#(touch /tmp/x)"] } },
          { tool: "list_panes" },
        ],
      }),
    );
    assertEquals(batch.results.map((r) => r.error?.split(":")[0] ?? null), [
      "invalid_arguments",
      "tool_denied",
      "tool_denied",
      "invalid_arguments",
      null,
    ]);
    assertEquals([batch.succeeded, batch.failed], [1, 4]);
    // The outer shape is still enforced: too many rows, or an unknown key, fail the call.
    const tooMany = Array.from({ length: 17 }, () => ({ tool: "list_sessions" }));
    assertEquals(
      (await fails(client, "call_read_tools_batch", { operations: tooMany })).code,
      "invalid_arguments",
    );
    assertEquals(
      (await fails(client, "call_read_tools_batch", { operations: [], onError: "stop" })).code,
      "invalid_arguments",
    );
  } finally {
    await close();
  }
});

Deno.test("batch: 16 captures of 2,000 long lines stay under 1,000,000 bytes, all rows kept", async () => {
  // 2,000 lines of 120 characters in each of four panes.
  await using fx = await TmuxFixture.start({ width: 200, command: "sleep 100000" });
  await fx.tmux("set-option", "-g", "history-limit", "5000");
  const line = "x".repeat(110);
  for (let i = 1; i <= 4; i++) {
    await fx.tmux("new-window", "-d", `sh -c 'seq -f "%09g ${line}" 1 2000; exec sleep 100000'`);
  }
  for (let i = 1; i <= 4; i++) {
    assert(
      await eventually(async () =>
        (await fx.tmux("capture-pane", "-p", "-t", `:${i}`)).includes("000002000")
      ),
    );
  }
  const { client, close } = await connectInProcess(["-S", fx.socket]);
  try {
    const panes = (await fx.tmux("list-panes", "-a", "-F", "#{pane_id}")).trim().split("\n").slice(
      1,
    );
    const operations = Array.from({ length: 16 }, (_, i) => ({
      tool: "capture_pane",
      arguments: { paneId: panes[i % 4], start: -2000, maxLines: 2000, maxBytes: 262_144 },
    }));
    const result = await client.callTool({
      name: "call_read_tools_batch",
      arguments: { operations },
    });
    const batch = checked(result.structuredContent as unknown as Batch);
    const response = JSON.stringify({ jsonrpc: "2.0", id: 123456789, result });
    const bytes = new TextEncoder().encode(response).length;
    assert(bytes < 1_000_000, `response is ${bytes} bytes`);
    assertEquals(batch.results.length, 16);
    assert(batch.results.every((r) => r.success && r.error === null));
    assertEquals(batch.truncated, true);
    const dropped = batch.results.filter((r) => r.resultTruncated);
    assert(dropped.length > 0 && dropped.length < 16, `${dropped.length} dropped`);
    assert(dropped.every((r) => r.result === null));
    // What was dropped is accounted: each dropped result was larger than any one kept.
    const kept = batch.results.filter((r) => !r.resultTruncated);
    const keptSize = kept.map((r) => new TextEncoder().encode(JSON.stringify(r.result)).length);
    assert(
      batch.truncatedBytes >= dropped.length * Math.max(...keptSize) * 0.9,
      String(batch.truncatedBytes),
    );
    // The text block carries every row's data once, for clients that show only `content`.
    const text = JSON.parse((result.content as Array<{ text: string }>)[0].text) as Batch;
    assertEquals(text.results.length, 16);
    assertEquals(
      text.results.map((r) => r.result),
      batch.results.map((r) => r.result?.structuredContent ?? null),
    );
    assertEquals(
      { ...text, results: [] },
      { ...batch, results: [] },
    );
  } finally {
    await close();
  }
});

Deno.test("batch: capture_since rows return cursors the next call can use", async () => {
  await using fx = await TmuxFixture.start({ command: "cat" });
  const { client, close } = await connectInProcess(["-S", fx.socket]);
  try {
    const batch = checked(
      await ok<Batch>(client, "call_read_tools_batch", {
        operations: [{ tool: "capture_since", arguments: { paneId: "%0" } }],
      }),
    );
    const cursor = (batch.results[0].result!.structuredContent as { cursor: string }).cursor;
    await fx.tmux("send-keys", "-t", "%0", "-l", "after");
    const next = await ok<{ text: string }>(client, "capture_since", {
      paneId: "%0",
      cursor,
      waitMs: 20_000,
    });
    assert(next.text.includes("after"), next.text);
  } finally {
    await close();
  }
});
