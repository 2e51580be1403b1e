/**
 * What a framed command printed since an earlier answer (docs/design.md §7.9), on a headless
 * terminal fed by hand: answers put together are the whole output (a line split across answers
 * included), a redraw says how many lines it gives again, rows that left the history are counted,
 * an earlier answer's place still gives everything after it, and after the end too. No tmux.
 */
import { assert, assertEquals } from "../../tests/support/assert.ts";
import { blankSeed } from "../../tests/support/seed.ts";
import { FramedRun, type Given } from "./run_frame.ts";
import type { RunDelta } from "./run_delta.ts";
import { PaneStream } from "./stream.ts";

const encoder = new TextEncoder();

/** A run in a `cols`×`rows` pane keeping `history` rows, its start frame already printed. */
function started(cols = 20, rows = 6, history = 100) {
  const stream = new PaneStream(
    { paneId: "%1", generation: "g1", sessionId: "$0", windowId: "@0" },
    history,
  );
  stream.seed(blankSeed(cols, rows), stream.changes, false);
  const run = new FramedRun({
    paneId: "%1",
    generation: "g1",
    shell: "bash",
    buffer: "tmux-mcp-0",
    execs: new Set(),
  });
  stream.tap(run);
  const print = (text: string) => stream.receive(encoder.encode(text));
  const frame = (body: string) => print(`\x1b]7735;tmux-mcp;${run.nonce};${body}\x07`);
  print("$ eval line\r\n");
  frame("start");
  let n = 0;
  /** One answer: the output since `from` (default: the newest answer), kept as `c<n>`. */
  const answer = (from?: Given | "start") => {
    const { delta, next } = run.since(
      stream.emulator,
      from === "start" ? undefined : from ?? run.latest,
    );
    const cursor = `c${n++}`;
    run.gave(next, cursor);
    return { ...delta, cursor };
  };
  const whole = () => run.output(stream.emulator).text;
  return { stream, run, print, frame, answer, whole };
}

/** What an agent holds after `delta`: appended, or its last `redrawn` lines replaced. */
function apply(held: string, delta: RunDelta): string {
  if (delta.redrawn === 0) return held + delta.text;
  const lines = held.split("\n");
  const kept = lines.slice(0, Math.max(0, lines.length - delta.redrawn));
  return kept.length > 0 ? `${kept.join("\n")}\n${delta.text}` : delta.text;
}

Deno.test("answers put together are the whole output: a line split across answers, wrapped rows, trailing blanks", () => {
  const { print, frame, answer, whole } = started(10);
  const held: string[] = [];
  const steps = ["abc", "  ", "def\r\n1", "\r\n", "", "2345678901234", "5 x\r\n\r\n", "tail"];
  for (const step of steps) {
    print(step);
    const got = answer();
    assertEquals([got.redrawn, got.missedRows], [0, 0], JSON.stringify(step));
    held.push(got.text);
    assertEquals(held.join(""), whole(), `after ${JSON.stringify(step)}`);
  }
  // The cursor resting on an empty row is no line yet: the next one starts with the line break.
  assertEquals(held.slice(0, 6), ["abc", "", "  def\n1", "", "", "\n2345678901234"]);
  frame("exit;0");
  assertEquals(answer().text, "", "nothing new at the end");
  assertEquals(held.join(""), "abc  def\n1\n23456789012345 x\n\ntail");
});

Deno.test("random output answered at random points concatenates exactly to the whole output", () => {
  let seed = 7;
  const random = (n: number) => {
    seed = (seed * 1103515245 + 12345) % 2147483648;
    return seed % n;
  };
  for (let round = 0; round < 40; round++) {
    const { print, frame, answer, whole } = started(8, 5, 1000);
    let held = "";
    for (let i = 0; i < 30; i++) {
      const pieces = ["a", "bc", " ", "   ", "\r\n", "xyz12345", "é", "中"];
      let chunk = "";
      for (let k = random(4); k >= 0; k--) chunk += pieces[random(pieces.length)];
      print(chunk);
      if (random(3) === 0) {
        const got = answer();
        assertEquals([got.redrawn, got.missedRows], [0, 0]);
        held += got.text;
        assertEquals(held, whole(), `round ${round}, step ${i}`);
      }
    }
    frame("exit;3");
    held += answer().text;
    assertEquals(held, whole(), `round ${round} at the end`);
  }
});

Deno.test("a line redrawn with \\r or cursor movement is given again, with how many lines it replaces", () => {
  const { print, answer, whole } = started();
  print("step 1\r\n10%");
  let held = answer().text;
  print("\r50%");
  const bar = answer();
  assertEquals([bar.text, bar.redrawn], ["50%", 1]);
  held = apply(held, bar);
  assertEquals(held, whole());
  print("\r\nstep 2\r\nstep 3\r\n");
  held = apply(held, answer());
  // Two lines up and rewritten: from the first changed line on.
  print("\x1b[2AStep 2!\r\n");
  const redraw = answer();
  assertEquals([redraw.text, redraw.redrawn], ["Step 2!\nstep 3", 2]);
  held = apply(held, redraw);
  assertEquals(held, whole());
  assertEquals(held, "step 1\n50%\nStep 2!\nstep 3");
});

Deno.test("a cleared screen, the alternate screen and a resize give the whole output again", () => {
  const { stream, print, answer, whole } = started();
  print("a\r\nb\r\n");
  let held = answer().text;
  print("\x1b[H\x1b[2Jc");
  const cleared = answer();
  assertEquals([cleared.text, cleared.redrawn], ["c", 2]);
  held = apply(held, cleared);
  assertEquals(held, whole());
  print("\x1b[?1049hon alt");
  const alt = answer();
  // The alternate screen keeps the cursor where it was, after "c".
  assertEquals([alt.text, alt.redrawn], [" on alt", 1]);
  print("\r\nmore");
  assertEquals(answer(), { text: "\nmore", missedRows: 0, redrawn: 0, cursor: "c3" });
  print("\x1b[?1049lback");
  held = apply(" on alt\nmore", answer());
  assertEquals(held, whole());
  stream.resize(30, 6);
  const resized = answer();
  assertEquals(resized.redrawn, 1);
  assertEquals(resized.text, whole());
});

Deno.test("rows that left the history before they were given are counted, and the text goes on after them", () => {
  const { print, answer } = started(20, 4, 10);
  print("first\r\n");
  assertEquals(answer().text, "first");
  for (let i = 1; i <= 30; i++) print(`line ${i}\r\n`);
  const got = answer();
  // 14 rows are held (10 of history, 4 on the screen, the last the cursor's empty row).
  assert(got.missedRows > 0, JSON.stringify(got));
  assertEquals(got.redrawn, 0);
  assert(got.text.startsWith("\nline "), got.text);
  assert(got.text.endsWith("\nline 30"), got.text);
  const first = Number(/^\nline (\d+)/.exec(got.text)![1]);
  assertEquals(got.missedRows, first - 1, "every line before the first one given was missed");
});

Deno.test("an earlier answer's place gives everything after it, before and after the end", () => {
  const { run, print, frame, answer, whole } = started();
  print("one\r\n");
  const a = answer();
  print("two\r\n");
  const lost = answer();
  print("thr");
  const afterA = answer(run.given(a.cursor)!);
  assertEquals(afterA.text, "\ntwo\nthr", "what followed a, the lost answer's part included");
  assertEquals(lost.text, "\ntwo");
  print("ee\r\n");
  frame("exit;4");
  // Ended: each remembered place still gives what followed it, up to the end.
  assertEquals(answer(run.given(a.cursor)!).text, "\ntwo\nthree");
  assertEquals(answer(run.given(lost.cursor)!).text, "\nthree");
  assertEquals(answer().text, "", "the newest answer had it all");
  assertEquals(answer("start").text, whole());
  assertEquals(whole(), "one\ntwo\nthree");
  assertEquals(run.given("c-unknown"), undefined);
});
