/** End to end: main.ts over stdio with exactly the permissions of `deno task start`. */
import { assert, assertEquals, assertMatch } from "./support/assert.ts";
import { CAPABILITIES_URI, INSTRUCTIONS } from "../src/server.ts";
import { ANNOTATIONS, CAPABILITY_META_KEY, capabilityRow, TOOLS } from "../src/catalog.ts";
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
    const defaults = TOOLS.filter((t) => ["inspect", "manage", "execute"].includes(t.toolset));
    assertEquals(tools.map((t) => t.name), defaults.map((t) => t.name));
    for (const tool of tools) {
      const spec = defaults.find((t) => t.name === tool.name)!;
      assertEquals(tool.annotations, { title: tool.title, ...ANNOTATIONS[spec.annotations] });
      if (spec.annotations === "inspect") assertEquals(tool.annotations?.readOnlyHint, true);
      const output = tool.outputSchema as { type: string; anyOf: Array<Record<string, unknown>> };
      assertEquals(output.type, "object");
      assertEquals(output.anyOf.length, 2);
      assertEquals(output.anyOf[0].additionalProperties, false);
      assertEquals((output.anyOf[1] as { required: string[] }).required, ["error"]);
      assertEquals(tool.inputSchema.type, "object");
      assertEquals(tool.inputSchema.additionalProperties, false);
      assertEquals(tool._meta?.[CAPABILITY_META_KEY], capabilityRow(spec));
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
      new RegExp(
        `tmux-mcp: 0\\.1\\.0 · socket .* · toolsets inspect,manage,execute · ${tools.length} tools`,
      ),
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

Deno.test("stdio: every inspect tool answers under the start permissions", async () => {
  await using fx = await TmuxFixture.start({ session: "all" });
  await fx.tmux("set-environment", "-g", "MY_SECRET_TOKEN", "s3cr3t");
  await fx.tmux("set-hook", "-g", "after-new-window", "display-message hi");
  const { client, close } = await connectStdio(["-S", fx.socket]);
  try {
    const calls: Array<[string, Record<string, unknown>, (r: Record<string, unknown>) => void]> = [
      ["list_sessions", {}, (r) => assertEquals((r.sessions as unknown[]).length, 1)],
      ["list_windows", { session: "all" }, (r) => assertEquals((r.windows as unknown[]).length, 1)],
      ["list_panes", { window: "@0" }, (r) => assertEquals((r.panes as unknown[]).length, 1)],
      ["get_server_info", {}, (r) => assertEquals(r.alive, true)],
      ["get_session_info", { session: "all" }, (r) => assertEquals(r.sessionName, "all")],
      ["get_window_info", { windowId: "@0" }, (r) => assertEquals(r.activePaneId, "%0")],
      ["get_pane_info", { paneId: "%0" }, (r) => assertEquals(r.paneId, "%0")],
      [
        "find_pane_by_position",
        { windowId: "@0", corner: "bottom-right" },
        (r) => assertEquals(r.paneId, "%0"),
      ],
      [
        "get_tmux_variables",
        { names: ["session_name"], paneId: "%0" },
        (r) => assertEquals(r.values, { session_name: "all" }),
      ],
      ["show_option", { name: "history-limit", scope: "global-session" }, (r) => assert(r.value)],
      [
        "show_environment",
        {},
        (r) => assert((r.withheld as string[]).includes("MY_SECRET_TOKEN")),
      ],
      ["show_hooks", {}, (r) => assertEquals((r.hooks as unknown[]).length, 1)],
      [
        "capture_pane",
        { paneId: "%0", start: -10 },
        (r) => assertEquals([r.terminalContent, r.paneId], ["data", "%0"]),
      ],
      ["snapshot_pane", { paneId: "%0" }, (r) => assertEquals(r.dead, false)],
      ["capture_since", { paneId: "%0" }, (r) => assertEquals(r.streaming, true)],
      [
        "call_read_tools_batch",
        {
          operations: [{ tool: "list_sessions" }, {
            tool: "capture_pane",
            arguments: { paneId: "%0" },
          }],
        },
        (r) => assertEquals([r.succeeded, r.failed], [2, 0]),
      ],
      [
        "search_panes",
        { pattern: "no such text", regex: true },
        (r) => assertEquals(r.panesSearched, 1),
      ],
      // Input tools, into the `sleep` pane (which never reads it).
      [
        "send_keys",
        { paneId: "%0", keys: "typed;", enter: false },
        (r) => assertEquals(r.resolvedPaneIds, ["%0"]),
      ],
      [
        "send_keys_batch",
        { operations: [{ paneId: "%0", keys: "C-u", enter: false }] },
        (r) => assertEquals(r.completed, 1),
      ],
      ["paste_text", { paneId: "%0", text: "pasted\n" }, (r) => assertEquals(r.bytes, 7)],
      [
        "set_synchronize_panes",
        { windowId: "@0", enabled: false },
        (r) => assertEquals(r.enabled, false),
      ],
    ];
    for (const [name, args, check] of calls) check(await ok(client, name, args));
    const { tools } = await client.listTools();
    assertEquals(calls.map((c) => c[0]).sort(), tools.map((t) => t.name).sort());
  } finally {
    await close();
  }
});

Deno.test("stdio: capture_since streams with live mode, and falls back with --no-live", async () => {
  await using fx = await TmuxFixture.start({ session: "live", command: "cat" });
  for (const live of [true, false]) {
    const { client, close } = await connectStdio(["-S", fx.socket, ...(live ? [] : ["--no-live"])]);
    try {
      const first = await ok<{ cursor?: string; streaming: boolean }>(client, "capture_since", {
        paneId: "%0",
      });
      assertEquals(first.streaming, live);
      const marker = `line-${live}`;
      const next = ok<{ text: string; outcome: string }>(client, "capture_since", {
        paneId: "%0",
        ...(first.cursor ? { cursor: first.cursor } : {}),
        waitMs: 5000,
      });
      setTimeout(() => fx.tmux("send-keys", "-t", "%0", "-l", marker), 300);
      const got = await next;
      assertEquals(got.outcome, "output");
      assert(got.text.includes(marker), got.text);
    } finally {
      await close();
    }
    // Closing the MCP connection detached our control client.
    assertEquals((await fx.tmux("list-clients")).trim(), "");
  }
});
