/**
 * A search's captures on their own: what it captures of each pane within its line budget, and
 * where each joined line starts among a capture's rows (docs/design.md §7.7).
 */
import { assertEquals } from "../../../tests/support/assert.ts";
import { planCaptures, startRows } from "./capture_many.ts";

Deno.test("startRows: each joined line's first row, wrapped rows and blank lines counted", () => {
  const table: [string, string, number, number[]][] = [
    ["a\nb\n", "a\nb\n", 0, [0, 1, 2]],
    ["a\nb\n", "a\nb\n", -2, [-2, -1, 0]],
    // "xxxyyyzz" wrapped over three rows of width 3 (trailing spaces kept when joined).
    ["xxxyyyzz\nnext\n", "xxx\nyyy\nzz\nnext\n", -1, [-1, 2, 3]],
    ["\n\nab cd\n", "\n\nab \ncd\n", 0, [0, 1, 2, 4]],
    ["héllo 😀 中文\n$\n", "héllo \n😀 中文\n$\n", 0, [0, 2, 3]],
  ];
  for (const [joined, unjoined, top, rows] of table) {
    assertEquals(startRows(joined, unjoined, top), rows, JSON.stringify(joined));
  }
});

Deno.test("planCaptures: screens first, then history shared evenly, newest first, within the budget", () => {
  const pane = (paneId: string, height: number, historyLines: number) => ({
    paneId,
    height,
    historyLines,
  });
  const rows = (plan: ReturnType<typeof planCaptures>) => plan.items.map((i) => i.historyRows);
  const table: Array<{
    panes: ReturnType<typeof pane>[];
    scrollback: number | undefined;
    budget: number;
    history: number[];
    clamped: boolean;
    left: number;
  }> = [
    // All history fits: every row of it, nothing left.
    {
      panes: [pane("a", 24, 100), pane("b", 24, 0)],
      scrollback: undefined,
      budget: 1_000,
      history: [100, 0],
      clamped: false,
      left: 0,
    },
    // scrollbackLines caps each pane; what it leaves out is counted, not a clamp.
    {
      panes: [pane("a", 24, 100), pane("b", 24, 10)],
      scrollback: 50,
      budget: 1_000,
      history: [50, 10],
      clamped: false,
      left: 50,
    },
    // 0: the screens only.
    {
      panes: [pane("a", 24, 100)],
      scrollback: 0,
      budget: 1_000,
      history: [0],
      clamped: false,
      left: 100,
    },
    // One deep history does not crowd out the others: 952 rows shared, the small one whole.
    {
      panes: [pane("a", 24, 50_000), pane("b", 24, 100), pane("c", 24, 50_000)],
      scrollback: undefined,
      budget: 1_024,
      history: [426, 100, 426],
      clamped: true,
      left: 99_148,
    },
    // Fewer rows than panes wanting them: one each, in listing order.
    {
      panes: [pane("a", 10, 5), pane("b", 10, 5), pane("c", 10, 5)],
      scrollback: undefined,
      budget: 32,
      history: [1, 1, 0],
      clamped: true,
      left: 13,
    },
    // Screens past the budget are left out whole (their history is not counted as left).
    {
      panes: [pane("a", 24, 5), pane("b", 24, 5), pane("c", 24, 5)],
      scrollback: undefined,
      budget: 50,
      history: [1, 1],
      clamped: true,
      left: 8,
    },
  ];
  for (const { panes, scrollback, budget, history, clamped, left } of table) {
    const plan = planCaptures(panes, scrollback, budget);
    const label = JSON.stringify({ panes, scrollback, budget });
    assertEquals(rows(plan), history, label);
    assertEquals([plan.lineLimitClamped, plan.historyLeft], [clamped, left], label);
    const used = plan.items.reduce((n, item, i) => n + panes[i].height + item.historyRows, 0);
    assertEquals(used <= budget, true, label);
  }
});
