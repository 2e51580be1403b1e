/**
 * The default wait's reading of the cursor (src/wait/prompt.ts, src/live/echo.ts's leftOfCursor),
 * table-driven: which rows read as a prompt, how a polled row is cut at the cursor's cell, and a
 * real headless terminal's cursor. No tmux.
 */
import { assertEquals } from "../../tests/support/assert.ts";
import { leftOfCursor } from "../live/echo.ts";
import { PaneEmulator } from "../live/emulator.ts";
import { leftOfColumn, promptBefore, readiness } from "./prompt.ts";

Deno.test("promptBefore: text then a blank, or text ending in : ? > $ #, is a prompt", () => {
  const cases: [string, boolean][] = [
    [">>> ", true],
    ["... ", true],
    ["(Pdb) ", true],
    ["Name: ", true],
    ["Continue? [y/N] ", true],
    ["user@host:~$ ", true],
    ["Password:", true],
    ["Proceed?", true],
    ["mysql>", true],
    ["root#", true],
    // Nothing, or only blanks, left of the cursor: a program reading on an empty line, or busy.
    ["", false],
    ["    ", false],
    // Progress and unfinished words are not prompts.
    ["Downloading 45%", false],
    ["[#####     ]", false],
    ["loading", false],
    ["Compiling foo.c", false],
  ];
  for (const [left, prompt] of cases) {
    assertEquals(promptBefore(left), prompt, JSON.stringify(left));
  }
});

Deno.test("leftOfColumn: a polled row cut at the cursor's cell, wide characters two cells, blanks past the text", () => {
  const cases: [string, number, string][] = [
    ["Name:", 6, "Name: "],
    ["Name:", 5, "Name:"],
    ["$ ls", 2, "$ "],
    ["", 0, ""],
    ["", 3, "   "],
    ["名前:", 5, "名前:"],
    ["名前:", 6, "名前: "],
    ["名前:", 3, "名"],
    ["é:", 3, "é: "],
  ];
  for (const [row, x, left] of cases) {
    assertEquals(leftOfColumn(row, x), left, `${JSON.stringify(row)} at ${x}`);
  }
});

Deno.test("readiness: a full-screen program settled is quiet, the normal screen needs a prompt", () => {
  assertEquals(readiness(true, ""), "quiet");
  assertEquals(readiness(false, ">>> "), "prompt");
  assertEquals(readiness(false, ""), undefined);
});

Deno.test("leftOfCursor: the terminal cursor's row left of it, blanks kept; none under the alternate screen", () => {
  const emulator = new PaneEmulator(40, 5, 10);
  emulator.write("loading\r\n");
  assertEquals(leftOfCursor(emulator), "");
  emulator.write("listening\r\nName: ");
  assertEquals(leftOfCursor(emulator), "Name: ");
  // A right-hand prompt beyond the cursor is not read.
  emulator.write("\x1b[30Gright\x1b[7G");
  assertEquals(leftOfCursor(emulator), "Name: ");
  emulator.write("\x1b[?1049h");
  assertEquals(leftOfCursor(emulator), undefined);
  emulator.write("\x1b[?1049l");
  assertEquals(leftOfCursor(emulator), "Name: ");
  emulator.dispose();
});
