/**
 * The remote surface under hostile input (docs/design.md §5.15): grants per host, the remote login
 * shell's noise, a dropped connection, a remote person, a remote tmux that is too old, hostile
 * directories and ssh configurations (qualified ids and malformed `host` values: remote_ids_test.ts).
 * Skipped, with the reason, where sshd or root is missing.
 */
import { assert, assertEquals, assertMatch } from "../../support/assert.ts";
import { askingClient, call, connectStdio, fails, ok } from "../../support/client.ts";
import { eventually, TmuxFixture } from "../../support/fixture.ts";
import { boundMerged, mergeListings } from "../../../src/server/host_ids.ts";
import { sshdMissing, SshRig } from "../../support/sshd.ts";
import type { Client } from "@modelcontextprotocol/sdk/client";

const missing = await sshdMissing();
const name = (title: string) => missing ? `${title} (skipped: ${missing})` : title;

/** What sshd runs for every command: DIR/force.sh, which a test rewrites (login-shell stand-in). */
const FORCE = (dir: string) => `. ${dir}/force.sh`;
const PLAIN = 'eval "$SSH_ORIGINAL_COMMAND"\n';

async function setUp(
  options: { client?: Client; force?: string; extra?: string[]; sshd?: string[] } = {},
) {
  const rig = await SshRig.start({
    sshdLines: (dir) => [`ForceCommand ${FORCE(dir)}`, ...options.sshd ?? []],
  });
  await Deno.writeTextFile(`${rig.dir}/force.sh`, options.force ?? PLAIN, { mode: 0o644 });
  await Deno.chmod(`${rig.dir}/force.sh`, 0o644);
  const local = await TmuxFixture.start({ session: "here" });
  await rig.tmux(0, "-f", "/dev/null", "new-session", "-d", "-s", "work", "-x", "80", "-y", "24");
  const args = [
    "--socket-path",
    local.socket,
    ...rig.sshArgs([0]),
    "--toolsets",
    "inspect,manage,execute,teardown",
    ...options.extra ?? [],
  ];
  const server = await connectStdio(args, {}, undefined, options.client, "start:ssh");
  return {
    rig,
    local,
    server,
    async [Symbol.asyncDispose]() {
      await server.close();
      await local.tmux("kill-server").catch(() => {});
      await rig.close();
    },
  };
}

Deno.test({
  name: name("remote hostile: a grant for a remote pane is that host's, and outlives local calls"),
  ignore: missing !== undefined,
  fn: async () => {
    const questions: string[] = [];
    const client = askingClient("person", (q) => {
      questions.push(q.message);
      return { action: "accept", content: { decision: "allow for this pane for 10 minutes" } };
    });
    await using env = await setUp({ client });
    const { client: c } = env.server;
    const detach = await env.rig.attachPerson(0, "work");
    try {
      await ok(c, "send_keys", { paneId: "m1:%0", keys: "echo one", enter: false });
      assertEquals(questions.length, 1);
      assertMatch(questions[0], /\bm1\b/);
      // Local calls list the local server's panes: the remote grant is not theirs to end.
      await ok(c, "send_keys", { paneId: "%0", keys: "echo here", enter: false });
      await env.server.client.readResource({ uri: "tmux://capabilities" });
      await ok(c, "send_keys", { paneId: "m1:%0", keys: " two", enter: false });
      assertEquals(questions.length, 1, questions.join("\n---\n"));
    } finally {
      await detach();
    }
  },
});

Deno.test({
  name: name("remote hostile: teardown results name the remote panes that ended"),
  ignore: missing !== undefined,
  fn: async () => {
    await using env = await setUp();
    const { client } = env.server;
    const split = await ok<{ paneId: string }>(client, "split_window", {
      paneId: "m1:%0",
      direction: "right",
    });
    assertMatch(split.paneId, /^m1:%\d+$/);
    const killed = await ok<{ panesEnded: string[] }>(client, "kill_pane", {
      paneId: split.paneId,
    });
    assertEquals(killed.panesEnded, [split.paneId]);
    // The local pane of the same number is untouched.
    assertEquals(
      (await ok<{ panes: unknown[] }>(client, "list_panes", { host: "local" })).panes.length,
      1,
    );
  },
});

Deno.test({
  name: name("remote hostile: the login shell's noise is never tmux's output nor our client's pid"),
  ignore: missing !== undefined,
  fn: async () => {
    await using env = await setUp();
    const { client } = env.server;
    const detach = await env.rig.attachPerson(0, "work");
    try {
      const person = (await env.rig.tmux(0, "list-clients", "-F", "#{client_pid}")).trim();
      assertMatch(person, /^\d+$/);
      // Start-up files that print the line that once named our control client's pid: here the
      // person's.
      const force = `${env.rig.dir}/force.sh`;
      await Deno.writeTextFile(force, `echo "tmux-mcp-client-pid ${person}"; echo x >&2\n${PLAIN}`);
      const info = await ok<{ people: number }>(client, "get_server_info", { host: "m1" });
      assertEquals(info.people, 1);
      const refused = await fails(client, "send_keys", { paneId: "m1:%0", keys: "echo no" });
      assertEquals(refused.code, "target_denied");
      // And a version line: tmux's own answer is the one read.
      await Deno.writeTextFile(force, `echo "tmux 2.1"\n${PLAIN}`);
      const again = await ok<{ version: string }>(client, "get_server_info", { host: "m1" });
      assertMatch(again.version, /^3\.\S+$/);
    } finally {
      await detach();
    }
    // Our own control clients (started behind that noise) are never taken for people.
    await ok(client, "paste_text", { paneId: "m1:%0", text: "echo yes" });
    const listed = await ok<{ panes: { isAttended: boolean }[] }>(client, "list_panes", {
      host: "m1",
    });
    assertEquals(listed.panes.map((p) => p.isAttended), [false]);
  },
});

Deno.test({
  name: name("remote hostile: a run whose connection drops says the command may still run there"),
  ignore: missing !== undefined,
  fn: async () => {
    await using env = await setUp();
    const { client } = env.server;
    const running = ok<{ outcome: string; note?: string }>(client, "run_shell_command", {
      paneId: "m1:%0",
      command: "sleep 30",
      timeoutMs: 60_000,
    });
    const command = () => env.rig.tmux(0, "display", "-p", "-t", "%0", "#{pane_current_command}");
    assert(await eventually(async () => (await command()).trim() === "sleep"), await command());
    assert(await env.rig.killMasters() > 0);
    const dropped = await running;
    assertEquals(dropped.outcome, "server_gone");
    assertMatch(dropped.note ?? "", /^host m1: .*may still be running/);
    // It does: the remote pane still runs it, and the next call reaches the host again.
    assertEquals((await command()).trim(), "sleep");
    await ok(client, "capture_pane", { paneId: "m1:%0" });
  },
});

Deno.test("remote hostile: rows joined across hosts and cut for size say so, not a row count", () => {
  const row = (i: number) => ({ paneId: `%${i}`, title: "x".repeat(500) });
  const merged = mergeListings([
    { host: "local", data: { panes: [row(0)] } },
    { host: "m1", data: { panes: Array.from({ length: 400 }, (_, i) => row(i)) } },
  ]);
  const cut = boundMerged(merged, true);
  const kept = (cut.panes as unknown[]).length;
  assert(kept < 401 && kept < 1000, String(kept));
  assertEquals(cut.truncated, true);
  assertEquals(
    cut.note,
    `${401 - kept} more panes across hosts left out (at most 131072 bytes of rows)`,
  );
});

Deno.test({
  name: name("remote hostile: one call cancelled during first contact does not fail the others"),
  ignore: missing !== undefined,
  fn: async () => {
    // First contact's `tmux -V` waits at the remote end until the test lets it go.
    const gate = (dir: string) =>
      `touch ${dir}/remote/arrived; while [ ! -e ${dir}/remote/go ]; do sleep 0.05; done\n` + PLAIN;
    await using env = await setUp({ force: "" });
    await Deno.writeTextFile(`${env.rig.dir}/force.sh`, gate(env.rig.dir));
    const { client } = env.server;
    const abort = new AbortController();
    const first = client.callTool(
      { name: "get_server_info", arguments: { host: "m1" } },
      undefined,
      {
        signal: abort.signal,
      },
    ).catch((error) => error);
    const second = ok<{ panes: unknown[] }>(client, "list_panes", { host: "m1" });
    const arrived = () => Deno.stat(`${env.rig.dir}/remote/arrived`).then(() => true, () => false);
    assert(await eventually(arrived), "first contact reached the remote shell");
    abort.abort();
    assert((await first) instanceof Error, "the first call was cancelled");
    await Deno.writeTextFile(`${env.rig.dir}/remote/go`, "");
    assertEquals((await second).panes.length, 1);
  },
});

Deno.test({
  name: name(
    "remote hostile: teardown, respawn and synchronize-panes are refused over a remote person",
  ),
  ignore: missing !== undefined,
  fn: async () => {
    await using env = await setUp();
    const { client } = env.server;
    await env.rig.tmux(0, "new-window", "-t", "work:");
    const detach = await env.rig.attachPerson(0, "work");
    try {
      for (
        const [tool, args] of [
          ["set_synchronize_panes", { windowId: "m1:@1", enabled: true }],
          ["kill_session", { session: "m1:work" }],
          ["kill_window", { windowId: "m1:@1" }],
          ["kill_pane", { paneId: "m1:%1" }],
          ["respawn_pane", { paneId: "m1:%1", kill: true }],
          ["select_window", { windowId: "m1:@0" }],
        ] as const
      ) {
        const refused = await fails(client, tool, args);
        assertEquals(refused.code, "target_denied", tool);
        assert(/^host m1: a person is watching pane %1/.test(refused.message), refused.message);
      }
    } finally {
      await detach();
    }
    // Nothing was done: the windows and the option are as they were.
    assertEquals((await env.rig.tmux(0, "list-windows", "-F", "#{window_id}")).trim(), "@0\n@1");
    assertEquals(
      (await env.rig.tmux(0, "display-message", "-p", "-t", "%1", "#{pane_synchronized}")).trim(),
      "0",
    );
  },
});

Deno.test({
  name: name(
    "remote hostile: a remote tmux older than 3.2, or none, is refused with the host named",
  ),
  ignore: missing !== undefined,
  fn: async () => {
    await using env = await setUp();
    const { client } = env.server;
    const bin = `${env.rig.dir}/remote/bin`;
    await Deno.mkdir(bin);
    await Deno.chmod(bin, 0o755);
    const fake = async (body: string) => {
      await Deno.writeTextFile(`${bin}/tmux`, `#!/bin/sh\n${body}\n`);
      await Deno.chmod(`${bin}/tmux`, 0o755);
    };
    await fake('[ "$1" = -V ] && { echo "tmux 2.9a"; exit 0; }; exec /usr/bin/tmux "$@"');
    await Deno.writeTextFile(`${env.rig.dir}/force.sh`, `PATH=${bin}:$PATH\n${PLAIN}`);
    const old = await fails(client, "capture_pane", { paneId: "m1:%0" });
    assertEquals(old.code, "unsupported");
    assertMatch(old.message, /^host m1: runs tmux 2\.9a; 3\.2 or newer/);
    // A listing across hosts still answers, with a note naming the host.
    const listed = await ok<{ panes: unknown[]; note?: string }>(client, "list_panes");
    assertEquals(listed.panes.length, 1);
    assertMatch(listed.note ?? "", /host m1: runs tmux 2\.9a/);
    await fake("exit 127");
    assertEquals((await fails(client, "get_server_info", { host: "m1" })).code, "tmux_not_found");
  },
});

Deno.test({
  name: name("remote hostile: exiting while remote waits are pending leaves nothing of ours"),
  ignore: missing !== undefined,
  fn: async () => {
    const env = await setUp();
    try {
      const { client } = env.server;
      const { cursor } = await ok<{ cursor: string }>(client, "capture_since", { paneId: "m1:%0" });
      const waits = [
        call(client, "wait_for_channel", { host: "m1", channel: "never", timeoutMs: 60_000 }),
        call(client, "wait_for_text", {
          paneId: "m1:%0",
          patterns: ["never-printed"],
          cursor,
          timeoutMs: 60_000,
        }),
      ].map((p) => p.catch(() => undefined));
      // The channel's waiter runs on the remote server before the server is told to exit.
      const waiter = async () =>
        (await env.rig.ours(true)).some((line) =>
          line.includes("wait-for") && line.includes("never")
        );
      assert(await eventually(waiter), (await env.rig.ours(true)).join("\n"));
      await env.server.close();
      await Promise.all(waits);
      assert(
        await eventually(async () => (await env.rig.ours(true)).length === 0),
        (await env.rig.ours(true)).join("\n"),
      );
      assertEquals(await env.rig.tmux(0, "list-clients", "-F", "#{client_pid}"), "");
      assertEquals(await Array.fromAsync(Deno.readDir(env.rig.controlDir)), []);
    } finally {
      await env.local.tmux("kill-server").catch(() => {});
      await env.rig.close();
    }
  },
});

Deno.test({
  name: name(
    "remote hostile: a RemoteCommand and RequestTTY of the person's ssh config are not ours",
  ),
  ignore: missing !== undefined,
  fn: async () => {
    await using env = await setUp();
    // What a tmux user often has for a host: attach to tmux on login, with a terminal.
    const config = await Deno.readTextFile(env.rig.config);
    await Deno.writeTextFile(
      env.rig.config,
      `${config}\nHost m1\n  RemoteCommand tmux new -A -s login\n  RequestTTY force\n`,
    );
    const { client } = env.server;
    await ok(client, "send_keys", { paneId: "m1:%0", keys: "echo via-$((40+2))", enter: true });
    const run = await ok<{ output: string }>(client, "run_shell_command", {
      paneId: "m1:%0",
      command: "echo ran-$((1+1))",
      timeoutMs: 20_000,
    });
    assertEquals(run.output.trim(), "ran-2");
    assertEquals(
      (await env.rig.tmux(0, "list-sessions", "-F", "#{session_name}")).trim(),
      "work",
    );
  },
});

Deno.test({
  name: name(
    "remote hostile: a hostile start directory reaches the remote tmux as one literal path",
  ),
  ignore: missing !== undefined,
  fn: async () => {
    await using env = await setUp();
    const { client } = env.server;
    const canary = `${env.rig.dir}/remote/canary`;
    // Were any of it shell syntax somewhere, the pane would start elsewhere (or not at all).
    const dir = `${env.rig.dir}/remote/d $(echo a) 'q' \"r\" \`echo b\` #x;y`;
    await Deno.mkdir(dir, { mode: 0o755 });
    await Deno.chmod(dir, 0o755);
    const made = await ok<{ startDirectory: string; sessionId: string }>(client, "create_session", {
      host: "m1",
      name: "hostile-dir",
      startDirectory: dir,
    });
    assertEquals(made.startDirectory, dir);
    assertMatch(made.sessionId, /^m1:\$\d+$/);
    const missingDir = await fails(client, "create_session", {
      host: "m1",
      name: "nowhere",
      startDirectory: `${dir}/$(touch ${canary})`,
    });
    assertEquals(missingDir.code, "invalid_arguments");
    assertEquals(await Deno.stat(canary).then(() => true, () => false), false);
  },
});
