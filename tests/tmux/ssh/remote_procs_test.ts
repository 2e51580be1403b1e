/**
 * Nothing of ours outlives a call on a remote host (docs/design.md §5.15), against the private
 * sshd (tests/support/sshd.ts), whose "remote" processes run on this machine: a client given up
 * on while the remote tmux server is stopped, a control client dropped after a hang (ours until it
 * is really gone), a killed tmux-mcp; and start-up files that print without a newline or read
 * stdin. Skipped, with the reason, where sshd or root is missing.
 */
import { assert, assertEquals } from "../../support/assert.ts";
import { ToolError } from "../../../src/errors.ts";
import { ok } from "../../support/client.ts";
import { eventually } from "../../support/fixture.ts";
import { running } from "../../support/processes.ts";
import { sshdMissing, SshRig } from "../../support/sshd.ts";
import { remoteStack, remoteTmux, sshHost } from "../../support/remote.ts";
import {
  chainArgs,
  controlArgs,
  type SocketSpec,
  type TmuxCommand,
} from "../../../src/tmux/core/argv.ts";
import { TmuxRunner } from "../../../src/tmux/core/runner.ts";
import { ControlClient } from "../../../src/tmux/control/client.ts";

const missing = await sshdMissing();
const name = (title: string) => missing ? `${title} (skipped: ${missing})` : title;
const decoder = new TextDecoder();

/** What sshd runs for every command: DIR/force.sh (the login shell's start-up files), then it. */
const PLAIN = 'eval "$SSH_ORIGINAL_COMMAND"\n';

/** A rig whose sessions first run `startup` (a start-up file of the remote user's), and m1 there. */
async function setUp(startup = "") {
  const rig = await SshRig.start({ sshdLines: (dir) => [`ForceCommand . ${dir}/force.sh`] });
  await Deno.writeTextFile(`${rig.dir}/force.sh`, startup + PLAIN, { mode: 0o644 });
  await Deno.chmod(`${rig.dir}/force.sh`, 0o644);
  const { master, processes } = sshHost(rig, "m1");
  const socket: SocketSpec = { kind: "path", path: rig.machines[0].socket };
  return {
    rig,
    processes,
    socket,
    tmux: (commands: readonly TmuxCommand[], stdin?: string) =>
      remoteTmux(processes, socket, commands, stdin),
    async [Symbol.asyncDispose]() {
      await master.close();
      await rig.close();
    },
  };
}

/** The remote tmux server's pid, and SIGSTOP/SIGCONT for it. */
async function serverOf(rig: SshRig) {
  const pid = Number((await rig.tmux(0, "display-message", "-p", "#{pid}")).trim());
  return {
    pid,
    stop: () => Deno.kill(pid, "SIGSTOP"),
    resume: () => Deno.kill(pid, "SIGCONT"),
  };
}

/** The tmux client processes on m1's socket (everything that names it but the server). */
async function remoteClients(rig: SshRig, server: number): Promise<string[]> {
  const out = await new Deno.Command("ps", { args: ["-eo", "pid=,args="] }).output();
  return decoder.decode(out.stdout).split("\n").map((line) => line.trim()).filter((line) =>
    /^\d+ tmux /.test(line) && line.includes(rig.machines[0].socket) &&
    Number(line.split(" ")[0]) !== server
  );
}

Deno.test({
  name: name("remote procs: a title printed without a newline by a start-up file is not tmux's"),
  ignore: missing !== undefined,
  fn: async () => {
    await using env = await setUp("printf '\\033]0;%s\\007' box\n");
    await env.tmux([["-f", "/dev/null", "new-session", "-d", "-s", "w", "cat"]]);
    assertEquals(await env.tmux([["list-sessions", "-F", "#{session_name}"]]), "w\n");
    const spawned = await env.processes.control(controlArgs(env.socket, "$0", []));
    const pid = await spawned.clientPid;
    assert(
      await eventually(async () =>
        (await env.tmux([["list-clients", "-F", "#{client_pid}"]])).trim() === String(pid)
      ),
    );
    await spawned.process.stdin.close();
    await spawned.stdout.cancel();
    await spawned.process.status;
    await spawned.gone;
  },
});

Deno.test({
  name: name("remote procs: a start-up file that reads stdin never eats tmux's input"),
  ignore: missing !== undefined,
  fn: async () => {
    await using env = await setUp("bash -c 'read -t 1 line'\n");
    await env.tmux([["-f", "/dev/null", "new-session", "-d", "-s", "w", "cat"]]);
    const text = "first line\nsecond line\n";
    await env.tmux([["load-buffer", "-b", "t", "-"]], text);
    assertEquals(await env.tmux([["show-buffer", "-b", "t"]]), text);
  },
});

Deno.test({
  name: name("remote procs: a client given up on while the server is stopped is gone there"),
  ignore: missing !== undefined,
  fn: async () => {
    await using env = await setUp();
    await env.tmux([["-f", "/dev/null", "new-session", "-d", "-s", "w", "cat"]]);
    const spawned = await env.processes.control(controlArgs(env.socket, "$0", []));
    const reading = Array.fromAsync(spawned.stdout).catch(() => []);
    const controlPid = await spawned.clientPid;
    const server = await serverOf(env.rig);
    assert(await eventually(async () => (await remoteClients(env.rig, server.pid)).length === 1));
    server.stop();
    try {
      // A command client waits on the stopped server; the call gives up.
      const abort = new AbortController();
      const given = env.processes.collect(
        chainArgs(env.socket, [["list-sessions"]]),
        undefined,
        abort.signal,
      );
      assert(await eventually(async () => (await remoteClients(env.rig, server.pid)).length === 2));
      abort.abort();
      assertEquals(await given, undefined);
      // The control client is dropped the way a hung connection is: its ssh is killed.
      spawned.process.kill("SIGKILL");
      await reading;
      await spawned.gone;
      assertEquals(await running(controlPid), false);
      // Both are gone from the host while its server is still stopped.
      assert(
        await eventually(async () => (await remoteClients(env.rig, server.pid)).length === 0),
        (await remoteClients(env.rig, server.pid)).join("\n"),
      );
    } finally {
      server.resume();
    }
    assertEquals(await env.tmux([["list-clients"]]), "");
    // Nothing of ours holds the server: the person's kill-server ends it.
    await env.rig.tmux(0, "kill-server");
    assert(await eventually(async () => !await running(server.pid)), "the server exited");
  },
});

Deno.test({
  name: name("remote procs: a control client dropped after a hang is ours until it is gone there"),
  ignore: missing !== undefined,
  fn: async () => {
    await using env = await setUp();
    await env.tmux([["-f", "/dev/null", "new-session", "-d", "-s", "w", "cat"]]);
    const runner = new TmuxRunner({
      socket: env.socket,
      env: (n) => Deno.env.get(n),
      starter: env.processes,
    });
    const ours = new Set<number>();
    let aliveWhenLetGo: Promise<boolean> | undefined;
    const client = await ControlClient.open(runner, "$0", {
      onSpawn: (pid) => ours.add(pid),
      onExit: (pid) => {
        aliveWhenLetGo = running(pid);
        ours.delete(pid);
      },
      onOutput: () => {},
      onClose: () => {},
    });
    const pid = client.pid;
    assert(ours.has(pid));
    const server = await serverOf(env.rig);
    server.stop();
    try {
      // No reply in time: the connection is dropped (its ssh killed) while the server hangs.
      const late = await client.command(["display-message", "-p", "x"], undefined, 500)
        .catch((error) => error);
      assert(late instanceof ToolError && late.code === "timeout", String(late));
      await client.close();
      assert(await eventually(() => !ours.has(pid)), "let go once gone");
      assertEquals(await aliveWhenLetGo, false, "the remote client was gone when it was let go");
    } finally {
      server.resume();
    }
    assertEquals(await env.tmux([["list-clients"]]), "");
  },
});

Deno.test({
  name: name("remote procs: a dropped control client whose watcher is stuck is ended by the check"),
  ignore: missing !== undefined,
  fn: async () => {
    await using env = await setUp();
    await env.tmux([["-f", "/dev/null", "new-session", "-d", "-s", "w", "cat"]]);
    const args = controlArgs(env.socket, "$0", []);
    const spawned = await env.processes.control(args);
    const reading = Array.fromAsync(spawned.stdout).catch(() => []);
    const pid = await spawned.clientPid;
    const server = await serverOf(env.rig);
    assert(await eventually(async () => (await remoteClients(env.rig, server.pid)).length === 1));
    // The check knows our client by its `ps` arguments.
    assertEquals((await remoteClients(env.rig, server.pid))[0], `${pid} tmux ${args.join(" ")}`);
    // The feeder's `cat` (its parent names the socket) is stopped: it never sees end of file.
    const ps = decoder.decode(
      (await new Deno.Command("ps", { args: ["-eo", "pid=,ppid=,args="] }).output()).stdout,
    ).split("\n").map((line) => line.trim().split(/\s+/));
    const wrappers = new Set(
      ps.filter((f) => f[2] === "sh" && f.includes(env.rig.machines[0].socket)).map((f) => f[0]),
    );
    const feeder = ps.find((f) => f[2] === "cat" && f.length === 3 && wrappers.has(f[1]));
    assert(feeder, "the feeder's cat runs");
    Deno.kill(Number(feeder[0]), "SIGSTOP");
    try {
      spawned.process.kill("SIGKILL");
      await reading;
      await spawned.gone;
      assertEquals(await running(pid), false);
    } finally {
      Deno.kill(Number(feeder[0]), "SIGKILL");
    }
    assertEquals(await env.tmux([["list-clients"]]), "");
  },
});

Deno.test({
  name: name("remote procs: after SIGKILL of tmux-mcp its remote clients and ssh end"),
  ignore: missing !== undefined,
  fn: async () => {
    await using env = await remoteStack({
      hosts: [0],
      args: ["--toolsets", "inspect,manage,execute"],
    });
    const { rig, server } = env;
    const { client } = server;
    const { cursor } = await ok<{ cursor: string }>(client, "capture_since", { paneId: "m1:%0" });
    const pending = [
      client.callTool({
        name: "wait_for_channel",
        arguments: { host: "m1", channel: "never", timeoutMs: 60_000 },
      }),
      client.callTool({
        name: "wait_for_text",
        arguments: { paneId: "m1:%0", patterns: ["never"], cursor, timeoutMs: 60_000 },
      }),
    ].map((p) => p.catch(() => undefined));
    const remote = async () =>
      (await rig.ours(true)).filter((line) => /^\s*\d+\s+tmux /.test(line));
    assert(
      await eventually(async () => {
        const lines = await remote();
        return lines.some((l) => l.includes("wait-for")) && lines.some((l) => l.includes("-C"));
      }),
      (await rig.ours(true)).join("\n"),
    );
    const killed = performance.now();
    Deno.kill(server.pid!, "SIGKILL");
    // Every remote client and every ssh client ends; the master alone stays, for its persist.
    const clientsGone = await eventually(async () =>
      (await remote()).length === 0 &&
      (await rig.ours()).every((line) => line.includes("ControlMaster=yes")), 60_000);
    const clientsAfter = performance.now() - killed;
    assert(clientsGone, (await rig.ours(true)).join("\n"));
    // ControlPersist (30 s) counts from there.
    const masterGone = await eventually(async () => (await rig.ours()).length === 0, 120_000);
    const masterAfter = performance.now() - killed;
    assert(masterGone, (await rig.ours()).join("\n"));
    console.log(
      `after SIGKILL: remote clients and ssh clients gone in ${clientsAfter.toFixed(0)} ms, ` +
        `the master in ${(masterAfter / 1000).toFixed(1)} s`,
    );
    assertEquals(await rig.tmux(0, "list-clients"), "");
    await Promise.all(pending);
  },
});
