/**
 * Bounds (issue 29, items 6, 10, 11): the sizes created and followed, screenshots that share the
 * event loop and the host, one deadline per capture_since call, and cursors after a restart.
 */
import { assert, assertEquals, assertMatch } from "../../support/assert.ts";
import { call, connectInProcess, fails, ok, sessionsOnOneHost } from "../../support/client.ts";
import { ToolError } from "../../../src/errors.ts";
import { ShotGate } from "../../../src/render/gate.ts";
import { eventually, TmuxFixture } from "../../support/fixture.ts";
import { layoutChecksum } from "../../../src/tmux/core/layout.ts";

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

Deno.test("sizes: creation and resize tools advertise and enforce at most 1000x500 cells", async () => {
  await using fx = await TmuxFixture.start({ command: "cat" });
  const { client, close } = await connectInProcess(["-S", fx.socket]);
  try {
    const { tools } = await client.listTools();
    const input = (name: string) =>
      tools.find((t) => t.name === name)!.inputSchema.properties as Record<string, {
        maximum?: number;
        anyOf?: { maximum?: number }[];
      }>;
    const max = (p: { maximum?: number; anyOf?: { maximum?: number }[] }) =>
      p.maximum ?? p.anyOf?.find((a) => a.maximum !== undefined)?.maximum;
    assertEquals(
      [max(input("create_session").width), max(input("create_session").height)],
      [1000, 500],
    );
    assertEquals([max(input("resize_window").width), max(input("resize_window").height)], [
      1000,
      500,
    ]);
    assertEquals([max(input("resize_pane").width), max(input("resize_pane").height)], [1000, 500]);
    assertEquals(max(input("split_window").size), 1000);

    const huge = await fails(client, "create_session", { width: 10_000, height: 10_000 });
    assertEquals(huge.code, "invalid_arguments");
    assertEquals(
      (await fails(client, "create_session", { height: 501 })).code,
      "invalid_arguments",
    );
    const window = await fx.display("%0", "#{window_id}");
    const wide = await fails(client, "resize_window", { windowId: window, width: 1001 });
    assertEquals(wide.code, "invalid_arguments");
    // A layout string resizes its window too.
    const layout = (await fx.display("%0", "#{window_layout}")).replace(/^[0-9a-f]{4},80x24/, "");
    const body = `5000x24${layout}`;
    const big = await fails(client, "select_layout", {
      windowId: window,
      layout: `${layoutChecksum(body)},${body}`,
    });
    assertEquals(big.code, "invalid_arguments");
    assertMatch(big.message, /at most 1000x500/);
    assertEquals(await fx.display("%0", "#{window_width}x#{window_height}"), "80x24");

    // The largest size allowed is created and followed.
    const made = await ok<{ paneId: string }>(client, "create_session", {
      width: 1000,
      height: 500,
    });
    assertEquals(await fx.display(made.paneId, "#{pane_width}x#{pane_height}"), "1000x500");
    assertEquals(
      (await ok<Since>(client, "capture_since", { paneId: made.paneId })).outcome,
      "started",
    );
  } finally {
    await close();
  }
});

Deno.test("sizes: a pane the person made huge is not followed, and a followed one that grows is let go", async () => {
  await using fx = await TmuxFixture.start({ command: "cat" });
  await fx.tmux("new-session", "-d", "-s", "other", "-x", "80", "-y", "24", "cat");
  const { client, close, built } = await connectInProcess(["-S", fx.socket]);
  try {
    // The person resizes a window directly, past what this server follows.
    await fx.tmux("resize-window", "-t", "=main:", "-x", "1200", "-y", "600");
    const refused = await fails(client, "capture_since", { paneId: "%0" });
    assertEquals(refused.code, "unsupported");
    assertMatch(refused.message, /1200x600.*at most 1000x500/);
    assertMatch(refused.text, /capture_pane/);
    assertEquals(built.live?.stats().streams, 0);

    // A followed pane whose window grows past the bound: its stream ends and says why.
    const other = (await fx.display("=other:", "#{pane_id}")).trim();
    const first = await ok<Since>(client, "capture_since", { paneId: other });
    assertEquals(built.live?.stats().streams, 1);
    await fx.tmux("resize-window", "-t", "=other:", "-x", "1001", "-y", "30");
    assert(await eventually(() => built.live?.stats().streams === 0), "the stream was let go");
    const late = await fails(client, "capture_since", { paneId: other, cursor: first.cursor });
    assertEquals(late.code, "unsupported");
    assertMatch(late.message, /1001x30/);
  } finally {
    await close();
  }
});

/**
 * A pane drawn slowly: 400x200 cells (the most a screenshot draws) of bold italic text in many
 * colours (the glyph path that costs most), followed by capture_since so the picture comes from
 * its terminal in one piece.
 */
async function heavyPane(fx: TmuxFixture): Promise<string> {
  const script = "i=0; while [ $i -lt 420 ]; do printf '\\033[1;3;38;5;%dm%s' $((i % 230 + 16)) " +
    "'#@W%&M$QB8#@W%&M$QB8#@W%&M$QB8#@W%&M$QB8#@W%&M$QB8#@W%&M$QB8#@W%&M$QB8#@W%&M$QB8'; " +
    "i=$((i+1)); done; printf '\\033[0m\\nDRAWN\\n'; exec cat";
  await fx.tmux("new-session", "-d", "-s", "heavy", "-x", "400", "-y", "200", "sh", "-c", script);
  const pane = (await fx.display("=heavy:", "#{pane_id}")).trim();
  assert(
    await eventually(async () =>
      (await fx.tmux("capture-pane", "-p", "-t", pane)).includes("DRAWN")
    ),
  );
  return pane;
}

Deno.test("screenshots: a cheap call made while a big picture is drawn is answered before it", async () => {
  await using fx = await TmuxFixture.start({ command: "cat" });
  const pane = await heavyPane(fx);
  const { host, sessions } = await sessionsOnOneHost(["-S", fx.socket], 1);
  const { client } = sessions[0];
  try {
    await ok(client, "capture_since", { paneId: pane });
    const order: string[] = [];
    const shot = call(client, "screenshot_pane", { paneId: pane }).then((r) => {
      order.push("screenshot");
      return r;
    });
    // The picture is being drawn (the gate counts it) and the event loop still turns: before
    // the fix a drawing held the loop from start to end, so this was never seen.
    assert(await eventually(() => host.shots.stats().running === 1), "seen while drawing");
    const listed = await ok<{ panes: unknown[] }>(client, "list_panes", {});
    order.push("list_panes");
    const result = await shot;
    assert(!result.isError, JSON.stringify(result.content).slice(0, 300));
    assert(listed.panes.length >= 2);
    assertEquals(order, ["list_panes", "screenshot"]);
  } finally {
    for (const s of sessions) await s.close();
    await host.close();
  }
});

Deno.test("screenshots: sixteen at once are all drawn, never more than two at a time", async () => {
  await using fx = await TmuxFixture.start({ command: "cat", width: 200, height: 50 });
  await fx.tmux("send-keys", "-t", "%0", "-l", "x".repeat(2000));
  const { host, sessions } = await sessionsOnOneHost(["-S", fx.socket], 2);
  try {
    const results = await Promise.all(
      Array.from(
        { length: 16 },
        (_, i) => call(sessions[i % 2].client, "screenshot_pane", { paneId: "%0" }),
      ),
    );
    assertEquals(results.filter((r) => r.isError).length, 0);
    const stats = host.shots.stats();
    assertEquals(stats.peak, 2, "two were drawn at once, and never more");
    assertEquals([stats.running, stats.waiting], [0, 0]);
  } finally {
    for (const s of sessions) await s.close();
    await host.close();
  }
});

Deno.test("the screenshot gate: two run, the next wait in order, more are busy, a cancelled wait leaves", async () => {
  const gate = new ShotGate({ running: 2, waiting: 2 });
  const releases: (() => void)[] = [];
  const started: number[] = [];
  const job = (n: number, signal?: AbortSignal) =>
    gate.run(() => {
      started.push(n);
      return new Promise<number>((resolve) => releases.push(() => resolve(n)));
    }, signal);
  const a = job(1), b = job(2);
  const cancel = new AbortController();
  const c = job(3, cancel.signal).catch((e) => e);
  const d = job(4);
  const refused = await job(5).catch((e) => e);
  assert(refused instanceof ToolError && refused.code === "busy", String(refused));
  assertEquals(gate.stats(), { running: 2, waiting: 2, peak: 2 });
  cancel.abort();
  const cancelled = await c;
  assert(cancelled instanceof ToolError && cancelled.code === "cancelled", String(cancelled));
  assertEquals(gate.stats().waiting, 1);
  releases[0]();
  assertEquals(await a, 1);
  assert(await eventually(() => started.length === 3));
  assertEquals(started, [1, 2, 4]);
  releases[1]();
  releases[2]();
  assertEquals([await b, await d], [2, 4]);
  assertEquals(gate.stats(), { running: 0, waiting: 0, peak: 2 });
});
