/** What a stream's terminal is seeded with (docs/design.md §7.2), on its own and drawn. */
import { assertEquals } from "../../tests/support/assert.ts";
import { defaultTabs, screenBytes } from "./seed_bytes.ts";
import { PaneEmulator } from "./emulator.ts";

Deno.test("defaultTabs: every 8 columns, inside the width", () => {
  const cases: [number, number[]][] = [
    [1, []],
    [8, []],
    [9, [8]],
    [16, [8]],
    [17, [8, 16]],
    [80, [8, 16, 24, 32, 40, 48, 56, 64, 72]],
  ];
  for (const [width, tabs] of cases) assertEquals(defaultTabs(width), tabs, String(width));
});

Deno.test("screenBytes: the capture's lines from the top left, CR LF between, reset at the end", () => {
  const cases: [string, string][] = [
    ["", "\x1b[H\x1b[0m"],
    ["one", "\x1b[Hone\x1b[0m"],
    ["a\nb\n", "\x1b[Ha\r\nb\x1b[0m"],
    ["a\n\n", "\x1b[Ha\r\n\x1b[0m"],
    ["\x1b[31mred\ncarried\x1b[0m\n", "\x1b[H\x1b[31mred\r\ncarried\x1b[0m\x1b[0m"],
  ];
  for (const [capture, bytes] of cases) assertEquals(screenBytes(capture), bytes, capture);
});

Deno.test("screenBytes drawn: each line from the left edge whatever came before, nothing scrolled", () => {
  const emulator = new PaneEmulator(10, 3, 10);
  // The cursor somewhere else first: the seed starts from the top left whatever came before.
  emulator.write("\x1b[3;5H");
  emulator.write(screenBytes("  indented\n\x1b[1mbold\nstill\n"));
  assertEquals(emulator.screenRows(), ["  indented", "bold", "still"]);
  assertEquals([emulator.firstRow, emulator.screenTop], [0, 0], "nothing scrolled");
  emulator.dispose();
});
