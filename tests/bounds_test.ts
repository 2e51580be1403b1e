/**
 * Bounds (issue 29, items 6, 10, 11): the sizes created and followed, screenshots that share the
 * event loop and the host, one deadline per capture_since call, and cursors after a restart.
 */
import { assert, assertEquals, assertMatch } from "./support/assert.ts";
import { connectInProcess, fails, ok } from "./support/client.ts";
import { eventually, TmuxFixture } from "./support/fixture.ts";

interface Since {
  cursor?: string;
  outcome: string;
}

/** The server thaws after this whatever happens, so a regression fails rather than hangs. */
const WATCHDOG_MS = 30_000;

Deno.test("capture_since on a frozen tmux: a followed pane's fresh read costs one timeout, not two", async () => {
  await using fx = await TmuxFixture.start({ command: "cat" });
  const pid = await fx.serverPid();
  const { client, close } = await connectInProcess(["-S", fx.socket]);
  let watchdog: ReturnType<typeof setTimeout> | undefined;
  let frozen = false;
  const thaw = () => {
    if (frozen) Deno.kill(pid, "SIGCONT");
    frozen = false;
  };
  try {
    // The pane is followed: a fresh call first checks that stream, then (before the fix) took the
    // failed check for a gone pane and listed it again, waiting out a second timeout.
    await ok(client, "capture_since", { paneId: "%0" });
    Deno.kill(pid, "SIGSTOP");
    frozen = true;
    watchdog = setTimeout(thaw, WATCHDOG_MS);
    const error = await fails(client, "capture_since", { paneId: "%0" });
    thaw();
    assertEquals(error.code, "timeout");
    assert(error.retryable);
    // The server reports the deadline and what elapsed: one deadline, so less than two of them.
    const m = /deadline of (\d+) ms \((\d+) ms elapsed\)/.exec(error.message);
    assert(m, `the timeout reports its deadline and elapsed time: ${error.message}`);
    const [deadline, elapsed] = [Number(m[1]), Number(m[2])];
    assert(elapsed >= deadline, `${elapsed} ms elapsed of a ${deadline} ms deadline`);
    assert(elapsed < 2 * deadline, `one timeout, not two: ${elapsed} ms of ${deadline} ms`);
  } finally {
    clearTimeout(watchdog);
    thaw();
    await close();
  }
});

Deno.test("capture_since: a cursor from before a server restart is stale_cursor, as the README says", async () => {
  await using fx = await TmuxFixture.start({ command: "cat" });
  const { client, close, built } = await connectInProcess(["-S", fx.socket]);
  try {
    const before = await ok<Since>(client, "capture_since", { paneId: "%0" });
    await fx.tmux("kill-server");
    // The engine has seen its connection end before the server is started again.
    assert(await eventually(() => built.live?.stats().connections === 0));
    assert(
      await eventually(() =>
        fx.tmux("-f", "/dev/null", "new-session", "-d", "-s", "again", "cat").then(
          () => true,
          () => false,
        )
      ),
    );
    const old = await fails(client, "capture_since", { paneId: "%0", cursor: before.cursor });
    assertEquals(old.code, "stale_cursor");
    assertMatch(old.text, /without a cursor/);
    const fresh = await ok<Since>(client, "capture_since", { paneId: "%0" });
    assertEquals(fresh.outcome, "started");
  } finally {
    await close();
  }
});
