/**
 * One heavy agent pattern over one long logical line (issue 29, item 10; docs/design.md §7.7
 * rule 10): matched in a pattern worker, so other calls are served meanwhile, with the positions
 * the main thread would find.
 */
import { RE2JS } from "re2js";
import { assert, assertEquals, assertMatch } from "../support/assert.ts";
import { call, connectStdio, MAIN, ok, sessionsOnOneHost } from "../support/client.ts";
import { eventually, TmuxFixture } from "../support/fixture.ts";
import { ToolError } from "../../src/errors.ts";
import { firstMatch } from "../../src/pattern/find.ts";
import { matchInWorker, WORKER_LIMITS, workerStats } from "../../src/pattern/pool.ts";
import { compilePattern } from "../../src/pattern/compile.ts";
import { buildWorker, workerModule } from "../../scripts/pattern_worker.ts";

/** 805 RE2 instructions; over a long run of letters the NFA keeps ~200 threads per character. */
const HEAVY = "[a-z]{1,200}@[a-z]{1,200}\\.com";

/** A pane that prints one 200,000-character line ending in the match when it reads Enter. */
const LONG_LINE = "read x; printf '%0200000d' 0 | tr 0 a; printf '@y.com\\n'; exec cat";

const forever = { signal: new AbortController().signal, deadline: Infinity };

Deno.test("a cheap call made while a heavy pattern scans a 200,000-character line is answered first", async () => {
  await using fx = await TmuxFixture.start({ command: LONG_LINE, width: 1000, height: 50 });
  const { host, sessions } = await sessionsOnOneHost(["-S", fx.socket], 1);
  const { client } = sessions[0];
  try {
    const cursor = await printed(fx, client, "@y.com");
    const before = workerStats().answered;
    const order: string[] = [];
    const wait = call(client, "wait_for_text", {
      paneId: "%0",
      cursor,
      patterns: [HEAVY],
      regex: true,
      timeoutMs: 120_000,
    }).then((r) => {
      order.push("wait_for_text");
      return r;
    });
    // The scan is under way in a worker and the event loop still turns: before the fix the
    // scan held the loop from start to end, so this was never seen.
    assert(await eventually(() => workerStats().running > 0), "seen while matching");
    const listed = await ok<{ panes: unknown[] }>(client, "list_panes", {});
    order.push("list_panes");
    const result = await wait;
    assert(!result.isError, JSON.stringify(result.content).slice(0, 300));
    const found = result.structuredContent as { outcome: string; matchedLine: string };
    assertEquals(found.outcome, "matched");
    assertMatch(found.matchedLine, /a@y\.com$/);
    assert(listed.panes.length >= 1);
    assert(workerStats().answered > before);
    assertEquals(order, ["list_panes", "wait_for_text"]);
  } finally {
    for (const s of sessions) await s.close();
    await host.close();
  }
});

/** Follow %0, press Enter (the pane's `read`), and wait until tmux shows `marker`. */
async function printed(fx: TmuxFixture, client: Parameters<typeof ok>[0], marker: string) {
  const { cursor } = await ok<{ cursor: string }>(client, "capture_since", { paneId: "%0" });
  await fx.tmux("send-keys", "-t", "%0", "Enter");
  assert(
    await eventually(async () =>
      (await fx.tmux("capture-pane", "-p", "-J", "-S", "-300", "-t", "%0")).includes(marker)
    ),
  );
  return cursor;
}

interface Waited {
  outcome: string;
  matchedLine: string | null;
  cursor: string;
}

Deno.test("long lines matched in workers are reported in order, and a wait's cursor misses none", async () => {
  const lines = ["one", "two MARK", "three MARK"].map((tail) =>
    `printf '%030000d ${tail}\\n' 0 | tr 0 a;`
  );
  const command = `read x; ${lines.join(" ")} printf 'END\\n'; exec cat`;
  await using fx = await TmuxFixture.start({ command, width: 1000, height: 50 });
  const { host, sessions } = await sessionsOnOneHost(["-S", fx.socket], 1);
  const { client } = sessions[0];
  try {
    const cursor = await printed(fx, client, "END");
    const answered = workerStats().answered;
    const args = { paneId: "%0", patterns: ["a{1,90} [a-z]+ MARK$"], regex: true };
    const first = await ok<Waited>(client, "wait_for_text", { ...args, cursor });
    assertEquals(first.outcome, "matched");
    assertMatch(first.matchedLine!, / two MARK$/);
    const second = await ok<Waited>(client, "wait_for_text", { ...args, cursor: first.cursor });
    assertEquals(second.outcome, "matched");
    assertMatch(second.matchedLine!, / three MARK$/);
    assert(workerStats().answered >= answered + 3, "the lines went to a worker");
  } finally {
    for (const s of sessions) await s.close();
    await host.close();
  }
});

Deno.test("a wait whose time runs out while a worker scans a line leaves its cursor above it", async () => {
  await using fx = await TmuxFixture.start({ command: LONG_LINE, width: 1000, height: 50 });
  const { host, sessions } = await sessionsOnOneHost(["-S", fx.socket], 1);
  const { client } = sessions[0];
  try {
    const cursor = await printed(fx, client, "@y.com");
    const args = { paneId: "%0", patterns: [HEAVY], regex: true };
    // The scan takes seconds (4-8 s on a busy 2-core machine); the wait gives it 200 ms.
    const cut = await ok<Waited>(client, "wait_for_text", { ...args, cursor, timeoutMs: 200 });
    assertEquals(cut.outcome, "timeout");
    // The line cut short is matched again from that cursor (a cheap pattern: it is not skipped).
    const again = await ok<Waited>(client, "wait_for_text", {
      ...args,
      patterns: ["a@y\\.com$"],
      cursor: cut.cursor,
      timeoutMs: 120_000,
    });
    assertEquals(again.outcome, "matched");
    assertMatch(again.matchedLine!, /a@y\.com$/);
  } finally {
    for (const s of sessions) await s.close();
    await host.close();
  }
});

Deno.test("worker matching answers the positions of in-thread matching", async () => {
  const pad = "x".repeat(40_000);
  const cases: [string, number, string][] = [
    ["^abc", 0, "abc " + pad],
    ["^abc", 0, pad + " abc"],
    ["abc$", 0, pad + " abc"],
    ["abc$", 0, "abc " + pad],
    ["\\bword\\b", 0, pad + "sword word"],
    ["\\bword\\b", 0, pad + "swords"],
    ["error: [0-9]+", RE2JS.CASE_INSENSITIVE, pad + " ERROR: 42"],
    ["error", 0, pad + " ERROR"],
    ["z", 0, pad + "z"],
    ["é+$", 0, "😀".repeat(20_000) + "éé"],
    [RE2JS.quote("a.b"), 0, pad + "a.b"],
    [HEAVY, 0, "q".repeat(5_000) + "@y.com tail"],
  ];
  for (const [source, flags, line] of cases) {
    const here = firstMatch(RE2JS.compile(source, flags), line, true);
    assertEquals(await matchInWorker(source, flags, line, forever), here, `${source} ${flags}`);
  }
  // compilePattern hands such a line to a worker and cuts nothing from the answer.
  const answered = workerStats().answered;
  const find = compilePattern("\\bWORD\\b", { regex: true, ignoreCase: true });
  const line = pad.repeat(2) + " word!";
  assertEquals(await find(line, forever), line.length - 5);
  assertEquals(await find(pad.repeat(2), forever), -1);
  assertEquals(workerStats().answered, answered + 2);
  // A short line and a case-sensitive literal stay in this thread, answered at once.
  assertEquals(find("a word", forever), 0);
  assertEquals(
    compilePattern("word", { regex: false, ignoreCase: false })(line, forever),
    line.length - 5,
  );
});

Deno.test("a job given up (cancelled or late) ends its worker, and the next job is matched afresh", async () => {
  const line = "a".repeat(200_000) + "@y.com";
  const terminated = workerStats().terminated;
  const abort = new AbortController();
  const cancelled = matchInWorker(HEAVY, 0, line, { signal: abort.signal, deadline: Infinity });
  assert(await eventually(() => workerStats().running === 1));
  abort.abort();
  const error = await cancelled.then(() => undefined, (e) => e);
  assert(error instanceof ToolError && error.code === "cancelled", String(error));
  assertEquals(workerStats().running, 0);
  assertEquals(workerStats().terminated, terminated + 1);

  const late = await matchInWorker(HEAVY, 0, line, {
    signal: forever.signal,
    deadline: Date.now() + 50,
  }).then(() => undefined, (e) => e);
  assert(late instanceof ToolError && late.code === "timeout", String(late));
  assertEquals(workerStats().running, 0);

  assertEquals(await matchInWorker("@y\\.com$", 0, line, forever), 200_000);
});

Deno.test("long lines waiting for a worker are bounded: past the queue a match is busy", async () => {
  const line = "a".repeat(200_000) + "@y.com";
  const abort = new AbortController();
  const bounds = { signal: abort.signal, deadline: Infinity };
  const jobs: Promise<unknown>[] = [];
  for (let i = 0; i < WORKER_LIMITS.workers + WORKER_LIMITS.queued; i++) {
    jobs.push(matchInWorker(HEAVY, 0, line, bounds).catch((e) => e));
  }
  const refused = await matchInWorker(HEAVY, 0, line, bounds).then(() => undefined, (e) => e);
  assert(refused instanceof ToolError && refused.code === "busy", String(refused));
  abort.abort();
  const ended = await Promise.all(jobs);
  assert(ended.every((e) => e instanceof ToolError && e.code === "cancelled"));
  const stats = workerStats();
  assertEquals([stats.running, stats.queued], [0, 0]);
});

Deno.test("a cancelled wait_for_text leaves no worker busy", async () => {
  await using fx = await TmuxFixture.start({ command: LONG_LINE, width: 1000, height: 50 });
  const { host, sessions } = await sessionsOnOneHost(["-S", fx.socket], 1);
  const { client } = sessions[0];
  try {
    const cursor = await printed(fx, client, "@y.com");
    const terminated = workerStats().terminated;
    const abort = new AbortController();
    const wait = client.callTool(
      {
        name: "wait_for_text",
        arguments: { paneId: "%0", cursor, patterns: [HEAVY], regex: true, timeoutMs: 120_000 },
      },
      undefined,
      { signal: abort.signal },
    ).catch((e) => e);
    assert(await eventually(() => workerStats().running > 0));
    abort.abort();
    await wait;
    assert(await eventually(() => workerStats().running === 0 && workerStats().queued === 0));
    assert(workerStats().terminated > terminated);
  } finally {
    for (const s of sessions) await s.close();
    await host.close();
  }
});

Deno.test("the bundle of main.ts, under the start permissions alone, matches a long line in a worker", async () => {
  await using fx = await TmuxFixture.start({ command: LONG_LINE, width: 1000, height: 50 });
  await fx.tmux("send-keys", "-t", "%0", "Enter");
  assert(
    await eventually(async () =>
      (await fx.tmux("capture-pane", "-p", "-t", "%0")).includes("@y.com")
    ),
  );
  const out = `${fx.dir}/tmux-mcp.js`;
  const bundled = await new Deno.Command(Deno.execPath(), {
    args: ["bundle", "--quiet", "--output", out, MAIN],
    stdout: "null",
    stderr: "piped",
  }).output();
  assert(bundled.success, new TextDecoder().decode(bundled.stderr));
  // No --allow-read: a worker loaded from a file would fail here; the blob URL needs none.
  const { client, close } = await connectStdio(["-S", fx.socket], {}, out);
  try {
    // 200,006 characters times the pattern's instructions is far past the in-thread budget.
    const found = await ok<{ matches: { paneId: string; text: string }[] }>(
      client,
      "search_panes",
      { pattern: "a@y\\.com$", regex: true, scrollbackLines: 300 },
    );
    assertEquals(found.matches.length, 1, JSON.stringify(found).slice(0, 300));
    assertMatch(found.matches[0].text, /a@y\.com$/);
  } finally {
    await close();
  }
});

Deno.test("src/generated/pattern_worker_js.ts is the bundle of its source", async () => {
  const committed = await Deno.readTextFile(
    new URL("../../src/generated/pattern_worker_js.ts", import.meta.url),
  );
  assert(
    committed === workerModule(await buildWorker()),
    "stale: run `deno run -A scripts/pattern_worker.ts`",
  );
});
