/** tmux's history arithmetic (src/tmux/live/history_count.ts): tables, and the size model against tmux. */
import { assert, assertEquals } from "../support/assert.ts";
import { eventually, TmuxFixture } from "../support/fixture.ts";
import {
  capturedLines,
  scrolledBy,
  scrollOnce,
  wrapFlags,
} from "../../src/tmux/live/history_count.ts";

/** The history after `rows` rows scrolled into an empty one. */
function after(rows: number, limit: number): number {
  let size = 0;
  for (let i = 0; i < rows; i++) size = scrollOnce(size, limit).size;
  return size;
}

Deno.test("a full history drops a tenth of its limit before the next row goes in", () => {
  const cases: Array<[number, number, { size: number; dropped: number }]> = [
    [0, 100, { size: 1, dropped: 0 }],
    [99, 100, { size: 100, dropped: 0 }],
    [100, 100, { size: 91, dropped: 10 }],
    [5, 5, { size: 5, dropped: 1 }],
    [0, 0, { size: 0, dropped: 1 }],
  ];
  for (const [size, limit, want] of cases) {
    assertEquals(scrollOnce(size, limit), want, `${size}/${limit}`);
  }
  assertEquals([after(100, 100), after(101, 100), after(110, 100), after(111, 100)], [
    100,
    91,
    100,
    91,
  ]);
});

Deno.test("the rows scrolled by a capture between two looks: the one count that leads there", () => {
  const cases: Array<[string, [number, number, number], number, number, unknown]> = [
    ["nothing scrolled", [50, 50, 50], 100, 0, { scrolled: 0, dropped: 0 }],
    ["below the limit", [50, 53, 60], 100, 10, { scrolled: 3, dropped: 0 }],
    ["across a drop", [98, 92, 95], 100, 7, { scrolled: 4, dropped: 10 }],
    ["sizes repeat: ambiguous", [95, 96, 100], 100, 25, undefined],
    ["cleared meanwhile", [50, 53, 2], 100, 10, undefined],
    ["a size never reached", [50, 49, 60], 100, 10, undefined],
    ["scrolled backwards", [50, 50, 50], 100, -1, undefined],
  ];
  for (const [why, [before, mid, last], limit, total, want] of cases) {
    assertEquals(scrolledBy({ before, mid, after: last }, limit, total), want, why);
  }
});

Deno.test("capture-pane's range is clamped as tmux clamps it", () => {
  // 10 rows of history, a 5-row screen: lines 0..14.
  assertEquals(capturedLines(10, 5, -3, 2), { top: 7, bottom: 12 });
  assertEquals(capturedLines(10, 5, -50, -1), { top: 0, bottom: 9 });
  assertEquals(capturedLines(10, 5, 0, 99), { top: 10, bottom: 14 });
  assertEquals(capturedLines(10, 5, 3, -3), { top: 7, bottom: 13 });
});

Deno.test("wrap flags are read off the joined capture of the same rows", () => {
  assertEquals(wrapFlags(["ab", "cd", "e"], "abcd\ne\n"), [true, false, false]);
  assertEquals(wrapFlags(["ab", "", "c"], "ab\n\nc\n"), [false, false, false]);
  assertEquals(wrapFlags(["ab  ", "cd"], "ab  cd\n"), [true, false]);
  assertEquals(wrapFlags(["ab", "cd"], "ab\nxx\n"), undefined);
  assertEquals(wrapFlags(["ab"], "ab\ncd\n"), undefined);
});

Deno.test("tmux's history sizes follow the model as rows scroll in, past its limit", async () => {
  await using fx = await TmuxFixture.start({ command: "sleep 100000" });
  await fx.tmux("set-option", "-g", "history-limit", "25");
  // Each line read prints that many numbers, then a numbered end line.
  await fx.tmux(
    "new-window",
    "-d",
    "sh -c 'stty -echo; echo ready; k=0; while read n; do seq 1 $n; k=$((k+1)); echo end-$k; done'",
  );
  const pane = (await fx.tmux("list-panes", "-a", "-F", "#{pane_id} #{history_limit}"))
    .split("\n").find((l) => l.endsWith(" 25"))!.split(" ")[0];
  // Typed before `stty -echo` ran, a line would be echoed: an extra row.
  assert(
    await eventually(async () =>
      (await fx.tmux("capture-pane", "-p", "-t", pane)).startsWith("ready\n")
    ),
  );
  let printed = 1;
  for (const [k, n] of [10, 20, 7, 13, 2, 30, 1, 60].entries()) {
    await fx.tmux("send-keys", "-t", pane, String(n), "Enter");
    printed += n + 1;
    assert(
      await eventually(async () =>
        (await fx.tmux("capture-pane", "-p", "-t", pane)).includes(`end-${k + 1}\n`)
      ),
    );
    // The cursor starts on the screen's top row of 24: rows scroll in from the 24th line on.
    const size = Number(await fx.display(pane, "#{history_size}"));
    assertEquals(size, after(Math.max(0, printed - 23), 25), `after ${printed} lines`);
  }
});
