/** capture_pane and snapshot_pane against real tmux panes. */
import { assert, assertEquals } from "../../support/assert.ts";
import { type Connected, connectInProcess, fails, ok } from "../../support/client.ts";
import { contextFor, eventually, TmuxFixture } from "../../support/fixture.ts";
import { boundText, byteLength } from "../../../src/results.ts";
import { capturePane } from "../../../src/tmux/read/capture.ts";
import type { TmuxContext } from "../../../src/tmux/core/context.ts";

/** capture_pane's result: seed 004's keys always, the counts only when something was cut (§3.1). */
interface Capture {
  text: string;
  truncated: boolean;
  truncatedLines?: number;
  truncatedBytes?: number;
  lineLimit: number;
  byteLimit: number;
  encoding: string;
  terminalContent: string;
  paneId: string;
  generation: string;
  start: number;
  end: number;
}

/** A server whose first pane printed 1..5000 and whose history keeps all of it. */
async function numbered(): Promise<TmuxFixture> {
  const fx = await TmuxFixture.start({ session: "num", command: "sleep 100000" });
  await fx.tmux("set-option", "-g", "history-limit", "10000");
  await fx.tmux("new-window", "-d", "-t", "=num:1", "sh -c 'seq 1 5000; exec sleep 100000'");
  const ok = await eventually(async () =>
    (await fx.tmux("capture-pane", "-p", "-t", "=num:1")).includes("5000")
  );
  assert(ok, "the pane printed its lines");
  return fx;
}

async function session(fx: TmuxFixture): Promise<Connected> {
  return await connectInProcess(["-S", fx.socket]);
}

Deno.test("capture_pane: visible screen by default, trailing blank rows dropped", async () => {
  await using fx = await numbered();
  const { client, close } = await session(fx);
  try {
    const paneId = await fx.display("=num:1", "#{pane_id}");
    const c = await ok<Capture>(client, "capture_pane", { paneId });
    // 24 rows: 23 numbers and the cursor's empty row, which is dropped.
    assertEquals(c.text.split("\n"), Array.from({ length: 23 }, (_, i) => String(4978 + i)));
    assertEquals([c.start, c.end, c.truncated, c.truncatedLines], [0, 23, false, undefined]);
    assertEquals([c.lineLimit, c.byteLimit, c.encoding, c.terminalContent], [
      200,
      65536,
      "utf-8",
      "data",
    ]);
    assertEquals(c.paneId, paneId);
    assertEquals(
      c.generation,
      (await ok<{ generation: string }>(client, "get_pane_info", { paneId })).generation,
    );
  } finally {
    await close();
  }
});

Deno.test("capture_pane: scrollback ranges, tail-first bounds, and what was dropped", async () => {
  await using fx = await numbered();
  const { client, close } = await session(fx);
  try {
    const paneId = await fx.display("=num:1", "#{pane_id}");
    const history = Number(await fx.display(paneId, "#{history_size}"));
    assertEquals(history, 4977);
    // All of it, bounded to the default 200 newest lines.
    const all = await ok<Capture>(client, "capture_pane", { paneId, start: -100000 });
    assertEquals(all.text.split("\n").length, 200);
    assertEquals(all.text.split("\n").at(-1), "5000");
    assertEquals(all.text.split("\n")[0], "4801");
    assertEquals(all.truncated, true);
    assertEquals(all.truncatedLines, 5000 - 200);
    assertEquals(all.start, -4977);
    // An explicit window in the history: tmux's scale (end -1 is the line above the screen).
    const slice = await ok<Capture>(client, "capture_pane", { paneId, start: -10, end: -1 });
    assertEquals(slice.text, Array.from({ length: 10 }, (_, i) => String(4968 + i)).join("\n"));
    assertEquals([slice.start, slice.end, slice.truncated], [-10, -1, false]);
    // maxLines keeps the newest; maxBytes cuts further, whole lines first.
    const three = await ok<Capture>(client, "capture_pane", { paneId, start: -100, maxLines: 3 });
    assertEquals(three.text, "4998\n4999\n5000");
    assertEquals(three.truncatedLines, 121 - 1 + 0); // 124 rows asked, 3 kept, 1 blank row dropped
    const bytes = await ok<Capture>(client, "capture_pane", { paneId, start: -100, maxBytes: 12 });
    assertEquals(bytes.text, "4999\n5000"); // 9 bytes; a third line would need 14
    assertEquals(bytes.byteLimit, 12);
    assert(bytes.truncated && bytes.truncatedBytes! > 0);
    // The oldest lines.
    const top = await ok<Capture>(client, "capture_pane", { paneId, start: -4977, end: -4975 });
    assertEquals(top.text, "1\n2\n3");
  } finally {
    await close();
  }
});

Deno.test("capture_pane: wide unicode, wrapped lines and joinWrapped", async () => {
  const long = "ab".repeat(60); // 120 columns in a 40-column pane
  await using fx = await TmuxFixture.start({
    width: 40,
    height: 10,
    command: `sh -c 'printf "日本語 ñandú 😀\\n${long}\\n"; exec sleep 100000'`,
  });
  const { client, close } = await session(fx);
  try {
    assert(
      await eventually(async () => (await fx.tmux("capture-pane", "-p", "-t", "%0")).includes("ñ")),
    );
    const raw = await ok<Capture>(client, "capture_pane", { paneId: "%0" });
    const lines = raw.text.split("\n");
    assertEquals(lines[0], "日本語 ñandú 😀");
    assertEquals(lines.slice(1), [long.slice(0, 40), long.slice(40, 80), long.slice(80)]);
    const joined = await ok<Capture>(client, "capture_pane", { paneId: "%0", joinWrapped: true });
    assertEquals(joined.text.split("\n"), ["日本語 ñandú 😀", long]);
  } finally {
    await close();
  }
});

Deno.test("capture_pane: bytes that are not UTF-8 never break the JSON", async () => {
  await using fx = await TmuxFixture.start({
    command: `sh -c 'printf "bad:\\377\\376 end\\n"; exec sleep 100000'`,
  });
  const { client, close } = await session(fx);
  try {
    assert(
      await eventually(async () =>
        (await fx.tmux("capture-pane", "-p", "-t", "%0")).includes("end")
      ),
    );
    const c = await ok<Capture>(client, "capture_pane", { paneId: "%0" });
    assert(c.text.startsWith("bad:") && c.text.endsWith(" end"), JSON.stringify(c.text));
    JSON.parse(JSON.stringify(c)); // round-trips
  } finally {
    await close();
  }
});

Deno.test("capture_pane: bad input, missing pane and stale generation are typed errors", async () => {
  await using fx = await TmuxFixture.start();
  const { client, close } = await session(fx);
  try {
    const { generation } = await ok<{ generation: string }>(client, "get_pane_info", {
      paneId: "%0",
    });
    assertEquals(
      (await ok<Capture>(client, "capture_pane", { paneId: "%0", generation })).paneId,
      "%0",
    );
    await fx.tmux("respawn-pane", "-k", "-t", "%0", "sleep 100000");
    assertEquals(
      (await fails(client, "capture_pane", { paneId: "%0", generation })).code,
      "stale_target",
    );
    assertEquals((await fails(client, "capture_pane", { paneId: "%42" })).code, "target_not_found");
    const bad: Array<Record<string, unknown>> = [
      { paneId: "0" },
      { paneId: "%0", maxLines: 0 },
      { paneId: "%0", maxBytes: 262_145 },
      { paneId: "%0", start: 1.5 },
      { paneId: "%0", start: 5, end: 2 },
      { paneId: "%0;kill-server" },
      { paneId: "%0", extra: 1 },
    ];
    for (const args of bad) {
      assertEquals(
        (await fails(client, "capture_pane", args)).code,
        "invalid_arguments",
        JSON.stringify(args),
      );
    }
    assert((await fx.tmux("list-sessions")).length > 0, "server alive");
  } finally {
    await close();
  }
});

Deno.test("snapshot_pane: screen plus cursor, size, mode and scroll position in one call", async () => {
  await using fx = await numbered();
  const { client, close } = await session(fx);
  try {
    const paneId = await fx.display("=num:1", "#{pane_id}");
    await fx.tmux("copy-mode", "-t", paneId);
    await fx.tmux("send-keys", "-t", paneId, "-X", "-N", "20", "scroll-up");
    const snap = await ok<Record<string, unknown>>(client, "snapshot_pane", { paneId });
    const view = (await fx.display(
      paneId,
      "#{cursor_x}|#{cursor_y}|#{pane_width}|#{pane_height}|#{scroll_position}|#{pane_title}",
    )).split("|");
    assertEquals(
      [snap.cursorX, snap.cursorY, snap.width, snap.height, snap.scrollPosition, snap.title].map(
        String,
      ),
      view,
    );
    assertEquals([snap.inMode, snap.mode, snap.alternateOn, snap.dead], [
      true,
      "copy-mode",
      false,
      false,
    ]);
    assertEquals(snap.currentCommand, await fx.display(paneId, "#{pane_current_command}"));
    assertEquals((snap.text as string).split("\n").at(-1), "5000");
    const small = await ok<Record<string, unknown>>(client, "snapshot_pane", {
      paneId,
      maxLines: 2,
    });
    assertEquals([small.text, small.truncated, small.truncatedLines], ["4999\n5000", true, 21]);
    assertEquals(
      (await fails(client, "snapshot_pane", { paneId: "%77" })).code,
      "target_not_found",
    );
  } finally {
    await close();
  }
});

Deno.test("snapshot_pane and capture_pane on a dead pane with remain-on-exit", async () => {
  await using fx = await TmuxFixture.start();
  await fx.tmux("set-option", "-g", "remain-on-exit", "on");
  await fx.tmux("new-window", "-d", "sh -c 'echo last words; sleep 0.3; exit 7'");
  const { client, close } = await session(fx);
  try {
    const paneId = await fx.display(":1", "#{pane_id}");
    assert(await eventually(async () => (await fx.display(paneId, "#{pane_dead}")) === "1"));
    // tmux 3.3a learns the exit status a moment after the pane dies, and under polling it
    // sometimes never does (observed); compare with tmux's own view rather than racing it.
    await eventually(async () => (await fx.display(paneId, "#{pane_dead_status}")) === "7", 5000);
    const status = await fx.display(paneId, "#{pane_dead_status}");
    const snap = await ok<Record<string, unknown>>(client, "snapshot_pane", { paneId });
    assertEquals([snap.dead, snap.exitStatus], [true, status === "" ? undefined : Number(status)]);
    // What a dead pane shows is tmux's business (3.3 may clear it and print "Pane is dead");
    // both tools must return exactly that.
    const tmuxView = (await fx.tmux("capture-pane", "-p", "-t", paneId)).replace(/\n+$/, "");
    assertEquals(snap.text, tmuxView);
    const c = await ok<Capture>(client, "capture_pane", { paneId });
    assertEquals(c.text, tmuxView);
    assert(c.text.includes("Pane is dead") || c.text.includes("last words"), c.text);
  } finally {
    await close();
  }
});

Deno.test("pane text that mimics our markers cannot split a chained capture", async () => {
  // Printable look-alikes of tags and separators; the real ones carry a per-call random nonce.
  const fake = "T\\nH\\nB0\\nB1 0011223344556677 ^^ 0011223344556677\\nZ";
  await using fx = await TmuxFixture.start({
    command: `sh -c 'printf "${fake}\\n"; exec sleep 100000'`,
  });
  const { client, close } = await session(fx);
  try {
    assert(
      await eventually(async () => (await fx.tmux("capture-pane", "-p", "-t", "%0")).includes("Z")),
    );
    const snap = await ok<Record<string, unknown>>(client, "snapshot_pane", { paneId: "%0" });
    assertEquals(snap.text, "T\nH\nB0\nB1 0011223344556677 ^^ 0011223344556677\nZ");
    assertEquals(snap.paneId, "%0");
    const c = await ok<Capture>(client, "capture_pane", { paneId: "%0" });
    assertEquals(c.text, snap.text);
  } finally {
    await close();
  }
});

/** A runner pinned to `fx` that counts the bytes tmux printed to it. */
function countingContext(fx: TmuxFixture): { ctx: TmuxContext; pulled: () => number } {
  const runner = fx.runner();
  let bytes = 0;
  const original = runner.run.bind(runner);
  runner.run = async (...args) => {
    const out = await original(...args);
    bytes += byteLength(out);
    return out;
  };
  return { ctx: contextFor(runner), pulled: () => bytes };
}

/** A 200-column pane whose history holds `rows` numbered rows of 190 characters. */
async function tall(fx: TmuxFixture, rows: number, then = "exec sleep 100000"): Promise<string> {
  await fx.tmux("set-option", "-g", "history-limit", "300000");
  await fx.tmux("new-window", "-d", `sh -c 'seq -f "%0190g" 1 ${rows}; ${then}'`);
  const paneId = await fx.display(":1", "#{pane_id}");
  assert(
    await eventually(
      async () => Number(await fx.display(paneId, "#{history_size}")) >= rows - 23,
      10_000,
    ),
    "the pane printed its rows",
  );
  return paneId;
}

const row = (n: number) => String(n).padStart(190, "0");

Deno.test("capture_pane: a huge range pulls a small multiple of what it returns, and says maxLines was clamped", async () => {
  await using fx = await TmuxFixture.start({ width: 200, command: "sleep 100000" });
  const paneId = await tall(fx, 60_000);
  const { client, close } = await session(fx);
  try {
    const c = await ok<Capture & { lineLimitClamped?: boolean }>(client, "capture_pane", {
      paneId,
      start: -300_000,
      maxLines: 1_000_000,
      maxBytes: 262_144,
    });
    // 1,372 rows of 190 digits and their newlines fit in 256 KiB; a 1,373rd would not.
    const kept = Array.from({ length: 1372 }, (_, i) => row(60_000 - 1371 + i)).join("\n");
    assertEquals(c.text, kept);
    assertEquals([c.truncated, c.truncatedLines, c.start, c.end], [
      true,
      60_000 - 1372,
      -59_977,
      23,
    ]);
    assertEquals([c.lineLimit, c.lineLimitClamped, c.byteLimit], [100_000, true, 262_144]);
    const small = await ok<Capture & { lineLimitClamped?: boolean }>(client, "capture_pane", {
      paneId,
      maxLines: 100_000,
    });
    assertEquals([small.lineLimit, small.lineLimitClamped], [100_000, undefined]);
  } finally {
    await close();
  }
  // The funnel itself: what tmux printed stays within a small multiple of the byte budget.
  const { ctx, pulled } = countingContext(fx);
  const capture = await capturePane(ctx, paneId, {
    start: -300_000,
    maxRows: 262_145,
    keep: { lines: 100_000, bytes: 262_144 },
  });
  assert(pulled() <= 4 * 262_144 + 65_536, `pulled ${pulled()} bytes for 256 KiB`);
  assert(capture.pulledBytes <= pulled(), `${capture.pulledBytes} of ${pulled()}`);
  assert(capture.pulledBytes >= 262_144, `pulled ${capture.pulledBytes}`);
  assertEquals(
    boundText(capture.text.replace(/\n+$/, ""), 100_000, 262_144).text.length,
    1372 * 191 - 1,
  );
});

Deno.test("capture_pane: rows that scroll in between chunks are neither repeated nor skipped", async () => {
  await using fx = await TmuxFixture.start({ width: 200, command: "sleep 100000" });
  // Every Enter prints 50 more rows.
  const paneId = await tall(
    fx,
    5000,
    `stty -echo; while read x; do seq -f "%0190g" 5001 5050; done`,
  );
  const { ctx } = countingContext(fx);
  let captures = 0;
  const run = ctx.runner.run.bind(ctx.runner);
  ctx.runner.run = async (...args) => {
    const out = await run(...args);
    if (JSON.stringify(args[0]).includes("capture-pane") && ++captures === 1) {
      // Scroll the history between the first chunk and the next.
      await fx.tmux("send-keys", "-t", paneId, "Enter");
      assert(
        await eventually(async () => Number(await fx.display(paneId, "#{history_size}")) >= 5027),
        "the pane scrolled",
      );
    }
    return out;
  };
  const capture = await capturePane(ctx, paneId, {
    start: -10_000,
    maxRows: 10_000,
    keep: { lines: 10_000, bytes: 262_144 },
  });
  assert(captures >= 2, `${captures} chunks`);
  const numbers = capture.text.replace(/\n+$/, "").split("\n").map(Number);
  assertEquals(numbers.at(-1), 5000); // the first chunk was read before the scroll
  numbers.forEach((n, i) => assertEquals(n, numbers[0] + i, `row ${i}`));
  assert(numbers.length >= 1372, `${numbers.length} rows`);
  // Positions are reported on the scale of the first chunk, and every row is accounted for.
  assertEquals(capture.start, -4977);
  assertEquals(capture.skippedRows, numbers[0] - 1);
});

Deno.test("capture_pane: chunked reads return what one read of the whole range would", async () => {
  // Lines of 1 to 130 characters in a 40-column pane: many wrap over 2 to 4 rows.
  await using fx = await TmuxFixture.start({ width: 40, height: 10, command: "sleep 100000" });
  await fx.tmux("set-option", "-g", "history-limit", "20000");
  await fx.tmux(
    "new-window",
    "-d",
    `sh -c 'i=0; while [ $i -lt 3000 ]; do printf "%0$((i % 130 + 1))d\\n" $i; i=$((i+1)); done; exec sleep 100000'`,
  );
  const paneId = await fx.display(":1", "#{pane_id}");
  assert(
    await eventually(async () =>
      (await fx.tmux("capture-pane", "-p", "-t", paneId)).includes("2999")
    ),
  );
  const { client, close } = await session(fx);
  try {
    const cases: Array<Record<string, number | boolean>> = [
      { start: -100_000, maxLines: 5000, maxBytes: 262_144 },
      { start: -100_000, maxLines: 3000, maxBytes: 100_000, joinWrapped: true },
      { start: -100_000, maxLines: 700, joinWrapped: true },
      { start: -5000, end: -100, maxBytes: 30_000, maxLines: 100_000 },
      { start: -5000, end: -100, maxBytes: 30_000, maxLines: 100_000, joinWrapped: true },
      { start: -2000, maxBytes: 777, joinWrapped: true },
      { start: -9000, end: 4, maxLines: 1000 },
    ];
    for (const args of cases) {
      const c = await ok<Capture>(client, "capture_pane", { paneId, ...args });
      // The previous design: one read of the newest rows the limits allow, bounded afterwards.
      const lines = Number(args.maxLines ?? 200);
      const bytes = Number(args.maxBytes ?? 65_536);
      const maxRows = Math.min(args.joinWrapped ? lines * 4 : lines, bytes + 1);
      const top = Number(args.start);
      const requested = args.end !== undefined
        ? Math.max(top, Number(args.end) - maxRows + 1)
        : Math.max(top, -maxRows);
      const argv = ["capture-pane", "-p", "-t", paneId, "-S", String(requested)];
      if (args.end !== undefined) argv.push("-E", String(args.end));
      if (args.joinWrapped) argv.push("-J");
      const whole = boundText((await fx.tmux(...argv)).replace(/\n+$/, ""), lines, bytes);
      const label = JSON.stringify(args);
      assertEquals(c.text, whole.text, label);
      assertEquals(c.truncated, whole.truncated || requested > c.start, label);
      if (!args.joinWrapped) {
        assertEquals(c.truncatedLines ?? 0, whole.truncatedLines + requested - c.start, label);
      }
    }
  } finally {
    await close();
  }
});
