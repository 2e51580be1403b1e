/** tmux's history arithmetic on its own (docs/design.md §7.3): tables, no tmux. */
import { assertEquals } from "../../../tests/support/assert.ts";
import { capturedLines, scrolledBy, scrollOnce, wrapFlags } from "./history_count.ts";

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
    [25, 25, { size: 24, dropped: 2 }], // a tenth rounded down
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
