/** Rendered reads on their own: a PaneStream seeded and fed by hand, no tmux. */
import { assert, assertEquals, assertRejects } from "../../tests/support/assert.ts";
import { readFrom, readScreen } from "./read.ts";
import { READ_MEMORY } from "./cursor.ts";
import { PaneStream } from "./stream.ts";
import { ToolError } from "../errors.ts";
import { blankSeed } from "../../tests/support/seed.ts";

const bytes = (text: string) => new TextEncoder().encode(text);
const never = new AbortController().signal;

/** A seeded stream of a blank `width`×`height` pane holding `scrollback` rows of history. */
function stream(width = 40, height = 6, scrollback = 100): PaneStream {
  const s = new PaneStream(
    { paneId: "%1", generation: "g1.1", sessionId: "$0", windowId: "@0" },
    scrollback,
  );
  s.seed(
    blankSeed(width, height),
    s.changes,
    false,
  );
  return s;
}

/** Follow the stream from `offset` once, without waiting. */
async function next(s: PaneStream, offset: number) {
  return await readFrom(s, offset, 0, never);
}

Deno.test("a read returns whole lines; a half-written line comes back whole, then complete", async () => {
  const s = stream();
  s.receive(bytes("$ "));
  const first = readScreen(s);
  assertEquals(first.text, "$");
  s.receive(bytes("echo hi"));
  const typing = await next(s, first.offset);
  assertEquals([typing.text, typing.outcome], ["$ echo hi", "output"]);
  s.receive(bytes("\r\nhi\r\n$ "));
  const done = await next(s, typing.offset);
  assertEquals(done.text, "$ echo hi\nhi\n$");
  // Nothing changed: no text, and the same cursor.
  const idle = await next(s, done.offset);
  assertEquals([idle.text, idle.outcome, idle.offset], ["", "idle", done.offset]);
  // Moving the cursor shows nothing new; the row the read ended on comes back with what follows.
  s.receive(bytes("\r\n"));
  assertEquals((await next(s, done.offset)).outcome, "idle");
  s.receive(bytes("more\r\n"));
  const more = await next(s, done.offset);
  assertEquals(more.text, "$\nmore\n");
  // A text ending with a newline ends complete: the next read starts below it.
  s.receive(bytes("last"));
  assertEquals((await next(s, more.offset)).text, "last");
});

Deno.test("a progress bar redrawn with carriage returns shows its latest state once", async () => {
  const s = stream();
  const first = readScreen(s);
  s.receive(bytes("[#   ] 25%\r[##  ] 50%\r[### ] 75%"));
  const partway = await next(s, first.offset);
  assertEquals(partway.text, "[### ] 75%");
  s.receive(bytes("\r[####] 100%\r\ndone\r\n"));
  assertEquals((await next(s, partway.offset)).text, "[####] 100%\ndone\n");
});

Deno.test("a line rewritten above the cursor since the last read comes back as it is now", async () => {
  const s = stream();
  const first = readScreen(s);
  s.receive(bytes("header\r\nstep 1/3\r\n"));
  const read = await next(s, first.offset);
  assertEquals(read.text, "header\nstep 1/3\n");
  // Cursor up, erase the line, rewrite it: the old state must not come back.
  s.receive(bytes("\x1b[1A\x1b[2Kstep 2/3\r\n\x1b[1A\x1b[2Kstep 3/3\r\n"));
  const redrawn = await next(s, read.offset);
  assertEquals(redrawn.text, "step 3/3\n");
  // A cleared screen: the prompt printed at the top is what is new.
  s.receive(bytes("$ "));
  const prompt = await next(s, redrawn.offset);
  s.receive(bytes("clear\r\n\x1b[H\x1b[2J\x1b[3J$ "));
  const cleared = await next(s, prompt.offset);
  assertEquals(cleared.text, "$");
  assertEquals(cleared.missedRows, 1, "the '$ clear' row was erased before it was read");
});

Deno.test("rows that left the scrollback before being read are counted in missedRows", async () => {
  const s = stream(20, 5, 10);
  const first = readScreen(s);
  for (let i = 0; i < 100; i++) s.receive(bytes(`${i}\r\n`));
  const read = await next(s, first.offset);
  // Rows 0..100 were written (100 lines, then the cursor row); 15 are held.
  assertEquals(read.missedRows, 86);
  assertEquals(read.text, Array.from({ length: 14 }, (_, i) => `${86 + i}\n`).join(""));
  s.receive(bytes("100\r\n"));
  const more = await next(s, read.offset);
  assertEquals([more.text, more.missedRows], ["100\n", 0]);
});

Deno.test("full-screen programs: the alternate screen is returned whole, then the rows after it", async () => {
  const s = stream(20, 4);
  s.receive(bytes("$ vim\r\n"));
  const first = readScreen(s);
  s.receive(bytes("\x1b[?1049h\x1b[H~\r\n~\r\n\x1b[4;1H-- INSERT --"));
  const full = await next(s, first.offset);
  assertEquals([full.text, full.alternateScreen], ["~\n~\n\n-- INSERT --", true]);
  const same = await next(s, full.offset);
  assertEquals([same.text, same.outcome, same.alternateScreen], ["", "idle", true]);
  s.receive(bytes("\x1b[?1049l$ "));
  const after = await next(s, full.offset);
  assertEquals([after.text, after.alternateScreen], ["$", false]);
});

/** Run every callback already queued (all in this process: nothing else can be on its way). */
function flush(): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, 0));
}

Deno.test("a wait sleeps until something visible changes, and reports a timeout otherwise", async () => {
  const s = stream();
  const first = readScreen(s);
  // Attributes alone change nothing visible: the wait goes on until text arrives.
  let settled = false;
  const reading = readFrom(s, first.offset, 5_000, never).finally(() => settled = true);
  s.receive(bytes("\x1b[31m"));
  await flush();
  assert(!settled, "the colour change did not end the wait");
  s.receive(bytes("late"));
  const woke = await reading;
  assertEquals([woke.text, woke.outcome], ["late", "output"]);
  const quiet = await readFrom(s, woke.offset, 60, never);
  assertEquals([quiet.outcome, quiet.text, quiet.offset], ["timeout", "", woke.offset]);
  // A half character is nothing visible either.
  const euro = bytes("€");
  settled = false;
  const rest = readFrom(s, woke.offset, 5_000, never).finally(() => settled = true);
  s.receive(euro.subarray(0, 1));
  await flush();
  assert(!settled, "half a character did not end the wait");
  s.receive(euro.subarray(1));
  assertEquals((await rest).text, "late€");
});

Deno.test("reads are remembered per stream: the last 64 cursors work, older ones are stale", async () => {
  const s = stream();
  const offsets = [readScreen(s).offset];
  for (let i = 0; i < READ_MEMORY; i++) {
    s.receive(bytes(`${i}\r\n`));
    offsets.push((await next(s, offsets.at(-1)!)).offset);
  }
  // Several readers: any remembered cursor reads everything after it.
  assertEquals(
    (await next(s, offsets[1])).text,
    Array.from({ length: 63 }, (_, i) => `${i + 1}\n`).join(""),
  );
  const forgotten = await assertRejects(() => next(s, offsets[0]), ToolError);
  assertEquals(forgotten.code, "stale_cursor");
  assert(forgotten.message.includes("no longer remembered"), forgotten.message);
  const future = await assertRejects(() => next(s, s.position + 5), ToolError);
  assert(future.message.includes("past the stream's end"), future.message);
});

/** Until a read waits on `s` (all in this process: a few flushes, or the read never will). */
async function waiting(s: PaneStream): Promise<void> {
  for (let flushes = 0; s.waiters === 0; flushes++) {
    if (flushes === 100) throw new Error("the read never waited on the stream");
    await flush();
  }
}

Deno.test("a wait rejects when the call is cancelled or the stream ends", async () => {
  const s = stream();
  const first = readScreen(s);
  // Each is ended once the read is known to wait on the stream, not after some time.
  const cancel = new AbortController();
  const cancelled = assertRejects(
    () => readFrom(s, first.offset, 60_000, cancel.signal),
    ToolError,
  );
  await waiting(s);
  cancel.abort();
  assertEquals((await cancelled).code, "cancelled");
  assertEquals(s.waiters, 0);
  const ended = assertRejects(() => readFrom(s, first.offset, 60_000, never), ToolError);
  await waiting(s);
  s.end(new ToolError("target_not_found", "gone"));
  assertEquals((await ended).code, "target_not_found");
  assertEquals(s.waiters, 0);
});

Deno.test("output held while the seed is captured is applied after it, from the seed's change on", () => {
  const s = new PaneStream(
    { paneId: "%1", generation: "g1.1", sessionId: "$0", windowId: "@0" },
    100,
  );
  s.receive(bytes("before the capture\r\n"));
  const mark = s.changes;
  s.receive(bytes("after"));
  s.seed(
    {
      width: 20,
      height: 3,
      cursorX: 0,
      cursorY: 1,
      screen: "before the capture\n\n\n",
      scrollUpper: 0,
      scrollLower: 2,
      insert: false,
      origin: false,
      wrap: true,
      tabs: [],
    },
    mark,
    false,
  );
  assertEquals(s.emulator!.screenRows(), ["before the capture", "after", ""]);
  assertEquals([s.seedRace, s.position], [false, 25]);
});

Deno.test("two reads that end at one stream position keep a cursor each", () => {
  const s = stream();
  s.receive(bytes("one\r\ntwo\r\n"));
  const stoppedEarly = { resume: 1, top: 0, prints: new Uint32Array(), last: 1 };
  const readToEnd = { resume: 2, top: 0, prints: new Uint32Array(), last: 1 };
  const first = s.remember(stoppedEarly);
  const second = s.remember(readToEnd);
  assert(first !== second, "a second cursor, not the first one's offset");
  assertEquals(s.recall(first), stoppedEarly);
  assertEquals(s.recall(second), readToEnd);
  s.receive(bytes("three\r\n"));
  assert(s.remember(readToEnd) > second, "offsets only grow");
});
