/** The quiet hook, table-driven: which changes start and restart it, and when it is quiet. */
import { assertEquals } from "../../tests/support/assert.ts";
import { QuietTimer } from "./quiet.ts";

Deno.test("quiet: only a change that may start it starts it; every later change restarts it", () => {
  // [changes as [at, starts], asked at, quiet then, when quiet if nothing changes]
  const cases: [[number, boolean][], number, boolean, number][] = [
    [[], 10_000, false, Infinity],
    // The echo alone (a change that may not start it) never makes the wait quiet.
    [[[0, false], [100, false]], 10_000, false, Infinity],
    [[[0, true]], 499, false, 500],
    [[[0, true]], 500, true, 500],
    // Once started, any change restarts it, even one that could not have started it.
    [[[0, true], [400, false]], 500, false, 900],
    [[[0, true], [400, false]], 900, true, 900],
    [[[0, false], [200, true], [300, false]], 750, false, 800],
  ];
  for (const [changes, now, quiet, at] of cases) {
    const timer = new QuietTimer(500);
    for (const [when, starts] of changes) timer.changed(when, starts);
    assertEquals([timer.quiet(now), timer.at], [quiet, at], JSON.stringify(changes));
    assertEquals(timer.started, at !== Infinity);
  }
});
