/**
 * `--check`, the doctor (docs/design.md §4.1), run as a person would: main.ts with the start task's
 * permissions (or others), against a private tmux server with a person attached, a socket where no
 * server runs, a PATH without tmux, and the ssh rig's hosts — one that answers and one that refuses
 * the login. Exit 0 unless something stops the server from working; every warning and problem
 * says its fix on its own line.
 */
import { assert, assertEquals, assertMatch } from "../support/assert.ts";
import { MAIN, startPermissions } from "../support/client.ts";
import { cleanEnv, TmuxFixture } from "../support/fixture.ts";
import { sshdMissing, SshRig } from "../support/sshd.ts";
import { baseFlags, ENV_VARIABLES, SSH_WIDENING } from "../../src/config/permissions.ts";

const decoder = new TextDecoder();

/** Run `main.ts --check ...args` with `permissions` (the start task's by default). */
async function check(
  args: string[],
  options: { permissions?: string[]; env?: Record<string, string> } = {},
): Promise<{ code: number; lines: string[]; stderr: string }> {
  const permissions = options.permissions ?? await startPermissions();
  const out = await new Deno.Command(Deno.execPath(), {
    args: ["run", ...permissions, MAIN, "--check", ...args],
    clearEnv: true,
    env: cleanEnv({ NO_COLOR: "1", ...options.env }),
    stdin: "null",
  }).output();
  return {
    code: out.code,
    lines: decoder.decode(out.stdout).trim().split("\n"),
    stderr: decoder.decode(out.stderr),
  };
}

/** The line of `level` matching `pattern`, failing with the whole report when there is none. */
function line(lines: string[], level: string, pattern: RegExp): string {
  const found = lines.find((l) => l.startsWith(`${level.padEnd(8)} `) && pattern.test(l));
  assert(found, `no ${level} line matching ${pattern} in:\n${lines.join("\n")}`);
  return found;
}

/** Every warning and problem carries its fix on the same line. */
function fixesGiven(lines: string[]): void {
  for (const l of lines.filter((l) => /^(warning|problem) /.test(l))) assertMatch(l, / — fix: \S/);
}

Deno.test("the permissions the doctor judges by are the start tasks' (and --ssh's, start:ssh's)", async () => {
  const permissions = (flags: string[]) => flags.filter((f) => f.startsWith("--allow-"));
  assertEquals(permissions(await startPermissions()), baseFlags());
  assertEquals(permissions(await startPermissions("start:ssh")), [
    `--allow-run=tmux,${SSH_WIDENING.run.join(",")}`,
    `--allow-env=${[...ENV_VARIABLES, ...SSH_WIDENING.env].join(",")}`,
  ]);
});

Deno.test("--check on the agent's server with a person attached: tmux, socket, people, permissions, exit 0", async () => {
  await using fx = await TmuxFixture.start({ session: "main" });
  const detach = await fx.attachPerson("main");
  try {
    const { code, lines, stderr } = await check(["-S", fx.socket]);
    assertEquals(code, 0, `${lines.join("\n")}\n${stderr}`);
    assertMatch(lines[0], /^tmux-mcp \S+ --check: /);
    line(lines, "ok", /tmux 3\.\d+\w* \(3\.2 or newer needed\); it has the control-client crash/);
    line(
      lines,
      "ok",
      new RegExp(
        `socket ${fx.socket} \\(${fx.socket}\\): a server with 1 session; 1 person attached \\(main\\)`,
      ),
    );
    line(
      lines,
      "ok",
      /^ok {7}permissions: run tmux; read 13 of the 13 variables it uses; no files, no network, no other programs$/,
    );
    assertEquals(lines.filter((l) => /^(warning|problem) /.test(l)), []);
    assertEquals(lines.at(-1), "no problems: the server can start");
  } finally {
    await detach();
  }
  // Nothing of the doctor's stays attached.
  const clients = await fx.tmux("list-clients", "-F", "#{client_control_mode}");
  assertEquals(clients.trim(), "");
});

Deno.test("--check: no server yet on the agent's socket is fine; no tmux on PATH is a problem", async () => {
  await using fx = await TmuxFixture.start();
  const empty = await check(["-S", fx.deadSocket]);
  assertEquals(empty.code, 0, empty.lines.join("\n"));
  line(empty.lines, "ok", /no tmux server yet; the agent's first create_session starts it/);

  const missing = await check(["-S", fx.socket], { env: { PATH: `${fx.dir}/no-such-dir` } });
  assertEquals(missing.code, 1, missing.lines.join("\n"));
  line(missing.lines, "problem", /tmux is not on PATH — fix: install tmux 3\.2 or newer/);
  fixesGiven(missing.lines);
  assertEquals(missing.lines.at(-1), "1 problem");
});

Deno.test("--check reports permissions it lacks or does not need, each with its fix", async () => {
  await using fx = await TmuxFixture.start();
  const base = await startPermissions();
  const noRun = await check(["-S", fx.socket], {
    permissions: base.filter((f) => !f.startsWith("--allow-run")),
  });
  assertEquals(noRun.code, 1, noRun.lines.join("\n"));
  line(noRun.lines, "problem", /the server may not run tmux — fix: grant --allow-run=tmux/);

  const all = await check(["-S", fx.socket], { permissions: ["--quiet", "-A"] });
  assertEquals(all.code, 0, all.lines.join("\n"));
  line(
    all.lines,
    "warning",
    /granted more than it needs: any program, every file \(read\), every file \(write\), the whole network, every variable/,
  );
  fixesGiven(all.lines);

  // --ssh without permission to run ssh: a problem, and no ssh is started to find out.
  const ssh = await check(["-S", fx.socket, "--ssh", "box=nobody@127.0.0.1"]);
  assertEquals(ssh.code, 1, ssh.lines.join("\n"));
  line(
    ssh.lines,
    "problem",
    /--ssh needs permission to run ssh; the hosts were not checked — fix: grant --allow-run=tmux,ssh/,
  );
  assert(!ssh.lines.some((l) => l.includes("host box")), ssh.lines.join("\n"));

  const http = await check(["-S", fx.socket, "--http", "127.0.0.1:8765"]);
  assertEquals(http.code, 1, http.lines.join("\n"));
  line(
    http.lines,
    "problem",
    /--http needs permission to listen on 127\.0\.0\.1:8765 — fix: grant --allow-net=127\.0\.0\.1:8765/,
  );
});

const missing = await sshdMissing();

Deno.test({
  name: `--check asks each --ssh host for tmux -V in BatchMode${
    missing ? ` (skipped: ${missing})` : ""
  }`,
  ignore: missing !== undefined,
  fn: async () => {
    await using fx = await TmuxFixture.start();
    await using rig = await SshRig.start();
    const permissions = await startPermissions("start:ssh");
    const good = await check(["-S", fx.socket, ...rig.sshArgs([0])], { permissions });
    assertEquals(good.code, 0, `${good.lines.join("\n")}\n${good.stderr}`);
    line(good.lines, "ok", /^ok {7}host m1 \(ssh m1\): tmux 3\.\d+\w* answers in BatchMode$/);
    line(good.lines, "ok", /permissions: run tmux and ssh; read 14 of the 14 variables it uses/);

    const bad = await check(
      ["-S", fx.socket, ...rig.sshArgs([0]), "--ssh", "locked=denied"],
      { permissions },
    );
    assertEquals(bad.code, 1, bad.lines.join("\n"));
    line(bad.lines, "ok", /host m1 \(ssh m1\): tmux/);
    line(
      bad.lines,
      "problem",
      /^problem {2}host locked \(ssh denied\): ssh could not log in .* — fix: /,
    );
    fixesGiven(bad.lines);
    // The masters the doctor opened are closed again.
    assertEquals(await rig.ours(), []);
  },
});
