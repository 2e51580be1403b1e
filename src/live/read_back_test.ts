/**
 * Reading rows back (src/live/read_back.ts) on its own: no tmux. A second terminal fed the same
 * output, keeping every row, stands for tmux's history; reads that fell behind a terminal keeping
 * a few rows must return what reads of the keeping terminal return.
 */
import { assert, assertEquals } from "../../tests/support/assert.ts";
import { readFrom, readScreen } from "./read.ts";
import type { ReadBack, TmuxRows } from "./read_back.ts";
import type { PaneEmulator } from "./emulator.ts";
import { PaneStream } from "./stream.ts";
import { blankSeed } from "../../tests/support/seed.ts";

const bytes = (text: string) => new TextEncoder().encode(text);
const never = new AbortController().signal;
const BIG = { lines: 1_000_000, bytes: 1_000_000 };

function stream(width: number, height: number, scrollback: number): PaneStream {
  const s = new PaneStream(
    { paneId: "%1", generation: "g1.1", sessionId: "$0", windowId: "@0" },
    scrollback,
  );
  s.seed(blankSeed(width, height), s.changes, false);
  return s;
}

/** Row `row` of `model` as `capture-pane -N` prints it: a wrapped row whole, others trimmed. */
function rowOf(model: PaneEmulator, row: number): { text: string; wrapped: boolean } {
  const wrapped = model.isWrapped(row + 1);
  const line = model.buffer.getLine(row - model.firstRow);
  return { text: line?.translateToString(!wrapped) ?? "", wrapped };
}

/**
 * A ReadBack answering from `keeper`'s terminal (every row kept) as tmux would: rows above `oldest` are gone;
 * `edit` may change what "tmux" holds, to see a disagreement caught.
 */
function backFrom(
  s: PaneStream,
  keeper: PaneStream,
  oldest = 0,
  edit?: (row: number, text: string) => string,
): ReadBack {
  return <T>(
    plan: (emulator: PaneEmulator) => { value: T; ranges: { from: number; to: number }[] },
  ) => {
    const { value, ranges } = plan(s.emulator!);
    const model = keeper.emulator!;
    const rows: TmuxRows = {
      oldest,
      ranges: ranges.map((r) => {
        const from = Math.min(r.to, Math.max(r.from, oldest));
        const got = Array.from({ length: r.to - from }, (_, i) => rowOf(model, from + i));
        return {
          from,
          texts: got.map((g, i) => edit?.(from + i, g.text) ?? g.text),
          wrapped: got.map((g) => g.wrapped),
        };
      }),
    };
    return Promise.resolve({ value, rows });
  };
}

/** A seeded generator (mulberry32): the same cases on every run. */
function random(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

Deno.test("reads that fell behind a few kept rows return what reads keeping every row return", async () => {
  for (let trial = 0; trial < 40; trial++) {
    const next = random(trial + 1);
    const width = 10 + Math.floor(next() * 30);
    const height = 3 + Math.floor(next() * 8);
    const few = stream(width, height, Math.floor(next() * 6));
    const all = stream(width, height, 1_000_000);
    const back = { read: backFrom(few, all), bounds: BIG };
    let [a, b] = [readScreen(few).offset, readScreen(all).offset];
    for (let step = 0; step < 30; step++) {
      let out = "";
      const lines = Math.floor(next() * 3 * height * (next() < 0.3 ? 10 : 1));
      for (let i = 0; i < lines; i++) {
        const text = `${step}.${i}:` + "xy ".repeat(Math.floor(next() * width));
        // Some lines end in the middle, a read coming while they are written.
        out += i === lines - 1 && next() < 0.4 ? text : text + "\r\n";
      }
      few.receive(bytes(out));
      all.receive(bytes(out));
      const got = await readFrom(few, a, 0, never, undefined, back);
      const want = await readFrom(all, b, 0, never);
      const where = `trial ${trial}, step ${step} (${width}x${height})`;
      assertEquals([got.text, got.missedRows, got.skippedRows], [want.text, 0, 0], where);
      [a, b] = [got.offset, want.offset];
    }
  }
});

Deno.test("rows tmux no longer holds are missedRows; rows the bounds drop are skipped, whole lines", async () => {
  const few = stream(10, 4, 2);
  const all = stream(10, 4, 1_000_000);
  let cursor = readScreen(few).offset;
  readScreen(all);
  // 40 lines of two rows each (a wrapped line), then the cursor's row.
  const out = Array.from({ length: 40 }, (_, i) => `line ${String(i).padStart(2, "0")} ..x`).join(
    "\r\n",
  ) + "\r\n";
  few.receive(bytes(out));
  all.receive(bytes(out));
  // tmux dropped rows 0..19 (lines 0..9): they are missed, the rest comes back.
  const gone = await readFrom(few, cursor, 0, never, undefined, {
    read: backFrom(few, all, 20),
    bounds: BIG,
  });
  assertEquals(gone.missedRows, 20);
  assertEquals(gone.skippedRows, 0);
  assertEquals(gone.text.split("\n").slice(0, 2), ["line 10 ..x", "line 11 ..x"]);
  assertEquals(gone.text.split("\n").length, 31, "lines 10..39, then the cursor's empty row");
  // With room for 5 lines, the newest whole lines come back; the rest is skipped, none cut.
  const bounded = await readFrom(few, cursor, 0, never, undefined, {
    read: backFrom(few, all),
    bounds: { lines: 5, bytes: 10_000 },
  });
  assertEquals(bounded.missedRows, 0);
  assert(bounded.skippedRows > 0);
  const lines = bounded.text.split("\n");
  assert(lines.every((l) => l === "" || /^line \d\d \.\.x$/.test(l)), bounded.text);
  assertEquals(lines.at(-2), "line 39 ..x");
  // tmux's rows disagree with the rows the terminal still holds: the read goes without them.
  cursor = readScreen(few).offset;
  few.receive(bytes(out));
  all.receive(bytes(out));
  const wrong = await readFrom(few, cursor, 0, never, undefined, {
    read: backFrom(
      few,
      all,
      0,
      (row, text) => row === few.emulator!.firstRow ? "bogus" : text,
    ),
    bounds: BIG,
  });
  assertEquals([wrong.missedRows, wrong.skippedRows], [few.emulator!.firstRow - 80, 0]);
  assert(!wrong.text.includes("line 00"), "nothing of tmux's rows");
  // tmux's rows disagree with what the previous read saw (lines 38 and 39, rows 76..79).
  cursor = readScreen(few).offset;
  const seen = few.recall(cursor)!;
  few.receive(bytes(out));
  all.receive(bytes(out));
  const changed = await readFrom(few, cursor, 0, never, undefined, {
    read: backFrom(few, all, 0, (row, text) => row === seen.top ? "bogus" : text),
    bounds: BIG,
  });
  assertEquals(changed.missedRows, few.emulator!.firstRow - seen.resume);
  const same = await readFrom(few, cursor, 0, never, undefined, {
    read: backFrom(few, all),
    bounds: BIG,
  });
  assertEquals([same.missedRows, same.text.split("\n")[0]], [0, "line 00 ..x"]);
});
