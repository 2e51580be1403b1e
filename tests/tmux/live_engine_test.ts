/** The live engine: control channel, capture_since cursors, waits, lifetimes, failures. */
import { assert, assertEquals, assertRejects } from "../support/assert.ts";
import type { Client } from "@modelcontextprotocol/sdk/client";
import { call, connectInProcess, fails, ok } from "../support/client.ts";
import { contextFor, eventually, TmuxFixture } from "../support/fixture.ts";
import { ControlClient } from "../../src/tmux/control/client.ts";
import { decodeOutput, quoteControlArgument } from "../../src/tmux/control/syntax.ts";
import { layoutPanes } from "../../src/tmux/core/layout.ts";
import { HISTORY_ROWS } from "../../src/live/emulator.ts";
import { LiveEngine } from "../../src/tmux/live/engine.ts";
import { LIVE_DEFAULTS } from "../../src/tmux/live/options.ts";
import { literal } from "../../src/tmux/core/format.ts";
import { ToolError } from "../../src/errors.ts";

/** A capture_since result; what only restates a default is left out (docs/design.md §3.1). */
interface Since {
  text: string;
  cursor?: string;
  paneId: string;
  generation: string;
  streaming?: boolean;
  missedRows?: number;
  missedBytes?: number;
  alternateScreen?: boolean;
  seedRace?: boolean;
  outcome: string;
  elapsedMs?: number;
  timeoutMs?: number;
  timeoutClamped?: boolean;
  truncated?: boolean;
  note?: string;
}

const BIG = { maxLines: 100_000, maxBytes: 262_144 };

/**
 * Start a waiting capture_since on %0; once a later call of the same client has answered (so the
 * wait has begun), type `text` into the pane; return the reply.
 */
async function waitWhileTyping(
  client: Client,
  fx: TmuxFixture,
  args: { cursor?: string; waitMs: number },
  text: string,
): Promise<Since> {
  const waiting = ok<Since>(client, "capture_since", { paneId: "%0", ...args });
  await ok(client, "list_sessions");
  await fx.tmux("send-keys", "-t", "%0", "-l", text);
  return await waiting;
}

/**
 * Append a read to what was read before, as a reader following a pane does: text that did not end
 * with a newline ended on the cursor's line, which the next read returns again, whole.
 */
function follow(all: string, text: string): string {
  return (all.endsWith("\n") ? all : all.slice(0, all.lastIndexOf("\n") + 1)) + text;
}

function alive(pid: number): boolean {
  try {
    return Deno.readTextFileSync(`/proc/${pid}/stat`).split(" ")[2] !== "Z";
  } catch {
    return false;
  }
}

Deno.test("control channel: hostile values arrive literally and smuggle nothing", async () => {
  await using fx = await TmuxFixture.start();
  const client = await ControlClient.open(fx.runner(), "$0", { onOutput() {}, onClose() {} });
  try {
    const values = [
      "$HOME and ${HOME} and ~",
      "semi; kill-server",
      "trailing;",
      `quotes ' " \` and \\ backslash`,
      "#{pane_id} #(touch /tmp/tmux-mcp-test-pwned)",
      "tab\there",
      "ñandú 😀",
    ];
    for (const value of values) {
      const lines = await client.command(["display-message", "-p", literal(value)]);
      assertEquals(lines.join("\n"), value);
    }
    // A newline would end the command line; it arrives as a newline inside one argument.
    await client.command(["rename-window", "-t", "@0", literal("two\nlines; kill-server")]);
    assertEquals(await fx.display("@0", "#{window_name}"), "two\\nlines; kill-server");
    // Output lines that look like the end of a reply do not end it early.
    await client.command(["rename-window", "-t", "@0", literal("%end 1 2 1")]);
    const names = await client.command(["list-windows", "-F", "#{window_name}"]);
    assertEquals(names, ["%end 1 2 1"]);
    assertEquals(await Deno.stat("/tmp/tmux-mcp-test-pwned").then(() => true, () => false), false);
    assertEquals(await client.command(["list-sessions", "-F", "#{session_name}"]), ["main"]);
    const error = await assertRejects(
      () => client.command(["list-panes", "-t", "%404"]),
      ToolError,
    );
    assertEquals(error.code, "target_not_found");
  } finally {
    await client.close();
  }
  assert(!alive(client.pid), "the control client exited");
});

Deno.test("control channel: quoting, %output decoding and layout units", () => {
  assertEquals(
    layoutPanes("b25f,80x24,0,0{40x24,0,0,1,39x24,41,0[39x12,41,0,2,39x11,41,13,5]}", ""),
    new Map([
      ["%1", { width: 40, height: 24 }],
      ["%2", { width: 39, height: 12 }],
      ["%5", { width: 39, height: 11 }],
    ]),
  );
  // A zoomed window: the visible layout (the zoomed pane at full size) wins.
  assertEquals(
    layoutPanes("1234,80x24,0,0{40x24,0,0,1,39x24,41,0,2}", "abcd,80x24,0,0,2").get("%2"),
    { width: 80, height: 24 },
  );
  assertEquals(quoteControlArgument('a"b$c\\d'), '"a\\"b\\$c\\\\d"');
  assertEquals(quoteControlArgument("x\ny\x01"), '"x\\ny\\001"');
  const raw = new TextEncoder().encode("h\\303\\251\\015\\012\\134x");
  assertEquals(new TextDecoder().decode(decodeOutput(raw)), "hé\r\n\\x");
});

Deno.test("capture_since: 10,000 lines in bursts, none lost or duplicated", async () => {
  // The pane waits for a line on stdin, then prints 1..10000 in twenty bursts of 500: more than
  // the follower keeps (HISTORY_ROWS), well within tmux's history, which reads fill in from.
  await using fx = await TmuxFixture.start({
    command: `sh -c 'read go; i=0; while [ $i -lt 20 ]; do seq $((i*500+1)) $((i*500+500)); ` +
      `i=$((i+1)); sleep 0.1; done; exec sleep 100000'`,
  });
  const { client, close } = await connectInProcess(["-S", fx.socket]);
  try {
    const first = await ok<Since>(client, "capture_since", { paneId: "%0" });
    assertEquals([first.outcome, first.streaming ?? true], ["started", true]);
    assert(first.cursor?.startsWith("ltxc1."));
    await fx.tmux("send-keys", "-t", "%0", "Enter");
    let cursor = first.cursor!;
    let all = "";
    let reads = 0;
    while (!all.includes("\n10000\n")) {
      const next = await ok<Since>(client, "capture_since", {
        paneId: "%0",
        cursor,
        waitMs: 20_000,
        ...BIG,
      });
      if (next.outcome === "timeout") break;
      assertEquals([next.missedRows, next.missedBytes, next.truncated], [
        undefined,
        undefined,
        undefined,
      ]);
      all = follow(all, next.text);
      cursor = next.cursor!;
      reads++;
    }
    const numbers = all.split("\n").filter((l) => /^\d+$/.test(l)).map(Number);
    assertEquals(numbers.length, 10_000);
    assert(numbers.every((n, i) => n === i + 1), "in order, none lost or repeated");
    assert(reads > 1, "read back through successive cursors");
  } finally {
    await close();
  }
});

Deno.test("capture_since: rows that left tmux's history before a read are counted in missedRows", async () => {
  await using fx = await TmuxFixture.start({
    command: "sh -c 'read go; seq 1 60000; exec sleep 100000'",
  });
  const { client, close } = await connectInProcess(["-S", fx.socket]);
  try {
    const first = await ok<Since>(client, "capture_since", { paneId: "%0" });
    await fx.tmux("send-keys", "-t", "%0", "Enter");
    // Reads are not destructive: re-read from the first cursor until the whole burst arrived.
    let next = await ok<Since>(client, "capture_since", {
      paneId: "%0",
      cursor: first.cursor,
      ...BIG,
    });
    for (let i = 0; i < 100 && !next.text.endsWith("\n60000\n"); i++) {
      await new Promise((r) => setTimeout(r, 100));
      next = await ok<Since>(client, "capture_since", {
        paneId: "%0",
        cursor: first.cursor,
        ...BIG,
      });
    }
    assert(next.text.endsWith("\n60000\n"), next.text.slice(-20));
    // The rows tmux holds (its history, read back, and the 24 of the screen) follow each other:
    // more than the follower keeps (HISTORY_ROWS).
    const lines = next.text.trimEnd().split("\n").map(Number);
    assertEquals(lines, Array.from({ length: lines.length }, (_, i) => lines[0] + i));
    const history = Number(await fx.display("%0", "#{history_size}"));
    assertEquals(lines.length, history + 23);
    assert(lines.length > HISTORY_ROWS + 23, `${lines.length} lines`);
    // Every row before the first one kept is counted: the row the cursor was on when the first
    // read ended (where Enter was echoed), then the numbers below lines[0].
    assertEquals([next.missedRows, next.missedBytes ?? 0], [lines[0], 0]);
  } finally {
    await close();
  }
});

Deno.test("capture_since: waitMs wakes on output, times out, is clamped, and cancels", async () => {
  await using fx = await TmuxFixture.start({ command: "cat" });
  const { client, close } = await connectInProcess(["-S", fx.socket, "--wait-max-ms", "1500"]);
  // Waking and cancelling are told from a timeout by a wait far longer than a busy machine's delay.
  const long = await connectInProcess(["-S", fx.socket]);
  try {
    const first = await ok<Since>(client, "capture_since", { paneId: "%0" });
    const idle = await ok<Since>(client, "capture_since", { paneId: "%0", cursor: first.cursor });
    assertEquals([idle.outcome, idle.text, idle.cursor], ["idle", "", first.cursor]);

    const timeout = await ok<Since>(client, "capture_since", {
      paneId: "%0",
      cursor: first.cursor,
      waitMs: 200,
    });
    // Not clamped: the wait asked for is not repeated, how long it took is.
    assertEquals([timeout.outcome, timeout.text, timeout.timeoutMs], ["timeout", "", undefined]);
    assert(timeout.elapsedMs! >= 190, `waited ${timeout.elapsedMs} ms`);

    const clamped = await ok<Since>(client, "capture_since", {
      paneId: "%0",
      cursor: first.cursor,
      waitMs: 60_000,
    });
    assertEquals([clamped.timeoutMs, clamped.timeoutClamped, clamped.outcome], [
      1500,
      true,
      "timeout",
    ]);

    const start = await ok<Since>(long.client, "capture_since", { paneId: "%0" });
    const woke = await waitWhileTyping(
      long.client,
      fx,
      { cursor: start.cursor, waitMs: 30_000 },
      "wake up",
    );
    assertEquals(woke.outcome, "output");
    assert(woke.text.includes("wake up"), woke.text);

    // MCP cancellation ends a wait on the server side, long before its 30 s.
    const controller = new AbortController();
    const cancelled = long.client.callTool(
      { name: "capture_since", arguments: { paneId: "%0", cursor: woke.cursor, waitMs: 30_000 } },
      undefined,
      { signal: controller.signal },
    );
    const stats = () => long.built.live!.stats();
    assert(await eventually(() => stats().waiters === 1, 20_000));
    controller.abort();
    await cancelled.catch(() => {});
    assert(await eventually(() => stats().waiters === 0, 20_000), "the wait ended");
  } finally {
    await close();
    await long.close();
  }
});

Deno.test("capture_since: stale cursors — replaced pane, another pane, expired stream", async () => {
  await using fx = await TmuxFixture.start({ command: "cat" });
  await fx.tmux("split-window", "-d", "cat");
  const { client, close, built } = await connectInProcess(["-S", fx.socket], {}, {
    streamTtlMs: 300,
    sweepMs: 50,
    idleCloseMs: 200,
  });
  try {
    const a = await ok<Since>(client, "capture_since", { paneId: "%0" });
    const b = await ok<Since>(client, "capture_since", { paneId: "%1" });
    assert(a.cursor!.split(".")[1] !== b.cursor!.split(".")[1], "one stream per pane");
    const other = await fails(client, "capture_since", { paneId: "%0", cursor: b.cursor });
    assertEquals(other.code, "stale_cursor");
    assert(other.text.includes("without a cursor"), other.text);

    await fx.tmux("respawn-pane", "-k", "-t", "%0", "cat");
    assertEquals(
      (await fails(client, "capture_since", { paneId: "%0", cursor: a.cursor })).code,
      "stale_cursor",
    );
    const fresh = await ok<Since>(client, "capture_since", { paneId: "%0" });
    assert(fresh.cursor !== a.cursor);

    // Unused streams expire; then the connection lingers idleCloseMs and detaches.
    const pids = built.live!.stats().clientPids;
    assertEquals(pids.length, 1);
    assert(await eventually(() => built.live!.stats().connections === 0));
    assertEquals(
      (await fails(client, "capture_since", { paneId: "%1", cursor: b.cursor })).code,
      "stale_cursor",
    );
    assert(await eventually(() => !alive(pids[0])), "the control client is gone");
    const malformed = await fails(client, "capture_since", { paneId: "%0", cursor: "ltxc1.zz.1" });
    assertEquals(malformed.code, "invalid_arguments");
  } finally {
    await close();
  }
});

Deno.test("capture_since: the tmux server killed during a wait is server_gone; we keep serving", async () => {
  await using fx = await TmuxFixture.start({ command: "cat" });
  const { client, close, built } = await connectInProcess(["-S", fx.socket]);
  try {
    const first = await ok<Since>(client, "capture_since", { paneId: "%0" });
    const waiting = client.callTool({
      name: "capture_since",
      arguments: { paneId: "%0", cursor: first.cursor, waitMs: 30_000 },
    });
    assert(await eventually(() => built.live!.stats().waiters === 1, 20_000), "waiting");
    await fx.tmux("kill-server");
    const result = await waiting;
    assertEquals(result.isError, true);
    assertEquals(
      (result.structuredContent as { error: { code: string } }).error.code,
      "server_gone",
    );
    const listing = await ok<{ sessions: unknown[]; note?: string }>(client, "list_sessions");
    assertEquals(listing.sessions, []);
    assert(listing.note?.includes("no tmux server"));
  } finally {
    await close();
  }
});

Deno.test("our control client is never a person and never resizes the window", async () => {
  await using fx = await TmuxFixture.start({
    session: "big",
    width: 200,
    height: 50,
    command: "cat",
  });
  const { client, close, built } = await connectInProcess(["-S", fx.socket]);
  try {
    await ok<Since>(client, "capture_since", { paneId: "%0" });
    assertEquals(built.live!.stats().connections, 1);
    assertEquals(await fx.display("%0", "#{window_width}x#{window_height}"), "200x50");
    // Every client is ours (the stream's, and the command route's once it attached): no person.
    const info = await ok<{ clients: number; people: number }>(client, "get_server_info");
    assert(info.clients >= 1, String(info.clients));
    assertEquals(info.people, 0);
    let panes = (await ok<{ panes: Array<{ isAttended: boolean }> }>(client, "list_panes")).panes;
    assertEquals(panes.map((p) => p.isAttended), [false]);

    const detach = await fx.attachControlPerson("big");
    try {
      const sessions =
        (await ok<{ sessions: Array<{ attached: number }> }>(client, "list_sessions")).sessions;
      assertEquals(sessions.map((s) => s.attached), [1]);
      panes = (await ok<{ panes: Array<{ isAttended: boolean }> }>(client, "list_panes")).panes;
      assertEquals(panes.map((p) => p.isAttended), [true]);
    } finally {
      await detach();
    }
  } finally {
    await close();
  }
  assertEquals(built.live!.stats().connections, 0);
});

Deno.test("capture_since with --no-live: plain bounded captures, streaming false", async () => {
  await using fx = await TmuxFixture.start({ command: "sh -c 'echo hello; exec cat'" });
  const { client, close, built } = await connectInProcess(["-S", fx.socket, "--no-live"]);
  try {
    assertEquals(built.live, undefined);
    assert(
      await eventually(async () =>
        (await fx.tmux("capture-pane", "-p", "-t", "%0")).includes("hello")
      ),
    );
    const first = await ok<Since>(client, "capture_since", { paneId: "%0" });
    assertEquals([first.streaming, first.cursor, first.outcome, first.text], [
      false,
      undefined,
      "started",
      "hello",
    ]);
    assert(first.note?.includes("live mode is off"));
    const changed = await waitWhileTyping(client, fx, { waitMs: 30_000 }, "more");
    assertEquals(changed.outcome, "output");
    assert(changed.text.includes("more"));
    assertEquals((await fx.tmux("list-clients")).trim(), "", "no control client in --no-live");
  } finally {
    await close();
  }
});

Deno.test("control quoting: a leading ~, CR and control bytes are literal; NUL is refused", async () => {
  await using fx = await TmuxFixture.start();
  const client = await ControlClient.open(fx.runner(), "$0", { onOutput() {}, onClose() {} });
  try {
    for (const value of ["~", "~/x", "~root", "a\rb", "bell\x07", "{ x }", "%if 1"]) {
      await client.command(["rename-window", "-t", "@0", literal(value)]);
      const shown = await fx.display("@0", "#{window_name}");
      // tmux stores control characters in window names escaped, C-style (\r, \a).
      assertEquals(
        shown,
        value.replace("\r", "\\r").replace("\x07", "\\a"),
        JSON.stringify(value),
      );
    }
    assertEquals(
      (() => {
        try {
          quoteControlArgument("nul\0x");
          return "accepted";
        } catch (error) {
          return (error as ToolError).code;
        }
      })(),
      "invalid_arguments",
    );
  } finally {
    await client.close();
  }
});

Deno.test("capture_since: a pane printing fake control-mode lines cannot inject or desync", async () => {
  const now = Math.floor(Date.now() / 1000);
  const forged = Array.from({ length: 40 }, (_, i) => `%end ${now} ${250 + i} 1`).join("\n") +
    `\n%output %0 FORGED-BYTES\\015\\012\n%begin ${now} 999999 1\n%exit\n`;
  const file = await Deno.makeTempFile({ prefix: "tmux-mcp-test-forged-" });
  await Deno.writeTextFile(file, forged);
  await using fx = await TmuxFixture.start({ command: `sh -c 'cat ${file}; exec cat'` });
  assert(
    await eventually(async () =>
      (await fx.tmux("capture-pane", "-p", "-t", "%0")).includes("%exit")
    ),
  );
  const { client, close, built } = await connectInProcess(["-S", fx.socket]);
  try {
    const first = await ok<Since>(client, "capture_since", { paneId: "%0" });
    assert(first.text.includes("FORGED-BYTES"), "the screen is shown as text");
    const next = await waitWhileTyping(
      client,
      fx,
      { cursor: first.cursor, waitMs: 30_000 },
      "real",
    );
    assertEquals(next.outcome, "output");
    assert(next.text.includes("real") && !next.text.includes("FORGED"), next.text);
    assertEquals(built.live!.stats().connections, 1);
  } finally {
    await close();
    await Deno.remove(file);
  }
});

Deno.test("capture_since: a split character or escape sequence shows nothing until whole, and does not end a wait", async () => {
  // A raw terminal: cat returns each byte we type at once, unaltered.
  await using fx = await TmuxFixture.start({ command: "sh -c 'stty raw -echo; exec cat'" });
  const { client, close } = await connectInProcess(["-S", fx.socket]);
  try {
    const first = await ok<Since>(client, "capture_since", { paneId: "%0" });
    // Type half a euro sign, then the rest.
    await fx.tmux("send-keys", "-t", "%0", "-H", "61", "62", "e2");
    const half = await ok<Since>(client, "capture_since", {
      paneId: "%0",
      cursor: first.cursor,
      waitMs: 20_000,
    });
    assertEquals(half.text, "ab", "half a character shows nothing");
    const held = await ok<Since>(client, "capture_since", {
      paneId: "%0",
      cursor: half.cursor,
      waitMs: 300,
    });
    assertEquals([held.outcome, held.text, held.cursor], ["timeout", "", half.cursor]);
    assert(
      held.elapsedMs! >= 250,
      `a held-back byte must not wake the wait (${held.elapsedMs} ms)`,
    );
    await fx.tmux("send-keys", "-t", "%0", "-H", "82", "ac");
    const euro = await ok<Since>(client, "capture_since", {
      paneId: "%0",
      cursor: held.cursor,
      waitMs: 20_000,
    });
    // The line the cursor is on comes back whole.
    assertEquals(euro.text, "ab€");
    // An escape sequence split in two never leaks its parameters as text.
    await fx.tmux("send-keys", "-t", "%0", "-H", "1b", "5b", "33");
    const partial = await ok<Since>(client, "capture_since", {
      paneId: "%0",
      cursor: euro.cursor,
      waitMs: 300,
    });
    assertEquals([partial.outcome, partial.text], ["timeout", ""]);
    await fx.tmux("send-keys", "-t", "%0", "-l", "1mred");
    const red = await ok<Since>(client, "capture_since", {
      paneId: "%0",
      cursor: partial.cursor,
      waitMs: 20_000,
    });
    assertEquals(red.text, "ab€red");
  } finally {
    await close();
  }
});

Deno.test("capture_since: moved pane is stale, killed pane is target_not_found, restart reconnects", async () => {
  await using fx = await TmuxFixture.start({ session: "a", command: "cat" });
  await fx.tmux("new-window", "-d", "-t", "=a:1", "cat");
  await fx.tmux("new-session", "-d", "-s", "b", "cat");
  const { client, close, built } = await connectInProcess(["-S", fx.socket]);
  try {
    const moving = await fx.display("=a:1", "#{pane_id}");
    const before = await ok<Since>(client, "capture_since", { paneId: moving });
    await fx.tmux("move-window", "-s", "=a:1", "-t", "=b:5");
    const moved = await fails(client, "capture_since", { paneId: moving, cursor: before.cursor });
    assertEquals(moved.code, "stale_cursor");

    const first = await ok<Since>(client, "capture_since", { paneId: "%0" });
    const waiting = client.callTool({
      name: "capture_since",
      arguments: { paneId: "%0", cursor: first.cursor, waitMs: 30_000 },
    });
    assert(await eventually(() => built.live!.stats().waiters === 1, 20_000), "waiting");
    await fx.tmux("split-window", "-d", "-t", "%0", "cat"); // keep the session alive
    await fx.tmux("kill-pane", "-t", "%0");
    const killed = await waiting;
    assertEquals(
      (killed.structuredContent as { error: { code: string } }).error.code,
      "target_not_found",
    );

    // A restarted server (ids reused) is served again after the old connection died.
    await fx.tmux("kill-server");
    // The old server takes a moment to let go of its socket.
    assert(
      await eventually(() =>
        fx.tmux("-f", "/dev/null", "new-session", "-d", "-s", "again", "cat").then(
          () => true,
          () => false,
        )
      ),
    );
    const fresh = await ok<Since>(client, "capture_since", { paneId: "%0" });
    assertEquals([fresh.outcome, fresh.streaming ?? true], ["started", true]);
  } finally {
    await close();
  }
});

Deno.test("capture_since: a pane closed, its window killed or its process respawned during a wait answers at once", async () => {
  await using fx = await TmuxFixture.start({ command: "cat" });
  await fx.tmux("split-window", "-d", "-t", "%0", "cat"); // %1 keeps window @0 open
  await fx.tmux("new-window", "-d", "cat"); // %2, alone in its window
  await fx.tmux("new-window", "-d", "cat"); // %3
  const { client, close, built } = await connectInProcess(["-S", fx.socket]);
  try {
    /** Start a 30 s wait on `paneId`, act on it once it waits; the error code and when it came. */
    const during = async (paneId: string, act: () => Promise<unknown>) => {
      const first = await ok<Since>(client, "capture_since", { paneId });
      const started = Date.now();
      const waiting = call(client, "capture_since", {
        paneId,
        cursor: first.cursor,
        waitMs: 30_000,
      });
      assert(await eventually(() => built.live!.stats().waiters === 1, 20_000), "waiting");
      await act();
      const result = await waiting;
      const code = (result.structuredContent as { error?: { code: string } }).error?.code;
      return { code, ms: Date.now() - started };
    };
    const closed = await during("%0", () => fx.tmux("kill-pane", "-t", "%0"));
    assertEquals(closed.code, "target_not_found");
    // Told by %layout-change: well before the 30 s wait ends.
    assert(closed.ms < 20_000, `answered after ${closed.ms} ms`);
    const window = await fx.display("%2", "#{window_id}");
    const killed = await during("%2", () => fx.tmux("kill-window", "-t", window));
    assertEquals(killed.code, "target_not_found");
    assert(killed.ms < 20_000, `answered after ${killed.ms} ms (%window-close)`);
    const respawned = await during("%3", () => fx.tmux("respawn-pane", "-k", "-t", "%3", "cat"));
    assertEquals(respawned.code, "stale_cursor");
    assert(respawned.ms < 20_000, `answered after ${respawned.ms} ms (pid subscription)`);
  } finally {
    await close();
  }
});

Deno.test("capture_since reads bash as the terminal shows it: a pasted block and a progress bar once each", async () => {
  await using fx = await TmuxFixture.start({
    command: "env INPUTRC=/dev/null HISTFILE=/dev/null PS1='$ ' bash --norc --noprofile",
  });
  assert(await eventually(async () => (await fx.tmux("capture-pane", "-p")).startsWith("$")));
  const { client, close } = await connectInProcess(["-S", fx.socket]);
  try {
    const first = await ok<Since>(client, "capture_since", { paneId: "%0" });
    assertEquals([first.text, first.alternateScreen, first.seedRace], ["$", undefined, undefined]);
    /** Follow the pane until `done` shows; everything read, as a reader following it keeps it. */
    const until = async (cursor: string, done: string) => {
      let all = "";
      for (let i = 0; i < 100 && !all.endsWith(done); i++) {
        const next = await ok<Since>(client, "capture_since", {
          paneId: "%0",
          cursor,
          waitMs: 20_000,
        });
        all = follow(all, next.text);
        cursor = next.cursor!;
      }
      return { all, cursor };
    };
    await fx.tmux("set-buffer", "-b", "since", "echo one\necho two\necho three");
    await fx.tmux("paste-buffer", "-p", "-d", "-b", "since", "-t", "%0");
    await fx.tmux("send-keys", "-t", "%0", "Enter");
    const pasted = await until(first.cursor!, "three\n$");
    assertEquals(pasted.all, "$ echo one\necho two\necho three\none\ntwo\nthree\n$");
    await fx.tmux(
      "send-keys",
      "-t",
      "%0",
      "-l",
      "for i in 1 2 3 4; do printf '\\r%d%%' $((i*25)); sleep 0.1; done; echo; echo end",
    );
    await fx.tmux("send-keys", "-t", "%0", "Enter");
    const bar = await until(pasted.cursor, "end\n$");
    assertEquals(bar.all.split("\n").slice(1), ["100%", "end", "$"]);
  } finally {
    await close();
  }
});

Deno.test("capture_since: a pane that never pauses is seeded anyway, and says seedRace", async () => {
  await using fx = await TmuxFixture.start({ command: "sh -c 'read go; exec yes'" });
  await fx.tmux("split-window", "-d", "cat");
  const { client, close } = await connectInProcess(["-S", fx.socket]);
  try {
    const quiet = await ok<Since>(client, "capture_since", { paneId: "%1" });
    assertEquals(quiet.seedRace ?? false, false);
    await fx.tmux("send-keys", "-t", "%0", "Enter");
    assert(await eventually(async () => (await fx.tmux("capture-pane", "-p")).includes("y\ny")));
    const flooding = await ok<Since>(client, "capture_since", { paneId: "%0" });
    assertEquals(flooding.outcome, "started");
    assert(flooding.text.includes("y\ny"), flooding.text.slice(-20));
    // A busy machine may run the capture and the check after it without tmux reading the pane in
    // between (no race then): a fresh stream is started until one races, a few times at most.
    let raced = flooding.seedRace;
    for (let i = 0; !raced && i < 5; i++) {
      const other = await connectInProcess(["-S", fx.socket]);
      raced = (await ok<Since>(other.client, "capture_since", { paneId: "%0" })).seedRace;
      await other.close();
    }
    assert(raced, "a stream seeded during the flood says seedRace");
  } finally {
    await fx.tmux("respawn-pane", "-k", "-t", "%0", "cat").catch(() => {});
    await close();
  }
});

Deno.test("the engine knows a streamed pane's bracketed-paste mode once its output has shown it", async () => {
  await using fx = await TmuxFixture.start({
    command: "env INPUTRC=/dev/null HISTFILE=/dev/null PS1='$ ' bash --norc --noprofile",
  });
  await fx.tmux("split-window", "-d", "cat");
  assert(await eventually(async () => (await fx.tmux("capture-pane", "-p")).startsWith("$")));
  const engine = new LiveEngine(contextFor(fx.runner()), new Set(), LIVE_DEFAULTS, () => {});
  try {
    assertEquals(engine.bracketedPaste("%0"), undefined, "not streamed");
    await engine.join("%0");
    await engine.join("%1");
    // bash set it before the stream began: no capture or format shows it.
    assertEquals(engine.bracketedPaste("%0"), undefined, "not shown yet");
    // readline turns it off while a command runs and on again at the next prompt.
    // (A command that runs until interrupted: a short one could end before a busy machine looks.)
    await fx.tmux("send-keys", "-t", "%0", "sleep 100000", "Enter");
    assert(await eventually(() => engine.bracketedPaste("%0") === false, 20_000), "off");
    // A C-c that lands after readline let go of the line but before sleep started is bash's
    // (sleep then runs on): press it again while sleep is the pane's program.
    const interrupted = async () => {
      if (engine.bracketedPaste("%0") === true) return true;
      const program = await fx.tmux("display-message", "-p", "-t", "%0", "#{pane_current_command}");
      if (program.trim() === "sleep") await fx.tmux("send-keys", "-t", "%0", "C-c");
      return false;
    };
    assert(await eventually(interrupted, 20_000), "on");
    assertEquals(engine.bracketedPaste("%1"), undefined, "cat never says");
  } finally {
    await engine.close();
  }
});

Deno.test("past the connection cap, further sessions are polled and no followed reader loses its stream", async () => {
  await using fx = await TmuxFixture.start({ session: "s0", command: "cat" });
  for (const name of ["s1", "s2"]) await fx.tmux("new-session", "-d", "-s", name, "cat");
  const panes = (await fx.tmux("list-panes", "-a", "-F", "#{pane_id}")).trim().split("\n");
  const { client, close, built } = await connectInProcess(["-S", fx.socket], {}, {
    maxConnections: 2,
  });
  try {
    const first = await ok<Since>(client, "capture_since", { paneId: panes[0] });
    const second = await ok<Since>(client, "capture_since", { paneId: panes[1] });
    const attaches = built.live!.stats().attaches;
    const polled = await ok<Since>(client, "capture_since", { paneId: panes[2] });
    assertEquals(polled.streaming, false);
    assertEquals(polled.cursor, undefined);
    assert(String(polled.note).includes("follows 2 sessions live (its cap)"), String(polled.note));
    await fx.tmux("send-keys", "-t", panes[2], "-l", "polled-line");
    const waited = await ok<{ outcome: string; streaming?: boolean; note?: string }>(
      client,
      "wait_for_text",
      { paneId: panes[2], patterns: ["polled-line"], includeScreen: true, timeoutMs: 20_000 },
    );
    assertEquals([waited.outcome, waited.streaming], ["matched", false]);
    assert(String(waited.note).includes("its cap"), String(waited.note));
    // A waitFor there is polled too (what it finds is waitfor_test's concern).
    const typed = await ok<{ outcome: string; note?: string; cursor?: string }>(
      client,
      "send_keys",
      { paneId: panes[2], keys: "Enter", waitFor: { pattern: "never-printed", timeoutMs: 500 } },
    );
    assert(String(typed.note).includes("its cap"), JSON.stringify(typed));
    assertEquals(typed.cursor, undefined);
    // Both followed readers keep their streams, and nothing attached or detached meanwhile.
    await ok<Since>(client, "capture_since", { paneId: panes[0], cursor: first.cursor });
    await ok<Since>(client, "capture_since", { paneId: panes[1], cursor: second.cursor });
    assertEquals(built.live!.stats().connections, 2);
    assertEquals(built.live!.stats().attaches, attaches);
    assertEquals(built.live!.stats().detaches, 0);
  } finally {
    await close();
  }
});
