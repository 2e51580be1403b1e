/**
 * Remote hosts over ssh, end to end (docs/design.md §5.15): main.ts over stdio with the ssh-widened
 * permissions (`deno task start:ssh`), a private sshd (tests/support/sshd.ts) standing for two
 * machines, a local private tmux server, and a real MCP client. Skipped, with the reason, where
 * sshd or root is missing.
 */
import { assert, assertEquals, assertMatch } from "../../support/assert.ts";
import { call, type Connected, connectStdio, fails, ok, runMain } from "../../support/client.ts";
import { eventually } from "../../support/fixture.ts";
import { sshdMissing, type SshRig } from "../../support/sshd.ts";
import { remoteStack } from "../../support/remote.ts";

const missing = await sshdMissing();
const name = (title: string) => missing ? `${title} (skipped: ${missing})` : title;
const decoder = new TextDecoder();

interface Pane {
  paneId: string;
  sessionName: string;
  host?: string;
}

/**
 * The rig, a local server, remote servers with a session each, and our server on all three (and
 * what `extra` adds).
 */
function setUp(extra: string[] | ((rig: SshRig) => string[]) = []) {
  return remoteStack({
    sessions: [[0, "work"], [1, "other"]],
    args: (rig) => [
      "--toolsets",
      "inspect,manage,execute,teardown",
      ...(typeof extra === "function" ? extra(rig) : extra),
    ],
  });
}

async function panes(server: Connected, args: Record<string, unknown> = {}) {
  return await ok<{ panes: Pane[]; note?: string }>(server.client, "list_panes", args);
}

Deno.test({
  name: name("remote: one listing covers local and two remote hosts, with qualified ids"),
  ignore: missing !== undefined,
  fn: async () => {
    await using env = await setUp();
    const { panes: rows, note } = await panes(env.server);
    assertEquals(note, undefined);
    const byHost = (host?: string) => rows.filter((r) => r.host === host);
    assertEquals(byHost(undefined).map((r) => [r.paneId, r.sessionName]), [["%0", "here"]]);
    assertEquals(byHost("m1").map((r) => [r.paneId, r.sessionName]), [["m1:%0", "m1:work"]]);
    assertEquals(byHost("m2").map((r) => [r.paneId, r.sessionName]), [["m2:%0", "m2:other"]]);
    // A session name copied from a remote row reaches that host's session.
    const windows = await ok<{ windows: { windowId: string; sessionName: string }[] }>(
      env.server.client,
      "list_windows",
      { session: byHost("m2")[0].sessionName },
    );
    assertEquals(windows.windows.map((w) => [w.windowId, w.sessionName]), [["m2:@0", "m2:other"]]);
    const sessions = await ok<{ sessions: { sessionId: string; host?: string }[] }>(
      env.server.client,
      "list_sessions",
    );
    assertEquals(sessions.sessions.map((s) => s.sessionId).sort(), ["$0", "m1:$0", "m2:$0"]);
    // One host's listing, by `host`; an unknown host and two hosts in one call are refused.
    assertEquals((await panes(env.server, { host: "m2" })).panes.map((r) => r.paneId), ["m2:%0"]);
    assertEquals(
      (await fails(env.server.client, "capture_pane", { paneId: "m3:%0" })).code,
      "invalid_arguments",
    );
    const mixed = await fails(env.server.client, "swap_pane", {
      paneId: "m1:%0",
      otherPaneId: "%0",
    });
    assertEquals(mixed.code, "invalid_arguments");
    assertMatch(mixed.message, /one host/);
  },
});

Deno.test({
  name: name("remote: read, type and run on a remote pane; a live wait wakes on remote output"),
  ignore: missing !== undefined,
  fn: async () => {
    await using env = await setUp();
    const { client } = env.server;
    const typed = await ok<{ paneId: string }>(client, "send_keys", {
      paneId: "m1:%0",
      keys: "echo remote-$((6*7))",
      enter: true,
      waitFor: { pattern: "remote-42" },
    });
    assertEquals(typed.paneId, "m1:%0");
    const text = await ok<{ text: string }>(client, "capture_pane", { paneId: "m1:%0" });
    assertMatch(text.text, /^remote-42$/m);
    // The local %0 is another pane: the remote text is not there.
    const here = await ok<{ text: string }>(client, "capture_pane", { paneId: "%0" });
    assert(!here.text.includes("remote-42"));

    // A picture of the remote pane, and a read batch whose rows reach two hosts.
    const shot = await call(client, "screenshot_pane", { paneId: "m1:%0" });
    assert(!shot.isError && shot.content.some((c) => c.type === "image"), "a PNG");
    const batch = await ok<
      { results: { result: { structuredContent?: { paneId: string; text: string } } | null }[] }
    >(
      client,
      "call_read_tools_batch",
      {
        operations: [
          { tool: "capture_pane", arguments: { paneId: "m1:%0" } },
          { tool: "capture_pane", arguments: { paneId: "%0" } },
        ],
      },
    );
    const rows = batch.results.map((r) => r.result?.structuredContent);
    assertEquals(rows.map((r) => r?.paneId), ["m1:%0", "%0"]);
    assertMatch(rows[0]?.text ?? "", /^remote-42$/m);

    const run = await ok<{ exitStatus: number; output: string; outcome: string }>(
      client,
      "run_shell_command",
      { paneId: "m1:%0", command: "echo out-$((2+3)); false", timeoutMs: 20_000 },
    );
    assertEquals([run.outcome, run.exitStatus, run.output.trim()], ["completed", 1, "out-5"]);
    // Lean on a remote host too (docs/design.md §3.1): its qualified ids are compared, so the
    // receivers (m1:%0 alone) and the defaults are left out.
    const defaults = ["resolvedPaneIds", "truncated", "encoding", "timeoutMs", "timeoutClamped"];
    for (const result of [run, typed]) {
      assertEquals(defaults.filter((key) => key in result), [], JSON.stringify(result));
    }

    // Without a cursor a wait counts only output after it joined the pane's stream; over ssh that
    // takes a while, so the stream is joined first (capture_since) and the wait starts from it.
    const { cursor } = await ok<{ cursor: string }>(client, "capture_since", { paneId: "m2:%0" });
    assert(cursor.startsWith("m2:ltxc1."), cursor);
    const waiting = ok<{ outcome: string; cursor?: string }>(client, "wait_for_text", {
      paneId: "m2:%0",
      patterns: ["woke-up-1now"],
      cursor,
      timeoutMs: 30_000,
    });
    await env.rig.tmux(1, "send-keys", "-t", "%0", "-l", "echo woke-up-$((1))now");
    await env.rig.tmux(1, "send-keys", "-t", "%0", "Enter");
    const woke = await waiting;
    assertEquals(woke.outcome, "matched", await env.rig.tmux(1, "capture-pane", "-p", "-t", "%0"));
    assert(woke.cursor?.startsWith("m2:ltxc1."), woke.cursor);
  },
});

Deno.test({
  name: name("remote: hostile names are stored literally; a person attached remotely is refused"),
  ignore: missing !== undefined,
  fn: async () => {
    await using env = await setUp();
    const { client } = env.server;
    const hostile = "a#b 'c' $(touch x);y \"q\"";
    const made = await ok<{ sessionId: string; paneId: string }>(client, "create_session", {
      host: "m1",
      name: hostile,
    });
    assertMatch(made.sessionId, /^m1:\$\d+$/);
    const names = (await env.rig.tmux(0, "list-sessions", "-F", "#{session_name}")).split("\n");
    assert(names.includes(hostile), names.join("|"));
    assertEquals(
      (await fails(client, "create_session", { host: "m1", name: "a\nb" })).code,
      "invalid_arguments",
    );
    // The local server did not get it.
    assert(!(await env.local.tmux("list-sessions", "-F", "#{session_name}")).includes("a#b"));

    const detach = await env.rig.attachPerson(0, "work");
    try {
      const listed = await panes(env.server, { host: "m1" });
      const watched = listed.panes.find((p) => p.paneId === "m1:%0") as Pane & {
        isAttended: boolean;
      };
      assertEquals(watched.isAttended, true);
      const refused = await fails(client, "send_keys", { paneId: "m1:%0", keys: "echo no" });
      assertEquals(refused.code, "target_denied");
    } finally {
      await detach();
    }
  },
});

Deno.test({
  name: name("remote: an unreachable host is a note; a dropped connection is served again"),
  ignore: missing !== undefined,
  fn: async () => {
    await using env = await setUp(["--ssh", "gone=refused"]);
    const { client } = env.server;
    const listed = await panes(env.server);
    assertMatch(listed.note ?? "", /^host gone: cannot be reached over ssh/);
    assertEquals(listed.panes.filter((p) => p.host === "m1").length, 1);
    // Backed off: the next listing does not wait for it again, and says when it was tried.
    assertMatch(
      (await panes(env.server)).note ?? "",
      /host gone: cannot be reached .*tried \d+ s ago/,
    );
    const direct = await fails(client, "get_server_info", { host: "gone" });
    assertEquals([direct.code, direct.retryable], ["host_unreachable", true]);
    // The check a person runs reaches the host as we do: with our --ssh-config.
    assert(direct.text.includes(`\`ssh -F ${env.rig.config} refused tmux -V\``), direct.text);

    // Kill m1's master while a wait rides it: that call fails, the next one reconnects.
    // The pane's stream rides the master before the wait starts (capture_since opens it).
    const { cursor } = await ok<{ cursor: string }>(client, "capture_since", { paneId: "m1:%0" });
    const waiting = call(client, "wait_for_text", {
      paneId: "m1:%0",
      patterns: ["never-printed-anywhere"],
      cursor,
      timeoutMs: 30_000,
    });
    assert(await env.rig.killMasters() > 0, "m1's master ran");
    const dropped = await waiting;
    assert(dropped.isError, JSON.stringify(dropped.structuredContent));
    const error = (dropped.structuredContent as { error: { code: string; message: string } }).error;
    assertEquals(error.code, "server_gone");
    assertMatch(error.message, /^host m1: /);
    const again = await ok<{ text: string }>(client, "capture_pane", { paneId: "m1:%0" });
    assertEquals(typeof again.text, "string");
  },
});

Deno.test({
  name: name(
    "remote: a host without a tmux server is noted with its own socket, not the local one",
  ),
  ignore: missing !== undefined,
  fn: async () => {
    const bare = (rig: SshRig) => `${rig.dir}/remote/bare.sock`;
    await using env = await setUp((rig) => ["--ssh", `bare=m1,socket-path=${bare(rig)}`]);
    const listed = await panes(env.server);
    assertEquals(listed.note, `host bare: no tmux server is running on socket ${bare(env.rig)}`);
    assertEquals(listed.panes.filter((p) => p.host === "m1").length, 1);
    const info = await ok<{ alive: boolean; socketPath: string | null }>(
      env.server.client,
      "get_server_info",
      { host: "bare" },
    );
    assertEquals([info.alive, info.socketPath], [false, bare(env.rig)]);
  },
});

Deno.test({
  name: name("remote: every id and session name a remote result carries is qualified"),
  ignore: missing !== undefined,
  fn: async () => {
    await using env = await setUp();
    const { client } = env.server;
    const read = await ok<{ paneId: string; values: Record<string, string> }>(
      client,
      "get_tmux_variables",
      {
        paneId: "m1:%0",
        names: ["pane_id", "window_id", "session_id", "session_name", "window_name"],
      },
    );
    assertEquals(read.paneId, "m1:%0");
    const { values } = read;
    assertEquals(
      [values.pane_id, values.window_id, values.session_id, values.session_name],
      ["m1:%0", "m1:@0", "m1:$0", "m1:work"],
    );
    assert(!values.window_name.startsWith("m1:"), values.window_name);
    // Passed back, they reach that host's objects.
    const here = await ok<{ text: string }>(client, "capture_pane", { paneId: values.pane_id });
    assertEquals(typeof here.text, "string");
    const made = await ok<{ sessionId: string; name: string }>(client, "create_session", {
      host: "m2",
      name: "fresh",
    });
    assertMatch(made.sessionId, /^m2:\$\d+$/);
    assertEquals(made.name, "m2:fresh");
    const windows = await ok<{ windows: { sessionName: string }[] }>(client, "list_windows", {
      session: made.name,
    });
    assertEquals(windows.windows.map((w) => w.sessionName), ["m2:fresh"]);
  },
});

Deno.test({
  name: name("remote: nothing of ours is left after exit; no ssh at all without --ssh"),
  ignore: missing !== undefined,
  fn: async () => {
    const env = await setUp();
    try {
      await panes(env.server);
      assert((await env.rig.ours()).length > 0, "the masters run while serving");
      await env.server.close();
      assert(
        await eventually(async () => (await env.rig.ours()).length === 0),
        (await env.rig.ours()).join("\n"),
      );
      for (const index of [0, 1] as const) {
        assertEquals(await env.rig.tmux(index, "list-clients", "-F", "#{client_pid}"), "");
      }
      assertEquals(await Array.fromAsync(Deno.readDir(env.rig.controlDir)), []);

      // Same permissions, no --ssh: tools work and no ssh process is ever started by it.
      const plain = await connectStdio(
        ["--socket-path", env.local.socket],
        {},
        undefined,
        undefined,
        "start:ssh",
      );
      try {
        await ok(plain.client, "list_panes");
        await ok(plain.client, "capture_pane", { paneId: "%0" });
        const out = await new Deno.Command("ps", { args: ["-eo", "ppid=,comm="] }).output();
        const children = decoder.decode(out.stdout).split("\n")
          .filter((line) => line.trim().split(/\s+/)[0] === String(plain.pid));
        assert(!children.some((line) => / ssh$/.test(line)), children.join("\n"));
        const tools = await plain.client.listTools();
        const inputs = JSON.stringify(tools.tools.map((t) => t.inputSchema));
        assert(!inputs.includes('"host"'), "no host argument without --ssh");
      } finally {
        await plain.close();
      }
    } finally {
      await env.local.tmux("kill-server").catch(() => {});
      await env.rig.close();
    }
  },
});

Deno.test("remote: --ssh without permission to run ssh exits 2 with one line", async () => {
  const out = await runMain(["--ssh", "box1=user@box"]);
  assertEquals(out.code, 2);
  assertEquals(out.stdout, "");
  assertEquals(out.stderr.trim().split("\n").length, 1, out.stderr);
  assertMatch(out.stderr, /--allow-run=tmux,ssh/);
});
