/** Configuration: parsing, precedence, validation, toolset subsets and main.ts exit behaviour. */
import { assert, assertEquals, assertMatch, assertThrows } from "../support/assert.ts";
import { SURFACE, TOOLS } from "../../src/catalog.ts";
import { ConfigError, parseConfig, TOOLSETS } from "../../src/config.ts";
import { connectInProcess, runMain, startPermissions } from "../support/client.ts";
import { serverInstructions } from "../../src/server.ts";
import { isSupported, liveRiskNotice, parseTmuxVersion } from "../../src/tmux/core/version.ts";

function parse(args: string[], env: Record<string, string> = {}) {
  const outcome = parseConfig(args, (n) => env[n], SURFACE);
  if (outcome.kind !== "run") throw new Error(outcome.kind);
  return outcome.config;
}

function refused(args: string[], env: Record<string, string> = {}): string {
  return assertThrows(() => parse(args, env), ConfigError).message;
}

Deno.test("defaults: the core preset; live; 30 s waits; default socket", () => {
  const config = parse([]);
  assertEquals(config.toolsets, ["core"]);
  assertEquals(config.socket, { kind: "default" });
  assertEquals(config.waitMaxMs, 30_000);
  assertEquals(config.live, true);
  assertEquals(config.allowWatchedPanes, false);
  assert(Object.isFrozen(config) && Object.isFrozen(config.toolsets));
});

Deno.test("--toolsets: the core preset combines with the four toolsets, in display order", () => {
  assertEquals(parse(["--toolsets", "manage,core"]).toolsets, ["core", "manage"]);
  assertEquals(parse(["--toolsets", "core,core"]).toolsets, ["core"]);
  assertEquals(parse([], { LIBTMUX_TOOLSETS: "core,teardown" }).toolsets, ["core", "teardown"]);
  assertEquals(parse(["--toolsets", ""]).toolsets, []);
  assertMatch(refused(["--toolsets", "Core"]), /unknown toolset "Core"; valid toolsets: core,/);
});

Deno.test("precedence: flag > TMUX_MCP_* > LIBTMUX_*", () => {
  const env = {
    TMUX_MCP_TOOLSETS: "manage",
    LIBTMUX_TOOLSETS: "teardown",
    TMUX_MCP_SOCKET_NAME: "envname",
    LIBTMUX_SOCKET_PATH: "/tmp/alias.sock",
    TMUX_MCP_WAIT_MAX_MS: "5000",
  };
  assertEquals(parse(["--toolsets", "inspect"], env).toolsets, ["inspect"]);
  assertEquals(parse([], env).toolsets, ["manage"]);
  assertEquals(parse([], { LIBTMUX_TOOLSETS: "teardown" }).toolsets, ["teardown"]);
  assertEquals(parse(["-L", "flagname"], env).socket, { kind: "name", name: "flagname" });
  assertEquals(parse([], env).socket, { kind: "name", name: "envname" });
  assertEquals(parse([], { LIBTMUX_SOCKET_PATH: "/tmp/a.sock" }).socket, {
    kind: "path",
    path: "/tmp/a.sock",
  });
  assertEquals(parse([], { LIBTMUX_SOCKET: "aliasname" }).socket, {
    kind: "name",
    name: "aliasname",
  });
  assertEquals(parse(["--wait-max-ms", "2000"], env).waitMaxMs, 2000);
  assertEquals(parse([], env).waitMaxMs, 5000);
  assertEquals(parse([], { TMUX_MCP_LIVE: "0" }).live, false);
  assertEquals(parse(["--no-live"], { TMUX_MCP_LIVE: "1" }).live, false);
  assertEquals(parse([], { TMUX_MCP_ALLOW_WATCHED_PANES: "1" }).allowWatchedPanes, true);
  assertEquals(parse(["--allow-watched-panes"]).allowWatchedPanes, true);
  assertEquals(parse(["--tools", "list_panes"], { TMUX_MCP_TOOLS: "kill_pane" }).tools, [
    "list_panes",
  ]);
});

Deno.test("an empty socket variable means unset", () => {
  assertEquals(
    parse([], { TMUX_MCP_SOCKET_NAME: "", TMUX_MCP_SOCKET_PATH: "/tmp/x.sock" }).socket,
    {
      kind: "path",
      path: "/tmp/x.sock",
    },
  );
  assertEquals(parse([], { LIBTMUX_SOCKET: "" }).socket, { kind: "default" });
});

Deno.test("inside tmux, the default socket is the one of $TMUX", () => {
  const config = parse([], { TMUX: "/tmp/tmux-1000/default,1234,0", TMUX_PANE: "%3" });
  assertEquals(config.socket, { kind: "path", path: "/tmp/tmux-1000/default" });
  assertEquals(config.socketSource, "tmux-env");
  assertEquals(parse(["-L", "x"], { TMUX: "/tmp/s,1,0" }).socket, { kind: "name", name: "x" });
});

Deno.test("invalid configuration is one line naming what is valid", () => {
  assertMatch(refused(["--toolsets", "inspect,bogus"]), /valid toolsets: core, inspect, manage/);
  assertMatch(refused(["--tools", "no_such_tool"]), /unknown tool .*valid tools: list_sessions/);
  assertMatch(refused(["--exclude-tools", "nope"]), /--exclude-tools: unknown tool/);
  assertMatch(refused(["-L", "a", "-S", "/tmp/b"]), /exclusive/);
  assertMatch(refused([], { TMUX_MCP_SOCKET_NAME: "a", TMUX_MCP_SOCKET_PATH: "/b" }), /exclusive/);
  assertMatch(refused(["--frobnicate"]), /unknown option --frobnicate; valid options: /);
  assertMatch(refused(["--socket-name", "bad\nname"]), /control character/);
  assertMatch(refused([], { TMUX_MCP_TOOLS: "list_panes\x1b" }), /control character/);
  assertMatch(refused(["--wait-max-ms", "999"]), /1000 to 600000/);
  assertMatch(refused(["--wait-max-ms", "600001"]), /1000 to 600000/);
  assertMatch(refused(["--wait-max-ms", "12s"]), /integer/);
  assertMatch(refused([], { TMUX_MCP_LIVE: "maybe" }), /TMUX_MCP_LIVE must be 1 or 0/);
  assertMatch(refused(["--http", "nohost"]), /HOST:PORT/);
  assertMatch(refused(["--http", "127.0.0.1:70000"]), /HOST:PORT/);
  assertMatch(refused(["--http-token", "t"]), /needs --http/);
  assertMatch(refused(["--record-file-bytes", "8192"]), /^--record-file-bytes needs --record DIR/);
  assertMatch(refused(["--record", "/r", "--record-dir-bytes", "1"]), /16384 to 1099511627776/);
  assertMatch(refused(["stray"]), /unexpected argument/);
  // Errors blame the source that supplied the value.
  assertMatch(refused([], { TMUX_MCP_WAIT_MAX_MS: "5" }), /^TMUX_MCP_WAIT_MAX_MS must be/);
  assertMatch(refused([], { LIBTMUX_TOOLS: "nope" }), /^LIBTMUX_TOOLS: unknown tool/);
  assertMatch(refused([], { LIBTMUX_TOOLSETS: "nope" }), /^LIBTMUX_TOOLSETS: unknown toolset/);
  // An option name holding a newline still yields one line.
  assert(!refused(["--foo\nbar"]).includes("\n"));
  for (const message of [refused(["--toolsets", "x"]), refused(["--nope"])]) {
    assert(!message.includes("\n"), "one line");
  }
  assertEquals(parse(["--http", "[::1]:8765"]).http, { host: "[::1]", port: 8765 });
});

Deno.test("every subset of the four toolsets lists exactly its built tools", async () => {
  const built = new Set(TOOLS.map((t) => t.name));
  for (let mask = 0; mask < 16; mask++) {
    const sets = TOOLSETS.filter((_, i) => mask & (1 << i));
    const { client, close } = await connectInProcess(["--toolsets", sets.join(","), "-L", "x"]);
    try {
      const { tools } = await client.listTools();
      const expected = sets.flatMap((s) => SURFACE[s]).filter((n) => built.has(n));
      assertEquals(tools.map((t) => t.name).sort(), expected.sort(), sets.join(","));
    } finally {
      await close();
    }
  }
});

Deno.test("--tools adds, --exclude-tools removes and wins; removed tools are tool_denied", async () => {
  const { client, close } = await connectInProcess([
    "--toolsets",
    "",
    "--tools",
    "list_panes,list_windows",
    "--exclude-tools",
    "list_windows",
    "-L",
    "x",
  ]);
  try {
    const { tools } = await client.listTools();
    assertEquals(tools.map((t) => t.name), ["list_panes"]);
    const excluded = await client.callTool({ name: "list_windows", arguments: {} });
    assertEquals(excluded.isError, true);
    const text = (excluded.content as Array<{ text: string }>)[0].text;
    assertMatch(text, /^tool_denied: /);
    assertMatch(text, /--exclude-tools/);
    const off = await client.callTool({ name: "list_sessions", arguments: {} });
    assertMatch(
      (off.content as Array<{ text: string }>)[0].text,
      /--toolsets inspect or --tools list_sessions/,
    );
    let rpcError: unknown;
    try {
      await client.callTool({ name: "no_such_tool", arguments: {} });
    } catch (error) {
      rpcError = error;
    }
    assertMatch(String(rpcError), /-32602|Unknown tool/);
  } finally {
    await close();
  }
});

Deno.test("main.ts: invalid input exits non-zero with one stderr line; --help and --version", async () => {
  const bad = await runMain(["--toolsets", "bogus"]);
  assertEquals(bad.code, 2);
  assertEquals(bad.stdout, "");
  assertEquals(bad.stderr.trim().split("\n").length, 1);
  assertMatch(bad.stderr, /valid toolsets/);
  const both = await runMain([], { TMUX_MCP_SOCKET_NAME: "a", TMUX_MCP_SOCKET_PATH: "/tmp/b" });
  assertEquals(both.code, 2);
  const version = await runMain(["--version"]);
  const manifest = JSON.parse(await Deno.readTextFile(new URL("../../deno.json", import.meta.url)));
  assertEquals(version.stdout.trim(), manifest.version);
  const help = await runMain(["--help"]);
  assertEquals(help.code, 0);
  for (
    const flag of ["--socket-name", "--exclude-tools", "--wait-max-ms", "--allow-watched-panes"]
  ) {
    assert(help.stdout.includes(flag), flag);
  }
  for (const flag of ["--http", "--http-token", "--http-allowed-hosts", "--http-max-sessions"]) {
    assert(help.stdout.includes(flag), flag);
  }
  // The start permissions have no network: --http says which one permission it needs.
  const http = await runMain(["--http", "127.0.0.1:8765", "-L", "tmux-mcp-no-such-server"]);
  assertEquals(http.code, 2);
  assertMatch(
    http.stderr,
    /--http needs network permission for 127\.0\.0\.1:8765 only: run with --allow-net=127\.0\.0\.1:8765/,
  );
  assert(!/Bearer/.test(http.stderr), "no token is printed when nothing is served");
});

Deno.test("main.ts: without permission to run tmux it exits 2 with one line naming --allow-run=tmux", async () => {
  const flags = (await startPermissions()).filter((f) => !f.startsWith("--allow-run"));
  const socket = ["-L", "tmux-mcp-no-such-server"];
  for (const args of [socket, ["--http", "127.0.0.1:8765", ...socket]]) {
    const out = await runMain(args, {}, [...flags, "--allow-net=127.0.0.1:8765"]);
    assertEquals(out.code, 2, out.stderr);
    assertEquals(out.stdout, "");
    assertEquals(out.stderr.trim().split("\n").length, 1, out.stderr);
    assertMatch(out.stderr, /permission to run tmux: start with --allow-run=tmux /);
  }
  // With remote hosts the line names both programs; --version needs no tmux.
  const ssh = await runMain(["--ssh", "box1=user@box", ...socket], {}, [
    ...flags,
    "--allow-run=ssh",
  ]);
  assertEquals(ssh.code, 2);
  assertMatch(ssh.stderr, /--allow-run=tmux,ssh/);
  assertEquals((await runMain(["--version"], {}, flags)).code, 0);
});

Deno.test("--http options: loopback by default, a token off loopback, hosts, origins, idle time and session cap", () => {
  const http = (args: string[], env: Record<string, string> = {}) =>
    parse(["--http", ...args], env);
  // A bare port binds to loopback; no token yet means main.ts generates one.
  const bare = http(["8765"]);
  assertEquals(bare.http, { host: "127.0.0.1", port: 8765 });
  assertEquals(bare.httpToken, undefined);
  assertEquals(
    [bare.httpAllowedHosts, bare.httpAllowedOrigins, bare.httpIdleMs, bare.httpMaxSessions],
    [[], [], 600_000, 16],
  );
  assertEquals(http(["LocalHost:9"]).http, { host: "localhost", port: 9 });
  // Off loopback a token must be given explicitly.
  for (const host of ["0.0.0.0", "192.168.1.5", "[::]", "example.com"]) {
    assertMatch(refused(["--http", `${host}:8765`]), /not a loopback address: give --http-token/);
  }
  const token = "a-token-of-enough-length";
  assertEquals(http(["0.0.0.0:8765", "--http-token", token]).httpToken, token);
  assertEquals(http(["0.0.0.0:8765"], { TMUX_MCP_HTTP_TOKEN: token }).httpToken, token);
  assertMatch(refused(["--http", "8765", "--http-token", "short"]), /at least 16 characters/);
  assertMatch(
    refused(["--http", "8765"], { TMUX_MCP_HTTP_TOKEN: "has a space in it!" }),
    /^TMUX_MCP_HTTP_TOKEN must be printable ASCII without spaces/,
  );
  // Hosts and origins extend the defaults; flags win over variables.
  const extended = http([
    "8765",
    "--http-allowed-hosts",
    "MCP.example.com, host.docker.internal:8765,[fd00::1]",
    "--http-allowed-origins",
    "https://ide.example.com,http://localhost:3000",
  ]);
  assertEquals(extended.httpAllowedHosts, [
    "mcp.example.com",
    "host.docker.internal:8765",
    "[fd00::1]",
  ]);
  assertEquals(extended.httpAllowedOrigins, ["https://ide.example.com", "http://localhost:3000"]);
  assertEquals(
    http(["8765"], { TMUX_MCP_HTTP_ALLOWED_HOSTS: "a.example", TMUX_MCP_HTTP_IDLE_MS: "60000" })
      .httpAllowedHosts,
    ["a.example"],
  );
  assertMatch(refused(["--http", "8765", "--http-allowed-hosts", "a/b"]), /not a host name/);
  for (const origin of ["https://ide.example.com/", "ide.example.com", "ftp://x.example"]) {
    assertMatch(
      refused(["--http", "8765", "--http-allowed-origins", origin]),
      /is not an origin; give scheme:\/\/host\[:port\]/,
    );
  }
  assertEquals(http(["8765", "--http-idle-ms", "60000"]).httpIdleMs, 60_000);
  assertEquals(http(["8765"], { TMUX_MCP_HTTP_MAX_SESSIONS: "4" }).httpMaxSessions, 4);
  assertMatch(refused(["--http", "8765", "--http-idle-ms", "9999"]), /10000 to 86400000/);
  assertMatch(refused(["--http", "8765", "--http-max-sessions", "0"]), /1 to 256/);
  assertMatch(
    refused(["--http", "8765"], { TMUX_MCP_HTTP_MAX_SESSIONS: "lots" }),
    /^TMUX_MCP_HTTP_MAX_SESSIONS must be an integer/,
  );
  // HTTP flags need --http; the variables are ignored without it (stdio).
  for (const flag of ["--http-allowed-hosts", "--http-allowed-origins", "--http-idle-ms"]) {
    assertMatch(refused([flag, "1"]), new RegExp(`${flag} needs --http`));
  }
  const stdio = parse([], { TMUX_MCP_HTTP_TOKEN: "x", TMUX_MCP_HTTP_MAX_SESSIONS: "lots" });
  assertEquals([stdio.http, stdio.httpToken, stdio.httpMaxSessions], [
    undefined,
    undefined,
    undefined,
  ]);
});

Deno.test("instructions describe only what the enabled tools can do", async () => {
  for (
    const [toolsets, mentions, absent] of [
      ["inspect", ["capture_since"], ["type into panes", "target_denied"]],
      ["inspect,execute", ["capture_since", "type into panes", "target_denied"], []],
      ["execute", ["type into panes", "target_denied"], ["capture_since", "close what"]],
      [
        "inspect,manage,execute,teardown",
        ["type into panes", "of your own", "arrange", "close what you opened"],
        [],
      ],
    ] as const
  ) {
    const { client, close } = await connectInProcess(["--toolsets", toolsets, "-L", "x"]);
    try {
      const text = client.getInstructions() ?? "";
      const { tools } = await client.listTools();
      assertEquals(text, serverInstructions(tools.map((t) => t.name)));
      assert(new TextEncoder().encode(text).length <= 2048, "under 2 KB");
      for (const word of mentions) assert(text.includes(word), `${toolsets}: ${word}`);
      for (const word of absent) assert(!text.includes(word), `${toolsets}: no ${word}`);
    } finally {
      await close();
    }
  }
});

Deno.test("tmux versions: 3.2 and newer are accepted, older ones refused, unnumbered builds pass", () => {
  const cases: Array<[string, boolean | undefined]> = [
    ["tmux 3.3a", true],
    ["tmux 3.2", true],
    ["tmux 3.2-rc2", true],
    ["tmux next-3.5", true],
    ["tmux 10.0", true],
    ["tmux 3.1c", false],
    ["tmux 2.9a", false],
    ["tmux master", undefined],
    ["tmux openbsd-7.5", undefined],
  ];
  for (const [text, supported] of cases) {
    const release = parseTmuxVersion(text);
    assertEquals(release === undefined ? undefined : isSupported(release), supported, text);
  }
});

Deno.test("the live-mode risk is said at start only for the server a person works in", () => {
  const cases: Array<[boolean, "flag" | "env" | "tmux-env" | "default", boolean]> = [
    [true, "default", true],
    [true, "tmux-env", true],
    [true, "flag", false],
    [true, "env", false],
    [false, "default", false],
    [false, "tmux-env", false],
  ];
  for (const [live, source, said] of cases) {
    const notice = liveRiskNotice("tmux 3.3a", live, source);
    assertEquals(notice !== undefined, said, `${live} ${source}`);
    if (notice) {
      assertEquals(notice.includes("tmux 3.3a"), true, notice);
      assertEquals(notice.includes("--socket-name NAME"), true, notice);
      assertEquals(notice.includes("--no-live"), true, notice);
    }
  }
  assertEquals(liveRiskNotice("tmux master", true, "default")?.includes("(tmux master)"), true);
});

Deno.test("main.ts: the banner says when nothing or an empty toolset is served", async () => {
  const none = await runMain(["--toolsets", "", "-L", "tmux-mcp-test-none"]);
  assertEquals(none.code, 0);
  assertMatch(none.stderr, /· 0 tools/);
  assertMatch(none.stderr, /no tools are enabled/);
  const all = await runMain(["--toolsets", TOOLSETS.join(","), "-L", "tmux-mcp-test-none"]);
  const empty = TOOLSETS.filter((set) => !TOOLS.some((t) => t.toolset === set));
  for (const set of empty) assertMatch(all.stderr, new RegExp(`toolset ${set}\\b.*has no tools`));
  assert(empty.length > 0 || !all.stderr.includes("has no tools"), all.stderr);
});

Deno.test("main.ts: a tmux older than 3.2 is refused at startup with one clear line", async () => {
  const dir = await Deno.makeTempDir({ prefix: "tmux-mcp-test-oldtmux-" });
  try {
    await Deno.writeTextFile(`${dir}/tmux`, "#!/bin/sh\necho 'tmux 3.1c'\n", { mode: 0o755 });
    const old = await runMain(["-L", "tmux-mcp-test-none"], { PATH: `${dir}:/usr/bin:/bin` });
    assertEquals(old.code, 2);
    assertMatch(old.stderr, /tmux 3\.1c is older than tmux 3\.2, the oldest this server supports/);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
