/** wait_for_channel and signal_channel against real tmux, and the tmux wait-for facts they rely on. */
import { assert, assertEquals } from "../../support/assert.ts";
import { connectInProcess, connectStdio, fails, ok } from "../../support/client.ts";
import { eventually, TmuxFixture } from "../../support/fixture.ts";
import { blockedOrGone, tmuxWaiters } from "../../support/processes.ts";

interface Waited {
  channel: string;
  outcome: string;
  elapsedMs: number;
  /** Present only when clamped (lean results, docs/design.md §3.1). */
  timeoutMs?: number;
  timeoutClamped?: boolean;
}

/** Pids of `tmux … wait-for <channel>` processes on this fixture's socket (signals excluded). */
function waiters(fx: TmuxFixture, channel?: string): Promise<number[]> {
  return tmuxWaiters(fx.socket, channel);
}

/** A plain `tmux wait-for` on `channel`, returned once its command has reached the server. */
async function tmuxWaiter(fx: TmuxFixture, channel: string): Promise<Deno.ChildProcess> {
  const child = new Deno.Command("tmux", {
    args: ["-S", fx.socket, "wait-for", channel],
    stdout: "null",
    stderr: "null",
  }).spawn();
  assert(await eventually(() => blockedOrGone(child.pid), 10_000), "the waiter never blocked");
  // A round trip through the server after the waiter's command: it has been taken in.
  await fx.tmux("display-message", "-p", "");
  return child;
}

/**
 * Whether a plain `tmux wait-for` on `channel` returns within `ms` (false: it was still waiting).
 * Asking for `true` gets a generous `ms`; for `false` a short one is safe on a busy machine, as
 * slowness can only make a waiting client look more like one still waiting.
 */
async function tmuxWaitReturns(fx: TmuxFixture, channel: string, ms: number): Promise<boolean> {
  const child = await tmuxWaiter(fx, channel);
  const timer = setTimeout(() => {
    try {
      child.kill("SIGKILL");
    } catch {
      // it returned meanwhile
    }
  }, ms);
  const status = await child.status;
  clearTimeout(timer);
  if (status.success) return true;
  // The killed client left its waiter inside tmux: take it away with a signal.
  await fx.tmux("wait-for", "-S", channel);
  return false;
}

Deno.test("tmux wait-for facts: one early signal is latched, two are lost; a killed waiter swallows the next", async () => {
  await using fx = await TmuxFixture.start();
  await fx.tmux("wait-for", "-S", "one");
  assertEquals(await tmuxWaitReturns(fx, "one", 20_000), true, "latched");
  await fx.tmux("wait-for", "-S", "two");
  await fx.tmux("wait-for", "-S", "two");
  assertEquals(await tmuxWaitReturns(fx, "two", 500), false, "a second signal destroys the latch");
  // A waiter killed with its client stays inside tmux: the next signal goes to it.
  assertEquals(await tmuxWaitReturns(fx, "zombie", 300), false);
  const child = await tmuxWaiter(fx, "zombie");
  child.kill("SIGKILL");
  await child.status;
  await fx.tmux("wait-for", "-S", "zombie");
  assertEquals(await tmuxWaitReturns(fx, "zombie", 500), false, "the signal was swallowed");
});

Deno.test("wait_for_channel: a signal before the wait and one during it; signal_channel counts our waiters", async () => {
  await using fx = await TmuxFixture.start();
  const { client, close } = await connectInProcess(["-S", fx.socket]);
  try {
    // Before: tmux latches it; the wait returns at once.
    await fx.tmux("wait-for", "-S", "early");
    const early = await ok<Waited>(client, "wait_for_channel", {
      channel: "early",
      timeoutMs: 30_000,
    });
    assertEquals([early.outcome, early.channel, early.timeoutClamped ?? false], [
      "signalled",
      "early",
      false,
    ]);
    assert(!("timeoutMs" in early), "the timeout asked for is not repeated");
    // The outcome is what proves it did not sit out its timeout (that would be `timeout`).
    // During: a shell in a pane signals it, as a script you control would.
    const waiting = ok<Waited>(client, "wait_for_channel", {
      channel: "build.done",
      timeoutMs: 30_000,
    });
    assert(await eventually(async () => (await waiters(fx, "build.done")).length === 1, 10_000));
    await fx.tmux(
      "split-window",
      "-d",
      `sh -c 'sleep 0.3; tmux -S ${fx.socket} wait-for -S build.done'`,
    );
    const during = await waiting;
    assertEquals(during.outcome, "signalled");
    assert(during.elapsedMs >= 250, `${during.elapsedMs} ms`);
    // signal_channel wakes our own waits too, and says how many were waiting.
    const second = ok<Waited>(client, "wait_for_channel", { channel: "job_42", timeoutMs: 30_000 });
    const third = ok<Waited>(client, "wait_for_channel", { channel: "job_42", timeoutMs: 30_000 });
    assert(await eventually(async () => (await waiters(fx, "job_42")).length === 1, 10_000));
    // Sentinel: a later call of the same client answered, so both waits have begun listening.
    await ok(client, "list_sessions");
    const sent = await ok<{ channel: string; waitersHere: number }>(client, "signal_channel", {
      channel: "job_42",
    });
    assertEquals(sent, { channel: "job_42", waitersHere: 2 });
    assertEquals([(await second).outcome, (await third).outcome], ["signalled", "signalled"]);
    assertEquals(await waiters(fx), [], "each waiter exited with its signal");
  } finally {
    await close();
  }
});

Deno.test("wait_for_channel: after a timeout or a cancellation, the next wait still receives its signal", async () => {
  await using fx = await TmuxFixture.start();
  const { client, close } = await connectInProcess(["-S", fx.socket, "--wait-max-ms", "2000"]);
  try {
    const timedOut = await ok<Waited>(client, "wait_for_channel", {
      channel: "ready",
      timeoutMs: 300,
    });
    assertEquals(timedOut.outcome, "timeout");
    assert(timedOut.elapsedMs >= 300 && timedOut.elapsedMs < 20_000, `${timedOut.elapsedMs} ms`);
    const kept = await waiters(fx, "ready");
    assertEquals(kept.length, 1, "one waiter stays for the next wait");
    // The signal arrives while nobody waits: killing the waiter would have lost it.
    await fx.tmux("wait-for", "-S", "ready");
    const next = await ok<Waited>(client, "wait_for_channel", {
      channel: "ready",
      timeoutMs: 1000,
    });
    assertEquals(next.outcome, "signalled");

    // Cancelled: the client's request ends, the waiter stays, the next wait is served.
    const controller = new AbortController();
    const cancelled = client.callTool(
      { name: "wait_for_channel", arguments: { channel: "ready", timeoutMs: 2000 } },
      undefined,
      { signal: controller.signal },
    );
    assert(await eventually(async () => (await waiters(fx, "ready")).length === 1, 10_000));
    const before = await waiters(fx, "ready");
    controller.abort();
    await cancelled.catch(() => {});
    const again = ok<Waited>(client, "wait_for_channel", { channel: "ready", timeoutMs: 2000 });
    // Sentinel: a later call of the same client answered, so the wait has joined (or started one).
    await ok(client, "list_sessions");
    assertEquals(await waiters(fx, "ready"), before, "the same single waiter");
    await fx.tmux("wait-for", "-S", "ready");
    assertEquals((await again).outcome, "signalled");

    // Clamped to the ceiling, disclosed.
    const clamped = await ok<Waited>(client, "wait_for_channel", {
      channel: "never",
      timeoutMs: 60_000,
    });
    assertEquals([clamped.outcome, clamped.timeoutMs, clamped.timeoutClamped], [
      "timeout",
      2000,
      true,
    ]);
  } finally {
    await close();
  }
});

Deno.test("wait_for_channel: the server killed during a wait is server_gone; then calls are served", async () => {
  await using fx = await TmuxFixture.start();
  const { client, close } = await connectInProcess(["-S", fx.socket]);
  try {
    const waiting = ok<Waited>(client, "wait_for_channel", { channel: "lost", timeoutMs: 10_000 });
    assert(await eventually(async () => (await waiters(fx, "lost")).length === 1, 10_000));
    await fx.tmux("kill-server");
    const gone = await waiting;
    // Not "timeout": the kill, not the 10 s timeout, ended it.
    assertEquals(gone.outcome, "server_gone", "wait-for exits 0 when the server is killed");
    const none = await fails(client, "wait_for_channel", { channel: "lost", timeoutMs: 500 });
    assertEquals([none.code, none.retryable], ["server_not_running", true]);
    const listed = await ok<{ sessions: unknown[] }>(client, "list_sessions");
    assertEquals(listed.sessions, []);
  } finally {
    await close();
  }
});

Deno.test("closing the server signals its leftover waiters: no tmux wait-for of ours stays", async () => {
  await using fx = await TmuxFixture.start();
  const { client, close } = await connectInProcess(["-S", fx.socket]);
  let closed = false;
  try {
    for (const channel of ["left.a", "left.b"]) {
      assertEquals(
        (await ok<Waited>(client, "wait_for_channel", { channel, timeoutMs: 200 })).outcome,
        "timeout",
      );
    }
    const pending = ok<Waited>(client, "wait_for_channel", { channel: "left.a", timeoutMs: 5000 })
      .catch((error) => error);
    assertEquals((await waiters(fx)).length, 2);
    await close();
    closed = true;
    await pending;
    assertEquals(await waiters(fx), [], "no tmux wait-for process left");
    // Nor a waiter inside tmux: a later signal is latched for a later waiter, not swallowed.
    for (const channel of ["left.a", "left.b"]) {
      await fx.tmux("wait-for", "-S", channel);
      assertEquals(await tmuxWaitReturns(fx, channel, 20_000), true, channel);
    }
  } finally {
    if (!closed) await close();
  }
});

Deno.test("channel names: hostile or malformed names are refused before tmux sees them", async () => {
  await using fx = await TmuxFixture.start();
  const { client, close } = await connectInProcess(["-S", fx.socket]);
  try {
    const names = ["-S", "--", "", "a b", "x;kill-server", "#{pid}", "ünï", "a".repeat(65), "a\nb"];
    for (const name of names) {
      for (const tool of ["wait_for_channel", "signal_channel"]) {
        const refused = await fails(client, tool, { channel: name, timeoutMs: 100 });
        assertEquals(
          [refused.code, refused.effects],
          ["invalid_arguments", "none"],
          `${tool} ${name}`,
        );
      }
    }
    assertEquals(await waiters(fx), []);
    const longest = "a".repeat(64);
    assertEquals(
      (await ok<Waited>(client, "wait_for_channel", { channel: longest, timeoutMs: 100 })).outcome,
      "timeout",
    );
  } finally {
    await close();
  }
});

Deno.test("over stdio under the start permissions: wait_for_channel and signal_channel", async () => {
  await using fx = await TmuxFixture.start();
  const { client, close } = await connectStdio(["-S", fx.socket]);
  try {
    const waiting = ok<Waited>(client, "wait_for_channel", { channel: "e2e", timeoutMs: 30_000 });
    assert(await eventually(async () => (await waiters(fx, "e2e")).length === 1, 10_000));
    assertEquals(await ok(client, "signal_channel", { channel: "e2e" }), {
      channel: "e2e",
      waitersHere: 1,
    });
    assertEquals((await waiting).outcome, "signalled");
    const tools = (await client.listTools()).tools;
    for (const name of ["wait_for_channel", "signal_channel"]) {
      const tool = tools.find((t) => t.name === name);
      assert(tool?.description?.includes("script you control"), name);
      assertEquals(
        [tool?.annotations?.readOnlyHint, tool?.annotations?.idempotentHint],
        [false, false],
      );
    }
    // A leftover waiter is signalled when the server exits at end of input.
    await ok<Waited>(client, "wait_for_channel", { channel: "e2e.left", timeoutMs: 100 });
    assertEquals((await waiters(fx, "e2e.left")).length, 1);
  } finally {
    await close();
  }
  assert(await eventually(async () => (await waiters(fx)).length === 0, 10_000), "none left");
});
