/**
 * The ssh layer against a real sshd on 127.0.0.1 (tests/support/sshd.ts): a master per host, tmux
 * commands and a control client riding it with hostile arguments, and typed failures for a host
 * that refuses, one that never speaks SSH, an unknown host key and a refused login. Skipped, with
 * the reason, where sshd or root is missing.
 */
import { assert, assertEquals, assertRejects } from "../../support/assert.ts";
import { eventually } from "../../support/fixture.ts";
import { silentListener, sshdMissing, SshRig } from "../../support/sshd.ts";
import { remoteTmux, sshHost } from "../../support/remote.ts";
import { chainArgs, controlArgs, type TmuxCommand } from "../../../src/tmux/core/argv.ts";
import { SshError } from "../../../src/tmux/ssh/master.ts";
import type { RemoteProcesses } from "../../../src/tmux/ssh/remote_processes.ts";
import type { SocketSpec } from "../../../src/tmux/core/argv.ts";

const missing = await sshdMissing();
const name = (title: string) => missing ? `${title} (skipped: ${missing})` : title;
const decoder = new TextDecoder();

/** A host of the rig: its master and remote tmux (first contact bounded at 5 s). */
function host(rig: SshRig, alias: string, connectTimeoutSec = 5) {
  return sshHost(rig, alias, connectTimeoutSec);
}

/** Run a chain remotely and return stdout; a tmux failure fails the test. */
function tmux(
  processes: RemoteProcesses,
  socket: SocketSpec,
  commands: readonly TmuxCommand[],
): Promise<string> {
  return remoteTmux(processes, socket, commands);
}

/** Whether a `tmux wait-for` runs on a socket of the rig's. */
async function remoteWaitFor(rig: SshRig, channel = "never"): Promise<boolean> {
  const out = await new Deno.Command("ps", { args: ["-eo", "args="] }).output();
  return decoder.decode(out.stdout).split("\n")
    .some((line) =>
      line.startsWith("tmux ") && line.includes(rig.dir) && line.endsWith(` wait-for ${channel}`)
    );
}

Deno.test({
  name: name("ssh: hostile names cross intact, a control client streams, closing leaves nothing"),
  ignore: missing !== undefined,
  fn: async () => {
    await using rig = await SshRig.start();
    const m1 = host(rig, "m1");
    const m2 = host(rig, "m2");
    const s1: SocketSpec = { kind: "path", path: rig.machines[0].socket };
    const s2: SocketSpec = { kind: "path", path: rig.machines[1].socket };
    try {
      await m1.processes.ready();
      assert(/^tmux \d/.test(m1.processes.version ?? ""));
      const hostile = "a#b 'c' $(x);y";
      await tmux(m1.processes, s1, [
        ["-f", "/dev/null", "new-session", "-d", "-s", hostile, "-x", "80", "-y", "24", "cat"],
      ]);
      await tmux(m2.processes, s2, [["new-session", "-d", "-s", "other", "cat"]]);
      const panes = await tmux(m1.processes, s1, [[
        "list-panes",
        "-a",
        "-F",
        "#{pane_id} #{session_name}",
      ]]);
      assertEquals(panes, `%0 ${hostile}\n`);
      // The other machine is another server: its own %0, its own session.
      assertEquals(
        await tmux(m2.processes, s2, [["list-sessions", "-F", "#{session_name}"]]),
        "other\n",
      );

      const sessionId =
        (await tmux(m1.processes, s1, [["display-message", "-p", "-t", "%0", "#{session_id}"]]))
          .trim();
      const spawned = await m1.processes.control(controlArgs(s1, sessionId, []));
      const child = spawned.process;
      const reader = spawned.stdout.getReader();
      let seen = "";
      const reading = (async () => {
        while (true) {
          const { done, value } = await reader.read();
          if (done) return;
          seen += decoder.decode(value, { stream: true });
        }
      })();
      assert(
        await eventually(async () => {
          const clients = await tmux(m1.processes, s1, [[
            "list-clients",
            "-F",
            "#{client_control_mode} #{client_pid}",
          ]]);
          // The pid its shell said before it became tmux is the one tmux lists.
          return clients === `1 ${await spawned.clientPid}\n`;
        }, 20_000),
        "the control client attached",
      );
      const marker = "ping $(hostile) 'x' #{y}";
      await tmux(m1.processes, s1, [["send-keys", "-t", "%0", "-l", marker]]);
      assert(
        await eventually(() => seen.includes(`%output %0 ${marker}`), 20_000),
        `no %output of the marker: ${seen.slice(-500)}`,
      );
      await child.stdin.close();
      await child.status;
      await reading;
      assertEquals(await tmux(m1.processes, s1, [["list-clients"]]), "");

      const pid = await m1.master.pid();
      assert(pid !== undefined, "the master answers -O check");
      await m1.master.close();
      await m2.master.close();
      assertEquals(await m1.master.pid(), undefined);
      assert(
        await eventually(async () => (await rig.ours()).length === 0),
        "no ssh of ours",
      );
      assertEquals(await Array.fromAsync(Deno.readDir(rig.controlDir)), []);
    } finally {
      await m1.master.close();
      await m2.master.close();
    }
  },
});

Deno.test({
  name: name(
    "ssh: login noise is dropped; a command finding no master becomes it; a drop is server_gone",
  ),
  ignore: missing !== undefined,
  fn: async () => {
    await using rig = await SshRig.start();
    const m1 = host(rig, "m1");
    try {
      // The test user has no home: sshd says so on stderr, with a zero exit status.
      const out = await m1.processes.collect(["-V"], undefined, AbortSignal.timeout(30_000));
      assert(out?.success);
      assertEquals(out.stderr.length, 0);
      assert(m1.master.up);
      assert((await rig.ours()).length === 1, "one master");
      // Gone while this master object still takes it for up (it expired, or was killed): the
      // next command becomes the master itself (ControlMaster=auto).
      await host(rig, "m1").master.close();
      assertEquals(await m1.master.pid(), undefined);
      assertEquals(m1.master.up as boolean, false);
      await m1.master.open();
      await host(rig, "m1").master.close();
      assert(m1.master.up, "still taken for up");
      const again = await m1.processes.collect(["-V"], undefined, AbortSignal.timeout(30_000));
      assert(again?.success);
      assert((await m1.master.pid()) !== undefined, "the command left a master behind");

      // The connection drops while a command runs: server_gone, and it may have run.
      const s1: SocketSpec = { kind: "path", path: rig.machines[0].socket };
      await tmux(m1.processes, s1, [["new-session", "-d", "cat"]]);
      const waiting = m1.processes.collect(
        chainArgs(s1, [["wait-for", "never"]]),
        undefined,
        AbortSignal.timeout(30_000),
      );
      const outcome = waiting.then(() => undefined, (error) => error);
      // The remote `tmux wait-for` runs (the rig's "remote" processes are on this machine).
      assert(await eventually(() => remoteWaitFor(rig), 20_000), "the wait started remotely");
      await m1.master.close();
      const dropped = await outcome;
      assert(dropped instanceof SshError, String(dropped));
      assertEquals([dropped.kind, dropped.code, dropped.effects], [
        "dropped",
        "server_gone",
        "possible",
      ]);
      // The next call reconnects.
      assertEquals(
        await tmux(m1.processes, s1, [["list-sessions", "-F", "#{session_name}"]]),
        "0\n",
      );

      // Giving up does not wait for the remote command: the master holds our pipes (it took the
      // client's stdio), so they are released, not waited for.
      const abort = new AbortController();
      const given = m1.processes.collect(
        chainArgs(s1, [["wait-for", "never-either"]]),
        undefined,
        abort.signal,
      );
      assert(await eventually(() => remoteWaitFor(rig, "never-either"), 20_000));
      abort.abort();
      assertEquals(await given, undefined);
    } finally {
      await m1.master.close();
    }
  },
});

Deno.test({
  name: name("ssh: unreachable, silent, unknown-key and refused-login hosts fail typed"),
  ignore: missing !== undefined,
  fn: async () => {
    // Accepts TCP and never says a word: ssh waits for the banner until its connect timeout.
    await using silent = silentListener();
    await using rig = await SshRig.start({ silentPort: silent.port });
    const cases: Array<[string, string, string, boolean]> = [
      ["refused", "unreachable", "host_unreachable", true],
      ["silent", "unreachable", "host_unreachable", true],
      ["unknown-key", "host_key", "host_denied", false],
      ["denied", "auth", "host_denied", false],
    ];
    for (const [alias, kind, code, retryable] of cases) {
      const { master, processes } = host(rig, alias, 1);
      const error = await assertRejects(() => master.open(), SshError);
      assertEquals([error.kind, error.code, error.retryable], [kind, code, retryable], alias);
      assert(error.hint.includes(`ssh -F ${rig.config} ${alias} tmux -V`), error.hint);
      // A command fails the same way, and leaves no master behind.
      const again = await assertRejects(
        () => processes.collect(["-V"], undefined, AbortSignal.timeout(30_000)),
        SshError,
      );
      assertEquals(again.kind, kind, `${alias} (command)`);
      assertEquals(await master.pid(), undefined);
    }
    assertEquals(await rig.ours(), []);
  },
});
