/** What a polled wait tells from two screens, table-driven. */
import { assertEquals } from "../../tests/support/assert.ts";
import { beyondInput, linesNotIn, newScreenLines } from "./screen_lines.ts";

Deno.test("the new lines of a polled screen: scrolled, completed, rewritten, cleared", () => {
  const cases: [string[], string[], string[]][] = [
    // Nothing changed.
    [["a", "b"], ["a", "b"], []],
    // Lines appended below.
    [["a", "b"], ["a", "b", "c"], ["c"]],
    // The screen scrolled by one row and a line came.
    [["a", "b", "c"], ["b", "c", "d"], ["d"]],
    // Scrolled by two.
    [["a", "b", "c"], ["c", "d", "e"], ["d", "e"]],
    // The last line was still being written: it counts again once complete.
    [["$ make", "buil"], ["$ make", "building", "done"], ["building", "done"]],
    // Rows changed in place (a redraw): only those.
    [["x", "y", "z"], ["x", "Y", "z"], ["Y"]],
    // Everything gone (a cleared screen): all that is shown now.
    [["a", "b"], ["q"], ["q"]],
    [[], ["a"], ["a"]],
    [[""], ["hello"], ["hello"]],
    [["$ make"], ["$ make", "cc a.c"], ["cc a.c"]],
    [["a", "b", "$ ma"], ["a", "b", "$ make"], ["$ make"]],
    [["a", "b", "c"], ["b", "c", "d", "e"], ["d", "e"]],
    // Repeated lines: the longest overlap wins.
    [["a", "ok", "ok"], ["ok", "ok", "ok", "z"], ["ok", "z"]],
    [["x 10%", "tail"], ["x 90%", "tail"], ["x 90%"]],
  ];
  for (const [prev, next, fresh] of cases) {
    assertEquals(newScreenLines(prev, next), fresh, `${prev} -> ${next}`);
  }
});

Deno.test("after input without live mode: lines not seen before, and output beyond the input's line", () => {
  const before = ["$ ls", "a b", "$ echo hi"];
  const cases: [string[], string[], boolean][] = [
    // [screen now, lines not on the screen before, beyond the input]
    [before, [], false],
    // Only the input's own line changed (its echo arriving): not beyond.
    [["$ ls", "a b", "$ echo hi!"], ["$ echo hi!"], false],
    [["$ ls", "a b", "$ echo hi", "hi"], ["hi"], true],
    // A line above rewritten (a cleared or redrawn screen) is beyond the input.
    [["$ clear", "a b", "$ echo hi"], ["$ clear"], true],
    // A shorter screen whose lines above the last did not change: not beyond.
    [["$ ls", "a b"], [], false],
  ];
  for (const [next, fresh, beyond] of cases) {
    assertEquals(linesNotIn(new Set(before), next), fresh, next.join("|"));
    assertEquals(beyondInput(before, next), beyond, next.join("|"));
  }
});
