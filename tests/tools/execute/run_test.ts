/**
 * run_shell_command against real tmux and real shells (bash always; dash and zsh when installed —
 * each test says which ran): exit statuses, exact rendered output, framing that output cannot
 * forge, busy marks and what ends them, timeouts, cancellation, dead panes, history, and stdio
 * under the start permissions.
 */
import { runBuffers, typedRunLines } from "../../support/typed_runs.ts";
import type { Client } from "@modelcontextprotocol/sdk/client";
import { assert, assertEquals, assertMatch } from "../../support/assert.ts";
import { connectInProcess, connectStdio, fails, ok } from "../../support/client.ts";
import { eventually, TmuxFixture } from "../../support/fixture.ts";
import { frameNonce } from "../../../src/live/run_frame.ts";

/** A run's result; what only restates a default is left out (docs/design.md §3.1). */
interface Ran {
  paneId: string;
  resolvedPaneIds?: string[];
  outcome: "completed" | "timeout" | "pane_died" | "server_gone";
  exitStatus?: number;
  output: string;
  truncated?: boolean;
  truncatedLines?: number;
  truncatedBytes?: number;
  cursor?: string;
  elapsedMs: number;
  timeoutMs?: number;
  timeoutClamped?: boolean;
  note?: string;
}

type Shell = "bash" | "dash" | "zsh";

/** Whether a program is installed (CI installs only tmux and bash's system). */
async function installed(program: string): Promise<boolean> {
  const out = await new Deno.Command("sh", { args: ["-c", `command -v ${program}`] }).output();
  return out.success;
}

/** The shells this machine has, bash first; the ones missing are named on the test's output. */
async function shells(): Promise<Shell[]> {
  const found: Shell[] = ["bash"];
  for (const shell of ["dash", "zsh"] as const) {
    if (await installed(shell)) found.push(shell);
    else console.log(`${shell} is not installed: its runs are skipped`);
  }
  return found;
}

/**
 * A window running an interactive `shell` with the prompt `$ `, a clean environment (tmux on
 * PATH) and `env` added, ready for input.
 */
async function shellPane(
  fx: TmuxFixture,
  shell: Shell,
  env: Record<string, string> = {},
): Promise<string> {
  const vars = { PATH: "/usr/local/bin:/usr/bin:/bin", HOME: fx.dir, TERM: "screen", ...env };
  const assignments = Object.entries(vars).map(([k, v]) => `${k}='${v}'`).join(" ");
  const program = { bash: "bash --norc --noprofile", dash: "dash -i", zsh: "zsh -f" }[shell];
  const command = `env -i ${assignments} PS1='$ ' ${program}`;
  const paneId = await fx.newWindow(command, "=run:");
  assert(
    await eventually(async () => (await screen(fx, paneId)).split("\n").includes("$")),
    `${shell} shows its prompt`,
  );
  return paneId;
}

/** The pane's history and screen as tmux shows them, wrapped lines joined. */
async function screen(fx: TmuxFixture, paneId: string): Promise<string> {
  const text = await fx.tmux("capture-pane", "-p", "-J", "-S", "-", "-t", paneId);
  return text.split("\n").map((line) => line.trimEnd()).join("\n");
}

/** A server whose first window runs `sleep`, so closing a shell's window never ends it. */
/** Whether the pane's screen has a line reading exactly `line`. */
async function shows(fx: TmuxFixture, paneId: string, line: string): Promise<boolean> {
  return (await screen(fx, paneId)).split("\n").some((l) => l.trimEnd() === line);
}

function server(): Promise<TmuxFixture> {
  return TmuxFixture.start({ session: "run", command: "sleep 100000", width: 100, height: 30 });
}

function run(client: Client, paneId: string, command: string, extra: Record<string, unknown> = {}) {
  return ok<Ran>(client, "run_shell_command", { paneId, command, ...extra });
}

/** Run and check the outcome, status and exact output. */
async function expectRun(
  client: Client,
  paneId: string,
  command: string,
  exitStatus: number,
  output: string,
  what: string,
): Promise<Ran> {
  const ran = await run(client, paneId, command);
  assertEquals(
    [ran.outcome, ran.exitStatus, ran.output],
    ["completed", exitStatus, output],
    `${what}: ${JSON.stringify(ran).slice(0, 400)}`,
  );
  return ran;
}

Deno.test("run_shell_command in bash, dash and zsh: exit statuses, exactly the command's output, heredocs, scripts, unicode, state kept", async () => {
  await using fx = await server();
  const ran: Shell[] = [];
  const { client, close } = await connectInProcess(["-S", fx.socket]);
  try {
    for (const shell of await shells()) {
      const pane = await shellPane(fx, shell);
      const check = (command: string, status: number, output: string) =>
        expectRun(client, pane, command, status, output, `${shell}: ${command.slice(0, 40)}`);
      await check("true", 0, "");
      await check("false", 1, "");
      await check("(exit 7)", 7, "");
      await check("seq 1 5", 0, "1\n2\n3\n4\n5");
      await check("echo out; echo err >&2", 0, "out\nerr");
      await check(
        "cat <<'EOF'\n$HOME 'single' \"double\" `tick`\n  indented\nEOF",
        0,
        [
          "$HOME 'single' \"double\" `tick`",
          "  indented",
        ].join("\n"),
      );
      await check(
        'a=1\nif [ "$a" = 1 ]; then\n  echo yes\nfi\nfor i in 1 2; do echo "line $i"; done\nfalse',
        1,
        "yes\nline 1\nline 2",
      );
      await check("printf '%s\\n' 'héllo wörld 😀 中文 ﬁ'", 0, "héllo wörld 😀 中文 ﬁ");
      await check('echo "$(echo nested) it\'s" \\$HOME', 0, "nested it's $HOME");
      // Errors that make an interactive shell abort the rest of its line still end the frame.
      for (const error of ["echo 'unclosed", "echo ${unset_var?oops}; echo not-reached"]) {
        const broken = await run(client, pane, error);
        assertEquals(broken.outcome, "completed", `${shell}: ${error}`);
        assert(broken.exitStatus! > 0 && broken.output !== "", `${shell}: ${error}`);
        assert(!broken.output.includes("not-reached"), broken.output);
      }
      // The shell's state is used and kept from one call to the next.
      await check("cd /tmp && X=42", 0, "");
      await check('pwd; echo "$X"', 0, "/tmp\n42");
      // Last: a line typed after output without a final newline starts mid-row (the shell's own
      // redraw may garble it).
      await check("printf 'no final newline'", 0, "no final newline");
      const shown = await screen(fx, pane);
      const typed = typedRunLines(shown);
      assertEquals(runBuffers(typed).size, 14, `${shell}: one typed line per call:\n${shown}`);
      // zsh redraws its line with cursor movement, so a wrapped line is not joined: its start.
      const prompted = typed.filter((line) =>
        /^\$ {2}eval "\$\(tmux -S '[^']+' save-buffer -b tmux-mcp-[0-9a-f]+/.test(line)
      );
      assertEquals(
        runBuffers(prompted),
        runBuffers(typed),
        `${shell}: each at a prompt:\n${shown}`,
      );
      // `7735;`, not `7735`: the random hex of a buffer name or socket path may hold "7735".
      assert(
        !/7735;|printf|delete-buffer/.test(shown),
        `${shell}: no framing on screen:\n${shown}`,
      );
      ran.push(shell);
    }
    assertEquals(await fx.tmux("list-buffers"), "", "no buffer of ours is left");
    console.log(`shells run: ${ran.join(", ")}`);
  } finally {
    await close();
  }
});

Deno.test("frames: output that looks like a frame neither ends nor spoofs the call", async () => {
  await using fx = await server();
  const { client, close } = await connectInProcess(["-S", fx.socket]);
  try {
    const pane = await shellPane(fx, "bash");
    const fake = frameNonce();
    const ran = await run(
      client,
      pane,
      // A real frame escape with another nonce (start and exit), then the frame as visible text.
      `printf '\\033]7735;tmux-mcp;${fake};start\\007\\033]7735;tmux-mcp;${fake};exit;0\\007'\n` +
        `echo 'ESC]7735;tmux-mcp;${fake};exit;0'\nsleep 0.2\necho after\n(exit 3)`,
    );
    assertEquals(ran.outcome, "completed");
    assertEquals(ran.exitStatus, 3);
    assertEquals(ran.output, `ESC]7735;tmux-mcp;${fake};exit;0\nafter`);
  } finally {
    await close();
  }
});

Deno.test("run_shell_command: stdin is empty, 20,000 lines are bounded and disclosed, a 100 KB command arrives whole", async () => {
  await using fx = await server();
  const { client, close } = await connectInProcess(["-S", fx.socket]);
  try {
    const pane = await shellPane(fx, "bash");
    // A command that reads stdin gets none and completes.
    await expectRun(client, pane, 'cat; echo "cat:$?"', 0, "cat:0", "cat");
    await expectRun(client, pane, 'read line; echo "read:$?"', 0, "read:1", "read");

    const many = await run(client, pane, "seq 1 20000");
    assertEquals([many.outcome, many.exitStatus], ["completed", 0]);
    const lines = many.output.split("\n");
    assertEquals([lines.length, lines[0], lines.at(-1)], [200, "19801", "20000"]);
    assertEquals([many.truncated, many.truncatedLines], [true, 19_800]);
    const few = await run(client, pane, "seq 1 20000", { maxLines: 3, maxBytes: 100 });
    assertEquals([few.output, few.truncatedLines], ["19998\n19999\n20000", 19_997]);

    const big = await run(client, pane, `x='${"é".repeat(50_000)}'\nprintf %s "$x" | wc -c`);
    assertEquals([big.outcome, big.output], ["completed", "100000"]);
    const typed = (await screen(fx, pane)).split("\n").filter((l) => l.includes("save-buffer"));
    assert(typed.every((l) => l.length < 160), "the typed line stays short");
    assertEquals(await fx.tmux("list-buffers"), "");
  } finally {
    await close();
  }
});

Deno.test("run_shell_command: two calls at once on two panes each get their own output; on one pane the second is busy", async () => {
  await using fx = await server();
  const { client, close } = await connectInProcess(["-S", fx.socket]);
  try {
    const [a, b] = [await shellPane(fx, "bash"), await shellPane(fx, "bash")];
    const [ra, rb] = await Promise.all([
      run(client, a, "sleep 0.3; echo from-a; (exit 4)"),
      run(client, b, "echo from-b; sleep 0.2; echo b-again"),
    ]);
    // Each ran in the pane it named alone: no other receivers to report.
    assertEquals([ra.output, ra.exitStatus, ra.paneId, ra.resolvedPaneIds], [
      "from-a",
      4,
      a,
      undefined,
    ]);
    assertEquals(
      [rb.output, rb.exitStatus, rb.paneId, rb.resolvedPaneIds],
      ["from-b\nb-again", 0, b, undefined],
    );

    // Each runs until the test lets it go, so the one started holds the pane while the other asks.
    const go = `${fx.dir}/go`;
    const calls = ["first", "second"].map((word) =>
      client.callTool({
        name: "run_shell_command",
        arguments: { paneId: a, command: `until [ -e ${go} ]; do sleep 0.05; done; echo ${word}` },
      })
    );
    await Promise.race(calls);
    await Deno.writeTextFile(go, "");
    const both = await Promise.all(calls);
    const done = both.filter((r) => !r.isError).map((r) => (r.structuredContent as Ran).output);
    const refused = both.filter((r) => r.isError).map((r) =>
      (r.structuredContent as { error: { code: string } }).error.code
    );
    assertEquals([done.length, refused], [1, ["busy"]]);
    assertMatch(done[0], /^(first|second)$/);
  } finally {
    await close();
  }
});

Deno.test("run_shell_command: a shell that cannot read the command back (no tmux on its PATH) has it withdrawn, and the pane is free", async () => {
  await using fx = await server();
  const { client, close } = await connectInProcess(["-S", fx.socket]);
  try {
    const pane = await fx.newWindow(
      `env -i PATH=${fx.dir} HOME=${fx.dir} TERM=screen PS1='$ ' /bin/bash --norc --noprofile`,
      "=run:",
    );
    assert(await eventually(async () => (await screen(fx, pane)).includes("$")), "prompt");
    const ran = await run(client, pane, "echo never", { timeoutMs: 200 });
    assertEquals([ran.outcome, ran.output], ["timeout", ""]);
    assertMatch(ran.note ?? "", /read the line but did not start the command, so it was withdrawn/);
    // Withdrawn: no runId to follow something that will never run.
    assertEquals((ran as { runId?: string }).runId, undefined);
    // The start grace (2 s) was waited; the bound is only "it ended", generous on a busy machine.
    assert(ran.elapsedMs >= 2000 && ran.elapsedMs < 20_000, `${ran.elapsedMs} ms`);
    assertEquals(await fx.tmux("list-buffers"), "", "the buffer was deleted");
    // The mark ended with it: text goes through.
    await ok(client, "send_keys", { paneId: pane, keys: "echo free" });
    assert(await eventually(async () => (await screen(fx, pane)).includes("\nfree")), "typed");
  } finally {
    await close();
  }
});

Deno.test("run_shell_command: the tmux server killed mid-command is server_gone, and the MCP server keeps serving", async () => {
  await using fx = await server();
  const { client, close } = await connectInProcess(["-S", fx.socket]);
  try {
    const pane = await shellPane(fx, "bash");
    const running = run(client, pane, "echo started; sleep 30", { timeoutMs: 30_000 });
    assert(await eventually(() => shows(fx, pane, "started"), 20_000), "the command started");
    await fx.tmux("kill-server");
    const ran = await running;
    // Not "timeout": the kill ended it, long before its 30 s.
    assertEquals(ran.outcome, "server_gone");
    const listed = await ok<{ sessions: unknown[] }>(client, "list_sessions");
    assertEquals(listed.sessions, []);
  } finally {
    await close();
  }
});

Deno.test("run_shell_command: a timeout leaves the command running, text is refused as busy until its end frame, its cursor follows it", async () => {
  await using fx = await server();
  const { client, close } = await connectInProcess(["-S", fx.socket, "--wait-max-ms", "5000"]);
  try {
    const pane = await shellPane(fx, "bash");
    const clamped = await run(client, pane, "true", { timeoutMs: 60_000 });
    assertEquals([clamped.timeoutMs, clamped.timeoutClamped], [5000, true]);

    // It runs until the test lets it go, so only the 2 s timeout can end the call.
    const go = `${fx.dir}/go`;
    const slow = await run(
      client,
      pane,
      `echo begun; until [ -e ${go} ]; do sleep 0.05; done; echo finished`,
      { timeoutMs: 2000 },
    );
    assertEquals([slow.outcome, slow.exitStatus, slow.output], ["timeout", undefined, "begun"]);
    assert(slow.elapsedMs >= 2000 && slow.elapsedMs < 20_000, `${slow.elapsedMs} ms`);
    assert(slow.cursor, "a cursor to follow the pane");

    const again = await fails(client, "run_shell_command", { paneId: pane, command: "echo x" });
    assertEquals([again.code, again.retryable, again.effects], ["busy", true, "none"]);
    assertMatch(again.text, /send_keys \{keys: "C-c", enter: false\}/);
    assertEquals(
      (await fails(client, "send_keys", { paneId: pane, keys: "echo typed" })).code,
      "busy",
    );
    assertEquals(
      (await fails(client, "paste_text", { paneId: pane, text: "pasted" })).code,
      "busy",
    );
    const batch = await ok<{ failures: { index: number; reason: string }[] }>(
      client,
      "send_keys_batch",
      { operations: [{ paneId: pane, keys: "echo batched" }] },
    );
    assertMatch(batch.failures[0]?.reason ?? "", /^busy: /);

    // The cursor follows the command to its end.
    await Deno.writeTextFile(go, "");
    let cursor = slow.cursor;
    let seen = "";
    const until = Date.now() + 20_000;
    while (!seen.includes("finished") && Date.now() < until) {
      const read = await ok<{ text: string; cursor: string }>(client, "capture_since", {
        paneId: pane,
        cursor,
        waitMs: 2000,
      });
      seen += read.text;
      cursor = read.cursor;
    }
    assertMatch(seen, /finished/);
    // The end frame ended the mark: no key was needed.
    await expectRun(client, pane, "echo next", 0, "next", "after the end frame");
    assertEquals(await fx.tmux("list-buffers"), "");
  } finally {
    await close();
  }
});

Deno.test("run_shell_command: C-c is let through while busy and the pane is usable after it, a builtin loop included", async () => {
  await using fx = await server();
  const { client, close, built } = await connectInProcess(["-S", fx.socket]);
  try {
    const pane = await shellPane(fx, "bash");
    for (const command of ["sleep 30", "while :; do :; done"]) {
      const ran = await run(client, pane, command, { timeoutMs: 300 });
      assertEquals(ran.outcome, "timeout", command);
      assertEquals((await fails(client, "send_keys", { paneId: pane, keys: "ls" })).code, "busy");
      await ok(client, "send_keys", { paneId: pane, keys: "C-c", enter: false });
      // The shell is back in the foreground within moments; then the mark ends at the next check.
      let after: Ran | undefined;
      assert(
        await eventually(async () => {
          const result = await client.callTool({
            name: "run_shell_command",
            arguments: { paneId: pane, command: "echo back" },
          });
          if (result.isError) return false;
          after = result.structuredContent as unknown as Ran;
          return true;
        }),
        `usable after C-c (${command})`,
      );
      assertEquals([after!.outcome, after!.output], ["completed", "back"]);
    }
    assertEquals(built.live!.stats().streams, 1);
  } finally {
    await close();
  }
});

Deno.test("run_shell_command: cancelling stops the wait, not the command, and frees the pane's input queue", async () => {
  await using fx = await server();
  const { client, close, built } = await connectInProcess(["-S", fx.socket]);
  try {
    const pane = await shellPane(fx, "bash");
    const done = `${fx.dir}/done.txt`;
    // The command runs until the test lets it go: a busy machine cannot make it end early. Its
    // wait is a child `sh`, not a loop of the pane's bash: after a key press, bash back in the
    // foreground ends a busy mark (§6.12), and a busy machine showed it between two sleeps.
    const go = `${fx.dir}/go`;
    const controller = new AbortController();
    const progress: { progress: number; message?: string }[] = [];
    const waiting = client.callTool(
      {
        name: "run_shell_command",
        arguments: {
          paneId: pane,
          command: `echo first; sh -c 'until [ -e ${go} ]; do sleep 0.05; done'; ` +
            `echo done > ${done}`,
        },
      },
      undefined,
      { signal: controller.signal, onprogress: (p) => progress.push(p) },
    ).then(() => "answered", () => "rejected");
    // Progress comes on a timer, so its first notes may come before "first" shows (a busy machine).
    const naming = () => progress.find((p) => /newest line: first$/.test(p.message ?? ""));
    assert(await eventually(() => naming() !== undefined), "progress while it runs");
    assertMatch(naming()!.message ?? "", /^running for \d+\.\d s; newest line: first$/);
    assert(progress.length >= 2 || await eventually(() => progress.length >= 2), "progress again");
    assert(progress[1].progress > progress[0].progress, "progress grows");
    controller.abort();
    assertEquals(await waiting, "rejected");
    // The command still runs, so only the cancellation can have ended the wait.
    assert(await eventually(() => built.live!.stats().waiters === 0, 20_000), "the wait ended");
    // Nothing holds the queue: a key goes through while the command runs; text is refused.
    await ok(client, "send_keys", { paneId: pane, keys: "Escape", enter: false });
    assert(!await exists(done), "the key was not queued behind the command");
    assertEquals((await fails(client, "paste_text", { paneId: pane, text: "x" })).code, "busy");
    // The command went on and finished; its end frame ended the mark.
    await Deno.writeTextFile(go, "");
    assert(await eventually(() => exists(done), 20_000), "the command completed");
    assert(
      await eventually(async () => {
        const r = await client.callTool({
          name: "run_shell_command",
          arguments: { paneId: pane, command: `cat ${done}` },
        });
        return !r.isError && (r.structuredContent as { output: string }).output === "done";
      }, 20_000),
      "the pane is free once the command ended",
    );
  } finally {
    await close();
  }
});

async function exists(path: string): Promise<boolean> {
  return await Deno.stat(path).then(() => true, () => false);
}

Deno.test("run_shell_command refuses a non-shell foreground (force or not), a synchronized window, the caller's pane without force, and --no-live", async () => {
  await using fx = await server();
  const pane = await shellPane(fx, "bash");
  const { client, close } = await connectInProcess(["-S", fx.socket]);
  try {
    // The first window runs `sleep`.
    const sleeping = (await fx.tmux("display-message", "-p", "-t", "=run:0", "#{pane_id}")).trim();
    for (const force of [false, true]) {
      const refused = await fails(client, "run_shell_command", {
        paneId: sleeping,
        command: "true",
        force,
      });
      assertEquals([refused.code, refused.effects], ["target_denied", "none"]);
      assertMatch(refused.message, /running "sleep", not a POSIX shell/);
      assertMatch(refused.text, /force does not change this/);
    }
    const partner = (await fx.tmux("split-window", "-d", "-t", pane, "-P", "-F", "#{pane_id}"))
      .trim();
    await fx.tmux("set-option", "-w", "-t", pane, "synchronize-panes", "on");
    const synced = await fails(client, "run_shell_command", { paneId: pane, command: "true" });
    assertEquals(synced.code, "target_denied");
    assertMatch(synced.message, /synchronize-panes on: the command would be typed into 2 panes/);
    await fx.tmux("kill-pane", "-t", partner);
    await fx.tmux("set-option", "-w", "-t", pane, "synchronize-panes", "off");
    assertEquals(
      (await fails(client, "run_shell_command", { paneId: "%999", command: "true" })).code,
      "target_not_found",
    );
    const stale = await fails(client, "run_shell_command", {
      paneId: pane,
      command: "true",
      generation: "g0.0",
    });
    assertEquals(stale.code, "stale_target");
    assertEquals(await fx.tmux("list-buffers"), "");
  } finally {
    await close();
  }

  // A server started from inside this pane: it is the caller's own.
  const inside = await connectInProcess(["-S", fx.socket], {
    TMUX: `${fx.socket},${await fx.serverPid()},0`,
    TMUX_PANE: pane,
  });
  try {
    const own = await fails(inside.client, "run_shell_command", { paneId: pane, command: "true" });
    assertEquals(own.code, "target_denied");
    const forced = await run(inside.client, pane, "echo forced", { force: true });
    assertEquals([forced.outcome, forced.output], ["completed", "forced"]);
  } finally {
    await inside.close();
  }

  const noLive = await connectInProcess(["-S", fx.socket, "--no-live"]);
  try {
    const refused = await fails(noLive.client, "run_shell_command", {
      paneId: pane,
      command: "true",
    });
    assertEquals([refused.code, refused.effects], ["unsupported", "none"]);
  } finally {
    await noLive.close();
  }
});

Deno.test("run_shell_command: a pane killed mid-command, or whose shell exits as the command, is pane_died", async () => {
  await using fx = await server();
  const { client, close, built } = await connectInProcess(["-S", fx.socket]);
  try {
    const killed = await shellPane(fx, "bash");
    const running = run(client, killed, "echo started; sleep 30", { timeoutMs: 30_000 });
    assert(await eventually(() => shows(fx, killed, "started"), 20_000), "the command started");
    await fx.tmux("kill-pane", "-t", killed);
    const ran = await running;
    // Not "timeout": the kill ended it, long before its 30 s.
    assertEquals([ran.outcome, ran.output], ["pane_died", "started"]);

    const exiting = await shellPane(fx, "bash");
    const exited = await run(client, exiting, "echo bye; exit 3", { timeoutMs: 10_000 });
    // An interactive bash says "exit" as it leaves. tmux drops a control client's output still
    // queued for a pane that no longer exists, so the last words of a pane that closes at once
    // may be missing (docs/design.md §7.9; 2 runs in 20 under load).
    assertEquals(exited.outcome, "pane_died");
    assertMatch(exited.output, /^(bye(\nexit)?)?$/);

    // A pane kept dead by remain-on-exit ends no stream: the call looks at the pane itself.
    const kept = await shellPane(fx, "bash");
    await fx.tmux("set-option", "-w", "-t", kept, "remain-on-exit", "on");
    const dead = await run(client, kept, "exit 4", { timeoutMs: 30_000 });
    assertEquals(dead.outcome, "pane_died");
    assert(dead.elapsedMs < 20_000, `answered after ${dead.elapsedMs} ms, not at its timeout`);
    assertEquals(built.live!.stats().waiters, 0);
  } finally {
    await close();
  }
});

Deno.test("bash with HISTCONTROL=ignorespace: neither the command nor the typed line reaches the history", async () => {
  await using fx = await server();
  const { client, close } = await connectInProcess(["-S", fx.socket]);
  try {
    const pane = await shellPane(fx, "bash", {
      HISTFILE: `${fx.dir}/history`,
      HISTCONTROL: "ignorespace",
    });
    await ok(client, "send_keys", { paneId: pane, keys: "echo typed-by-hand" });
    await expectRun(client, pane, "echo secret-42", 0, "secret-42", "the command");
    const history = await run(client, pane, "history");
    assertMatch(history.output, /echo typed-by-hand/);
    assert(!/secret-42|eval|save-buffer/.test(history.output), history.output);
  } finally {
    await close();
  }
});

Deno.test("run_shell_command over stdio under the start permissions", async () => {
  await using fx = await server();
  const pane = await shellPane(fx, "bash");
  const { client, close } = await connectStdio(["-S", fx.socket]);
  try {
    await expectRun(client, pane, "seq 1 5; (exit 7)", 7, "1\n2\n3\n4\n5", "stdio");
    const big = await run(client, pane, `x='${"x".repeat(100_000)}'; echo "\${#x}"`);
    assertEquals(big.output, "100000");
  } finally {
    await close();
  }
});
