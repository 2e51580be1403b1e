/** Key names to the bytes tmux 3.3a writes (as observed with a raw pane, extended keys off). */
import { assertEquals } from "../../tests/support/assert.ts";
import { keyBytes } from "./key_bytes.ts";

const NORMAL = { cursor: false, keypad: false };
const APP = { cursor: true, keypad: true };

Deno.test("named keys: their sequence in normal and application modes", () => {
  const table: Array<[string, string, string]> = [
    ["Up", "\x1b[A", "\x1bOA"],
    ["Down", "\x1b[B", "\x1bOB"],
    ["Right", "\x1b[C", "\x1bOC"],
    ["Left", "\x1b[D", "\x1bOD"],
    ["Home", "\x1b[1~", "\x1b[1~"],
    ["End", "\x1b[4~", "\x1b[4~"],
    ["IC", "\x1b[2~", "\x1b[2~"],
    ["Delete", "\x1b[3~", "\x1b[3~"],
    ["PPage", "\x1b[5~", "\x1b[5~"],
    ["PgDn", "\x1b[6~", "\x1b[6~"],
    ["F1", "\x1bOP", "\x1bOP"],
    ["F4", "\x1bOS", "\x1bOS"],
    ["F5", "\x1b[15~", "\x1b[15~"],
    ["F11", "\x1b[23~", "\x1b[23~"],
    ["F12", "\x1b[24~", "\x1b[24~"],
    ["Tab", "\t", "\t"],
    ["BTab", "\x1b[Z", "\x1b[Z"],
    ["Enter", "\r", "\r"],
    ["Escape", "\x1b", "\x1b"],
    ["Space", " ", " "],
    ["BSpace", "\x7f", "\x7f"],
    ["KP0", "0", "\x1bOp"],
    ["KP9", "9", "\x1bOy"],
    ["KP/", "/", "\x1bOo"],
    ["KP*", "*", "\x1bOj"],
    ["KP-", "-", "\x1bOm"],
    ["KP+", "+", "\x1bOk"],
    ["KP.", ".", "\x1bOn"],
    ["KPEnter", "\n", "\x1bOM"],
  ];
  for (const [name, normal, app] of table) {
    assertEquals([name, keyBytes(name, NORMAL)], [name, normal]);
    assertEquals([name, keyBytes(name, APP)], [name, app]);
  }
});

Deno.test("modifiers: control codes, a leading ESC for meta, xterm's modified forms", () => {
  const table: Array<[string, string | undefined]> = [
    ["C-a", "\x01"],
    ["C-A", "\x01"],
    ["C-z", "\x1a"],
    ["C-Space", "\x00"],
    ["C-@", "\x00"],
    ["C-[", "\x1b"],
    ["C-\\", "\x1c"],
    ["C-]", "\x1d"],
    ["C-^", "\x1e"],
    ["C-_", "\x1f"],
    ["C-?", "\x7f"],
    ["M-a", "\x1ba"],
    ["M-A", "\x1bA"],
    ["M-1", "\x1b1"],
    ["M-C-a", "\x1b\x01"],
    ["M-Space", "\x1b "],
    ["M-Escape", "\x1b\x1b"],
    ["M-Enter", "\x1b\r"],
    ["M-BSpace", "\x1b\x7f"],
    ["M-Up", "\x1b[1;3A"],
    ["C-Up", "\x1b[1;5A"],
    ["S-Up", "\x1b[1;2A"],
    ["C-M-Up", "\x1b[1;7A"],
    ["C-S-Up", "\x1b[1;6A"],
    ["S-Left", "\x1b[1;2D"],
    ["M-Home", "\x1b[1;3H"],
    ["C-End", "\x1b[1;5F"],
    ["C-F1", "\x1b[1;5P"],
    ["M-F1", "\x1b[1;3P"],
    ["S-F5", "\x1b[15;2~"],
    ["C-F5", "\x1b[15;5~"],
    // What tmux does not send as this table would: recorded by name.
    ["S-Tab", undefined],
    ["S-a", undefined],
    ["C-Tab", undefined],
    ["C-Enter", undefined],
    ["C-BSpace", undefined],
    ["C-1", undefined],
    ["a", undefined],
    ["Nonsense", undefined],
  ];
  for (const [name, bytes] of table) {
    assertEquals([name, keyBytes(name, NORMAL)], [name, bytes]);
  }
  // Modified arrows do not depend on the cursor mode.
  assertEquals(keyBytes("C-Up", APP), "\x1b[1;5A");
});
