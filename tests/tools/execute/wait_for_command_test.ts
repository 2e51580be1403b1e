/**
 * wait_for_command against real tmux and bash: a command longer than the wait ceiling followed to
 * its exit status and whole output, one that ended between calls, runIds that are unknown or
 * another session's, and a pane killed during the wait. Commands are held by flag files the test
 * creates, never by time.
 */
import type { Client } from "@modelcontextprotocol/sdk/client";
import { assert, assertEquals, assertMatch } from "../../support/assert.ts";
import { call, connectInProcess, fails, ok, sessionsOnOneHost } from "../../support/client.ts";
import { eventually, TmuxFixture } from "../../support/fixture.ts";

interface Ended {
  outcome: "completed" | "timeout" | "pane_died" | "server_gone";
  exitStatus?: number;
  output: string;
  runId?: string;
  /** Present only when something was cut, or clamped (docs/design.md §3.1). */
  truncated?: boolean;
  timeoutMs?: number;
  timeoutClamped?: boolean;
  note?: string;
}

function server(): Promise<TmuxFixture> {
  return TmuxFixture.start({ session: "run", command: "sleep 100000", width: 100, height: 30 });
}

/** A window running bash with the prompt `$ `, ready for input. */
async function bashPane(fx: TmuxFixture): Promise<string> {
  const vars = { PATH: "/usr/local/bin:/usr/bin:/bin", HOME: fx.dir, TERM: "screen" };
  const assignments = Object.entries(vars).map(([k, v]) => `${k}='${v}'`).join(" ");
  const command = `env -i ${assignments} PS1='$ ' bash --norc --noprofile`;
  const paneId =
    (await fx.tmux("new-window", "-d", "-t", "=run:", "-P", "-F", "#{pane_id}", command))
      .trim();
  assert(await eventually(async () => (await lines(fx, paneId)).includes("$")), "a prompt");
  return paneId;
}

/** The pane's history and screen, wrapped lines joined, trailing spaces dropped. */
async function lines(fx: TmuxFixture, paneId: string): Promise<string[]> {
  const text = await fx.tmux("capture-pane", "-p", "-J", "-S", "-", "-t", paneId);
  return text.split("\n").map((line) => line.trimEnd());
}

/** A command that prints `begun`, waits for the flag file `flag`, then prints `rest`. */
function held(flag: string, rest: string): string {
  return `echo begun; until [ -e ${flag} ]; do sleep 0.05; done; ${rest}`;
}

function waitFor(client: Client, runId: string, extra: Record<string, unknown> = {}) {
  return ok<Ended>(client, "wait_for_command", { runId, ...extra });
}

Deno.test("wait_for_command follows a command three times longer than the ceiling to its exit status and whole output", async () => {
  await using fx = await server();
  const { client, close } = await connectInProcess([
    "-S",
    fx.socket,
    "--wait-max-ms",
    "1000",
  ]);
  try {
    const pane = await bashPane(fx);
    const go = `${fx.dir}/go`;
    const first = await ok<Ended>(client, "run_shell_command", {
      paneId: pane,
      command: held(go, "seq 1 3; (exit 5)"),
    });
    assertEquals([first.outcome, first.output], ["timeout", "begun"]);
    assertMatch(first.runId ?? "", /^run-[0-9a-f]{24}$/);
    const runId = first.runId!;
    // Two more ceilings pass with the command still held: each answer is a timeout.
    for (let i = 0; i < 2; i++) {
      const waited = await waitFor(client, runId, { timeoutMs: 60_000 });
      assertEquals([waited.outcome, waited.timeoutMs, waited.timeoutClamped], [
        "timeout",
        1000,
        true,
      ]);
      assertEquals(waited.output, "begun", "the output so far");
    }
    await Deno.writeTextFile(go, "");
    let end = await waitFor(client, runId);
    for (let i = 0; end.outcome === "timeout" && i < 30; i++) end = await waitFor(client, runId);
    assertEquals([end.outcome, end.exitStatus, end.output], ["completed", 5, "begun\n1\n2\n3"]);
    assertEquals(end.truncated ?? false, false);
    // Its end was reported: the runId is forgotten, and the pane is no longer busy.
    assertEquals((await fails(client, "wait_for_command", { runId })).code, "stale_cursor");
    const next = await ok<Ended>(client, "run_shell_command", { paneId: pane, command: "echo x" });
    assertEquals([next.outcome, next.output, next.runId], ["completed", "x", undefined]);
  } finally {
    await close();
  }
});

Deno.test("wait_for_command: a command that ended between calls is completed with its status", async () => {
  await using fx = await server();
  const { client, close } = await connectInProcess(["-S", fx.socket, "--wait-max-ms", "1000"]);
  try {
    const pane = await bashPane(fx);
    const go = `${fx.dir}/go`;
    const first = await ok<Ended>(client, "run_shell_command", {
      paneId: pane,
      command: held(go, "echo done-now; (exit 3)"),
    });
    assertEquals(first.outcome, "timeout");
    await Deno.writeTextFile(go, "");
    // The command ended and the shell printed its next prompt: nobody was waiting then.
    assert(
      await eventually(async () => {
        const shown = (await lines(fx, pane)).filter((l) => l !== "");
        return shown.at(-2) === "done-now" && shown.at(-1) === "$";
      }),
      "the command ended",
    );
    const end = await waitFor(client, first.runId!);
    assertEquals([end.outcome, end.exitStatus, end.output], ["completed", 3, "begun\ndone-now"]);
  } finally {
    await close();
  }
});

Deno.test("wait_for_command refuses an unknown runId, and another session's", async () => {
  await using fx = await server();
  const { host, sessions } = await sessionsOnOneHost(
    ["-S", fx.socket, "--wait-max-ms", "1000"],
    2,
  );
  const [mine, theirs] = sessions.map((s) => s.client);
  try {
    for (const runId of ["run-0123456789abcdef01234567", "nonsense"]) {
      const unknown = await fails(mine, "wait_for_command", { runId });
      assertEquals([unknown.code, unknown.retryable], ["stale_cursor", false]);
      assertMatch(unknown.text, /Hint: A runId comes from run_shell_command/);
    }
    const pane = await bashPane(fx);
    const go = `${fx.dir}/go`;
    const first = await ok<Ended>(mine, "run_shell_command", {
      paneId: pane,
      command: held(go, "echo mine"),
    });
    assertEquals(first.outcome, "timeout");
    const foreign = await fails(theirs, "wait_for_command", { runId: first.runId! });
    assertEquals(foreign.code, "stale_cursor");
    // The refusal says nothing that tells the other session the runId exists.
    assertEquals(
      foreign.message,
      (await fails(theirs, "wait_for_command", { runId: "run-0123456789abcdef01234567" }))
        .message,
    );
    await Deno.writeTextFile(go, "");
    let end = await waitFor(mine, first.runId!);
    for (let i = 0; end.outcome === "timeout" && i < 30; i++) {
      end = await waitFor(mine, first.runId!);
    }
    assertEquals([end.outcome, end.exitStatus, end.output], ["completed", 0, "begun\nmine"]);
  } finally {
    for (const s of sessions) await s.close();
    await host.close();
  }
});

Deno.test("wait_for_command: the pane killed during the wait is pane_died, with progress before", async () => {
  await using fx = await server();
  const { client, close } = await connectInProcess(["-S", fx.socket]);
  try {
    const pane = await bashPane(fx);
    const first = await ok<Ended>(client, "run_shell_command", {
      paneId: pane,
      command: held(`${fx.dir}/never`, "echo not-reached"),
      timeoutMs: 300,
    });
    assertEquals(first.outcome, "timeout");
    const progress: { progress: number; message?: string }[] = [];
    const waiting = client.callTool(
      { name: "wait_for_command", arguments: { runId: first.runId! } },
      undefined,
      { onprogress: (p) => progress.push(p) },
    );
    assert(await eventually(() => progress.length >= 1), "progress while it waits");
    assertMatch(progress[0].message ?? "", /^running for \d+\.\d s; newest line: begun$/);
    await fx.tmux("kill-pane", "-t", pane);
    const result = await waiting;
    assert(!result.isError, JSON.stringify(result.content));
    const end = result.structuredContent as unknown as Ended;
    // Not "timeout": the kill ended it, long before the 30 s ceiling.
    assertEquals([end.outcome, end.output], ["pane_died", "begun"]);
    assertEquals(
      (await fails(client, "wait_for_command", { runId: first.runId! })).code,
      "stale_cursor",
    );
  } finally {
    await close();
  }
});

Deno.test("wait_for_command: a command interrupted with C-c has an end that cannot be known", async () => {
  await using fx = await server();
  const { client, close } = await connectInProcess(["-S", fx.socket]);
  try {
    const pane = await bashPane(fx);
    // One program holds the line, never ending by itself: a loop of short sleeps would leave bash
    // in the foreground between them, where a C-c racing a fork can be lost and the loop go on.
    const first = await ok<Ended>(client, "run_shell_command", {
      paneId: pane,
      command: "echo begun; sleep 100000; echo not-reached",
      timeoutMs: 300,
    });
    assertEquals(first.outcome, "timeout");
    // C-c only once `sleep` has the terminal, so it is what the key interrupts.
    assert(
      await eventually(async () => (await fx.display(pane, "#{pane_current_command}")) === "sleep"),
      "sleep in the foreground",
    );
    await ok(client, "send_keys", { paneId: pane, keys: "C-c", enter: false });
    // bash drops the rest of the line, end frame included: no end will come.
    let refusal;
    for (let i = 0; !refusal && i < 30; i++) {
      const result = await call(client, "wait_for_command", { runId: first.runId! });
      if (result.isError) refusal = result;
      else assertEquals((result.structuredContent as { outcome: string }).outcome, "timeout");
    }
    const error = (refusal!.structuredContent as { error: { code: string; message: string } })
      .error;
    assertEquals(error.code, "stale_cursor");
    assertMatch(error.message, /^the command's end cannot be known: .*interrupted/);
    // Answered once: the runId is forgotten, and the pane takes a command again.
    assertMatch(
      (await fails(client, "wait_for_command", { runId: first.runId! })).message,
      /holds no command/,
    );
    const next = await ok<Ended>(client, "run_shell_command", { paneId: pane, command: "echo ok" });
    assertEquals([next.outcome, next.output], ["completed", "ok"]);
  } finally {
    await close();
  }
});
