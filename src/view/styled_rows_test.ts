/** The pane view's styled rows (docs/design.md §7.8), on their own: SGR runs, controls, the size cap. */
import { assertEquals } from "../../tests/support/assert.ts";
import { ATTR, type Cell, DEFAULT_COLOR, RGB_COLOR } from "../render/cells.ts";
import { encodeRows } from "./styled_rows.ts";

/** A default-styled one-column cell, with `over` changed. */

function cell(text: string, over: Partial<Cell> = {}): Cell {
  return { text, width: 1, fg: DEFAULT_COLOR, bg: DEFAULT_COLOR, attrs: 0, ...over };
}

Deno.test("frame rows: one SGR per run of equal style, from a reset; controls replaced; trailing blanks cut", () => {
  const cases: Array<[string, Cell[], string]> = [
    ["plain text", [cell("a"), cell("b")], "ab"],
    ["bold green run", [
      cell("o", { attrs: ATTR.bold, fg: 2 }),
      cell("k", { attrs: ATTR.bold, fg: 2 }),
      cell("!"),
    ], "\x1b[0;1;32mok\x1b[0m!"],
    ["bright, 256 and RGB colours", [
      cell("a", { fg: 9 }),
      cell("b", { bg: 200 }),
      cell("c", { fg: RGB_COLOR | 0x102030 }),
    ], "\x1b[0;91ma\x1b[0;48;5;200mb\x1b[0;38;2;16;32;48mc\x1b[0m"],
    ["every attribute", [cell("x", { attrs: 255 })], "\x1b[0;1;2;3;4;7;8;9;53mx\x1b[0m"],
    ["wide character's right half skipped", [
      cell("界", { width: 2 }),
      cell("", { width: 0 }),
      cell("b"),
    ], "界b"],
    ["trailing blanks cut, a coloured one kept", [
      cell("a"),
      cell(" ", { bg: 4 }),
      cell(" "),
      cell(""),
    ], "a\x1b[0;44m \x1b[0m"],
    ["controls replaced", [cell("\x1b"), cell("\x9b"), cell("\x07")], "\ufffd\ufffd\ufffd"],
  ];
  for (const [name, cells, expected] of cases) {
    const { lines, styled } = encodeRows({ columns: cells.length, rows: 1, cells });
    assertEquals(lines, [expected], name);
    assertEquals(styled, true, name);
  }
});

Deno.test("frame rows go plain rather than past 1 MiB", () => {
  const columns = 400, rows = 200;
  const cells = Array.from(
    { length: columns * rows },
    (_, i) => cell("x", { fg: RGB_COLOR | i, bg: RGB_COLOR | (i * 7) }),
  );
  const { lines, styled } = encodeRows({ columns, rows, cells });
  assertEquals(styled, false);
  assertEquals(lines[0], "x".repeat(columns));
});
