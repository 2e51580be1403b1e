/** The live wait on its own: a PaneStream seeded and fed by hand, no tmux. */
import { assert, assertEquals, assertRejects } from "../../tests/support/assert.ts";
import { blankSeed } from "../../tests/support/seed.ts";
import { ToolError } from "../errors.ts";
import { inputSpot } from "../live/echo.ts";
import { readFrom, readScreen, recallMark } from "../live/read.ts";
import { PaneStream } from "../live/stream.ts";
import { waitForLine } from "./line_wait.ts";
import type { LineTest } from "./match.ts";
import { scanStream, type Watch } from "./scan.ts";

const bytes = (text: string) => new TextEncoder().encode(text);
const never = new AbortController().signal;
const far = () => Date.now() + 60_000;

/** A seeded stream of a blank 40×6 pane holding 500 rows of history. */
function stream(): PaneStream {
  const s = new PaneStream(
    { paneId: "%1", generation: "g1.1", sessionId: "$0", windowId: "@0" },
    500,
  );
  s.seed(blankSeed(40, 6), s.changes, false);
  return s;
}

/** A test that answers the line when it holds `text`. */
const holding = (text: string): LineTest<string> => (line) =>
  line.includes(text) ? line : undefined;

/** Spin until the clock moved `ms` (a pattern that costs time, without sleeping). */
function spin(ms: number): void {
  const until = Date.now() + ms;
  while (Date.now() < until) { /* matching */ }
}

Deno.test("the scan matches what came since the mark; the echo hook hides the typed line", async () => {
  for (const echo of [false, true]) {
    const s = stream();
    s.receive(bytes("$ "));
    const { offset } = readScreen(s);
    const spot = inputSpot(s.emulator!);
    s.receive(bytes("echo READY\r\nREADY\r\n$ "));
    const end = await scanStream(s, {
      tests: [holding("READY")],
      from: recallMark(s, offset),
      deadline: far(),
      signal: never,
      echo: echo ? { lines: ["echo READY"], spot } : undefined,
    });
    assert(end.outcome === "found", end.outcome);
    assertEquals([end.line, end.atEntry], [echo ? "READY" : "$ echo READY", true]);
  }
});

Deno.test("a watch hears each change, ends the wait with its verdict, and wakes the sleep", async () => {
  const s = stream();
  const { offset } = readScreen(s);
  const heard: boolean[] = [];
  let quietAt = Infinity;
  const watch: Watch<"quiet"> = {
    changed: (_emulator, rowsChanged) => {
      heard.push(rowsChanged);
      quietAt = Date.now() + 30;
    },
    check: () => Promise.resolve(Date.now() >= quietAt ? "quiet" : undefined),
    wakeAt: () => quietAt,
  };
  const scanning = scanStream(s, {
    tests: [],
    from: recallMark(s, offset),
    deadline: far(),
    signal: never,
    watch,
  });
  // Attributes change the stream but no row; text changes both.
  s.receive(bytes("\x1b[31m"));
  await new Promise((resolve) => setTimeout(resolve, 0));
  s.receive(bytes("out"));
  const end = await scanning;
  assertEquals(end, { outcome: "watched", value: "quiet" });
  assertEquals(heard.at(-1), true);
  assert(heard.length >= 2, JSON.stringify(heard));
});

Deno.test("a long look hands the event loop turns while it matches (the yield rule)", async () => {
  const s = stream();
  const { offset } = readScreen(s);
  s.receive(bytes(Array.from({ length: 300 }, (_, i) => `line ${i}\r\n`).join("")));
  let tried = 0;
  let triedAtTurn = -1;
  let timer: ReturnType<typeof setTimeout> | undefined;
  // Every line costs a millisecond: the whole look is 300 ms of matching. The timer is set once
  // matching has begun, so only a turn handed over inside the look can run it.
  const costly: LineTest<never> = () => {
    if (tried++ === 0) timer = setTimeout(() => triedAtTurn = tried, 0);
    spin(1);
    return undefined;
  };
  const end = await scanStream(s, {
    tests: [costly],
    from: recallMark(s, offset),
    deadline: far(),
    signal: never,
    watch: {
      changed: () => {},
      check: () => Promise.resolve(tried >= 300 ? "done" : undefined),
      wakeAt: () => Infinity,
    },
  });
  clearTimeout(timer);
  assertEquals(end, { outcome: "watched", value: "done" });
  assert(triedAtTurn > 0 && triedAtTurn < 300, `the timer ran after ${triedAtTurn} lines`);
});

Deno.test("cut inside a look (a worker still matched a line at the deadline): timeout above that line, nothing skipped", async () => {
  const s = stream();
  const { offset } = readScreen(s);
  s.receive(bytes("L1\r\nL2\r\nL3\r\nL4\r\nL5\r\n"));
  const waited = await waitForLine(s, offset, {
    tests: [
      (line) =>
        line === "L3"
          ? Promise.reject(new ToolError("timeout", "the worker matched past the deadline"))
          : undefined,
    ],
    deadline: far(),
    signal: never,
    tailLines: 20,
  });
  assert(waited.outcome === "timeout", waited.outcome);
  assertEquals(waited.text, "L1\nL2\n");
  // The next read starts at the line the wait could not finish.
  const rest = await readFrom(s, waited.offset, 0, never);
  assertEquals(rest.text, "L3\nL4\nL5\n");
});

Deno.test("a stream that ends mid-wait answers ended with its reason; a cancellation rejects", async () => {
  const s = stream();
  const { offset } = readScreen(s);
  const scanning = scanStream(s, {
    tests: [holding("never")],
    from: recallMark(s, offset),
    deadline: far(),
    signal: never,
  });
  await new Promise((resolve) => setTimeout(resolve, 0));
  s.end(new ToolError("target_not_found", "pane %1 is gone"));
  const end = await scanning;
  assert(end.outcome === "ended", end.outcome);
  assertEquals(end.error.code, "target_not_found");

  const t = stream();
  const controller = new AbortController();
  const cancelled = scanStream(t, {
    tests: [holding("never")],
    from: recallMark(t, readScreen(t).offset),
    deadline: far(),
    signal: controller.signal,
  });
  controller.abort();
  assertEquals((await assertRejects(() => cancelled, ToolError)).code, "cancelled");
  assertEquals(t.waiters, 0);
});
