/**
 * wait_for_command against real tmux and bash: a command longer than the wait ceiling followed to
 * its exit status over several calls, each answer giving only what is new; a lost answer asked
 * again by the cursor before it, and cursors no answer for the run carried; one that ended
 * between calls, runIds that are unknown or another session's, and a pane killed during the
 * wait. Commands are held by flag files the test creates, never by time.
 */
import type { Client } from "@modelcontextprotocol/sdk/client";
import { assert, assertEquals, assertMatch } from "../../support/assert.ts";
import { call, connectInProcess, fails, ok, sessionsOnOneHost } from "../../support/client.ts";
import { eventually, TmuxFixture } from "../../support/fixture.ts";

interface Ended {
  outcome: "completed" | "timeout" | "pane_died" | "server_gone";
  exitStatus?: number;
  output: string;
  redrawn?: number;
  runId?: string;
  cursor?: string;
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

/** A command that waits until the flag file `flag` exists. */
function until(flag: string): string {
  return `until [ -e ${flag} ]; do sleep 0.05; done`;
}

/** Create the flag file `flag`, then wait until the pane shows a row ending with `shown`. */
async function release(fx: TmuxFixture, pane: string, flag: string, shown: string): Promise<void> {
  await Deno.writeTextFile(flag, "");
  assert(
    await eventually(async () => (await lines(fx, pane)).some((l) => l.endsWith(shown))),
    `the pane shows ${shown}`,
  );
}

/** Wait with `extra` until the command is no longer `timeout`; every answer, in order. */
async function untilEnd(client: Client, runId: string, extra: Record<string, unknown> = {}) {
  const answers = [await waitFor(client, runId, extra)];
  while (answers.at(-1)!.outcome === "timeout" && answers.length < 30) {
    answers.push(await waitFor(client, runId, extra));
  }
  return answers;
}

Deno.test("wait_for_command over four calls: each answer only what is new, a line split across two, put together exactly the whole output", async () => {
  await using fx = await server();
  const { client, close } = await connectInProcess(["-S", fx.socket, "--wait-max-ms", "1000"]);
  try {
    const pane = await bashPane(fx);
    const [f1, f2, f3] = ["f1", "f2", "f3"].map((f) => `${fx.dir}/${f}`);
    const command = `echo begun; ${until(f1)}; printf part-; ${until(f2)}; echo ial; seq 1 3; ` +
      `${until(f3)}; echo last; (exit 5)`;
    const first = await ok<Ended>(client, "run_shell_command", { paneId: pane, command });
    assertEquals([first.outcome, first.output], ["timeout", "begun"]);
    assertMatch(first.runId ?? "", /^run-[0-9a-f]{24}$/);
    const runId = first.runId!;
    // Each call waits out the ceiling with the command held: a timeout with only the new output.
    await release(fx, pane, f1, "part-");
    const second = await waitFor(client, runId, { timeoutMs: 60_000 });
    assertEquals([second.outcome, second.output, second.timeoutMs], ["timeout", "\npart-", 1000]);
    assertEquals(second.timeoutClamped, true);
    await release(fx, pane, f2, "3");
    const third = await waitFor(client, runId);
    assertEquals([third.outcome, third.output], ["timeout", "ial\n1\n2\n3"]);
    assertEquals(third.redrawn ?? 0, 0);
    await Deno.writeTextFile(f3, "");
    const rest = await untilEnd(client, runId);
    const end = rest.at(-1)!;
    assertEquals([end.outcome, end.exitStatus], ["completed", 5]);
    assertEquals(rest.map((a) => a.output).join(""), "\nlast");
    const all = [first, second, third, ...rest].map((a) => a.output).join("");
    assertEquals(all, "begun\npart-ial\n1\n2\n3\nlast");
    assertEquals(end.truncated ?? false, false);
    // The whole output again, on request; its end can be asked again (nothing new since).
    const whole = await waitFor(client, runId, { whole: true });
    assertEquals([whole.outcome, whole.exitStatus, whole.output], ["completed", 5, all]);
    const again = await waitFor(client, runId);
    assertEquals([again.outcome, again.exitStatus, again.output], ["completed", 5, ""]);
    // The pane is no longer busy.
    const next = await ok<Ended>(client, "run_shell_command", { paneId: pane, command: "echo x" });
    assertEquals([next.outcome, next.output, next.runId], ["completed", "x", undefined]);
  } finally {
    await close();
  }
});

Deno.test("wait_for_command: a lost answer is given again after the cursor before it; a cursor no answer for the run carried is refused", async () => {
  await using fx = await server();
  const { client, close } = await connectInProcess(["-S", fx.socket, "--wait-max-ms", "1000"]);
  try {
    const pane = await bashPane(fx);
    const [f1, f2] = [`${fx.dir}/f1`, `${fx.dir}/f2`];
    const first = await ok<Ended>(client, "run_shell_command", {
      paneId: pane,
      command: `echo begun; ${until(f1)}; echo two; ${until(f2)}; echo three`,
    });
    assertEquals([first.outcome, first.output], ["timeout", "begun"]);
    const runId = first.runId!;
    await release(fx, pane, f1, "two");
    // This answer is lost on its way (a client timeout): the agent never sees it.
    const lost = await waitFor(client, runId);
    assertEquals(lost.output, "\ntwo");
    const recovered = await waitFor(client, runId, { cursor: first.cursor });
    assertEquals([recovered.outcome, recovered.output], ["timeout", "\ntwo"]);
    await Deno.writeTextFile(f2, "");
    const rest = await untilEnd(client, runId, { cursor: recovered.cursor });
    assertEquals(rest.at(-1)!.outcome, "completed");
    assertEquals(rest.map((a) => a.output).join(""), "\nthree");
    // An answer after the end, lost too, is asked again the same way.
    const lastAgain = await waitFor(client, runId, { cursor: recovered.cursor });
    assertEquals([lastAgain.outcome, lastAgain.exitStatus, lastAgain.output], [
      "completed",
      0,
      "\nthree",
    ]);

    // Cursors no answer for this run carried: capture_since's, another run's, a made-up one.
    const read = await ok<{ cursor: string }>(client, "capture_since", { paneId: pane });
    const other = await bashPane(fx);
    const otherRun = await ok<Ended & { cursor: string }>(client, "run_shell_command", {
      paneId: other,
      command: "echo other",
    });
    for (const cursor of [read.cursor, otherRun.cursor, "nonsense"]) {
      const refused = await fails(client, "wait_for_command", { runId, cursor });
      assertEquals([refused.code, refused.retryable], ["stale_cursor", false], cursor);
      assertMatch(refused.message, /no answer for this runId carried that cursor/);
      assertMatch(refused.text, /Hint: Pass the cursor of an earlier .* whole: true/);
    }
    const both = await fails(client, "wait_for_command", {
      runId,
      since: first.cursor,
      whole: true,
    });
    assertEquals(both.code, "invalid_arguments");
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
    assertEquals([end.outcome, end.exitStatus, end.output], ["completed", 3, "\ndone-now"]);
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
    assertEquals([end.outcome, end.exitStatus, end.output], ["completed", 0, "\nmine"]);
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
    // Not "timeout": the kill ended it, long before the 30 s ceiling; nothing new since "begun".
    assertEquals([end.outcome, end.output], ["pane_died", ""]);
    // Its end can be asked again, with all of its output.
    const again = await waitFor(client, first.runId!, { whole: true });
    assertEquals([again.outcome, again.output], ["pane_died", "begun"]);
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
