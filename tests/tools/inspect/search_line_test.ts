/**
 * search_panes's `line`: capture_pane's numbering (0 = the screen's top row, negative = history),
 * so a hit is read back in context with capture_pane. Wrapped lines count as the rows they take.
 */
import { assert, assertEquals } from "../../support/assert.ts";
import { connectInProcess, ok } from "../../support/client.ts";
import { eventually, TmuxFixture } from "../../support/fixture.ts";

interface Match {
  paneId: string;
  line: number;
  lineNumber: number;
  text: string;
}

Deno.test("search_panes: a hit in history and one on the screen below a wrapped line are read back with capture_pane at `line`", async () => {
  // 100 numbered lines scroll into the history; a 250-character line wraps over four rows.
  const script = "seq -f 'row %g' 1 100; printf '%0250d' 0 | tr 0 a; echo; echo tail-marker; " +
    "exec sleep 100000";
  await using fx = await TmuxFixture.start({ command: `sh -c "${script}"`, width: 80, height: 24 });
  const { client, close } = await connectInProcess(["-S", fx.socket]);
  try {
    assert(
      await eventually(async () =>
        (await fx.tmux("capture-pane", "-p", "-t", "%0")).includes("tail-marker")
      ),
      "the script printed everything",
    );
    const search = async (pattern: string) => {
      const found = await ok<{ matches: Match[] }>(client, "search_panes", {
        pattern,
        regex: true,
        scrollbackLines: 1000,
      });
      assertEquals(found.matches.length, 1, pattern);
      return found.matches[0];
    };
    const capture = async (
      start: number,
      end: number,
    ) => (await ok<{ text: string; start: number }>(client, "capture_pane", {
      paneId: "%0",
      start,
      end,
    }));

    const old = await search("^row 7$");
    assert(old.line < 0, `row 7 is in the history: ${old.line}`);
    assertEquals(old.lineNumber, old.line - (await search("^row 1$")).line + 1, "lineNumber kept");
    const around = await capture(old.line - 5, old.line + 5);
    assertEquals(around.start, old.line - 5);
    assertEquals(around.text.split("\n")[5], "row 7", around.text);
    assertEquals(around.text.split("\n").slice(0, 11), [
      "row 2",
      "row 3",
      "row 4",
      "row 5",
      "row 6",
      "row 7",
      "row 8",
      "row 9",
      "row 10",
      "row 11",
      "row 12",
    ]);

    // The wrapped line takes four rows (80 + 80 + 80 + 10), so the line below starts four lower.
    const wrapped = await search("^a{250}$");
    const tail = await search("^tail-marker$");
    assertEquals(tail.line, wrapped.line + 4);
    assert(tail.line >= 0 && tail.line < 24, `tail-marker is on the screen: ${tail.line}`);
    assertEquals((await capture(tail.line, tail.line)).text, "tail-marker");
    assertEquals((await capture(wrapped.line, wrapped.line)).text, "a".repeat(80));
    assertEquals((await capture(wrapped.line - 1, wrapped.line - 1)).text, "row 100");
  } finally {
    await close();
  }
});
