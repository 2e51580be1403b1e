/**
 * Where plain output may be counted instead of drawn (lazy emulation, docs/design.md §7.2): the
 * scan on its own, case by case. src/live/emulator_skip_test.ts checks that a terminal using it
 * ends up as if it had drawn everything.
 */
import { assertEquals } from "../../tests/support/assert.ts";
import { plainCut } from "./plain_cut.ts";

const enc = new TextEncoder();
const chunks = (...texts: string[]) => texts.map((t) => enc.encode(t));

Deno.test("plainCut: the last line start that leaves `need` rows below it, and the rows above it", () => {
  type Case = [name: string, texts: string[], x: number, cols: number, need: number, want?: {
    offset: number;
    rows: number;
  }];
  const lines = ["a\r\nb\r\nc\r\n"]; // line starts after 3, 6 and 9 bytes; 3 rows in all
  const cases: Case[] = [
    ["need 0: the last start", lines, 0, 80, 0, { offset: 9, rows: 3 }],
    ["need 1", lines, 0, 80, 1, { offset: 6, rows: 2 }],
    ["need 2", lines, 0, 80, 2, { offset: 3, rows: 1 }],
    ["more rows needed than follow any start", lines, 0, 80, 3, undefined],
    ["no chunks", [], 0, 80, 0, undefined],
    ["an empty chunk", [""], 0, 80, 0, undefined],
    ["LF alone keeps the column: no line start", ["a\nb\n"], 0, 80, 0, undefined],
    ["LF in column 0 is a line start", ["\n\n"], 0, 80, 0, { offset: 2, rows: 2 }],
    ["the cursor's column before the text counts", ["\n"], 5, 80, 0, undefined],
    ["CR returns the column whatever it was", ["\r\n"], 5, 80, 0, { offset: 2, rows: 1 }],
    // 5 characters in 4 columns: the 5th wraps (a row) before it is printed, not the 4th.
    ["a wrap is a row", ["abcde\r\n"], 0, 4, 0, { offset: 7, rows: 2 }],
    ["a full row is not yet a wrap", ["abcd\r\n"], 0, 4, 0, { offset: 6, rows: 1 }],
    ["a wrap counts below a start", ["x\r\nabcdefgh"], 0, 4, 1, { offset: 3, rows: 1 }],
    // A full row holds the cursor in the last column: LF does not wrap, nor start a line.
    ["LF at a pending wrap", ["abcd\n"], 0, 4, 0, undefined],
    ["LF at a pending wrap cancels it", ["abcd\nx\r\n"], 0, 4, 0, { offset: 8, rows: 2 }],
    ["offsets run across chunks", ["a\r", "\nb\r\n", "c"], 0, 80, 1, { offset: 3, rows: 1 }],
    ["the scan stops at ESC", ["a\r\n\x1b[1mb\r\nc\r\n"], 0, 80, 0, { offset: 3, rows: 1 }],
    ["the scan stops at TAB", ["a\r\nb\tc\r\n"], 0, 80, 0, { offset: 3, rows: 1 }],
    ["the scan stops at a non-ASCII byte", ["a\r\né\r\n"], 0, 80, 0, { offset: 3, rows: 1 }],
    ["the scan stops at DEL", ["a\r\n\x7f\r\n"], 0, 80, 0, { offset: 3, rows: 1 }],
    ["text after the stop is not counted", ["a\r\n\x1b", "b\r\nc\r\n"], 0, 80, 1, undefined],
  ];
  for (const [name, texts, x, cols, need, want] of cases) {
    assertEquals(plainCut(chunks(...texts), x, cols, need), want, name);
  }
});
