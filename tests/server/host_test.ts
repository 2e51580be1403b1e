/**
 * One tmux host, several MCP sessions: what belongs to the tmux server (input queue, live
 * engine, our control clients) is shared; what belongs to a connection is not.
 */
import { assert, assertEquals } from "../support/assert.ts";
import { call, fails, ok, sessionsOnOneHost } from "../support/client.ts";
import { eventually, rawReceiver, TmuxFixture } from "../support/fixture.ts";
import { pastesArriveWhole } from "../support/pastes.ts";

interface Since {
  text: string;
  cursor?: string;
  outcome: string;
}

Deno.test("two sessions on one host: their pastes into one pane never interleave", async () => {
  await using fx = await TmuxFixture.start();
  const rx = await rawReceiver(fx);
  const { host, sessions: [a, b] } = await sessionsOnOneHost(["-S", fx.socket], 2);
  try {
    await pastesArriveWhole(rx, a.client, b.client);
  } finally {
    await a.close();
    await b.close();
    await host.close();
  }
});

Deno.test("two sessions on one host share one stream: each keeps its own cursor, and neither counts the other's control client as a person", async () => {
  await using fx = await TmuxFixture.start({ command: "cat" });
  const { host, sessions: [a, b] } = await sessionsOnOneHost(["-S", fx.socket], 2);
  try {
    const firstA = await ok<Since>(a.client, "capture_since", { paneId: "%0" });
    const firstB = await ok<Since>(b.client, "capture_since", { paneId: "%0" });
    assertEquals(host.live!.stats().connections, 1);
    // Session A's control client is attached: session B still sees nobody watching %0, and may
    // type into it.
    const { panes } = await ok<{ panes: Array<{ isAttended: boolean }> }>(b.client, "list_panes");
    assertEquals(panes.map((p) => p.isAttended), [false]);
    await ok(b.client, "send_keys", { paneId: "%0", keys: "one" });
    // The terminal's echo and cat's copy: A reads once both are shown.
    await eventually(async () => (await fx.tmux("capture-pane", "-p")).includes("one\none"));
    const readA = await ok<Since>(a.client, "capture_since", {
      paneId: "%0",
      cursor: firstA.cursor,
      waitMs: 20_000,
    });
    assert(readA.text.includes("one"), readA.text);
    await ok(a.client, "send_keys", { paneId: "%0", keys: "two" });
    await eventually(async () => (await fx.tmux("capture-pane", "-p")).includes("two\ntwo"));
    // B reads from its own older cursor: both lines; A's next read: only the second.
    const readB = await ok<Since>(b.client, "capture_since", {
      paneId: "%0",
      cursor: firstB.cursor,
      waitMs: 20_000,
    });
    assert(readB.text.includes("one") && readB.text.includes("two"), readB.text);
    const againA = await ok<Since>(a.client, "capture_since", {
      paneId: "%0",
      cursor: readA.cursor,
      waitMs: 20_000,
    });
    assert(againA.text.includes("two") && !againA.text.includes("one"), againA.text);
  } finally {
    await a.close();
    await b.close();
    await host.close();
  }
});

Deno.test("closing one session leaves the other's waits intact; closing the host ends them and leaves no client of ours", async () => {
  await using fx = await TmuxFixture.start({ command: "cat" });
  const { host, sessions: [a, b, c] } = await sessionsOnOneHost(["-S", fx.socket], 3);
  try {
    const first = await ok<Since>(b.client, "capture_since", { paneId: "%0" });
    const waiting = ok<Since>(b.client, "capture_since", {
      paneId: "%0",
      cursor: first.cursor,
      waitMs: 10_000,
    });
    await a.close();
    // Sentinel: a later call of b's client answered, so its wait has begun.
    await ok(b.client, "list_sessions");
    await fx.tmux("send-keys", "-t", "%0", "-l", "after-close");
    const woke = await waiting;
    assert(woke.text.includes("after-close"), woke.text);

    // A wait in progress when the host closes ends at once, with an error, not a hang.
    const next = await ok<Since>(c.client, "capture_since", { paneId: "%0" });
    const pending = call(c.client, "capture_since", {
      paneId: "%0",
      cursor: next.cursor,
      waitMs: 30_000,
    });
    await ok(c.client, "list_sessions");
    await host.close();
    const ended = await pending;
    // Its 30 s wait did not run out (that would be a result, outcome "timeout"): the close ended
    // it, with an error.
    assertEquals(ended.isError, true);
    const code = (ended.structuredContent as { error: { code: string } }).error.code;
    assert(["server_gone", "stale_cursor"].includes(code), code);
    assert(
      await eventually(async () => (await fx.tmux("list-clients")).trim() === ""),
      "no control client of ours is left",
    );
    assertEquals((await fails(b.client, "capture_since", { paneId: "%0" })).code, "server_gone");
  } finally {
    await b.close();
    await c.close();
    await host.close();
  }
});
