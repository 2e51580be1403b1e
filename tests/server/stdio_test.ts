/** End to end: main.ts over stdio with exactly the permissions of `deno task start`. */
import { assert, assertEquals, assertMatch } from "../support/assert.ts";
import { CAPABILITIES_URI, serverInstructions } from "../../src/server.ts";
import { ANNOTATIONS, CAPABILITY_META_KEY, capabilityRow, TOOLS } from "../../src/catalog.ts";
import { connectStdio, fails, ok, startPermissions } from "../support/client.ts";
import { LIVENESS_MS, TmuxFixture } from "../support/fixture.ts";
import { RawMain } from "../support/raw_stdio.ts";
import { StdioTransport } from "../../src/stdio_transport.ts";

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
    assert(new TextEncoder().encode(instructions).length <= 2048, "instructions fit in 2 KB");

    const { tools } = await client.listTools();
    assertEquals(instructions, serverInstructions(tools.map((t) => t.name)));
    const defaults = TOOLS.filter((t) => ["inspect", "manage", "execute"].includes(t.toolset));
    assertEquals(tools.map((t) => t.name), defaults.map((t) => t.name));
    for (const tool of tools) {
      const spec = defaults.find((t) => t.name === tool.name)!;
      assertEquals(tool.annotations, ANNOTATIONS[spec.annotations]);
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
    assertEquals(resources.map((r) => r.uri), [CAPABILITIES_URI, "ui://tmux-mcp/pane-view"]);
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
      [
        "capture_since",
        { paneId: "%0" },
        (r) => assertEquals([r.streaming ?? true, r.outcome], [true, "started"]),
      ],
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
      [
        "wait_for_text",
        { paneId: "%0", patterns: ["never printed"], timeoutMs: 50 },
        (r) => assertEquals(r.outcome, "timeout"),
      ],
      [
        "screenshot_pane",
        { paneId: "%0" },
        (r) => assertEquals([r.columns, r.pixelWidth], [80, 800]),
      ],
      ["show_pane", { paneId: "%0" }, (r) => assertEquals([r.paneId, r.width], ["%0", 80])],
      // App-only: not listed to this client, served all the same (docs/design.md §10.2).
      ["pane_view_frame", { paneId: "%0" }, (r) => assertEquals(r.columns, 80)],
      // Input tools, into the `sleep` pane (which never reads it).
      [
        "send_keys",
        { paneId: "%0", keys: "typed;", enter: false },
        (r) => assertEquals([r.paneId, r.resolvedPaneIds ?? [r.paneId]], ["%0", ["%0"]]),
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
    // Every inspect tool served is called above (the other toolsets have stdio tests of their own).
    const { tools } = await client.listTools();
    const inspect = tools.map((t) => t.name)
      .filter((name) => TOOLS.find((spec) => spec.name === name)?.toolset === "inspect");
    assertEquals(inspect.filter((name) => !calls.some((c) => c[0] === name)), []);
  } finally {
    await close();
  }
});

Deno.test("stdio: capture_since streams with live mode, and falls back with --no-live", async () => {
  await using fx = await TmuxFixture.start({ session: "live", command: "cat" });
  for (const live of [true, false]) {
    const { client, close } = await connectStdio(["-S", fx.socket, ...(live ? [] : ["--no-live"])]);
    try {
      const first = await ok<{ cursor?: string; streaming?: boolean }>(client, "capture_since", {
        paneId: "%0",
      });
      assertEquals(first.streaming ?? true, live);
      const marker = `line-${live}`;
      const next = ok<{ text: string; outcome: string }>(client, "capture_since", {
        paneId: "%0",
        ...(first.cursor ? { cursor: first.cursor } : {}),
        waitMs: 30_000,
      });
      // Sentinel: a later call of the same client answered, so the wait has begun.
      await ok(client, "list_sessions");
      await fx.tmux("send-keys", "-t", "%0", "-l", marker);
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

/** No tmux server is needed for these: nothing they send reaches tmux. */
const NO_SERVER = ["-L", "tmux-mcp-test-none"];

type Reply = { id?: unknown; error?: { code: number; message: string }; result?: unknown };

Deno.test("stdio: malformed messages are answered with JSON-RPC errors, and serving goes on", async () => {
  await using main = await RawMain.spawn(NO_SERVER);
  await main.handshake();
  await main.line('{"jsonrpc":"2.0","id":1,"method":"tools/list"');
  const parse = await main.reply((m) => "error" in m) as Reply;
  assertEquals([parse.id, parse.error?.code], [null, -32700]);

  await main.line({ jsonrpc: "2.0", id: 2, method: "tools/list", params: [1, 2] });
  const array = await main.reply((m) => m.id === 2) as Reply;
  assertEquals(array.error?.code, -32602);

  await main.line({ jsonrpc: "2.0", id: 3, method: "tools/call", params: { name: 5 } });
  const typed = await main.reply((m) => m.id === 3) as Reply;
  assertEquals(typed.error?.code, -32602);
  assert(typed.error!.message.length < 200, typed.error!.message);
  assertMatch(typed.error!.message, /name/);

  const pong = await main.request("ping") as Reply;
  assertEquals(pong.result, {});
});

Deno.test("stdio: a line over 10 MiB is refused with a JSON-RPC error and the next request is answered", async () => {
  await using main = await RawMain.spawn(NO_SERVER);
  await main.handshake();
  const huge = JSON.stringify({
    jsonrpc: "2.0",
    id: 41,
    method: "tools/call",
    params: { name: "list_sessions", arguments: { junk: "x".repeat(11 * 1024 * 1024) } },
  });
  // Written in pieces while the server reads, as a real client's pipe would deliver it.
  const bytes = new TextEncoder().encode(huge + "\n");
  for (let at = 0; at < bytes.length; at += 1 << 20) {
    await main.write(bytes.subarray(at, at + (1 << 20)));
  }
  const refused = await main.reply((m) => "error" in m) as Reply;
  assertEquals([refused.id, refused.error?.code], [null, -32600]);
  assertMatch(refused.error!.message, /10485760 bytes/);
  const pong = await main.request("ping") as Reply;
  assertEquals(pong.result, {});
  assertMatch(main.stderr, /skipped an input line over 10485760 bytes/);
  assertEquals(await main.exited(0), undefined);
});

Deno.test("stdio: a 9 MB message is read and answered", async () => {
  await using main = await RawMain.spawn(NO_SERVER);
  await main.handshake();
  const line = JSON.stringify({
    jsonrpc: "2.0",
    id: 9,
    method: "tools/call",
    params: { name: "list_sessions", arguments: { junk: "y".repeat(9_000_000) } },
  });
  await main.line(line);
  // Refused by the tool's schema: the point is that it was read at all. A reader that rescans the
  // line per chunk takes minutes (idle, this takes well under a second), past this liveness bound;
  // how fast it really is, scripts/bench.ts measures.
  const reply = await main.reply((m) => m.id === 9, 60_000) as Reply;
  assertEquals((reply.result as { isError: boolean }).isError, true);
});

Deno.test("stdio: closing stdin ends the process promptly with status 0", async () => {
  await using main = await RawMain.spawn(NO_SERVER);
  await main.handshake();
  await main.closeStdin();
  const status = await main.exited(LIVENESS_MS);
  assert(status, "still running long after stdin closed");
  assertEquals(status.code, 0);
  assertMatch(main.stderr, /shutting down: end of input/);
});

Deno.test("stdio: requests written just before stdin closes are still answered", async () => {
  await using main = await RawMain.spawn(NO_SERVER);
  await main.handshake();
  await main.line({ jsonrpc: "2.0", id: 21, method: "ping" });
  await main.line({ jsonrpc: "2.0", id: 22, method: "tools/list" });
  await main.closeStdin();
  assertEquals((await main.reply((m) => m.id === 21) as Reply).result, {});
  assert((await main.reply((m) => m.id === 22) as Reply).result);
  assertEquals((await main.exited(LIVENESS_MS))?.code, 0);
});

Deno.test("stdio: when stdout is gone the process exits with an error status", async () => {
  await using main = await RawMain.spawn(NO_SERVER);
  await main.handshake();
  await main.closeStdout();
  // The reply cannot be written: the transport closes, and with it the server.
  await main.line({ jsonrpc: "2.0", id: 5, method: "ping" });
  const status = await main.exited(LIVENESS_MS);
  assert(status, "still running long after stdout went away");
  assertEquals(status.code, 1);
  assertMatch(main.stderr, /shutting down: could not write to stdout/);
});

Deno.test("the stdio transport splits lines at any chunk boundary and skips an oversize one", async () => {
  const enc = new TextEncoder();
  const ping = (id: number) => JSON.stringify({ jsonrpc: "2.0", id, method: "ping" });
  const long = JSON.stringify({
    jsonrpc: "2.0",
    id: 2,
    method: "ping",
    params: { x: "z".repeat(200) },
  });
  const first = enc.encode(ping(1) + "\n");
  const chunks = [
    ...[...first].map((b) => new Uint8Array([b])), // one byte at a time
    enc.encode(long.slice(0, 50)),
    enc.encode(long.slice(50, 150)),
    enc.encode(long.slice(150) + "\n\n" + ping(3).slice(0, 10)),
    enc.encode(ping(3).slice(10) + "\r\n"),
    enc.encode("not json\n" + "trailing"),
  ];
  const written: string[] = [];
  const logs: string[] = [];
  const transport = new StdioTransport({
    input: ReadableStream.from(chunks),
    output: new WritableStream({ write: (c) => void written.push(new TextDecoder().decode(c)) }),
    maxLineBytes: 100,
    log: (m) => logs.push(m),
  });
  const received: unknown[] = [];
  const closed = Promise.withResolvers<void>();
  transport.onmessage = (m) => void received.push(m);
  transport.onclose = () => closed.resolve();
  await transport.start();
  await closed.promise;
  await new Promise((r) => setTimeout(r, 0)); // let the queued replies reach the sink
  assertEquals(received, [JSON.parse(ping(1)), JSON.parse(ping(3))]);
  assertEquals(written.map((w) => JSON.parse(w).error.code), [-32600, -32700]);
  assertEquals(transport.closeReason, { error: false, message: "end of input" });
  assertEquals(logs.length, 3, logs.join("\n"));
  assertMatch(logs[0], /skipped an input line over 100 bytes/);
  assertMatch(logs[2], /ignored 8 bytes after the last newline/);
});
