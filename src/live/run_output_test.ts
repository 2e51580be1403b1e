/** Where a command's output starts (docs/design.md §7.9), on its own: the events that move it. */
import { assertEquals } from "../../tests/support/assert.ts";
import { startEvents } from "./run_output.ts";

Deno.test("startEvents: what moves a command's output start, at byte offsets", () => {
  const bytes = new TextEncoder().encode(
    "a\x1b[H\x1b[Jb\x1b[2Jc\x1b[3J\x1b[?1049h\x1b[5Ad\x1bc\x1b[?25l",
  );
  assertEquals(startEvents(bytes).map((e) => [e.offset, e.effect]), [
    [4, "move"],
    [7, "erase"],
    [12, "clear"],
    [17, "history"],
    [25, "screen"],
    [29, "move"],
    [32, "reset"],
    [38, "move"],
  ]);
});
