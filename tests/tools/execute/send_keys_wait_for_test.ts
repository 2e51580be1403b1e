/**
 * `waitFor` on send_keys, paste_text and send_keys_batch (docs/design.md §7.10), against real
 * tmux through a real MCP client: one call per REPL step, editor command or prompt.
 */
import { assert, assertEquals } from "../../support/assert.ts";
import type { Client } from "@modelcontextprotocol/sdk/client";
import { answeredWhileWaiting, connectInProcess, fails, ok } from "../../support/client.ts";
import { eventually, TmuxFixture } from "../../support/fixture.ts";
import { echoLines, isEcho } from "../../../src/live/echo.ts";

interface Waited {
  outcome?: string;
  text?: string;
  cursor?: string;
  currentCommand?: string;
  elapsedMs?: number;
  timeoutMs?: number;
  timeoutClamped?: boolean;
  truncated?: boolean;
  terminalContent?: string;
  note?: string;
  resolvedPaneIds?: string[];
  completed?: number;
}

/** A bash with a plain `$ ` prompt and no start files: what is typed is echoed, as anywhere. */
const SHELL =
  "env -i PATH=/usr/local/bin:/usr/bin:/bin TERM=screen PS1='$ ' bash --norc --noprofile";

/** Whether the test shells find python3 (CI may lack it: the REPL test says so and is skipped). */
const PYTHON = (await new Deno.Command("sh", {
  args: ["-c", "command -v python3"],
  clearEnv: true,
  env: { PATH: "/usr/local/bin:/usr/bin:/bin" },
}).output()).success;
if (!PYTHON) console.log("python3 is not installed: the REPL test is skipped");

/** Wait until tmux shows `text` somewhere on the pane's screen. */
async function shown(fx: TmuxFixture, paneId: string, text: string): Promise<void> {
  assert(
    await eventually(async () =>
      (await fx.tmux("capture-pane", "-p", "-t", paneId)).includes(text)
    ),
    `${paneId} shows ${text}`,
  );
}

/** The lines of a waited result's text. */
function lines(result: Waited): string[] {
  return (result.text ?? "").split("\n").map((l) => l.trimEnd());
}

/** One REPL step: type `keys`, wait for the output to be quiet, return what came. */
async function step(client: Client, keys: string): Promise<Waited> {
  const result = await ok<Waited>(client, "send_keys", {
    paneId: "%0",
    keys,
    waitFor: { quietMs: 300, timeoutMs: 20_000 },
  });
  assertEquals(result.outcome, "quiet", JSON.stringify(result));
  assertEquals(result.terminalContent, "data");
  return result;
}

Deno.test("waitFor: the echo of the input is told apart from the answer", () => {
  const cases: [string, string, string | undefined, boolean][] = [
    // [line, typed, the line typed on as it reads now, is the echo]
    ["$ sleep 0.5; echo READY", "sleep 0.5; echo READY", "$ sleep 0.5; echo READY", true],
    ["READY", "sleep 0.5; echo READY", "$ sleep 0.5; echo READY", false],
    // An echo still arriving: cut after 8 or more characters of what was typed.
    ["$ sleep 0.5; ec", "sleep 0.5; echo READY", "$ sleep 0.5; ec", true],
    [">>> 2+3", "2+3", ">>> 2+3", true],
    ["5", "2+3", ">>> 2+3", false],
    // A short answer hides only its own line, not every line ending the same way.
    ["Continue? [y/N] y", "y", "Continue? [y/N] y", true],
    ["Deployment ready", "y", "Continue? [y/N] y", false],
    // The line typed on was rewritten (a cleared screen): not the echo.
    ["READY", "clear; echo READY", "READY", false],
    // Without the spot (full screen, polled): any line ending with what was typed.
    ["~ :wq", ":wq", undefined, true],
    ["written", ":wq", undefined, false],
  ];
  for (const [line, typed, typedOn, echo] of cases) {
    assertEquals(isEcho(line, echoLines(typed), typedOn), echo, `${line} / ${typed}`);
  }
  // Several typed lines: each one's echo, wherever it is.
  const pasted = echoLines("one\r\n  two  \n\n");
  assertEquals(pasted, ["one", "two"]);
  assertEquals([isEcho("> two", pasted, "$ one"), isEcho("2", pasted, "$ one")], [true, false]);
  assertEquals(echoLines(undefined), []);
  assertEquals(isEcho("anything", [], "anything"), false);
});

Deno.test({
  name: "waitFor: a Python REPL driven one call per step (quietMs), left with programChange",
  ignore: !PYTHON,
}, async () => {
  await using fx = await TmuxFixture.start({ command: SHELL });
  await shown(fx, "%0", "$");
  const { client, close } = await connectInProcess(["-S", fx.socket]);
  try {
    const started = await ok<Waited>(client, "send_keys", {
      paneId: "%0",
      // The plain REPL of every version (3.13's own redraws its lines as it edits them).
      keys: "PYTHON_BASIC_REPL=1 python3 -q",
      waitFor: { pattern: ">>>", timeoutMs: 20_000 },
    });
    assertEquals(started.outcome, "matched", JSON.stringify(started));
    assert(lines(started).includes(">>>"), started.text);

    // Each result holds the echoed input and its result, whenever the result comes.
    const sum = await step(client, "2+3");
    assertEquals(lines(sum).slice(0, 2), [">>> 2+3", "5"], sum.text);
    await step(client, "x = 7");
    const product = await step(client, "x * 6");
    assertEquals(lines(product).slice(0, 2), [">>> x * 6", "42"], product.text);
    const slow = await step(client, "import time; time.sleep(0.6); print('late', x)");
    assert(lines(slow).includes("late 7"), `a result after a pause is not cut off: ${slow.text}`);
    // paste_text takes the same waitFor.
    const pasted = await ok<Waited>(client, "paste_text", {
      paneId: "%0",
      text: "print('pasted', x + 1)",
      enter: true,
      waitFor: { quietMs: 300, timeoutMs: 20_000 },
    });
    assertEquals(pasted.outcome, "quiet", JSON.stringify(pasted));
    assert(lines(pasted).includes("pasted 8"), pasted.text);
    // The cursor continues where the wait's read ended.
    assert(pasted.cursor?.startsWith("ltxc1."), pasted.cursor);

    const left = await ok<Waited>(client, "send_keys", {
      paneId: "%0",
      keys: "exit()",
      waitFor: { programChange: true, timeoutMs: 20_000 },
    });
    assertEquals([left.outcome, left.currentCommand], ["program_changed", "bash"]);
  } finally {
    await close();
  }
});

Deno.test("waitFor: a pattern waits for delayed output, not for the echoed command line", async () => {
  await using fx = await TmuxFixture.start({ command: SHELL });
  await shown(fx, "%0", "$");
  const { client, close } = await connectInProcess(["-S", fx.socket]);
  try {
    const ready = await ok<Waited>(client, "send_keys", {
      paneId: "%0",
      keys: "sleep 0.5; echo READY",
      waitFor: { pattern: "READY", timeoutMs: 20_000 },
    });
    assertEquals(ready.outcome, "matched", JSON.stringify(ready));
    assertEquals(lines(ready)[0], "$ sleep 0.5; echo READY");
    assert(lines(ready).includes("READY"), `the output line, not the echo: ${ready.text}`);
    // The timeout asked for and not clamped is not repeated.
    assertEquals([ready.timeoutMs, ready.timeoutClamped ?? false], [undefined, false]);

    const regex = await ok<Waited>(client, "send_keys", {
      paneId: "%0",
      keys: "sleep 0.3; echo DONE-$((40 + 2))",
      waitFor: { pattern: "^DONE-\\d+$", regex: true, timeoutMs: 20_000 },
    });
    assertEquals(regex.outcome, "matched", JSON.stringify(regex));
    assert(lines(regex).includes("DONE-42"), regex.text);

    // Refused before anything is sent: a quietMs below 1, a pattern RE2 rejects.
    assertEquals(
      (await fails(client, "send_keys", { paneId: "%0", keys: "echo X", waitFor: { quietMs: 0 } }))
        .code,
      "invalid_arguments",
    );
    const bad = await fails(client, "send_keys", {
      paneId: "%0",
      keys: "echo X",
      waitFor: { pattern: "(", regex: true },
    });
    assertEquals([bad.code, bad.effects], ["invalid_arguments", "none"]);
  } finally {
    await close();
  }
});

Deno.test("waitFor: vim edited in one send_keys_batch, left with :wq, programChange names the shell", async () => {
  await using fx = await TmuxFixture.start({ command: SHELL });
  await shown(fx, "%0", "$");
  const file = `${fx.dir}/note.txt`;
  const { client, close } = await connectInProcess(["-S", fx.socket]);
  try {
    const opened = await ok<Waited>(client, "send_keys", {
      paneId: "%0",
      keys: `vim -u NONE -N ${file}`,
      waitFor: { programChange: true, timeoutMs: 20_000 },
    });
    assertEquals([opened.outcome, opened.currentCommand], ["program_changed", "vim"]);
    const saved = await ok<Waited>(client, "send_keys_batch", {
      operations: [
        { paneId: "%0", keys: "ihello from vim", literal: true, enter: false },
        { paneId: "%0", keys: "Escape", enter: false },
        { paneId: "%0", keys: ":wq" },
      ],
      waitFor: { programChange: true, timeoutMs: 20_000 },
    });
    assertEquals(saved.completed, 3);
    assertEquals([saved.outcome, saved.currentCommand], ["program_changed", "bash"]);
    assertEquals(await Deno.readTextFile(file), "hello from vim\n");
    // Without waitFor nothing of the wait is added.
    const plain = await ok<Waited>(client, "send_keys_batch", {
      operations: [{ paneId: "%0", keys: "true" }],
    });
    assertEquals([plain.outcome, plain.text, plain.cursor], [undefined, undefined, undefined]);
  } finally {
    await close();
  }
});

Deno.test("waitFor: cancelled mid-wait, it frees its waiter and sends no more progress", async () => {
  await using fx = await TmuxFixture.start({ command: "cat" });
  const { client, close, built } = await connectInProcess(["-S", fx.socket]);
  try {
    const seen: { progress: number; total?: number; message?: string }[] = [];
    const controller = new AbortController();
    const waiting = client.callTool(
      {
        name: "send_keys",
        arguments: {
          paneId: "%0",
          keys: "compiling foo.c",
          waitFor: { pattern: "never", timeoutMs: 20_000 },
        },
      },
      undefined,
      { signal: controller.signal, onprogress: (p) => seen.push(p) },
    );
    assert(await eventually(() => seen.length >= 2, 20_000), "two progress notifications");
    assert(/^waited \d+\.\d s; newest line: /.test(seen[1].message!), seen[1].message);
    assertEquals(seen[1].total, 20_000);
    controller.abort();
    await waiting.catch(() => {});
    assert(await eventually(() => built.live!.stats().waiters === 0, 10_000), "the wait ended");
    const count = seen.length;
    // Sentinel: a wait started after the cancellation gets two progress notifications of its own.
    const later: unknown[] = [];
    const stop = new AbortController();
    const sentinel = client.callTool(
      {
        name: "send_keys",
        arguments: { paneId: "%0", keys: "x", waitFor: { pattern: "never", timeoutMs: 20_000 } },
      },
      undefined,
      { signal: stop.signal, onprogress: (p) => later.push(p) },
    );
    assert(await eventually(() => later.length >= 2, 20_000), "the sentinel's progress");
    stop.abort();
    await sentinel.catch(() => {});
    assertEquals(seen.length, count, "no progress after the cancellation");
  } finally {
    await close();
  }
});

Deno.test("waitFor: a pane killed mid-wait answers pane_died; a clamped wait answers timeout", async () => {
  await using fx = await TmuxFixture.start({ command: "sleep 100000" });
  const pane = (await fx.tmux("split-window", "-d", "-P", "-F", "#{pane_id}", "-t", "%0", "cat"))
    .trim();
  const { client, close, built } = await connectInProcess([
    "-S",
    fx.socket,
    "--wait-max-ms",
    "60000",
  ]);
  try {
    const waiting = ok<Waited>(client, "send_keys", {
      paneId: pane,
      keys: "hello",
      waitFor: { pattern: "never", timeoutMs: 50_000 },
    });
    assert(await eventually(() => built.live!.stats().waiters === 1, 20_000), "waiting");
    await fx.tmux("kill-pane", "-t", pane);
    const died = await waiting;
    assertEquals(died.outcome, "pane_died", JSON.stringify(died));
  } finally {
    await close();
  }
  const clamped = await connectInProcess(["-S", fx.socket, "--wait-max-ms", "1000"]);
  try {
    const other = (await fx.tmux("split-window", "-d", "-P", "-F", "#{pane_id}", "-t", "%0", "cat"))
      .trim();
    const timedOut = await ok<Waited>(clamped.client, "send_keys", {
      paneId: other,
      keys: "hello",
      waitFor: { pattern: "never", timeoutMs: 999_999 },
    });
    assertEquals(
      [timedOut.outcome, timedOut.timeoutMs, timedOut.timeoutClamped],
      ["timeout", 1000, true],
    );
    assert(lines(timedOut).includes("hello"), timedOut.text);
  } finally {
    await clamped.close();
  }
});

Deno.test("waitFor with --no-live: the screen is polled for the pattern, the quiet and the program", async () => {
  await using fx = await TmuxFixture.start({ command: SHELL });
  await shown(fx, "%0", "$");
  const { client, close } = await connectInProcess(["-S", fx.socket, "--no-live"]);
  try {
    const ready = await ok<Waited>(client, "send_keys", {
      paneId: "%0",
      keys: "sleep 0.5; echo READY",
      waitFor: { pattern: "READY", timeoutMs: 20_000 },
    });
    assertEquals(ready.outcome, "matched", JSON.stringify(ready));
    assert(lines(ready).includes("READY"), ready.text);
    assert(ready.note?.includes("live mode is off"), ready.note);
    assertEquals(ready.cursor, undefined);

    const quiet = await ok<Waited>(client, "send_keys", {
      paneId: "%0",
      keys: "sleep 0.3; echo QUIET-$((1))",
      waitFor: { quietMs: 500, timeoutMs: 20_000 },
    });
    assertEquals(quiet.outcome, "quiet", JSON.stringify(quiet));
    assert(lines(quiet).includes("QUIET-1"), quiet.text);

    const sleeping = await ok<Waited>(client, "send_keys", {
      paneId: "%0",
      keys: "sleep 100",
      waitFor: { programChange: true, timeoutMs: 20_000 },
    });
    assertEquals([sleeping.outcome, sleeping.currentCommand], ["program_changed", "sleep"]);
    const back = await ok<Waited>(client, "send_keys", {
      paneId: "%0",
      keys: "C-c",
      enter: false,
      waitFor: { programChange: true, timeoutMs: 20_000 },
    });
    assertEquals([back.outcome, back.currentCommand], ["program_changed", "bash"]);
  } finally {
    await close();
  }
});

Deno.test("waitFor: matching a heavy burst hands the event loop turns; another call is answered meanwhile", async () => {
  await using fx = await TmuxFixture.start({ command: SHELL, width: 200 });
  await shown(fx, "%0", "$");
  // Every row held (2,000 of them), so one look after the burst matches them all.
  const { client, close } = await connectInProcess(["-S", fx.socket], {}, {
    scrollbackRows: 5000,
  });
  try {
    const { result, notified } = await answeredWhileWaiting<Waited>(client, "send_keys", {
      paneId: "%0",
      // 2,000 rows of 190 x's, matched against a pattern that never matches them.
      keys: 'seq -f "%0190g" 1 2000 | tr 0-9 x',
      // `\B` keeps RE2 off its DFA: 10-20 ms of NFA per row, far more than the wait's 6 s.
      waitFor: { pattern: "\\B(x{1,20}){1,20}y", regex: true, timeoutMs: 6000 },
    });
    // The deadline is checked before each row, not only after the burst.
    assertEquals(result.outcome, "timeout");
    assert(result.elapsedMs! >= 6000, `answered at its deadline, not before: ${result.elapsedMs}`);
    assert(notified >= 3, `${notified} progress notifications during a 6 s wait`);
  } finally {
    await close();
  }
});
