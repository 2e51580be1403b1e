// deno-lint-ignore-file no-explicit-any -- these tests walk untyped JSON Schema documents
/**
 * The tool catalog as a whole: with all four toolsets tools/list serves exactly the manifest's
 * surface table, the batch's nested schema follows the enabled tools, and the model-visible
 * catalog (sent to the model on every turn) stays within its budget.
 */
import { assert, assertEquals, assertMatch } from "./support/assert.ts";
import { connectInProcess, fails, ok } from "./support/client.ts";
import { TmuxFixture } from "./support/fixture.ts";
import { catalogSizes } from "../scripts/catalog.ts";
import { SURFACE, TOOLS } from "../src/catalog.ts";
import { DEFAULT_TOOLSETS, TOOLSETS } from "../src/config.ts";

/** Model-visible bytes allowed (issue 26): name, title, description, input schema, annotations. */
const BUDGET = { default: 41_000, all: 48_000 };

const encoder = new TextEncoder();

/** The largest tools of a sizing, for a failure message that says where to cut. */
function largest(sizes: ReturnType<typeof catalogSizes>): string {
  return [...sizes.tools].sort((a, b) => b.visible - a.visible).slice(0, 5)
    .map((t) => `${t.name} ${t.visible}`).join(", ");
}

Deno.test("the model-visible catalog fits its budget: 40 KB with the default toolsets, 48 KB with all four", () => {
  const defaults = catalogSizes([...DEFAULT_TOOLSETS]);
  const all = catalogSizes([...TOOLSETS]);
  assertEquals(all.tools.length, TOOLSETS.flatMap((set) => SURFACE[set]).length);
  assert(
    defaults.visible <= BUDGET.default,
    `default toolsets: ${defaults.visible} bytes > ${BUDGET.default}; largest: ${
      largest(defaults)
    }`,
  );
  assert(
    all.visible <= BUDGET.all,
    `all four toolsets: ${all.visible} bytes > ${BUDGET.all}; largest: ${largest(all)}`,
  );
});

Deno.test("catalog sizes are those of the tools/list a client receives", async () => {
  await using fx = await TmuxFixture.start();
  const { client, close } = await connectInProcess([
    "-S",
    fx.deadSocket,
    "--toolsets",
    TOOLSETS.join(","),
  ]);
  try {
    const { tools } = await client.listTools();
    const measured = catalogSizes([...TOOLSETS]);
    assertEquals(tools.map((t) => t.name), measured.tools.map((t) => t.name));
    for (const [i, tool] of tools.entries()) {
      const { name, title, description, inputSchema, annotations } = tool;
      const visible = encoder.encode(
        JSON.stringify({ name, title, description, inputSchema, annotations }),
      ).length;
      assertEquals(visible, measured.tools[i].visible, name);
    }
  } finally {
    await close();
  }
});

Deno.test("only inspect tools are batchable, and the batch itself is not", () => {
  const batchable = TOOLS.filter((t) => t.batchable);
  assertEquals(batchable.length, 16);
  for (const spec of batchable) {
    assertEquals([spec.toolset, spec.annotations], ["inspect", "inspect"], spec.name);
  }
});

Deno.test("with all four toolsets, tools/list names exactly the manifest's surface table", async () => {
  const surface = TOOLSETS.flatMap((set) => SURFACE[set]);
  assertEquals(new Set(surface).size, surface.length, "a tool is listed once in the table");
  // Every tool is built, in the toolset the table gives it: so the subset test of
  // tests/config_test.ts (which lists the built tools of each of the 16 subsets) lists their union.
  assertEquals(TOOLS.map((t) => t.name).sort(), [...surface].sort());
  for (const spec of TOOLS) assert(SURFACE[spec.toolset].includes(spec.name), spec.name);

  await using fx = await TmuxFixture.start();
  const { client, close } = await connectInProcess([
    "-S",
    fx.deadSocket,
    "--toolsets",
    TOOLSETS.join(","),
  ]);
  try {
    const { tools } = await client.listTools();
    assertEquals(tools.map((t) => t.name).sort(), [...surface].sort());
    const defaults = await connectInProcess(["-S", fx.deadSocket]);
    try {
      const listed = (await defaults.client.listTools()).tools.map((t) => t.name);
      assertEquals(listed.sort(), DEFAULT_TOOLSETS.flatMap((set) => SURFACE[set]).sort());
    } finally {
      await defaults.close();
    }
  } finally {
    await close();
  }
});

Deno.test("the batch's nested shapes are the enabled tools' own input schemas", async () => {
  await using fx = await TmuxFixture.start();
  const { client, close } = await connectInProcess([
    "-S",
    fx.deadSocket,
    "--toolsets",
    TOOLSETS.join(","),
  ]);
  try {
    const { tools } = await client.listTools();
    const batch = tools.find((t) => t.name === "call_read_tools_batch")!.inputSchema as any;
    const variants = batch.properties.operations.items.anyOf as any[];
    assertEquals(variants.length, 16);
    for (const variant of variants) {
      const name = variant.properties.tool.const;
      const { $schema: _, ...own } = tools.find((t) => t.name === name)!.inputSchema as any;
      assertEquals(variant.properties.arguments, own, name);
    }
  } finally {
    await close();
  }
});

Deno.test("--tools adds a tool to the batch, --exclude-tools prunes it, and the batch refuses what is not enabled", async () => {
  await using fx = await TmuxFixture.start();
  const paneId = (await fx.tmux("display-message", "-p", "-t", "=main:", "#{pane_id}")).trim();
  const { client, close } = await connectInProcess([
    "-S",
    fx.socket,
    "--toolsets",
    "manage",
    "--tools",
    "call_read_tools_batch,capture_pane,list_panes,send_keys",
    "--exclude-tools",
    "list_panes",
  ]);
  try {
    const { tools } = await client.listTools();
    assertEquals(
      tools.map((t) => t.name).sort(),
      [...SURFACE.manage, "call_read_tools_batch", "capture_pane", "send_keys"].sort(),
    );
    const batch = tools.find((t) => t.name === "call_read_tools_batch")!.inputSchema as any;
    // One batchable tool left: its shape is the item itself, not a union of one.
    const items = batch.properties.operations.items;
    const nested = (items.anyOf ?? [items]).map((v: any) => v.properties.tool.const);
    assertEquals(nested, ["capture_pane"]);

    const result = await ok<{ results: Array<{ tool: string; success: boolean; error: string }> }>(
      client,
      "call_read_tools_batch",
      {
        onError: "continue",
        operations: [
          { tool: "capture_pane", arguments: { paneId } },
          { tool: "list_panes" },
          { tool: "list_sessions" },
          { tool: "send_keys", arguments: { paneId, keys: "x" } },
        ],
      },
    );
    assertEquals(result.results.map((r) => r.success), [true, false, false, false]);
    assertMatch(result.results[1].error, /^tool_denied: list_panes is not enabled/);
    assertMatch(result.results[2].error, /^tool_denied: list_sessions is not enabled/);
    assertMatch(result.results[3].error, /^tool_denied: send_keys cannot run in a batch/);
    // Directly, the excluded tool names the flag that removed it.
    const direct = await fails(client, "list_panes");
    assertEquals(direct.code, "tool_denied");
    assertMatch(direct.text, /--exclude-tools/);
  } finally {
    await close();
  }
});
