/**
 * A stream's waiters while output keeps coming (docs/design.md §7.2): woken at once by a change,
 * then at most every 10 ms, and never told `timeout` when a change came during their wait; output
 * held unapplied is there as soon as the terminal is read. No tmux.
 */
import { assertEquals } from "../../tests/support/assert.ts";
import { PaneStream } from "./stream.ts";
import { ToolError } from "../errors.ts";
import { blankSeed } from "../../tests/support/seed.ts";

const bytes = (text: string) => new TextEncoder().encode(text);
const never = new AbortController().signal;

function stream(): PaneStream {
  const s = new PaneStream(
    { paneId: "%1", generation: "g1.1", sessionId: "$0", windowId: "@0" },
    100,
  );
  s.seed(blankSeed(20, 4), s.changes, false);
  return s;
}

Deno.test("a change during a short wait is a change, even when its wake is deferred", async () => {
  const s = stream();
  const first = s.waitForChange(60_000, never);
  s.receive(bytes("one"));
  assertEquals(await first, "changed", "the first change wakes at once");
  // Right after a wake, the next change's wake waits for the interval; a wait shorter than that
  // still learns of it.
  const second = s.waitForChange(1, never);
  s.receive(bytes(" two"));
  assertEquals(await second, "changed");
  // The output is on the screen as soon as the terminal is read, held or not.
  assertEquals(s.emulator!.screenRows()[0], "one two");
  // Nothing came during this one: a timeout.
  assertEquals(await s.waitForChange(20, never), "timeout");
  s.end(new ToolError("stale_cursor", "done"));
});

Deno.test("waiters woken late by a burst see all of it; the stream's end wakes them at once", async () => {
  const s = stream();
  const first = s.waitForChange(60_000, never);
  s.receive(bytes("a"));
  await first;
  const late = s.waitForChange(60_000, never);
  for (let i = 0; i < 50; i++) s.receive(bytes(`${i}\r\n`));
  assertEquals(await late, "changed");
  assertEquals(s.emulator!.screenRows().slice(0, 3), ["47", "48", "49"]);
  // No output first: a change would wake it at once or 10 ms later, depending on the machine's
  // pace (see the next test); the end alone must wake it, and as an error, never as a change.
  const ending = s.waitForChange(60_000, never).catch((e) => e as ToolError);
  s.end(new ToolError("stale_cursor", "gone"));
  assertEquals(((await ending) as ToolError).code, "stale_cursor");
});

Deno.test("a change coming a wake interval or more after the last wake wakes waiters at once", async () => {
  // What made this file flaky on a busy machine: a stall of 10 ms or more between a wake and the
  // next change (here made on purpose: at least the interval passes) turns a deferred wake into an
  // immediate one, so a wait ended by a change before a later event could see it first.
  const s = stream();
  const first = s.waitForChange(60_000, never);
  s.receive(bytes("a"));
  assertEquals(await first, "changed");
  await new Promise((resolve) => setTimeout(resolve, 15)); // the interval has passed, whatever the load
  const second = s.waitForChange(60_000, never);
  s.receive(bytes("b"));
  // Settled within the receive itself: ahead of a promise that was already resolved.
  assertEquals(await Promise.race([second, Promise.resolve("deferred")]), "changed");
  s.end(new ToolError("stale_cursor", "done"));
});
