/**
 * tmux's history arithmetic (src/tmux/live/history_count.ts) against tmux: the size model as rows
 * scroll in. Its tables are in src/tmux/live/history_count_test.ts.
 */
import { assert, assertEquals } from "../support/assert.ts";
import { eventually, TmuxFixture } from "../support/fixture.ts";
import { scrollOnce } from "../../src/tmux/live/history_count.ts";

/** The history after `rows` rows scrolled into an empty one. */
function after(rows: number, limit: number): number {
  let size = 0;
  for (let i = 0; i < rows; i++) size = scrollOnce(size, limit).size;
  return size;
}

Deno.test("tmux's history sizes follow the model as rows scroll in, past its limit", async () => {
  await using fx = await TmuxFixture.start({ command: "sleep 100000" });
  await fx.tmux("set-option", "-g", "history-limit", "25");
  // Each line read prints that many numbers, then a numbered end line.
  await fx.tmux(
    "new-window",
    "-d",
    "sh -c 'stty -echo; echo ready; k=0; while read n; do seq 1 $n; k=$((k+1)); echo end-$k; done'",
  );
  const pane = (await fx.tmux("list-panes", "-a", "-F", "#{pane_id} #{history_limit}"))
    .split("\n").find((l) => l.endsWith(" 25"))!.split(" ")[0];
  // Typed before `stty -echo` ran, a line would be echoed: an extra row.
  assert(
    await eventually(async () =>
      (await fx.tmux("capture-pane", "-p", "-t", pane)).startsWith("ready\n")
    ),
  );
  let printed = 1;
  for (const [k, n] of [10, 20, 7, 13, 2, 30, 1, 60].entries()) {
    await fx.tmux("send-keys", "-t", pane, String(n), "Enter");
    printed += n + 1;
    assert(
      await eventually(async () =>
        (await fx.tmux("capture-pane", "-p", "-t", pane)).includes(`end-${k + 1}\n`)
      ),
    );
    // The cursor starts on the screen's top row of 24: rows scroll in from the 24th line on.
    const size = Number(await fx.display(pane, "#{history_size}"));
    assertEquals(size, after(Math.max(0, printed - 23), 25), `after ${printed} lines`);
  }
});
