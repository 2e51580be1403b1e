/** Where each joined line starts among a capture's rows (docs/design.md §7.7), on its own. */
import { assertEquals } from "../../../tests/support/assert.ts";
import { startRows } from "./capture_many.ts";

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
