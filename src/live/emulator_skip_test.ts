/**
 * Lazy emulation (docs/design.md §7.2): `writeOutput` may skip the plain-text rows it would scroll
 * away, and must leave the terminal exactly as writing every byte does. No tmux.
 */
import { assert, assertEquals } from "../../tests/support/assert.ts";
import { PaneEmulator } from "./emulator.ts";

const encode = (text: string) => new TextEncoder().encode(text);

/** Everything a read, a wait or a screenshot could see: rows held, cells with colours, cursor. */
function state(emulator: PaneEmulator): string {
  const out = [
    `${emulator.cols}x${emulator.rows} rows ${emulator.firstRow}-${emulator.endRow} ` +
    `top ${emulator.screenTop} cursor ${emulator.cursorRow} alt ${emulator.alternate}`,
  ];
  const buffer = emulator.buffer;
  out.push(`at ${buffer.cursorX},${buffer.cursorY}`);
  for (let row = emulator.firstRow; row < emulator.endRow; row++) {
    let cells = "";
    const line = buffer.getLine(row - emulator.firstRow);
    for (let x = 0; line && x < emulator.cols; x++) {
      const cell = line.getCell(x)!;
      cells += `${cell.getChars() || "·"}${cell.getFgColor()}/${cell.getBgColor()}${
        cell.isBold() ? "b" : ""
      } `;
    }
    out.push(`${emulator.isWrapped(row) ? "+" : " "}${emulator.rowText(row)} | ${cells}`);
  }
  return out.join("\n");
}

/** A seeded generator (mulberry32): the same cases on every run. */
function random(seed: number): () => number {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const SPECIAL = [
  "\x1b[31m",
  "\x1b[1;44m",
  "\x1b[0m",
  "\x1b[3;1H",
  "\x1b[2;3r",
  "\x1b[r",
  "\x1b[?7l",
  "\x1b[?7h",
  "\x1b[4h",
  "\x1b[4l",
  "\x1b[?1049h",
  "\x1b[?1049l",
  "é",
  "中",
  "\t",
  "\x1b[2J",
  "\x1b[3b",
  "\n",
  "\x1b7",
  "\x1b8",
  "\x1bc",
];

/** Output that is mostly plain lines of every length around the width, with some sequences. */
function output(next: () => number, cols: number, lines: number, special: number): string {
  let text = "";
  for (let i = 0; i < lines; i++) {
    if (next() < special) text += SPECIAL[Math.floor(next() * SPECIAL.length)];
    const length = [0, 1, cols - 1, cols, cols + 1, 2 * cols, 3 * cols + 2][Math.floor(next() * 7)];
    for (let c = 0; c < length; c++) text += String.fromCharCode(0x21 + ((i + c) % 90));
    text += next() < 0.1 ? "\n" : "\r\n";
  }
  return text;
}

Deno.test("writing output lazily leaves every row, colour, count and cursor as writing it all", () => {
  let skipped = 0;
  for (let trial = 0; trial < 240; trial++) {
    const next = random(trial + 1);
    const [cols, rows, scrollback] = [[10, 4, 6], [7, 3, 0], [16, 6, 20]][trial % 3];
    const all = new PaneEmulator(cols, rows, scrollback);
    const lazy = new PaneEmulator(cols, rows, scrollback);
    for (let step = 0; step < 6; step++) {
      const chunk = encode(output(next, cols, Math.floor(next() * 80), trial % 4 === 0 ? 0 : 0.05));
      // A chunk may end inside a sequence or a character: the next one completes it.
      const split = Math.floor(next() * chunk.length);
      const parts = [chunk.subarray(0, split), chunk.subarray(split)];
      for (const part of parts) all.write(part);
      // One run of two chunks, or each chunk on its own.
      if (step % 2 === 0) skipped += lazy.writeOutput(parts);
      else for (const part of parts) skipped += lazy.writeOutput([part]);
      assertEquals(state(lazy), state(all), `trial ${trial}, step ${step}`);
    }
    // Nothing hidden differs: more output (a repeat, a move up, a colour) lands alike.
    for (const emulator of [all, lazy]) emulator.write("x\x1b[2b\x1b[2A\x1b[32my\x1b[5Sz\r\n");
    assertEquals(state(lazy), state(all), `trial ${trial}, after`);
    all.dispose();
    lazy.dispose();
  }
  assert(skipped > 100_000, `plain floods were skipped (${skipped} bytes)`);
});

Deno.test("a flood written at once is drawn from its last rows only, with the rows counted", () => {
  const all = new PaneEmulator(20, 5, 10);
  const lazy = new PaneEmulator(20, 5, 10);
  lazy.write("\x1b[33mprompt$ ");
  all.write("\x1b[33mprompt$ ");
  const flood = encode(Array.from({ length: 1000 }, (_, i) => `line ${i}\r\n`).join("") + "end");
  all.write(flood);
  const skipped = lazy.writeOutput([flood.subarray(0, 5000), flood.subarray(5000)]);
  assert(skipped > flood.length * 0.9, `most of the flood was only counted (${skipped})`);
  assertEquals(state(lazy), state(all));
  assertEquals([lazy.firstRow, lazy.cursorRow, lazy.rowText(lazy.cursorRow)], [986, 1000, "end"]);
  all.dispose();
  lazy.dispose();
});
