/**
 * run_shell_command's edges (issue 29): it types only into the pane's own shell, its output
 * survives a cleared history and a switch to the alternate screen, a busy mark ends when the shell
 * that took the command was replaced or never printed its start frame, a shell still running its
 * start-up files runs the command once it reaches its prompt (issue 43), and a relative
 * `--socket-path` works from any pane directory. Real tmux, real shells, a real MCP client.
 */
import type { Client } from "@modelcontextprotocol/sdk/client";
import { Client as SdkClient } from "@modelcontextprotocol/sdk/client";
// @ts-types="npm:@modelcontextprotocol/sdk@^1.32.2/client/stdio"
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { assert, assertEquals, assertMatch } from "../../support/assert.ts";
import { connectInProcess, fails, MAIN, ok, startPermissions } from "../../support/client.ts";
import { cleanEnv, eventually, TmuxFixture } from "../../support/fixture.ts";
import { SURFACE } from "../../../src/catalog.ts";
import { parseConfig } from "../../../src/config.ts";

interface Ran {
  outcome: "completed" | "timeout" | "pane_died" | "server_gone";
  exitStatus?: number;
  output: string;
  truncated: boolean;
  note?: string;
}

/** The PATH of the test's shells. */
const PANE_PATH = "/usr/local/bin:/usr/bin:/bin";

/** Whether a program is installed (CI may lack dash and python3: those parts say so and skip). */
async function installed(program: string): Promise<boolean> {
  const out = await new Deno.Command("sh", {
    args: ["-c", `command -v ${program}`],
    clearEnv: true,
    env: { PATH: PANE_PATH },
  }).output();
  if (!out.success) console.log(`${program} is not installed: its part is skipped`);
  return out.success;
}

/** A server whose first window runs `sleep`, so closing a shell's window never ends it. */
function server(): Promise<TmuxFixture> {
  return TmuxFixture.start({ session: "run", command: "sleep 100000", width: 100, height: 30 });
}

/** A window running bash with the prompt `$ ` and a clean environment, ready for input. */
async function bashPane(fx: TmuxFixture): Promise<string> {
  const command = `env -i PATH=${PANE_PATH} HOME=${fx.dir} TERM=screen ` +
    `PS1='$ ' bash --norc --noprofile`;
  const paneId = await fx.newWindow(command, "=run:");
  assert(await eventually(async () => (await screen(fx, paneId)).includes("$")), "bash's prompt");
  return paneId;
}

/** The pane's history and screen as tmux shows them. */
async function screen(fx: TmuxFixture, paneId: string): Promise<string> {
  const text = await fx.tmux("capture-pane", "-p", "-J", "-S", "-", "-t", paneId);
  return text.split("\n").map((line) => line.trimEnd()).join("\n");
}

/** Wait until the pane's foreground program is `program`. */
async function foreground(fx: TmuxFixture, paneId: string, program: string): Promise<void> {
  assert(
    await eventually(async () => (await fx.display(paneId, "#{pane_current_command}")) === program),
    `${program} in the foreground of ${paneId}`,
  );
}

function run(client: Client, paneId: string, command: string, extra: Record<string, unknown> = {}) {
  return ok<Ran>(client, "run_shell_command", { paneId, command, ...extra });
}

async function expectRun(client: Client, paneId: string, command: string, output: string) {
  const ran = await run(client, paneId, command);
  assertEquals(
    [ran.outcome, ran.exitStatus, ran.output],
    ["completed", 0, output],
    `${command}: ${JSON.stringify(ran).slice(0, 300)}`,
  );
}

Deno.test("run_shell_command types only into the pane's own shell: a sh script's read under bash and another shell are refused", async () => {
  await using fx = await server();
  const { client, close } = await connectInProcess(["-S", fx.socket]);
  try {
    const pane = await bashPane(fx);
    await expectRun(client, pane, "echo first", "first");
    await ok(client, "send_keys", { paneId: pane, keys: "sh -c 'read -r a; echo got:$a'" });
    await foreground(fx, pane, "sh");
    const refused = await fails(client, "run_shell_command", { paneId: pane, command: "echo x" });
    assertEquals([refused.code, refused.effects], ["target_denied", "none"]);
    assertMatch(refused.message, /running "sh", not its own shell "bash"/);
    assertMatch(refused.text, /force does not change this/);
    // The script's read still waits for its own line: it gets the answer, not our typed line.
    await ok(client, "send_keys", { paneId: pane, keys: "answer" });
    assert(await eventually(async () => (await screen(fx, pane)).includes("got:answer")), "read");
    assert(!(await screen(fx, pane)).includes("got: eval"), "nothing was typed into the read");
    await foreground(fx, pane, "bash");
    await expectRun(client, pane, "echo back", "back");

    if (await installed("dash")) {
      await ok(client, "send_keys", { paneId: pane, keys: "PS1='% ' dash -i" });
      await foreground(fx, pane, "dash");
      const other = await fails(client, "run_shell_command", { paneId: pane, command: "true" });
      assertMatch(other.message, /running "dash", not its own shell "bash"/);
      await ok(client, "send_keys", { paneId: pane, keys: "exit" });
      await foreground(fx, pane, "bash");
      await expectRun(client, pane, "echo again", "again");
    }

    // A pane started without a command runs the server's default-shell.
    await fx.tmux("set-option", "-g", "default-shell", "/bin/bash");
    await fx.tmux("set-environment", "-g", "HOME", fx.dir);
    const bare = (await fx.tmux("new-window", "-d", "-t", "=run:", "-P", "-F", "#{pane_id}"))
      .trim();
    assertEquals(await fx.display(bare, "#{pane_start_command}"), "");
    await foreground(fx, bare, "bash");
    await expectRun(client, bare, "echo bare", "bare");
  } finally {
    await close();
  }
});

Deno.test("run_shell_command: output after clear, in an alternate screen left on, and after it is left", async () => {
  await using fx = await server();
  const { client, close } = await connectInProcess(["-S", fx.socket]);
  try {
    const pane = await bashPane(fx);
    await expectRun(
      client,
      pane,
      "seq 1 60",
      Array.from({ length: 60 }, (_, i) => i + 1).join("\n"),
    );
    await expectRun(client, pane, "clear; echo after-clear", "after-clear");
    await expectRun(client, pane, "clear", "");
    await expectRun(client, pane, "echo next", "next");
    await expectRun(client, pane, "printf '\\033[3J'; echo history-gone", "history-gone");
    await expectRun(client, pane, "printf '\\033[?1049h'; echo in-alt", "in-alt");
    await expectRun(client, pane, "echo still-alt", "still-alt");
    // The alternate screen has no history: once its rows are full, every run scrolls it.
    for (let i = 0; i < 12; i++) {
      await expectRun(client, pane, `seq ${i} ${i + 2}`, `${i}\n${i + 1}\n${i + 2}`);
    }
    await expectRun(client, pane, "seq 1 3; clear; echo alt-cleared", "alt-cleared");
    await expectRun(client, pane, "printf '\\033[?1049l'; echo normal-again", "normal-again");
    await expectRun(client, pane, "echo last", "last");
  } finally {
    await close();
  }
});

Deno.test("run_shell_command: a mark ends when the shell was replaced by exec, or never printed its start frame", async () => {
  await using fx = await server();
  const { client, close } = await connectInProcess(["-S", fx.socket]);
  try {
    const replacements: Array<[string, string]> = [];
    if (await installed("python3")) replacements.push(["exec python3 -q </dev/tty", "python3"]);
    if (await installed("dash")) replacements.push(["exec dash -i </dev/tty", "dash"]);
    for (const [command, program] of replacements) {
      const pane = await bashPane(fx);
      // The call's own look at the pane sees the program in front and stops waiting.
      const ran = await run(client, pane, command, { timeoutMs: 20_000 });
      assertEquals(ran.outcome, "timeout", command);
      assertMatch(ran.note ?? "", /replaced the pane's shell \(exec\)/);
      await foreground(fx, pane, program);
      // The shell that took the command is gone: text reaches the new program.
      await ok(client, "send_keys", { paneId: pane, keys: "print('free' + 'd') if 1 else 0" });
      assert(
        await eventually(async () => /freed|print/.test((await screen(fx, pane)).slice(-200))),
        `typed into ${program}`,
      );
      // It is not the pane's own shell: run_shell_command refuses it.
      const refused = await fails(client, "run_shell_command", { paneId: pane, command: "true" });
      assertEquals(refused.code, "target_denied");
      await fx.tmux("kill-pane", "-t", pane);
    }

    // A shadowed printf: the shell takes the command but prints no frame.
    const pane = await bashPane(fx);
    await ok(client, "send_keys", { paneId: pane, keys: "printf() { :; }" });
    const silent = await run(client, pane, "echo hidden", { timeoutMs: 200 });
    assertEquals([silent.outcome, silent.output], ["timeout", ""]);
    assertMatch(silent.note ?? "", /printed no start frame/);
    await ok(client, "send_keys", { paneId: pane, keys: "unset -f printf" });
    await expectRun(client, pane, "echo visible", "visible");
  } finally {
    await close();
  }
});

/**
 * The two ways a start-up file keeps bash from its first prompt until the flag file `flag` exists:
 * an external program, and a loop of builtins in the shell itself (as nvm's or conda's set-up
 * does; `read -t` on a FIFO nobody writes waits without a process or a busy CPU).
 */
const START_UPS: Array<[string, (flag: string, fifo: string) => string]> = [
  ["an external program", (flag) => `sh -c 'until [ -e ${flag} ]; do sleep 0.05; done'`],
  [
    "a loop in the shell",
    (flag, fifo) => `until [ -e ${flag} ]; do read -rt 0.05 _ <> ${fifo}; done`,
  ],
];

/** A window running bash whose rc file prints `rc-holds`, then holds as `hold` does. */
async function startingPane(fx: TmuxFixture, name: string, hold: string): Promise<string> {
  const rc = `${fx.dir}/${name}.rc`;
  await Deno.writeTextFile(rc, `PS1='$ '\necho rc-holds\n${hold}\n`);
  const paneId = await fx.newWindow(
    `env -i PATH=${PANE_PATH} HOME=${fx.dir} TERM=screen bash --rcfile ${rc}`,
    "=run:",
  );
  assert(await eventually(async () => (await screen(fx, paneId)).includes("rc-holds")), "rc");
  // The start-up file runs in bash's own process group: bash is the pane's program throughout.
  await foreground(fx, paneId, "bash");
  return paneId;
}

Deno.test("a shell still running its start-up files runs the command once it reaches its prompt: within the call, or followed by wait_for_command; nothing is left typed", async () => {
  await using fx = await server();
  const { client, close } = await connectInProcess(["-S", fx.socket]);
  try {
    const fifo = `${fx.dir}/fifo`;
    assert((await new Deno.Command("mkfifo", { args: [fifo] }).output()).success, "mkfifo");
    for (const [i, [what, hold]] of START_UPS.entries()) {
      // Within the call: the start-up file ends while the call waits.
      const inCall = `${fx.dir}/in-call-${i}`;
      const pane = await startingPane(fx, `in-call-${i}`, hold(inCall, fifo));
      const running = run(client, pane, "echo ran-in-call", { timeoutMs: 20_000 });
      assert(await eventually(async () => (await screen(fx, pane)).includes("save-buffer")), what);
      await Deno.writeTextFile(inCall, "");
      const ran = await running;
      assertEquals(
        [ran.outcome, ran.exitStatus, ran.output],
        ["completed", 0, "ran-in-call"],
        what,
      );

      // Beyond the call: a runId that follows the command to its end once the shell reads it.
      const later = `${fx.dir}/later-${i}`;
      const slow = await startingPane(fx, `later-${i}`, hold(later, fifo));
      const first = await ok<Ran & { runId?: string }>(client, "run_shell_command", {
        paneId: slow,
        command: "echo ran-later",
        timeoutMs: 300,
      });
      assertEquals([first.outcome, first.output], ["timeout", ""], what);
      assertMatch(first.note ?? "", /has not read the command's line yet .* start-up files/);
      assert(first.runId !== undefined, `${what}: a runId to follow it`);
      // The pane stays busy: text would be read after the waiting line.
      const busy = await fails(client, "send_keys", { paneId: slow, keys: "echo other" });
      assertEquals(busy.code, "busy", what);
      await Deno.writeTextFile(later, "");
      let end = await ok<Ran>(client, "wait_for_command", { runId: first.runId });
      for (let n = 0; end.outcome === "timeout" && n < 30; n++) {
        end = await ok<Ran>(client, "wait_for_command", { runId: first.runId });
      }
      assertEquals([end.outcome, end.exitStatus, end.output], ["completed", 0, "ran-later"], what);
      // Nothing left typed: no withdrawn line printing `no buffer`, no buffer of ours left.
      await expectRun(client, slow, "echo after", "after");
      for (const paneId of [pane, slow]) {
        assert(!(await screen(fx, paneId)).includes("no buffer"), `${what}: ${paneId}`);
      }
      assertEquals(await fx.tmux("list-buffers"), "", what);
    }
  } finally {
    await close();
  }
});

Deno.test("a relative --socket-path works from a pane in another directory, under the start permissions", async () => {
  await using fx = await server();
  const tmux = (...args: string[]) =>
    new Deno.Command("tmux", {
      args: ["-S", "rel.sock", "-f", "/dev/null", ...args],
      cwd: fx.dir,
      clearEnv: true,
      env: cleanEnv(),
      stdin: "null",
    }).output();
  const shell = `env -i PATH=${PANE_PATH} HOME=${fx.dir} TERM=screen ` +
    `PS1='$ ' bash --norc --noprofile`;
  assert((await tmux("new-session", "-d", "-s", "rel", "-c", "/", shell)).success, "server");
  const client = new SdkClient({ name: "run-edges", version: "1" });
  try {
    const paneOut = await tmux("display-message", "-p", "-t", "=rel:", "#{pane_id}");
    const pane = new TextDecoder().decode(paneOut.stdout).trim();
    await client.connect(
      new StdioClientTransport({
        command: Deno.execPath(),
        args: ["run", ...await startPermissions(), MAIN, "-S", "rel.sock"],
        cwd: fx.dir,
        env: cleanEnv({ NO_COLOR: "1" }),
        stderr: "pipe",
      }),
    );
    const ran = await run(client, pane, "pwd; echo rel", { timeoutMs: 20_000 });
    assertEquals([ran.outcome, ran.output], ["completed", "/\nrel"], JSON.stringify(ran));
  } finally {
    await client.close();
    await tmux("kill-server");
  }
});

Deno.test("a relative socket path is made absolute once, from the directory the server started in", () => {
  const parse = (args: string[], env: Record<string, string> = {}) => {
    const outcome = parseConfig(args, (n) => env[n], SURFACE, () => "/home/me/work");
    if (outcome.kind !== "run") throw new Error(outcome.kind);
    return outcome.config.socket;
  };
  assertEquals(parse(["-S", "rel.sock"]), { kind: "path", path: "/home/me/work/rel.sock" });
  assertEquals(parse([], { TMUX_MCP_SOCKET_PATH: "s/t.sock" }), {
    kind: "path",
    path: "/home/me/work/s/t.sock",
  });
  assertEquals(parse(["-S", "/tmp/abs.sock"]), { kind: "path", path: "/tmp/abs.sock" });
});
