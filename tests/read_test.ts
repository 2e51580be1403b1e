/** The stream read loop on its own: no tmux, a PaneStream fed by hand. */
import { assertEquals, assertRejects } from "./support/assert.ts";
import { readFrom } from "../src/live/read.ts";
import { PaneStream } from "../src/live/stream.ts";
import { ToolError } from "../src/errors.ts";

const bytes = (text: string) => new TextEncoder().encode(text);

function stream(retainBytes = 1024): PaneStream {
  return new PaneStream("%1", "g1.1", "$0", retainBytes);
}

Deno.test("readFrom returns what follows the offset and the offset after it", async () => {
  const s = stream();
  s.append(bytes("one\r\ntwo\x1b[31m red\x1b[0m\n"));
  const read = await readFrom(s, 0, 0, new AbortController().signal);
  assertEquals(read, { text: "one\ntwo red\n", next: s.total, missedBytes: 0, outcome: "output" });
  const again = await readFrom(s, read.next, 0, new AbortController().signal);
  assertEquals([again.text, again.outcome], ["", "idle"]);
});

Deno.test("readFrom holds back a split character until it is whole", async () => {
  const s = stream();
  const smile = bytes("😀");
  s.append(bytes("a"));
  s.append(smile.subarray(0, 2));
  const first = await readFrom(s, 0, 0, new AbortController().signal);
  assertEquals([first.text, first.next], ["a", 1]);
  s.append(smile.subarray(2));
  const second = await readFrom(s, first.next, 0, new AbortController().signal);
  assertEquals([second.text, second.next], ["😀", 5]);
});

Deno.test("readFrom sleeps until output arrives, or reports a timeout", async () => {
  const s = stream();
  setTimeout(() => s.append(bytes("late")), 50);
  const woke = await readFrom(s, 0, 5_000, new AbortController().signal);
  assertEquals([woke.text, woke.outcome], ["late", "output"]);
  const started = Date.now();
  const quiet = await readFrom(s, woke.next, 60, new AbortController().signal);
  assertEquals(quiet.outcome, "timeout");
  assertEquals(Date.now() - started >= 55, true);
  // An escape sequence alone is not output: the wait goes on.
  setTimeout(() => s.append(bytes("\x1b[2J")), 10);
  setTimeout(() => s.append(bytes("shown")), 60);
  const past = await readFrom(s, quiet.next, 5_000, new AbortController().signal);
  assertEquals(past.text, "shown");
});

Deno.test("readFrom counts bytes lost to retention and rejects when the stream ends or the call is cancelled", async () => {
  const s = stream(8);
  s.append(bytes("0123456789abcdef"));
  const read = await readFrom(s, 2, 0, new AbortController().signal);
  assertEquals([read.text, read.missedBytes], ["89abcdef", 6]);
  const cancel = new AbortController();
  setTimeout(() => cancel.abort(), 20);
  assertEquals(
    (await assertRejects(() => readFrom(s, read.next, 5_000, cancel.signal), ToolError)).code,
    "cancelled",
  );
  setTimeout(() => s.end(new ToolError("server_gone", "gone")), 20);
  assertEquals(
    (await assertRejects(
      () => readFrom(s, read.next, 5_000, new AbortController().signal),
      ToolError,
    ))
      .code,
    "server_gone",
  );
});
