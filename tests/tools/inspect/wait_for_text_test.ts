/** wait_for_text and capture_since's quietMs, against real tmux through a real MCP client. */
import { assert, assertEquals } from "../../support/assert.ts";
import type { Client } from "@modelcontextprotocol/sdk/client";
import {
  answeredWhileWaiting,
  connectInProcess,
  connectStdio,
  fails,
  ok,
} from "../../support/client.ts";
import { eventually, TmuxFixture } from "../../support/fixture.ts";

/** A wait's result; what only restates a default is left out (docs/design.md §3.1). */
interface Waited {
  outcome: string;
  truncatedLines?: number;
  matchedLine?: string;
  patternIndex?: number;
  matchedAtEntry?: boolean;
  text: string;
  truncated?: boolean;
  cursor?: string;
  paneId: string;
  generation: string;
  streaming?: boolean;
  missedRows?: number;
  elapsedMs: number;
  timeoutMs?: number;
  timeoutClamped?: boolean;
  note?: string;
}

interface Since {
  text: string;
  cursor?: string;
  outcome: string;
  elapsedMs: number;
}

/** A bash with a plain `$ ` prompt and no start files: what is typed is echoed, as anywhere. */
const SHELL = "env -i PATH=/usr/bin:/bin TERM=screen PS1='$ ' bash --norc --noprofile";

/**
 * Make %0 run `script` once the returned function is called (no echo, no prompt: the pane waits
 * for a flag file in the fixture's directory).
 */
async function program(fx: TmuxFixture, script: string): Promise<() => Promise<void>> {
  const flag = `${fx.dir}/go`;
  await fx.tmux(
    "respawn-pane",
    "-k",
    "-t",
    "%0",
    `sh -c 'while [ ! -e ${flag} ]; do sleep 0.02; done; ${script}; exec sleep 100000'`,
  );
  return () => Deno.writeTextFile(flag, "");
}

/** The cursor of a first capture_since of `paneId`. */
async function cursorOf(client: Client, paneId: string): Promise<string> {
  const first = await ok<Since>(client, "capture_since", { paneId });
  return first.cursor!;
}

/** Wait until tmux shows `text` somewhere on the pane's screen. */
async function shown(fx: TmuxFixture, paneId: string, text: string): Promise<void> {
  assert(
    await eventually(async () =>
      (await fx.tmux("capture-pane", "-p", "-t", paneId)).includes(text)
    ),
    `${paneId} shows ${text}`,
  );
}

Deno.test("wait_for_text: a line printed after the call matches; the echoed command line is the trap", async () => {
  await using fx = await TmuxFixture.start({ command: SHELL });
  await shown(fx, "%0", "$");
  const { client, close, built } = await connectInProcess(["-S", fx.socket]);
  try {
    // The trap: the typed command line itself contains the pattern, and is echoed at once.
    let cursor = await cursorOf(client, "%0");
    await fx.tmux("send-keys", "-t", "%0", "-l", "sleep 0.5; echo BUILD-OK");
    await fx.tmux("send-keys", "-t", "%0", "Enter");
    const trapped = await ok<Waited>(client, "wait_for_text", {
      paneId: "%0",
      patterns: ["BUILD-OK"],
      cursor,
      timeoutMs: 5000,
    });
    assertEquals([trapped.outcome, trapped.matchedLine], ["matched", "$ sleep 0.5; echo BUILD-OK"]);
    await shown(fx, "%0", "\nBUILD-OK");

    // The fix: a pattern the command line does not contain.
    cursor = await cursorOf(client, "%0");
    // The wait begins before the command is typed, so the sleep is a true lower bound.
    const fixing = ok<Waited>(client, "wait_for_text", {
      paneId: "%0",
      patterns: ["nothing like this", "BUILD-1-OK"],
      cursor,
      timeoutMs: 30_000,
    });
    assert(await eventually(() => built.live!.stats().waiters === 1, 20_000), "waiting");
    await fx.tmux("send-keys", "-t", "%0", "-l", "sleep 0.3; echo BUILD-$((1))-OK");
    await fx.tmux("send-keys", "-t", "%0", "Enter");
    const fixed = await fixing;
    assertEquals(
      [fixed.outcome, fixed.matchedLine, fixed.patternIndex, fixed.matchedAtEntry ?? false],
      ["matched", "BUILD-1-OK", 1, false],
    );
    assert(fixed.elapsedMs >= 250, `woke after the sleep (${fixed.elapsedMs} ms)`);
    assertEquals(fixed.text, "$ sleep 0.3; echo BUILD-$((1))-OK\nBUILD-1-OK\n");
    assertEquals(
      [fixed.streaming ?? true, fixed.paneId, fixed.timeoutClamped ?? false],
      [true, "%0", false],
    );

    // Without a cursor, what is already on screen does not match unless includeScreen.
    const before = await ok<Waited>(client, "wait_for_text", {
      paneId: "%0",
      patterns: ["BUILD-1-OK"],
      timeoutMs: 300,
    });
    assertEquals(before.outcome, "timeout");
    const atEntry = await ok<Waited>(client, "wait_for_text", {
      paneId: "%0",
      patterns: ["build-1-ok"],
      ignoreCase: true,
      includeScreen: true,
      timeoutMs: 300,
    });
    assertEquals([atEntry.outcome, atEntry.matchedLine, atEntry.matchedAtEntry], [
      "matched",
      "BUILD-1-OK",
      true,
    ]);
    assertEquals(
      (await fails(client, "wait_for_text", {
        paneId: "%0",
        patterns: ["x"],
        cursor: atEntry.cursor,
        includeScreen: true,
      })).code,
      "invalid_arguments",
    );
  } finally {
    await close();
  }
});

Deno.test("wait_for_text: a stop pattern ends the wait as stopped, and wins within one line", async () => {
  await using fx = await TmuxFixture.start();
  const go = await program(fx, "echo step one; sleep 0.2; echo ERROR: step two failed; echo done");
  const { client, close } = await connectInProcess(["-S", fx.socket]);
  try {
    const cursor = await cursorOf(client, "%0");
    await go();
    const result = await ok<Waited>(client, "wait_for_text", {
      paneId: "%0",
      patterns: ["done", "failed"],
      stop: ["warning", "^ERROR:"],
      regex: true,
      cursor,
      timeoutMs: 5000,
    });
    assertEquals([result.outcome, result.matchedLine, result.patternIndex], [
      "stopped",
      "ERROR: step two failed",
      1,
    ]);
    assertEquals(result.text, "step one\nERROR: step two failed\n");
    // The cursor resumes right below the stopping line: "done" is still ahead.
    const next = await ok<Waited>(client, "wait_for_text", {
      paneId: "%0",
      patterns: ["done"],
      cursor: result.cursor,
      timeoutMs: 2000,
    });
    assertEquals([next.outcome, next.text, next.matchedAtEntry], ["matched", "done\n", true]);
  } finally {
    await close();
  }
});

Deno.test("wait_for_text: a timeout takes its whole time and no more; a longer one is clamped", async () => {
  await using fx = await TmuxFixture.start({ command: "cat" });
  const { client, close } = await connectInProcess(["-S", fx.socket, "--wait-max-ms", "1000"]);
  try {
    const cursor = await cursorOf(client, "%0");
    const timeout = await ok<Waited>(client, "wait_for_text", {
      paneId: "%0",
      patterns: ["never"],
      cursor,
      timeoutMs: 600,
    });
    // Not clamped: the timeout asked for is not repeated.
    assertEquals([timeout.outcome, timeout.timeoutMs, timeout.timeoutClamped ?? false], [
      "timeout",
      undefined,
      false,
    ]);
    assert(
      timeout.elapsedMs >= 600 && timeout.elapsedMs < 20_000,
      `waited ${timeout.elapsedMs} ms for 600`,
    );
    assertEquals([timeout.cursor, timeout.text, timeout.matchedLine], [cursor, "", undefined]);
    const started = Date.now();
    const clamped = await ok<Waited>(client, "wait_for_text", {
      paneId: "%0",
      patterns: ["never"],
      cursor,
      timeoutMs: 3_600_000,
    });
    const took = Date.now() - started;
    assertEquals([clamped.outcome, clamped.timeoutMs, clamped.timeoutClamped], [
      "timeout",
      1000,
      true,
    ]);
    // The clamp is what counts: the hour asked would not end within this bound.
    assert(took >= 1000 && took < 20_000, `the clamped wait took ${took} ms`);
  } finally {
    await close();
  }
});

Deno.test("wait_for_text: cancelled mid-wait, it frees its waiter and sends no more progress", async () => {
  await using fx = await TmuxFixture.start({ command: "cat" });
  const { client, close, built } = await connectInProcess(["-S", fx.socket]);
  try {
    const cursor = await cursorOf(client, "%0");
    // Progress while waiting: the elapsed time and the newest line.
    const seen: { progress: number; total?: number; message?: string }[] = [];
    const controller = new AbortController();
    const waiting = client.callTool(
      {
        name: "wait_for_text",
        arguments: { paneId: "%0", patterns: ["never"], cursor, timeoutMs: 20_000 },
      },
      undefined,
      { signal: controller.signal, onprogress: (p) => seen.push(p) },
    );
    assert(await eventually(() => built.live!.stats().waiters === 1, 20_000), "waiting");
    await fx.tmux("send-keys", "-t", "%0", "-l", "compiling foo.c");
    assert(await eventually(() => seen.length >= 2, 20_000), "two progress notifications");
    assert(
      /^waited \d+\.\d s; newest line: compiling foo\.c$/.test(seen[1].message!),
      seen[1].message,
    );
    assertEquals(seen[1].total, 20_000);
    assert(seen[1].progress > seen[0].progress, "progress grows");
    controller.abort();
    await waiting.catch(() => {});
    // Well before its 20 s: the cancellation ended it.
    assert(await eventually(() => built.live!.stats().waiters === 0, 10_000), "the wait ended");
    const count = seen.length;
    // Sentinel: a wait started after the cancellation gets two progress notifications of its own.
    const later: unknown[] = [];
    const stop = new AbortController();
    const sentinel = client.callTool(
      {
        name: "wait_for_text",
        arguments: { paneId: "%0", patterns: ["never"], cursor, timeoutMs: 20_000 },
      },
      undefined,
      { signal: stop.signal, onprogress: (p) => later.push(p) },
    );
    assert(await eventually(() => later.length >= 2, 20_000), "the sentinel's progress");
    stop.abort();
    await sentinel.catch(() => {});
    assertEquals(seen.length, count, "no progress after the cancellation");
    // The stream stays usable: the next call is served.
    const again = await ok<Waited>(client, "wait_for_text", {
      paneId: "%0",
      patterns: ["foo.c"],
      cursor,
      timeoutMs: 500,
    });
    assertEquals([again.outcome, again.matchedLine], ["matched", "compiling foo.c"]);
  } finally {
    await close();
  }
});

Deno.test("wait_for_text: a pane killed mid-wait ends it as pane_died at once", async () => {
  await using fx = await TmuxFixture.start({ command: "cat" });
  await fx.tmux("split-window", "-d", "-t", "%0", "sh -c 'echo working; exec sleep 100000'");
  await fx.tmux("new-session", "-d", "-s", "other", "cat");
  await shown(fx, "%1", "working");
  const { client, close, built } = await connectInProcess(["-S", fx.socket]);
  try {
    // One pane of a window, then the only pane of a session (its control connection ends too).
    for (const [paneId, kill] of [["%1", "%1"], ["%2", "%2"]]) {
      const cursor = await cursorOf(client, paneId);
      const waiting = ok<Waited>(client, "wait_for_text", {
        paneId,
        patterns: ["never"],
        cursor,
        timeoutMs: 30_000,
      });
      assert(await eventually(() => built.live!.stats().waiters === 1, 20_000), "waiting");
      const killed = Date.now();
      await fx.tmux("kill-pane", "-t", kill);
      const died = await waiting;
      const after = Date.now() - killed;
      assertEquals([died.outcome, died.cursor, died.paneId], ["pane_died", undefined, paneId]);
      // Not at its 30 s timeout (well under a second when idle).
      assert(after < 20_000, `pane_died ${after} ms after the kill`);
    }
    // Killed before the call: no such pane is an error, not an outcome.
    assertEquals(
      (await fails(client, "wait_for_text", { paneId: "%1", patterns: ["x"] })).code,
      "target_not_found",
    );
  } finally {
    await close();
  }
});

Deno.test("wait_for_text: the tmux server killed mid-wait is server_gone; the next call is served", async () => {
  await using fx = await TmuxFixture.start({ command: "cat" });
  const { client, close, built } = await connectInProcess(["-S", fx.socket]);
  try {
    const cursor = await cursorOf(client, "%0");
    const waiting = ok<Waited>(client, "wait_for_text", {
      paneId: "%0",
      patterns: ["never"],
      cursor,
      timeoutMs: 30_000,
    });
    assert(await eventually(() => built.live!.stats().waiters === 1, 20_000), "waiting");
    const killed = Date.now();
    await fx.tmux("kill-server");
    const gone = await waiting;
    assertEquals(gone.outcome, "server_gone");
    // Not at its 30 s timeout (well under a second when idle).
    assert(Date.now() - killed < 20_000, "at once");
    const listed = await ok<{ sessions: unknown[]; note?: string }>(client, "list_sessions");
    assertEquals(listed.sessions, []);
    assert(listed.note, "a note says no server runs");
  } finally {
    await close();
  }
});

Deno.test("wait_for_text: three waits over a 3,000-line burst lose and repeat no line", async () => {
  await using fx = await TmuxFixture.start();
  const go = await program(fx, "seq 1 3000");
  const { client, close } = await connectInProcess(["-S", fx.socket], {}, {
    scrollbackRows: 5000,
  });
  try {
    let cursor = await cursorOf(client, "%0");
    await go();
    let all = "";
    for (const target of ["1000", "2000", "3000"]) {
      const waited = await ok<Waited>(client, "wait_for_text", {
        paneId: "%0",
        patterns: [`^${target}$`],
        regex: true,
        cursor,
        maxLines: 5000,
        timeoutMs: 5000,
      });
      assertEquals([waited.outcome, waited.matchedLine, waited.truncated ?? false], [
        "matched",
        target,
        false,
      ]);
      assertEquals(waited.missedRows ?? 0, 0);
      all += waited.text;
      cursor = waited.cursor!;
    }
    const expected = Array.from({ length: 3000 }, (_, i) => `${i + 1}\n`).join("");
    assertEquals(all, expected);
    // Nothing after the last match: a capture_since from that cursor has nothing new.
    const rest = await ok<Since>(client, "capture_since", { paneId: "%0", cursor });
    assertEquals([rest.outcome, rest.text], ["idle", ""]);
  } finally {
    await close();
  }
});

Deno.test("wait_for_text: a line written in two pieces matches once complete; a wrapped line matches whole", async () => {
  await using fx = await TmuxFixture.start({ width: 80 });
  const long = `${"a".repeat(76)}NEEDLE${"b".repeat(60)}`;
  const go = await program(
    fx,
    `printf "BUILD-"; sleep 0.4; printf "DONE\\n"; sleep 0.2; echo ${long}`,
  );
  const { client, close } = await connectInProcess(["-S", fx.socket]);
  try {
    const cursor = await cursorOf(client, "%0");
    await go();
    const split = await ok<Waited>(client, "wait_for_text", {
      paneId: "%0",
      patterns: ["BUILD-DONE"],
      cursor,
      timeoutMs: 5000,
    });
    assertEquals([split.outcome, split.matchedLine, split.text], [
      "matched",
      "BUILD-DONE",
      "BUILD-DONE\n",
    ]);
    assert(split.elapsedMs >= 350, `matched only once complete (${split.elapsedMs} ms)`);
    // NEEDLE spans the wrap at column 80.
    const wrapped = await ok<Waited>(client, "wait_for_text", {
      paneId: "%0",
      patterns: ["aNEEDLEb"],
      cursor: split.cursor,
      timeoutMs: 5000,
    });
    assertEquals([wrapped.outcome, wrapped.matchedLine, wrapped.text], [
      "matched",
      long,
      `${long}\n`,
    ]);
    assertEquals(
      await fx.tmux("capture-pane", "-p", "-t", "%0", "-S", "1", "-E", "2"),
      [
        long.slice(0, 80),
        long.slice(80),
        "",
      ].join("\n"),
    );
  } finally {
    await close();
  }
});

Deno.test("wait_for_text: a readline redraw of the same line does not match twice", async () => {
  await using fx = await TmuxFixture.start({ command: SHELL });
  await shown(fx, "%0", "$");
  const { client, close, built } = await connectInProcess(["-S", fx.socket]);
  try {
    const cursor = await cursorOf(client, "%0");
    await fx.tmux("send-keys", "-t", "%0", "-l", "echo MARK-7");
    const typed = await ok<Waited>(client, "wait_for_text", {
      paneId: "%0",
      patterns: ["MARK-7"],
      cursor,
      timeoutMs: 5000,
    });
    assertEquals([typed.outcome, typed.matchedLine], ["matched", "$ echo MARK-7"]);
    // C-a, C-e: readline moves the cursor by reprinting the line; its bytes hold MARK-7 again.
    // Then Enter, the sentinel: the output line is new and matches, so the wait ends on it, not
    // on the redraw before it (nor on the command line coming back).
    const waiting = ok<Waited>(client, "wait_for_text", {
      paneId: "%0",
      patterns: ["MARK-7"],
      cursor: typed.cursor,
      timeoutMs: 30_000,
    });
    assert(await eventually(() => built.live!.stats().waiters === 1, 20_000), "waiting");
    await fx.tmux("send-keys", "-t", "%0", "C-a");
    await fx.tmux("send-keys", "-t", "%0", "C-e");
    await fx.tmux("send-keys", "-t", "%0", "Enter");
    const printed = await waiting;
    assertEquals([printed.outcome, printed.matchedLine, printed.text], [
      "matched",
      "MARK-7",
      "MARK-7\n",
    ]);
  } finally {
    await close();
  }
});

Deno.test("wait_for_text: a heavy regex is refused or answered within its time, never stalling the server", async () => {
  await using fx = await TmuxFixture.start({ width: 200 });
  // 2,000 rows of 190 x's; the allowed pattern below costs RE2's NFA 10–20 ms per row.
  const go = await program(fx, `seq -f "%0190g" 1 2000 | tr 0-9 x`);
  const { client, close } = await connectInProcess(["-S", fx.socket], {}, {
    scrollbackRows: 5000,
  });
  try {
    const refused = await fails(client, "wait_for_text", {
      paneId: "%0",
      patterns: ["ok", "(x{1,30}){1,30}y"],
      regex: true,
    });
    assertEquals(refused.code, "invalid_arguments");
    assert(/patterns\[1\] compiles to \d+ RE2 instructions/.test(refused.message), refused.text);
    assert(/repetition/.test(refused.text), refused.text);

    const cursor = await cursorOf(client, "%0");
    await go();
    await shown(fx, "%0", "x".repeat(190));
    const { result } = await answeredWhileWaiting<Waited>(client, "wait_for_text", {
      paneId: "%0",
      // `\B` keeps RE2 off its DFA, so every row goes through the NFA; ~850 instructions.
      patterns: ["\\B(x{1,20}){1,20}y"],
      regex: true,
      cursor,
      timeoutMs: 6000,
      maxLines: 5000,
      maxBytes: 262_144,
    });
    assertEquals(result.outcome, "timeout");
    // Cut inside its rows: the cursor resumes below the last row matched, so none is skipped.
    const rows = (r: { text: string; truncatedLines?: number }) =>
      r.text.split("\n").filter((l) => l !== "").length + (r.truncatedLines ?? 0);
    const matched = rows(result);
    const rest = await ok<Since & { truncatedLines?: number }>(client, "capture_since", {
      paneId: "%0",
      cursor: result.cursor,
      maxLines: 5000,
      maxBytes: 262_144,
    });
    assertEquals(matched + rows(rest), 2000);
  } finally {
    await close();
  }
});

Deno.test("wait_for_text: hostile patterns are only text; they never reach tmux", async () => {
  await using fx = await TmuxFixture.start();
  const canary = `${fx.dir}/canary`;
  const hostile = [`#(touch ${canary})`, "#{pane_id};", "-t", "; kill-server", "\\", "a\0b"];
  const go = await program(fx, `printf "%s\\n" "#{pane_id};"`);
  const { client, close } = await connectInProcess(["-S", fx.socket]);
  try {
    const cursor = await cursorOf(client, "%0");
    await go();
    const waited = await ok<Waited>(client, "wait_for_text", {
      paneId: "%0",
      patterns: hostile,
      cursor,
      timeoutMs: 5000,
    });
    assertEquals([waited.outcome, waited.patternIndex, waited.matchedLine], [
      "matched",
      1,
      "#{pane_id};",
    ]);
    assertEquals(await Deno.stat(canary).then(() => true, () => false), false);
    assertEquals((await fx.tmux("list-panes", "-F", "#{pane_id}")).trim(), "%0");
    // Pattern sizes are bounded: 4 KiB each, 16 KiB in all (UTF-8), refused with a hint.
    const wide = await fails(client, "wait_for_text", {
      paneId: "%0",
      patterns: ["é".repeat(2100)],
    });
    assertEquals(wide.code, "invalid_arguments");
    assert(wide.text.includes("Hint:"), wide.text);
    const many = await fails(client, "wait_for_text", {
      paneId: "%0",
      patterns: Array.from({ length: 5 }, (_, i) => `${i}${"x".repeat(4000)}`),
    });
    assert(/16384/.test(many.message), many.message);
    assert(!many.text.includes("x".repeat(100)), "the patterns are not echoed");
    for (
      const args of [{ patterns: [] }, { patterns: [""] }, {
        patterns: ["x"],
        stop: Array(33).fill("y"),
      }]
    ) {
      assertEquals(
        (await fails(client, "wait_for_text", { paneId: "%0", ...args })).code,
        "invalid_arguments",
      );
    }
  } finally {
    await close();
  }
});

Deno.test("capture_since quietMs: a three-chunk burst in one call; timeout while it goes on", async () => {
  await using fx = await TmuxFixture.start();
  // Gaps of 0.2 s inside the burst, then silence until the test starts the ticks: quietMs is
  // long enough that a busy machine's slow `sleep 0.2` does not look like the burst's end.
  const ticks = `${fx.dir}/ticks`;
  const go = await program(
    fx,
    "echo one; sleep 0.2; echo two; sleep 0.2; echo three; " +
      `until [ -e ${ticks} ]; do sleep 0.05; done; while :; do echo tick; sleep 0.1; done`,
  );
  const { client, close } = await connectInProcess(["-S", fx.socket]);
  try {
    const cursor = await cursorOf(client, "%0");
    await go();
    const burst = await ok<Since>(client, "capture_since", {
      paneId: "%0",
      cursor,
      waitMs: 20_000,
      quietMs: 1500,
    });
    assertEquals([burst.outcome, burst.text], ["quiet", "one\ntwo\nthree\n"]);
    assert(burst.elapsedMs >= 1900 && burst.elapsedMs < 15_000, `took ${burst.elapsedMs} ms`);
    // Output that never pauses: the wait's end cuts it, with what arrived.
    await Deno.writeTextFile(ticks, "");
    await shown(fx, "%0", "tick");
    const busy = await ok<Since>(client, "capture_since", {
      paneId: "%0",
      cursor: burst.cursor,
      waitMs: 3000,
      quietMs: 1500,
    });
    assertEquals(busy.outcome, "timeout");
    assert(/^(tick\n)+/.test(busy.text), busy.text);
    assert(busy.elapsedMs >= 3000 && busy.elapsedMs < 15_000, `took ${busy.elapsedMs} ms`);
    const alone = await fails(client, "capture_since", { paneId: "%0", cursor, quietMs: 100 });
    assertEquals(alone.code, "invalid_arguments");
  } finally {
    await close();
  }
});

Deno.test("with --no-live: wait_for_text polls the screen, and capture_since quietMs too", async () => {
  await using fx = await TmuxFixture.start();
  const go = await program(
    fx,
    "echo one; sleep 0.3; echo BUILD-1-OK; sleep 1; echo two; sleep 0.2; echo three",
  );
  const { client, close } = await connectInProcess(["-S", fx.socket, "--no-live"]);
  try {
    const waiting = ok<Waited>(client, "wait_for_text", {
      paneId: "%0",
      patterns: ["BUILD-1-OK"],
      stop: ["two"],
      timeoutMs: 20_000,
    });
    // Sentinel: a later call of the same client answered, so the wait has begun.
    await ok(client, "list_sessions");
    await go();
    const waited = await waiting;
    assertEquals([waited.outcome, waited.matchedLine, waited.streaming, waited.cursor], [
      "matched",
      "BUILD-1-OK",
      false,
      undefined,
    ]);
    assert(waited.note?.includes("every 250 ms"), waited.note);
    // The rest of the burst, polled until the screen stays the same for quietMs.
    const quiet = await ok<Since & { text: string }>(client, "capture_since", {
      paneId: "%0",
      waitMs: 20_000,
      quietMs: 1500,
    });
    assertEquals(quiet.outcome, "quiet");
    assert(quiet.text.endsWith("two\nthree"), quiet.text);
    assert(quiet.elapsedMs >= 1000 && quiet.elapsedMs < 15_000, `took ${quiet.elapsedMs} ms`);
    const screen = await ok<Waited>(client, "wait_for_text", {
      paneId: "%0",
      patterns: ["one"],
      includeScreen: true,
      timeoutMs: 1000,
    });
    assertEquals([screen.outcome, screen.matchedAtEntry], ["matched", true]);
  } finally {
    await close();
  }
});

Deno.test("wait_for_text is not batchable: a batch row naming it is refused", async () => {
  await using fx = await TmuxFixture.start();
  const { client, close } = await connectInProcess(["-S", fx.socket]);
  try {
    const batch = await ok<{ results: { success: boolean; error: string | null }[] }>(
      client,
      "call_read_tools_batch",
      { operations: [{ tool: "wait_for_text", arguments: { paneId: "%0", patterns: ["x"] } }] },
    );
    assertEquals(batch.results[0].success, false);
    assert(batch.results[0].error?.startsWith("tool_denied"), batch.results[0].error!);
  } finally {
    await close();
  }
});

Deno.test("over stdio under the start permissions: wait_for_text and capture_since quietMs", async () => {
  await using fx = await TmuxFixture.start();
  const go = await program(fx, "echo compiling; sleep 0.2; echo BUILD-1-OK");
  const { client, close } = await connectStdio(["-S", fx.socket]);
  try {
    const first = await ok<Since>(client, "capture_since", { paneId: "%0" });
    await go();
    const waited = await ok<Waited>(client, "wait_for_text", {
      paneId: "%0",
      patterns: ["BUILD-1-OK"],
      cursor: first.cursor,
      timeoutMs: 5000,
    });
    assertEquals([waited.outcome, waited.text], ["matched", "compiling\nBUILD-1-OK\n"]);
    const burst = await ok<Since>(client, "capture_since", {
      paneId: "%0",
      cursor: first.cursor,
      waitMs: 3000,
      quietMs: 200,
    });
    assertEquals([burst.outcome, burst.text], ["quiet", "compiling\nBUILD-1-OK\n"]);
    const tool = (await client.listTools()).tools.find((t) => t.name === "wait_for_text");
    assert(tool?.description?.includes("ECHO TRAP"), "the description shows the echo trap");
    assertEquals(tool?.annotations?.readOnlyHint, true);
  } finally {
    await close();
  }
});
