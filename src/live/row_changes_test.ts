/**
 * What changed in a terminal's rows since a read (docs/design.md §7.3), on a bare headless
 * terminal: where a read leaves the rows, where the next one starts, and what it returns. No
 * stream, no tmux (src/live/read_test.ts covers the same through a PaneStream).
 */
import { assert, assertEquals } from "../../tests/support/assert.ts";
import { PaneEmulator } from "./emulator.ts";
import {
  changeSince,
  fingerprint,
  logicalLines,
  markOf,
  markThrough,
  rowsSince,
  screenNow,
  textBetween,
} from "./row_changes.ts";

/** A `cols`×`rows` terminal keeping `scrollback` rows of history, with `text` written to it. */
function terminal(text: string, cols = 20, rows = 4, scrollback = 50): PaneEmulator {
  const emulator = new PaneEmulator(cols, rows, scrollback);
  emulator.write(text);
  return emulator;
}

Deno.test("fingerprint is 32-bit FNV-1a over UTF-16 code units", () => {
  // The published FNV-1a test vectors (ASCII: one code unit per byte).
  const cases: [string, number][] = [
    ["", 0x811c9dc5],
    ["a", 0xe40c292c],
    ["foobar", 0xbf9cf968],
  ];
  for (const [text, hash] of cases) assertEquals(fingerprint(text), hash, JSON.stringify(text));
  assert(fingerprint("ab") !== fingerprint("ba"), "order matters");
  assert(fingerprint("€") !== fingerprint("¬"), "the whole code unit counts, not its low byte");
});

Deno.test("rowsSince: what a read from a mark returns, case by case", () => {
  const cases: {
    name: string;
    before: string;
    after: string;
    expected: { changed: boolean; text: string; missedRows?: number; alternateScreen?: boolean };
    size?: [number, number, number];
  }[] = [
    { name: "nothing written", before: "$ ", after: "", expected: { changed: false, text: "" } },
    {
      name: "attributes alone change nothing visible",
      before: "$ ",
      after: "\x1b[31m\x1b[0m",
      expected: { changed: false, text: "" },
    },
    {
      name: "a line being written comes back whole",
      before: "$ ",
      after: "echo hi",
      expected: { changed: true, text: "$ echo hi" },
    },
    {
      name: "lines the cursor left end with a newline; the prompt comes back",
      before: "$ ",
      after: "echo hi\r\nhi\r\n$ ",
      expected: { changed: true, text: "$ echo hi\nhi\n$" },
    },
    {
      name: "moving the cursor down alone shows nothing new",
      before: "a\r\n",
      after: "\r\n\r\n",
      expected: { changed: false, text: "" },
    },
    {
      name: "the read starts at the row it ended on, below the rows already read",
      before: "one\r\ntwo\r\n",
      after: "three\r\n",
      expected: { changed: true, text: "three\n" },
    },
    {
      name: "a row above rewritten since (a redrawn progress bar) moves the start up to it",
      before: "one\r\n10%\r\nthree\r\n",
      after: "\x1b[2;1H50%\x1b[4;1H",
      expected: { changed: true, text: "50%\nthree\n" },
    },
    {
      name: "a cleared screen is a change from its top",
      before: "one\r\ntwo\r\n",
      after: "\x1b[H\x1b[2Jnew",
      expected: { changed: true, text: "new" },
    },
    {
      name: "a wrapped line is read from its first row",
      before: "0123456789ab",
      after: "cd\r\n",
      expected: { changed: true, text: "0123456789abcd\n" },
      size: [10, 4, 50],
    },
    {
      name: "rows that left the history before the read are counted, not returned",
      before: "start\r\n",
      after: Array.from({ length: 20 }, (_, i) => `${i}\r\n`).join(""),
      // 21 rows written below row 0 plus the cursor row; 3 + 2 held: rows 17…21.
      expected: { changed: true, text: "16\n17\n18\n19\n", missedRows: 16 },
      size: [10, 3, 2],
    },
    {
      name: "the alternate screen is returned whole",
      before: "$ vim\r\n",
      after: "\x1b[?1049h\x1b[Hfile\r\n~",
      expected: { changed: true, text: "file\n~", alternateScreen: true },
    },
  ];
  for (const { name, before, after, expected, size } of cases) {
    const emulator = terminal(before, ...(size ?? []));
    const mark = markOf(emulator);
    emulator.write(after);
    const got = rowsSince(emulator, mark);
    assertEquals(
      { changed: got.changed, text: got.text, missed: got.missedRows, alt: got.alternateScreen },
      {
        changed: expected.changed,
        text: expected.text,
        missed: expected.missedRows ?? 0,
        alt: expected.alternateScreen ?? false,
      },
      name,
    );
    // Nothing changed: the same mark; otherwise a read from the new mark finds nothing more.
    if (!got.changed) assertEquals(got.mark, mark, name);
    else assertEquals(rowsSince(emulator, got.mark).changed, false, name);
    emulator.dispose();
  }
});

Deno.test("the alternate screen: a redraw is a change, leaving it is one even with no output", () => {
  const emulator = terminal("$ top\r\n\x1b[?1049h\x1b[Hload 1");
  const shown = screenNow(emulator);
  assertEquals([shown.text, shown.alternateScreen], ["load 1", true]);
  assertEquals(rowsSince(emulator, shown.mark).changed, false);
  emulator.write("\x1b[Hload 2");
  const redrawn = rowsSince(emulator, shown.mark);
  assertEquals([redrawn.changed, redrawn.text, redrawn.alternateScreen], [true, "load 2", true]);
  emulator.write("\x1b[?1049l");
  const left = rowsSince(emulator, redrawn.mark);
  assertEquals([left.changed, left.alternateScreen], [true, false]);
  assertEquals(changeSince(emulator, left.mark).changed, false);
  emulator.dispose();
});

Deno.test("markOf and screenNow: where a first read leaves the rows", () => {
  const cases: [string, string, { resume: number; top: number; last: number; prints: string[] }][] =
    [
      ["", "", { resume: 0, top: 0, last: -1, prints: [] }],
      ["$ ", "$", { resume: 0, top: 0, last: 0, prints: ["$"] }],
      ["a\r\nb\r\n", "a\nb\n", { resume: 2, top: 0, last: 1, prints: ["a", "b"] }],
      // The cursor below the text: the read ends on the row under the last text.
      ["a\r\n\r\n\r\n", "a\n", { resume: 1, top: 0, last: 0, prints: ["a"] }],
      // Scrolled: only the screen's rows are read and fingerprinted.
      ["1\r\n2\r\n3\r\n4\r\n5\r\n6", "3\n4\n5\n6", {
        resume: 5,
        top: 2,
        last: 5,
        prints: ["3", "4", "5", "6"],
      }],
    ];
  for (const [written, text, mark] of cases) {
    const emulator = terminal(written);
    const now = screenNow(emulator);
    assertEquals(now.text, text, JSON.stringify(written));
    assertEquals(
      {
        resume: now.mark.resume,
        top: now.mark.top,
        last: now.mark.last,
        prints: [...now.mark.prints],
      },
      { ...mark, prints: mark.prints.map(fingerprint) },
      JSON.stringify(written),
    );
    assertEquals(now.mark.alternate, undefined);
    emulator.dispose();
  }
});

Deno.test("logicalLines joins wrapped rows and starts at the beginning of a continued line", () => {
  const emulator = terminal("0123456789abc\r\nnext\r\n0123456789", 10, 6);
  const all = [
    { text: "0123456789abc", first: 0, last: 1 },
    { text: "next", first: 2, last: 2 },
    { text: "0123456789", first: 3, last: 3 },
  ];
  assertEquals(logicalLines(emulator, 0, 3), all);
  assertEquals(logicalLines(emulator, 1, 2), all.slice(0, 2), "row 1 continues row 0");
  assertEquals(logicalLines(emulator, 2, 3), all.slice(1));
  assertEquals(logicalLines(emulator, 0, 0), [{ text: "0123456789", first: 0, last: 0 }]);
  assertEquals(logicalLines(emulator, 3, 2), []);
  emulator.dispose();
});

Deno.test("markThrough: a read that stopped after a line resumes below it and still sees rewrites", () => {
  const emulator = terminal("one\r\ntwo\r\nthree\r\n");
  const [, two] = logicalLines(emulator, 0, 2);
  const mark = markThrough(emulator, two);
  assertEquals([mark.resume, mark.top, mark.last, mark.prints.length], [2, 0, 1, 2]);
  // The rest since that mark is the line after it.
  assertEquals(rowsSince(emulator, mark).text, "three\n");
  // A rewrite of the line it stopped after is a change again, read from that line.
  emulator.write("\x1b[2;1HTWO\x1b[4;1H");
  assertEquals(rowsSince(emulator, mark).text, "TWO\nthree\n");
  emulator.dispose();
});

Deno.test("textBetween: a read from one mark that ends where another leaves the rows", () => {
  const emulator = terminal("$ ");
  const from = markOf(emulator);
  emulator.write("make\r\nbuilding\r\n");
  const middle = markOf(emulator);
  emulator.write("done\r\n$ ");
  assertEquals(textBetween(emulator, from, middle), {
    text: "$ make\nbuilding\n",
    missedRows: 0,
    alternateScreen: false,
  });
  // A `to` whose cursor sat on its last row: that line is not known to be complete.
  assertEquals(textBetween(emulator, from, markOf(emulator)).text, "$ make\nbuilding\ndone\n$");
  assertEquals(textBetween(emulator, middle, markOf(emulator)).text, "done\n$");
  emulator.write("\x1b[?1049h\x1b[Hfull");
  assertEquals(textBetween(emulator, from, middle), {
    text: "full",
    missedRows: 0,
    alternateScreen: true,
  });
  emulator.dispose();
});
