/** The first frame redraws the screen a terminal shows, and nothing a pane could smuggle in. */
import { assertEquals } from "../../tests/support/assert.ts";
import { PaneEmulator } from "../live/emulator.ts";
import { firstFrame } from "./first_frame.ts";

/** What a fresh terminal of the same size shows after `data`. */
function replay(cols: number, rows: number, data: string) {
  const term = new PaneEmulator(cols, rows, 100);
  term.write(data);
  const shown = { rows: term.screenRows(), cursor: term.cursor, alternate: term.alternate };
  term.dispose();
  return shown;
}

Deno.test("a first frame redraws the screen, its colours and its cursor", () => {
  const cases = [
    "$ echo hi\r\nhi\r\n$ ",
    "\x1b[31mred\x1b[0m plain \x1b[1;44mbold on blue\x1b[0m\r\nwide 日本語 ok\r\n> ",
    "line 1\r\n".repeat(30) + "last", // scrolled: only the screen is drawn
    "\x1b[?1049h\x1b[H\x1b[2Jfull screen\x1b[5;10Hthere", // a full-screen program
  ];
  for (const output of cases) {
    const term = new PaneEmulator(40, 10, 100);
    term.write(output);
    const frame = firstFrame(term);
    const expected = { rows: term.screenRows(), cursor: term.cursor, alternate: term.alternate };
    assertEquals(replay(40, 10, frame), expected);
    // Colours survive: the frame of a coloured screen carries their SGR.
    if (output.includes("[31m")) assertEquals(frame.includes("\x1b[0;31mred"), true);
    term.dispose();
  }
});

Deno.test("a first frame holds no control character a cell could carry", () => {
  const term = new PaneEmulator(20, 4, 0);
  term.write("ok\x1b]0;title\x07\x1bP+q\x1b\\ \x9b2J");
  const frame = firstFrame(term);
  // Only the frame's own CSI sequences: ESC followed by "[", never OSC, DCS or a C1 control.
  // deno-lint-ignore no-control-regex -- the controls are what is looked for
  assertEquals(/\x1b[^[]|[\x00-\x1a\x1c-\x1f\x7f-\x9f]/.test(frame), false, JSON.stringify(frame));
  term.dispose();
});
