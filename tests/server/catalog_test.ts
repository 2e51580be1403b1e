// deno-lint-ignore-file no-explicit-any -- these tests walk untyped JSON Schema documents
/**
 * The tool catalog as a whole: with all four toolsets tools/list serves exactly the manifest's
 * surface table, the batch's nested schema follows the enabled tools, and the model-visible
 * catalog (sent to the model on every turn) stays within its budget.
 */
import { assert, assertEquals, assertMatch } from "../support/assert.ts";
import { connectInProcess, fails, ok } from "../support/client.ts";
import { TmuxFixture } from "../support/fixture.ts";
import { catalogSizes } from "../../scripts/catalog.ts";
import {
  APP_TOOLS,
  effectiveTools,
  inputJsonSchema,
  successJsonSchema,
  SURFACE,
  toolListEntry,
  TOOLS,
  WAIT_MAX_TOKEN,
  waitMaxText,
} from "../../src/catalog.ts";
import { hostSurface } from "../../src/server/host_call.ts";
import { idMark } from "../../src/id_marks.ts";
import { LEAN_RULES } from "../../src/lean.ts";
import type { ToolSpec } from "../../src/tool_types.ts";
import { DEFAULT_TOOLSETS, parseConfig, TOOLSETS } from "../../src/config.ts";
import { serverInstructions } from "../../src/server.ts";
import { z } from "zod";

/**
 * Model-visible bytes allowed (issues 34, 43): name, title, description, input schema, annotations.
 * The default is the core preset; all four toolsets are the whole surface.
 */
const BUDGET = { defaultTools: 16, default: 14_000, instructions: 2_000, all: 38_000 };

/**
 * The everyday loop the core preset must cover (docs/design.md §4), by name: each of these
 * tools carries `core: true` in its own file, and no other tool does.
 */
const CORE = [
  "list_panes",
  "capture_pane",
  "capture_since",
  "search_panes",
  "show_pane",
  "wait_for_text",
  "wait_for_command",
  "send_keys",
  "paste_text",
  "run_shell_command",
  "create_session",
  "create_window",
  "split_window",
];

const encoder = new TextEncoder();

/** The configuration of `args`. */
function configOf(args: string[], env: Record<string, string> = {}) {
  const outcome = parseConfig(args, (name) => env[name], SURFACE);
  if (outcome.kind !== "run") throw new Error("not a run configuration");
  return outcome.config;
}

/** Names of the tools a configuration enables. */
function namesOf(args: string[], env: Record<string, string> = {}): string[] {
  return effectiveTools(configOf(args, env)).map((t) => t.name);
}

/** The largest tools of a sizing, for a failure message that says where to cut. */
function largest(sizes: ReturnType<typeof catalogSizes>): string {
  return [...sizes.tools].sort((a, b) => b.visible - a.visible).slice(0, 5)
    .map((t) => `${t.name} ${t.visible}`).join(", ");
}

Deno.test("the default is the core preset: the everyday loop, nothing else", () => {
  assertEquals(DEFAULT_TOOLSETS, ["core"]);
  assertEquals(configOf([]).toolsets, ["core"]);
  const flagged = TOOLS.filter((t) => t.core).map((t) => t.name);
  assertEquals([...flagged].sort(), [...CORE].sort());
  assertEquals(namesOf([]), flagged);
  // Teardown is never in the default: closing things stays one flag away.
  assert(!TOOLS.some((t) => t.core && t.toolset === "teardown"));
});

Deno.test("the default fits its budget: 16 tools, 14,000 model-visible bytes, 2,000 bytes of instructions", () => {
  const sizes = catalogSizes([...DEFAULT_TOOLSETS]);
  const names = sizes.tools.map((t) => t.name);
  assertEquals([...names].sort(), [...CORE].sort());
  assert(names.length <= BUDGET.defaultTools, `${names.length} tools`);
  assert(
    sizes.visible <= BUDGET.default,
    `default: ${sizes.visible} bytes > ${BUDGET.default}; largest: ${largest(sizes)}`,
  );
  const instructions = encoder.encode(serverInstructions(names)).length;
  assert(instructions <= BUDGET.instructions, `instructions: ${instructions} bytes`);
});

Deno.test("all four toolsets fit in 38,000 model-visible bytes", () => {
  const all = catalogSizes([...TOOLSETS]);
  assertEquals(all.tools.length, TOOLSETS.flatMap((set) => SURFACE[set]).length);
  assert(
    all.visible <= BUDGET.all,
    `all four toolsets: ${all.visible} bytes > ${BUDGET.all}; largest: ${largest(all)}`,
  );
  const instructions = encoder.encode(serverInstructions(all.tools.map((t) => t.name))).length;
  assert(instructions <= BUDGET.instructions, `instructions: ${instructions} bytes`);
});

Deno.test("lean results: every field a result may leave out is optional and says when it appears; the seeds' keys stay required", () => {
  for (const spec of [...TOOLS, ...APP_TOOLS]) {
    const schema = successJsonSchema(spec) as any;
    const kept = new Set(spec.keeps ?? []);
    for (const key of (schema.required ?? []) as string[]) {
      const leaned = LEAN_RULES.some((r) => r.key === key);
      assert(!leaned || kept.has(key), `${spec.name}.${key} is required yet may be left out`);
    }
    for (const [key, property] of Object.entries(schema.properties ?? {}) as [string, any][]) {
      const rule = LEAN_RULES.find((r) => r.key === key);
      if (!rule || kept.has(key)) continue;
      assert(rule.when !== undefined, `${spec.name}.${key} is never sent, yet advertised`);
      assert(String(property.description).endsWith(rule.when), `${spec.name}.${key}: when`);
    }
  }
  // capture_pane: seed 004's result keys; the read batch: seeds 000/001's accounting.
  const required = (name: string) =>
    (successJsonSchema(TOOLS.find((t) => t.name === name)!) as any).required as string[];
  for (
    const key of ["text", "truncated", "lineLimit", "byteLimit", "encoding", "terminalContent"]
  ) {
    assert(required("capture_pane").includes(key), `capture_pane requires ${key}`);
  }
  assertEquals(
    required("call_read_tools_batch").sort(),
    ["failed", "onError", "results", "stoppedAt", "succeeded", "truncated", "truncatedBytes"],
  );
});

Deno.test("two remote hosts grow the catalog and instructions by at most 1,500 bytes", () => {
  const hosts = ["build-box", "gpu-box"];
  for (const toolsets of [[...DEFAULT_TOOLSETS], [...TOOLSETS]]) {
    const plain = catalogSizes(toolsets);
    const remote = catalogSizes(toolsets, [], hosts);
    const names = plain.tools.map((t) => t.name);
    const grown = remote.visible - plain.visible +
      encoder.encode(serverInstructions(names, hosts)).length -
      encoder.encode(serverInstructions(names)).length;
    assert(grown > 0 && grown <= 1_500, `${toolsets.join(",")}: +${grown} bytes`);
  }
});

Deno.test("with remote hosts, advertised id and cursor patterns take a host prefix; without, none", () => {
  const capture = TOOLS.find((t) => t.name === "capture_since")!;
  const [hosted] = hostSurface([capture], ["box1"]);
  const pattern = (spec: ToolSpec, key: string) =>
    new RegExp(
      (inputJsonSchema(spec).properties as Record<string, { pattern: string }>)[key].pattern,
    );
  const cursor = "ltxc1.0123456789abcdef0123456789abcdef.7";
  assert(pattern(hosted, "paneId").test("box1:%3") && pattern(hosted, "paneId").test("%3"));
  assert(pattern(hosted, "cursor").test(`box1:${cursor}`));
  assert(
    !pattern(capture, "paneId").test("box1:%3") &&
      !pattern(capture, "cursor").test(`box1:${cursor}`),
  );
  const rows = successJsonSchema(
    hostSurface([TOOLS.find((t) => t.name === "list_panes")!], ["b"])[0],
  );
  const paneId = (rows.properties as Record<
    string,
    { items: { properties: Record<string, { pattern: string }> } }
  >)
    .panes.items.properties.paneId;
  assert(new RegExp(paneId.pattern).test("b:%3"), "results accept them too");
});

/** A string field of a tool's schema: where it is, its key, whether it is marked, its pattern. */
interface StringField {
  path: string;
  key: string;
  marked: boolean;
  pattern?: string;
}

/**
 * Every string field of a zod schema. A kind of schema this walk does not know fails it, so that
 * no new construct hides an id from it (or from the edge's walk in src/id_marks.ts).
 */
function stringFields(
  schema: z.ZodType,
  path: string,
  key: string,
  out: StringField[],
): StringField[] {
  const mark = idMark(schema);
  // A record of tmux variables and a nested call's arguments are routed by their own marks.
  if (mark !== undefined && !("kind" in mark)) return out;
  const def = schema.def as any;
  if (def.innerType) return stringFields(def.innerType, path, key, out);
  switch (def.type) {
    case "string": {
      const pattern = (z.toJSONSchema(schema, { io: "input" }) as { pattern?: string }).pattern;
      out.push({ path, key, marked: mark !== undefined, pattern });
      return out;
    }
    case "object":
      for (const [k, v] of Object.entries(def.shape as Record<string, z.ZodType>)) {
        stringFields(v, `${path}.${k}`, k, out);
      }
      return def.catchall ? stringFields(def.catchall, `${path}.*`, key, out) : out;
    case "array":
      return stringFields(def.element, `${path}[]`, key, out);
    case "record":
      return stringFields(def.valueType, `${path}{}`, key, out);
    case "union":
      for (const option of def.options) stringFields(option, path, key, out);
      return out;
    case "number":
    case "boolean":
    case "enum":
    case "literal":
    case "never":
    case "unknown":
      return out;
    default:
      throw new Error(`${path}: a ${def.type} schema; teach this walk and src/id_marks.ts`);
  }
}

/** Field names that say an id (`paneId`, `resolvedPaneIds`, `session`, `cursor`, …). */
const ID_NAME = /(^|[a-z])Ids?$|^(session|sessionName|window|target|cursor|panesEnded)$/;
/** Patterns that say an id: `%N`, `@N`, `$N`, a cursor. */
const ID_PATTERN = /[%@]\\d|\\\$\\d|ltxc1/;

Deno.test("every argument and result field that can hold an id is marked, so the edge routes it", () => {
  const fields = [...TOOLS, ...APP_TOOLS].flatMap((spec) => [
    ...stringFields(spec.input, `${spec.name} in`, "", []),
    ...stringFields(spec.output, `${spec.name} out`, "", []),
  ]);
  const unmarked = fields.filter((f) =>
    !f.marked && (ID_NAME.test(f.key) || ID_PATTERN.test(f.pattern ?? ""))
  );
  assertEquals(unmarked.map((f) => f.path), []);
  // The walk finds them at all, and a marked field is one that looks like an id (or a session's
  // name, as create_session answers it).
  assert(fields.filter((f) => f.marked).length > 100, "marked fields found");
  const odd = fields.filter((f) =>
    f.marked && !ID_NAME.test(f.key) && !ID_PATTERN.test(f.pattern ?? "")
  );
  assertEquals(odd.map((f) => f.path), ["create_session out.name"]);
});

Deno.test("with remote hosts, every advertised id pattern takes the prefix, in every schema", () => {
  const hosted = hostSurface([...TOOLS], ["b"]);
  const patterns: string[] = [];
  const collect = (node: unknown): void => {
    if (Array.isArray(node)) return node.forEach(collect);
    if (node === null || typeof node !== "object") return;
    for (const [key, value] of Object.entries(node)) {
      if (key === "pattern" && typeof value === "string") patterns.push(value);
      else collect(value);
    }
  };
  for (const spec of hosted) {
    collect(inputJsonSchema(spec, hosted));
    collect(successJsonSchema(spec));
  }
  const ids = patterns.filter((p) => ID_PATTERN.test(p));
  assert(ids.length > 50, `${ids.length} id patterns`);
  assertEquals(ids.filter((p) => !p.startsWith("^(\\S+:)?")), []);
});

Deno.test("--toolsets inspect,manage,execute (or LIBTMUX_TOOLSETS) is the whole former default; core combines", () => {
  const former = TOOLS.filter((t) => t.toolset !== "teardown").map((t) => t.name);
  assertEquals(namesOf(["--toolsets", "inspect,manage,execute"]), former);
  assertEquals(namesOf([], { LIBTMUX_TOOLSETS: "inspect,manage,execute" }), former);
  assertEquals(namesOf([], { TMUX_MCP_TOOLSETS: "execute,manage,inspect" }), former);
  // core adds nothing to the toolsets it is made of.
  assertEquals(namesOf(["--toolsets", "core,inspect,manage,execute"]), former);
  const withManage = namesOf(["--toolsets", "core,manage"]);
  assertEquals(
    withManage,
    TOOLS.filter((t) => t.core || t.toolset === "manage").map((t) => t.name),
  );
  assertEquals(
    namesOf(["--toolsets", "core", "--tools", "kill_pane", "--exclude-tools", "show_pane"]),
    TOOLS.filter((t) => (t.core && t.name !== "show_pane") || t.name === "kill_pane")
      .map((t) => t.name),
  );
});

Deno.test("a hidden tool's hint keeps the enabled toolsets: --toolsets core,inspect", async () => {
  await using fx = await TmuxFixture.start();
  const { client, close } = await connectInProcess(["-S", fx.socket, "--toolsets", "core"]);
  try {
    const denied = await fails(client, "list_sessions");
    assertEquals(denied.code, "tool_denied");
    assertMatch(denied.text, /--toolsets core,inspect or --tools list_sessions/);
    const kill = await fails(client, "kill_pane", { paneId: "%0" });
    assertMatch(kill.text, /--toolsets core,teardown or --tools kill_pane/);
  } finally {
    await close();
  }
});

Deno.test("advertised input schemas read the same in draft-07 and 2020-12, so they carry no $schema", () => {
  for (const spec of TOOLS) {
    const schema = spec.advertisedInput?.(TOOLS) ?? spec.input;
    const strip = ({ $schema: _, ...rest }: Record<string, unknown>) => rest;
    assertEquals(
      strip(z.toJSONSchema(schema, { target: "draft-7", io: "input" })),
      strip(z.toJSONSchema(schema, { target: "draft-2020-12", io: "input" })),
      spec.name,
    );
  }
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

Deno.test("descriptions state the wait ceiling in force: --wait-max-ms 5000 lists 5 s, never {waitMax}", async () => {
  assertEquals(
    [1_500, 5_000, 30_000, 60_000, 90_000, 120_000, 600_000].map(waitMaxText),
    ["1500 ms", "5 s", "30 s", "1 min", "90 s", "2 min", "10 min"],
  );
  await using fx = await TmuxFixture.start();
  const every = ["-S", fx.deadSocket, "--toolsets", TOOLSETS.join(",")];
  const { client, close } = await connectInProcess([...every, "--wait-max-ms", "5000"]);
  const defaults = await connectInProcess(every);
  try {
    const { tools } = await client.listTools();
    const listed = JSON.stringify(tools);
    assert(!listed.includes(WAIT_MAX_TOKEN), "no description lists the raw token");
    // Every tool whose manifest writes the token (its description, a field's, a result's) lists
    // the ceiling in force in its place.
    const listing = (spec: ToolSpec, ms: number) => JSON.stringify(toolListEntry(spec, TOOLS, ms));
    const stating = TOOLS.filter((spec) => listing(spec, 1_234) !== listing(spec, 4_321));
    assert(stating.some((t) => t.name === "wait_for_text"), stating.map((t) => t.name).join());
    for (const spec of stating) {
      const tool = tools.find((t) => t.name === spec.name)!;
      assert(JSON.stringify(tool).includes("5 s"), `${spec.name} states the ceiling`);
      assertEquals(tool.description, spec.description.replaceAll(WAIT_MAX_TOKEN, "5 s"));
    }
    const waitForText = tools.find((t) => t.name === "wait_for_text")!;
    assertMatch(waitForText.description!, /at most 5 s\b/);
    const usual = (await defaults.client.listTools()).tools.find((t) => t.name === "wait_for_text");
    assertMatch(usual!.description!, /at most 30 s\b/);
    assert(!JSON.stringify(await defaults.client.listTools()).includes(WAIT_MAX_TOKEN));
  } finally {
    await close();
    await defaults.close();
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
  // tests/server/config_test.ts (which lists the built tools of each of the 16 subsets) lists their union.
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
    const defaults = await connectInProcess(["-S", fx.deadSocket, "--toolsets", "core"]);
    try {
      const listed = (await defaults.client.listTools()).tools.map((t) => t.name);
      assertEquals(listed, namesOf([]));
      const instructions = defaults.client.getInstructions() ?? "";
      assertEquals(instructions, serverInstructions(listed));
      for (const name of TOOLS.map((t) => t.name).filter((n) => !listed.includes(n))) {
        assert(!instructions.includes(name), `the instructions name ${name}, which is off`);
      }
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
    // The tool's own entry, always listed beside the batch, carries the prose.
    const prose = /,?"description":"(?:[^"\\]|\\.)*"/g;
    for (const variant of variants) {
      const name = variant.properties.tool.const;
      const own = tools.find((t) => t.name === name)!.inputSchema;
      assert(!JSON.stringify(variant).includes('"description"'), name);
      assertEquals(
        JSON.stringify(variant.properties.arguments),
        JSON.stringify(own).replaceAll(prose, "").replaceAll("{,", "{"),
        name,
      );
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
