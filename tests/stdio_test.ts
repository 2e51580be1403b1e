/** End to end: main.ts over stdio with exactly the permissions of `deno task start`. */
import { assert, assertEquals, assertMatch } from "./support/assert.ts";
import { CAPABILITIES_URI, INSTRUCTIONS } from "../src/server.ts";
import { CAPABILITY_META_KEY } from "../src/catalog.ts";
import { connectStdio, fails, ok, startPermissions } from "./support/client.ts";
import { TmuxFixture } from "./support/fixture.ts";

Deno.test("start permissions are narrow: run=tmux and a short env list; no -A, read, write, net", async () => {
  const flags = await startPermissions();
  assertEquals(flags.filter((f) => f.startsWith("--allow-run")), ["--allow-run=tmux"]);
  const env = flags.find((f) => f.startsWith("--allow-env="));
  assert(env, "an explicit --allow-env list");
  assert(env.split("=")[1].split(",").length <= 16, "short");
  for (const forbidden of ["-A", "--allow-all", "--allow-read", "--allow-write", "--allow-net"]) {
    assert(!flags.some((f) => f.startsWith(forbidden)), forbidden);
  }
});

Deno.test("stdio: initialize, tools/list contract, a call, capabilities, and errors", async () => {
  await using fx = await TmuxFixture.start({ session: "e2e" });
  const { client, stderr, close } = await connectStdio(["-S", fx.socket]);
  try {
    assertEquals(client.getServerVersion()?.name, "tmux-mcp");
    const instructions = client.getInstructions() ?? "";
    assertEquals(instructions, INSTRUCTIONS);
    assert(new TextEncoder().encode(instructions).length <= 2048, "instructions fit in 2 KB");

    const { tools } = await client.listTools();
    assertEquals(tools.map((t) => t.name), ["list_sessions", "list_windows", "list_panes"]);
    for (const tool of tools) {
      assertEquals(tool.annotations, {
        title: tool.title,
        readOnlyHint: true,
        destructiveHint: false,
        idempotentHint: true,
        openWorldHint: true,
      });
      const output = tool.outputSchema as { type: string; anyOf: Array<Record<string, unknown>> };
      assertEquals(output.type, "object");
      assertEquals(output.anyOf.length, 2);
      assertEquals(output.anyOf[0].additionalProperties, false);
      assertEquals((output.anyOf[1] as { required: string[] }).required, ["error"]);
      assertEquals(tool.inputSchema.type, "object");
      assertEquals(tool.inputSchema.additionalProperties, false);
      const meta = tool._meta?.[CAPABILITY_META_KEY] as Record<string, unknown>;
      assertEquals(meta, {
        toolset: "inspect",
        reach: "none",
        effects: "observe",
        output: ["metadata"],
      });
    }
    const panes = tools.find((t) => t.name === "list_panes")!;
    const windowProp = (panes.inputSchema.properties as Record<string, { pattern: string }>).window;
    assertEquals(windowProp.pattern, "^@\\d+$");

    const { panes: rows } = await ok<{ panes: Array<{ sessionName: string; paneId: string }> }>(
      client,
      "list_panes",
    );
    assertEquals(rows.map((r) => r.sessionName), ["e2e"]);
    assertEquals(rows[0].paneId, await fx.display("=e2e:", "#{pane_id}"));

    const missing = await fails(client, "list_windows", { session: "e2" });
    assertEquals(missing.code, "target_not_found");

    const { resources } = await client.listResources();
    assertEquals(resources.map((r) => r.uri), [CAPABILITIES_URI]);
    const read = await client.readResource({ uri: CAPABILITIES_URI });
    const caps = JSON.parse((read.contents[0] as { text: string }).text);
    const tmuxV = await new Deno.Command("tmux", { args: ["-V"] }).output();
    assertEquals(caps.tmuxVersion, new TextDecoder().decode(tmuxV.stdout).trim());
    assertEquals(caps.toolsets, ["inspect", "manage", "execute"]);
    assertEquals(caps.tools.map((t: { name: string }) => t.name), tools.map((t) => t.name));
    assertMatch(
      stderr(),
      /tmux-mcp: 0\.1\.0 · socket .* · toolsets inspect,manage,execute · 3 tools/,
    );
  } finally {
    await close();
  }
});

Deno.test("stdio: works with LD_PRELOAD / LD_LIBRARY_PATH set in the parent", async () => {
  await using fx = await TmuxFixture.start({ session: "preload" });
  const { client, stderr, close } = await connectStdio(["-S", fx.socket], {
    LD_LIBRARY_PATH: "/nonexistent-tmux-mcp-test",
    // The loader warns that it cannot preload this file and carries on; Deno still refuses to
    // spawn while the variable is set, which is what the reduced environment works around.
    LD_PRELOAD: "/nonexistent-tmux-mcp-test.so",
  });
  try {
    const { sessions } = await ok<{ sessions: Array<{ sessionName: string }> }>(
      client,
      "list_sessions",
    );
    assertEquals(sessions.map((s) => s.sessionName), ["preload"]);
    assertMatch(stderr(), /reduced environment/);
  } finally {
    await close();
  }
});

Deno.test("stdio: tmux missing from PATH is not a crash: tools answer tmux_not_found", async () => {
  const empty = await Deno.makeTempDir({ prefix: "tmux-mcp-test-nopath-" });
  const { client, stderr, close } = await connectStdio(["-L", "tmux-mcp-test-none"], {
    PATH: empty,
  });
  try {
    const error = await fails(client, "list_sessions");
    assertEquals(error.code, "tmux_not_found");
    assertMatch(error.text, /Install tmux/);
    assertMatch(stderr(), /tmux was not found on PATH/);
  } finally {
    await close();
    await Deno.remove(empty, { recursive: true });
  }
});
