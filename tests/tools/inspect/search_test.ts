/** search_panes against real panes, and the many-pane capture beneath it. */
import { assert, assertEquals } from "../../support/assert.ts";
import { connectInProcess, fails, ok } from "../../support/client.ts";
import {
  cleanEnv,
  contextFor,
  eventually,
  LIVENESS_MS,
  TmuxFixture,
} from "../../support/fixture.ts";
import { TmuxRunner } from "../../../src/tmux/core/runner.ts";
import { captureMany } from "../../../src/tmux/read/capture_many.ts";

interface Match {
  paneId: string;
  sessionName: string;
  windowIndex: number;
  windowName: string;
  line: number;
  lineNumber: number;
  text: string;
}
interface Result {
  matches: Match[];
  panesSearched: number;
  panesMatched: number;
  /** Present only when not 0 or true (lean results, docs/design.md §3.1). */
  panesFailed?: number;
  paneLimitClamped?: boolean;
  lineLimitClamped?: boolean;
  byteLimitClamped?: boolean;
  timeLimitClamped?: boolean;
  historyLinesLeft?: number;
}

async function printed(fx: TmuxFixture, target: string, needle: string): Promise<void> {
  assert(
    await eventually(async () =>
      (await fx.tmux("capture-pane", "-p", "-J", "-S", "-", "-t", target)).includes(needle)
    ),
    `pane ${target} printed ${needle}`,
  );
}

Deno.test("search_panes: literal matches with pane, window and line number", async () => {
  await using fx = await TmuxFixture.start({
    session: "alpha",
    command: `sh -c 'printf "one\\nneedle here\\nthree\\nNEEDLE loud\\n"; exec sleep 100000'`,
  });
  await fx.tmux(
    "new-window",
    "-d",
    "-t",
    "=alpha:3",
    "-n",
    "logs",
    "sh -c 'echo a needle; exec sleep 100000'",
  );
  await fx.tmux(
    "new-session",
    "-d",
    "-s",
    "alp",
    "sh -c 'echo needle elsewhere; exec sleep 100000'",
  );
  await printed(fx, "=alpha:0", "loud");
  await printed(fx, "=alpha:3", "a needle");
  await printed(fx, "=alp:", "elsewhere");
  // A fixed name: automatic-rename would change it from sh to sleep at a moment of its choosing.
  await fx.tmux("rename-window", "-t", "=alpha:0", "first");
  const { client, close } = await connectInProcess(["-S", fx.socket]);
  try {
    const all = await ok<Result>(client, "search_panes", { pattern: "needle" });
    assertEquals(all.panesSearched, 3);
    assertEquals(all.panesMatched, 3);
    const alpha0 = await fx.display("=alpha:0", "#{pane_id}");
    assertEquals(all.matches.find((m) => m.paneId === alpha0), {
      paneId: alpha0,
      sessionName: "alpha",
      windowIndex: 0,
      windowName: await fx.display("=alpha:0", "#{window_name}"),
      line: 1,
      lineNumber: 2,
      text: "needle here",
    });
    const logs = all.matches.find((m) => m.windowName === "logs")!;
    assertEquals([logs.windowIndex, logs.lineNumber, logs.text], [3, 1, "a needle"]);

    const loud = await ok<Result>(client, "search_panes", {
      pattern: "needle",
      ignoreCase: true,
      session: "alpha",
    });
    assertEquals(loud.matches.map((m) => m.text), ["needle here", "NEEDLE loud", "a needle"]);
    assertEquals(loud.panesSearched, 2); // "alp" is not "alpha"
    const exact = await ok<Result>(client, "search_panes", { pattern: "needle", session: "alp" });
    assertEquals(exact.matches.map((m) => m.text), ["needle elsewhere"]);
    assertEquals(
      (await fails(client, "search_panes", { pattern: "x", session: "al" })).code,
      "target_not_found",
    );
    const none = await ok<Result>(client, "search_panes", { pattern: "absent-text" });
    assertEquals([none.matches.length, none.panesSearched], [0, 3]);
  } finally {
    await close();
  }
});

Deno.test("search_panes: scrollback, per-pane cap, RE2 syntax and its refusals", async () => {
  await using fx = await TmuxFixture.start({ command: "sleep 100000" });
  await fx.tmux("set-option", "-g", "history-limit", "10000");
  await fx.tmux("new-window", "-d", "sh -c 'seq 1 5000; exec sleep 100000'");
  await printed(fx, ":1", "5000");
  const { client, close } = await connectInProcess(["-S", fx.socket]);
  try {
    const screenOnly = await ok<Result>(client, "search_panes", {
      pattern: "4900",
      scrollbackLines: 0,
    });
    assertEquals(screenOnly.matches.length, 0); // 4900 scrolled off the 24-row screen
    const history = Number(await fx.display(":1", "#{history_size}"));
    assertEquals(screenOnly.historyLinesLeft, history, "the history it did not search, counted");
    // By default the whole history is searched.
    const whole = await ok<Result>(client, "search_panes", { pattern: "4900" });
    assertEquals(whole.matches.map((m) => [m.text, m.lineNumber]), [["4900", 4900]]);
    assertEquals([whole.historyLinesLeft, whole.lineLimitClamped ?? false], [undefined, false]);
    const deeper = await ok<Result>(client, "search_panes", {
      pattern: "4900",
      scrollbackLines: 200,
    });
    // 200 history lines above the screen: line 1 is 4778, so 4900 is line 123.
    assertEquals(deeper.matches.map((m) => [m.text, m.lineNumber]), [["4900", 123]]);
    const regex = await ok<Result>(client, "search_panes", {
      pattern: "^49[0-9]{2}$",
      regex: true,
      scrollbackLines: 200,
    });
    // The newest five, in the pane's order.
    assertEquals(regex.matches.map((m) => m.text), ["4995", "4996", "4997", "4998", "4999"]);
    const capped = await ok<Result>(client, "search_panes", {
      pattern: "^49[0-9]{2}$",
      regex: true,
      scrollbackLines: 200,
      maxMatchesPerPane: 2,
    });
    assertEquals(capped.matches.length, 2);
    // Literal by default: regex metacharacters are text.
    assertEquals((await ok<Result>(client, "search_panes", { pattern: "^49" })).matches, []);
    for (
      const args of [
        { pattern: "" },
        { pattern: "x".repeat(4097) },
        { pattern: "(?<=x)y", regex: true },
        { pattern: "(a)\\1", regex: true },
        { pattern: "x", maxMatchesPerPane: 0 },
        { pattern: "x", scrollbackLines: -1 },
      ]
    ) {
      assertEquals(
        (await fails(client, "search_panes", args)).code,
        "invalid_arguments",
        JSON.stringify(args).slice(0, 60),
      );
    }
  } finally {
    await close();
  }
});

Deno.test("search_panes: what scrolled away is found without being asked for, and the screen's match is kept", async () => {
  // Ten old hits scroll into the history under 100 filler lines; one new hit is on the screen.
  const script = "seq -f 'old-needle-%g' 0 9; " +
    "seq -f 'filler %g' 1 100; echo gone-away; seq -f 'filler %g' 101 130; " +
    "echo new-needle; exec sleep 100000";
  await using fx = await TmuxFixture.start({ command: `sh -c "${script}"`, height: 24 });
  await fx.tmux("new-window", "-d", "sh -c 'echo other pane; exec sleep 100000'");
  await printed(fx, "%0", "new-needle");
  await printed(fx, ":1", "other pane");
  const { client, close } = await connectInProcess(["-S", fx.socket]);
  try {
    const gone = await ok<Result>(client, "search_panes", { pattern: "gone-away" });
    assertEquals(gone.matches.map((m) => [m.paneId, m.text]), [["%0", "gone-away"]]);
    assert(gone.matches[0].line < 0, `in the history: ${gone.matches[0].line}`);
    assertEquals(gone.panesSearched, 2);
    // Eleven hits, five kept: the newest, so the one on the screen is among them.
    const needles = await ok<Result>(client, "search_panes", { pattern: "needle" });
    assertEquals(needles.matches.map((m) => m.text), [
      "old-needle-6",
      "old-needle-7",
      "old-needle-8",
      "old-needle-9",
      "new-needle",
    ]);
    assert(needles.matches[4].line >= 0, "new-needle is on the screen");
    // Screens only, when asked: the history left out is counted.
    const screens = await ok<Result>(client, "search_panes", {
      pattern: "needle",
      scrollbackLines: 0,
    });
    assertEquals(screens.matches.map((m) => m.text), ["new-needle"]);
    const history = Number(await fx.display("%0", "#{history_size}"));
    assert(history > 100, `${history} rows of history`);
    assertEquals(screens.historyLinesLeft, history);
  } finally {
    await close();
  }
});

Deno.test("search_panes: hostile patterns are only text; a catastrophic regex answers", async () => {
  const marker = "/tmp/tmux-mcp-test-search-FILE";
  await Deno.remove(marker).catch(() => {});
  const long = "x".repeat(3000);
  await using fx = await TmuxFixture.start({
    width: 200,
    command:
      `sh -c 'echo "run #(touch ${marker}) and #{pane_id}"; echo ${long}; exec sleep 100000'`,
  });
  await printed(fx, "%0", "#{pane_id}");
  const { client, close } = await connectInProcess(["-S", fx.socket]);
  try {
    const job = await ok<Result>(client, "search_panes", { pattern: `#(touch ${marker})` });
    assertEquals(job.matches.map((m) => m.text), [`run #(touch ${marker}) and #{pane_id}`]);
    const format = await ok<Result>(client, "search_panes", { pattern: "#{pane_id}" });
    assertEquals(format.matches.length, 1);
    assertEquals(await Deno.stat(marker).then(() => true, () => false), false);
    // Exponential for a backtracking engine; linear for RE2.
    const evil = await ok<Result>(client, "search_panes", { pattern: "(x+x+)+y", regex: true });
    assertEquals([evil.matches.length, evil.timeLimitClamped ?? false], [0, false]);
    const hit = await ok<Result>(client, "search_panes", { pattern: "(x+x+)+", regex: true });
    assertEquals(hit.matches[0].text.length, 1024); // a long line is cut around the match
  } finally {
    await close();
  }
});

Deno.test("search_panes: line and byte ceilings are reported", async () => {
  await using fx = await TmuxFixture.start({ command: "sleep 100000" });
  await fx.tmux("set-option", "-g", "history-limit", "12000");
  for (let i = 1; i <= 5; i++) {
    await fx.tmux("new-window", "-d", "sh -c 'seq 1 6000; exec sleep 100000'");
  }
  // 400 lines of 1000 characters: joined, each is one long match.
  await fx.tmux(
    "new-session",
    "-d",
    "-s",
    "bytes",
    `sh -c 'i=0; while [ $i -lt 400 ]; do printf "%01000d\\n" $i; i=$((i+1)); done; exec sleep 100000'`,
  );
  for (let i = 1; i <= 5; i++) await printed(fx, `=main:${i}`, "6000");
  await printed(fx, "=bytes:", "0399");
  const { client, close } = await connectInProcess(["-S", fx.socket]);
  try {
    const lines = await ok<Result>(client, "search_panes", {
      pattern: "5999",
      scrollbackLines: 6000,
    });
    assertEquals(lines.lineLimitClamped, true);
    assertEquals([lines.paneLimitClamped ?? false, lines.byteLimitClamped ?? false], [
      false,
      false,
    ]);
    assert(lines.matches.length >= 3, "the panes within the budget were searched");
    const bytes = await ok<Result>(client, "search_panes", {
      pattern: "0",
      scrollbackLines: 12000,
      maxMatchesPerPane: 1000,
      session: "bytes",
    });
    assert(bytes.byteLimitClamped, "256 KiB of matched text reached");
    const total = bytes.matches.reduce((n, m) => n + new TextEncoder().encode(m.text).length, 0);
    assert(total <= 262_144, `matched text ${total} bytes`);
  } finally {
    await close();
  }
});

Deno.test("captureMany: one invocation for many panes; a vanished pane fails alone", async () => {
  await using fx = await TmuxFixture.start({
    command: "sh -c 'echo pane zero; exec sleep 100000'",
  });
  for (let i = 1; i <= 30; i++) {
    await fx.tmux("new-window", "-d", `sh -c 'echo pane ${i}; exec sleep 100000'`);
  }
  await printed(fx, ":30", "pane 30");
  const runner = new TmuxRunner({
    socket: { kind: "path", path: fx.socket },
    env: (n) => cleanEnv()[n],
  });
  let spawns = 0;
  const original = runner.runPartial.bind(runner);
  runner.runPartial = (...args) => {
    spawns++;
    return original(...args);
  };
  const ctx = contextFor(runner);
  const ids = (await fx.tmux("list-panes", "-a", "-F", "#{pane_id}")).trim().split("\n");
  const items = ids.map((paneId) => ({ paneId, historyRows: 0 }));
  const all = await captureMany(ctx, items, { deadline: Date.now() + LIVENESS_MS });
  assertEquals(spawns, 1);
  assertEquals(all.texts.size, 31);
  assertEquals(all.texts.get(ids[7])!.split("\n")[0], "pane 7");

  items.splice(10, 0, { paneId: "%9999", historyRows: 0 });
  const gap = await captureMany(ctx, items, { deadline: Date.now() + LIVENESS_MS });
  assertEquals(gap.failed, ["%9999"]);
  assertEquals(gap.texts.size, 31);
  assertEquals(gap.texts.get(ids[10])!.split("\n")[0], "pane 10");

  const late = await captureMany(ctx, items, { deadline: Date.now() - 1 });
  assertEquals([late.timedOut, late.texts.size], [true, 0]);
});

Deno.test("search_panes: more than 200 panes is clamped and says so", async () => {
  await using fx = await TmuxFixture.start({ command: "sleep 100000" });
  // 200 more windows in one tmux invocation (commands separated by a bare ";").
  const commands = Array.from({ length: 200 }, () => ["new-window", "-d", "sleep 100000"]);
  await fx.tmux(...commands.flatMap((c, i) => (i === 0 ? c : [";", ...c])));
  const { client, close } = await connectInProcess(["-S", fx.socket]);
  try {
    const result = await ok<Result>(client, "search_panes", { pattern: "no-such-text" });
    assertEquals([result.paneLimitClamped, result.panesSearched], [true, 200]);
    assertEquals([result.lineLimitClamped ?? false, result.timeLimitClamped ?? false], [
      false,
      false,
    ]);
  } finally {
    await close();
  }
});

Deno.test("search_panes: a pattern that compiles too large is refused before any line is matched", async () => {
  await using fx = await TmuxFixture.start({
    width: 200,
    command: `sh -c 'seq -f "%0190g" 1 8 | tr 0-9 x; exec sleep 100000'`,
  });
  await printed(fx, "%0", "x".repeat(190));
  const { client, close } = await connectInProcess(["-S", fx.socket]);
  try {
    // The issue's pattern: 1,862 instructions, ~50 ms per 200-column row for RE2's NFA.
    const refused = await fails(client, "search_panes", {
      pattern: "(x{1,30}){1,30}y",
      regex: true,
    });
    assertEquals(refused.code, "invalid_arguments");
    assert(/repetition/.test(refused.text), refused.text);
    // Refused, not matched: a search that matched would end at its time budget with a result
    // (timeLimitClamped), not with invalid_arguments.
    // Ordinary patterns, even with counted repetition, fit the bound.
    for (
      const pattern of [
        "[a-z]{1,64}@[a-z]{1,64}\\.com",
        "\\w{1,100}",
        "foo.{0,200}bar",
        "[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}",
      ]
    ) {
      await ok<Result>(client, "search_panes", { pattern, regex: true });
    }
    // A case-sensitive literal never compiles, so only the schema bounds its length.
    const literal = await ok<Result>(client, "search_panes", { pattern: "x".repeat(4096) });
    assertEquals(literal.matches, []);
  } finally {
    await close();
  }
});

Deno.test("search_panes: a long search stops at its 5 s budget and other calls answer meanwhile", async () => {
  await using fx = await TmuxFixture.start({ width: 200, command: "sleep 100000" });
  await fx.tmux("set-option", "-g", "history-limit", "5000");
  // 2,000 rows of 190 x's; the pattern below costs the NFA 10–20 ms per row (20–40 s in all).
  await fx.tmux(
    "new-window",
    "-d",
    `sh -c 'seq -f "%0190g" 1 2000 | tr 0-9 x; exec sleep 100000'`,
  );
  assert(
    await eventually(async () => Number(await fx.display(":1", "#{history_size}")) >= 1977),
    "the pane printed its rows",
  );
  const { client, close } = await connectInProcess(["-S", fx.socket]);
  try {
    let settled = false;
    // `\B` keeps RE2 off its DFA, so every row goes through the NFA; ~850 instructions.
    const search = ok<Result>(client, "search_panes", {
      pattern: "\\B(x{1,20}){1,20}y",
      regex: true,
      scrollbackLines: 2000,
    }).finally(() => settled = true);
    // Should an assertion below fail first, closing the client rejects it: not an uncaught error.
    search.catch(() => {});
    // Asked at once, with no pause for the search to get going: it lists and captures for a few
    // milliseconds, then matches for its whole 5 s budget, during which a search that held the
    // event loop would answer nothing. `!settled` is the proof (no bound on time).
    await client.listTools();
    const sessions = await ok<{ sessions: unknown[] }>(client, "list_sessions");
    assert(!settled, "the search was still running");
    assertEquals(sessions.sessions.length, 1);
    // It stopped at its budget (20–40 s of matching otherwise), and said so.
    const result = await search;
    assertEquals(result.timeLimitClamped, true);
    assertEquals(result.matches, []);
  } finally {
    await close();
  }
});
