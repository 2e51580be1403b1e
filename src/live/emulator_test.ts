/** The headless terminal on its own: widths, row numbering, seeding, modes. No tmux. */
import { assertEquals } from "../../tests/support/assert.ts";
import { PaneEmulator } from "./emulator.ts";
import { blankSeed } from "../../tests/support/seed.ts";

const bytes = (text: string) => new TextEncoder().encode(text);

Deno.test("wide characters and emoji take the cells tmux gives them", () => {
  const emulator = new PaneEmulator(20, 3, 10);
  // Column n+1 right after the character: text joins up only if it took exactly n cells.
  emulator.write("😀\x1b[3Ga\r\n👍🏽\x1b[5Gb\r\n中文\x1b[5Gc");
  assertEquals(emulator.screenRows(), ["😀a", "👍🏽b", "中文c"]);
  emulator.dispose();
});

Deno.test("a character split across writes is completed by the next write", () => {
  const emulator = new PaneEmulator(20, 2, 10);
  const euro = bytes("€");
  emulator.write(euro.subarray(0, 2));
  assertEquals(emulator.screenRows()[0], "");
  emulator.write(euro.subarray(2));
  emulator.write(bytes("\x1b[3"));
  emulator.write(bytes("1mred"));
  assertEquals(emulator.screenRows()[0], "€red");
  emulator.dispose();
});

Deno.test("rows keep their absolute numbers as the bounded scrollback drops the oldest", () => {
  const emulator = new PaneEmulator(20, 5, 10);
  for (let i = 0; i < 100; i++) emulator.write(`${i}\r\n`);
  // 100 lines and the empty cursor row: 101 rows, of which 15 are held.
  assertEquals([emulator.firstRow, emulator.endRow, emulator.cursorRow], [86, 101, 100]);
  for (let row = emulator.firstRow; row < 100; row++) assertEquals(emulator.rowText(row), `${row}`);
  assertEquals([emulator.lastTextRow(), emulator.screenTop], [99, 96]);
  assertEquals(emulator.rowText(10), "", "a dropped row reads as blank");
  // Clearing the history (what `clear` sends after erasing the screen) drops rows too.
  emulator.write("\x1b[H\x1b[2J\x1b[3J");
  // The screen's used rows went into the history, which was then dropped: the blank cursor row
  // (100) is the top of the cleared screen.
  assertEquals([emulator.firstRow, emulator.screenTop, emulator.lastTextRow()], [100, 100, 99]);
  // A full reset replaces the buffers; numbering goes on after the rows it discarded.
  emulator.write("top\r\n\x1bcafter");
  assertEquals([emulator.rowText(emulator.firstRow), emulator.firstRow > 100], ["after", true]);
  emulator.dispose();
});

Deno.test("wrapped lines are joined, other rows end with a newline", () => {
  const emulator = new PaneEmulator(10, 5, 10);
  emulator.write("0123456789abcdef  \r\nnext");
  assertEquals(emulator.screenRows().slice(0, 3), ["0123456789", "abcdef", "next"]);
  assertEquals(emulator.isWrapped(1), true);
  assertEquals(emulator.text(0, 2), "0123456789abcdef\nnext");
  assertEquals(emulator.text(1, 2), "abcdef\nnext");
  emulator.dispose();
});

Deno.test("bracketed paste is unknown until the program sets or resets it", () => {
  const emulator = new PaneEmulator(20, 2, 10);
  assertEquals(emulator.bracketedPaste, undefined);
  emulator.write("\x1b[?2004h");
  assertEquals(emulator.bracketedPaste, true);
  emulator.write("\x1b[?1;2004l");
  assertEquals(emulator.bracketedPaste, false);
  const reset = new PaneEmulator(20, 2, 10);
  reset.write("\x1bc");
  assertEquals(reset.bracketedPaste, false, "a full reset turns it off, knowingly");
  emulator.dispose();
  reset.dispose();
});

Deno.test("seeding reproduces the screen, wrapped lines, a pending wrap and the modes", () => {
  const emulator = new PaneEmulator(10, 4, 10);
  emulator.seed({
    ...blankSeed(10, 4),
    // As capture-pane -e -J -p prints it: joined lines, attributes, one newline per line.
    screen: "\x1b[31mred\x1b[39m line\n0123456789abc\n0123456789\n",
    cursorX: 10,
    cursorY: 3,
  });
  assertEquals(emulator.screenRows(), ["red line", "0123456789", "abc", "0123456789"]);
  assertEquals(emulator.isWrapped(2), true);
  // The cursor waited past the last column: the next character wraps (and scrolls).
  emulator.write("Z");
  assertEquals(emulator.screenRows(), ["0123456789", "abc", "0123456789", "Z"]);
  assertEquals(emulator.isWrapped(emulator.cursorRow), true);

  const region = new PaneEmulator(10, 4, 10);
  region.seed({ ...blankSeed(10, 4), screen: "a\nb\nc\nd\n", scrollUpper: 1, scrollLower: 2 });
  region.write("\x1b[3;1H\n"); // a line feed at the region's bottom scrolls only the region
  assertEquals(region.screenRows(), ["a", "c", "", "d"]);
  emulator.dispose();
  region.dispose();
});

Deno.test("seeding under the alternate screen restores the normal screen when it is left", () => {
  const emulator = new PaneEmulator(20, 3, 10);
  emulator.seed({
    ...blankSeed(20, 3),
    screen: "\x1b[1mTOP\x1b[0m\n\nstatus\n",
    cursorX: 2,
    cursorY: 1,
    normal: { screen: "$ vim\n\n\n", cursorX: 0, cursorY: 1 },
  });
  assertEquals([emulator.alternate, emulator.screenRows()], [true, ["TOP", "", "status"]]);
  emulator.write("\x1b[?1049l$ ");
  assertEquals([emulator.alternate, emulator.screenRows()], [false, ["$ vim", "$", ""]]);
  emulator.dispose();
});

Deno.test("seeding keeps an attribute that continues from one captured line to the next, as tmux does", () => {
  const emulator = new PaneEmulator(12, 3, 10);
  // capture-pane -e starts a continued line with no sequence: its colour is the previous line's.
  emulator.seed({ ...blankSeed(12, 3), screen: "\x1b[41mred\nstill red\x1b[49m plain\n" });
  const bg = (row: number, col: number) => {
    const cell = emulator.buffer.getLine(row)!.getCell(col)!;
    return cell.isBgPalette() ? cell.getBgColor() : -1;
  };
  assertEquals([bg(0, 0), bg(1, 0), bg(1, 8)], [1, 1, 1]);
  assertEquals(bg(1, 10), -1, "the colour ends where the capture ends it");
  // And the rows below start clean: the seed leaves no attribute behind for later output.
  emulator.write("\x1b[3;1Hnew");
  assertEquals(bg(2, 0), -1);
  emulator.dispose();
});
