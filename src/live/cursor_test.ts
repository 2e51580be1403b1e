/** The cursor vocabulary on its own: syntax, stream ids and the memory of reads; no tmux. */
import { assert, assertEquals, assertThrows } from "../../tests/support/assert.ts";
import {
  CURSOR_PATTERN,
  formatCursor,
  newStreamId,
  parseCursor,
  READ_MEMORY,
  type ReadMark,
  ReadMemory,
} from "./cursor.ts";
import { ToolError } from "../errors.ts";

const ID = "0123456789abcdef0123456789abcdef";

Deno.test("a formatted cursor matches the pattern and parses back to its parts", () => {
  const cases: [string, number][] = [[ID, 0], [ID, 1], [ID, 4096], [
    "ffffffffffffffffffffffffffffffff",
    Number.MAX_SAFE_INTEGER,
  ]];
  for (const [streamId, offset] of cases) {
    const cursor = formatCursor(streamId, offset);
    assert(CURSOR_PATTERN.test(cursor), cursor);
    assertEquals(parseCursor(cursor), { streamId, offset });
  }
});

Deno.test("malformed cursors fail the pattern and parse as stale_cursor", () => {
  const cases = [
    "",
    `ltxc1.${ID}`,
    `ltxc1.${ID}.`,
    `ltxc1.${ID}.01`,
    `ltxc1.${ID}.-1`,
    `ltxc1.${ID}.1.5`,
    `ltxc2.${ID}.0`,
    `ltxc1.${ID.toUpperCase()}.0`,
    `ltxc1.${ID.slice(1)}.0`,
    `ltxc1.${ID}0.0`,
    ` ltxc1.${ID}.0`,
    `ltxc1.${ID}.0\n`,
  ];
  for (const cursor of cases) {
    assert(!CURSOR_PATTERN.test(cursor), JSON.stringify(cursor));
    const error = assertThrows(() => parseCursor(cursor), ToolError);
    assertEquals(error.code, "stale_cursor");
  }
  // Matches the pattern, but its offset is past what a number holds exactly.
  const huge = `ltxc1.${ID}.${"9".repeat(20)}`;
  assert(CURSOR_PATTERN.test(huge));
  assertEquals(assertThrows(() => parseCursor(huge), ToolError).code, "stale_cursor");
});

Deno.test("stream ids are 32 hex digits and differ", () => {
  const ids = new Set(Array.from({ length: 100 }, () => newStreamId()));
  assertEquals(ids.size, 100);
  for (const id of ids) assert(/^[0-9a-f]{32}$/.test(id), id);
});

/** A distinct mark (only its identity matters to the memory). */
function mark(n: number): ReadMark {
  return { resume: n, top: 0, prints: new Uint32Array(0), last: n };
}

Deno.test("the read memory gives each mark an offset its cursor can recall", () => {
  // Each row: the position a read ends at, the mark (by number), and the offset expected.
  const cases: { steps: [number, number, number][]; why: string }[] = [
    { steps: [[0, 1, 0], [10, 2, 10], [25, 3, 25]], why: "offsets are the positions" },
    { steps: [[5, 1, 5], [5, 1, 5]], why: "the same mark at the same position keeps its offset" },
    {
      steps: [[5, 1, 5], [5, 2, 6], [5, 3, 7]],
      why: "another mark at a held position takes the next offset no cursor has",
    },
    {
      steps: [[5, 1, 5], [9, 2, 9], [5, 3, 10]],
      why: "past the largest offset given, never onto a later read's",
    },
  ];
  for (const { steps, why } of cases) {
    const memory = new ReadMemory();
    const marks = new Map<number, ReadMark>();
    const given: number[] = [];
    for (const [position, n, expected] of steps) {
      const m = marks.get(n) ?? mark(n);
      marks.set(n, m);
      const offset = memory.remember(m, position);
      assertEquals(offset, expected, why);
      given.push(offset);
    }
    for (const [i, [, n]] of steps.entries()) {
      assertEquals(memory.recall(given[i]), marks.get(n), why);
    }
    assertEquals(memory.recall(1_000), undefined, why);
  }
});

Deno.test("the read memory forgets the least recently used read past READ_MEMORY", () => {
  const memory = new ReadMemory();
  const marks = Array.from({ length: READ_MEMORY }, (_, i) => mark(i));
  marks.forEach((m, i) => memory.remember(m, i));
  // Recalling the oldest keeps it: the second oldest is forgotten by the next read instead.
  assertEquals(memory.recall(0), marks[0]);
  const newest = mark(READ_MEMORY);
  assertEquals(memory.remember(newest, READ_MEMORY), READ_MEMORY);
  assertEquals(memory.recall(0), marks[0]);
  assertEquals(memory.recall(1), undefined);
  assertEquals(memory.recall(2), marks[2]);
  assertEquals(memory.recall(READ_MEMORY), newest);
  memory.clear();
  assertEquals(memory.recall(READ_MEMORY), undefined);
});
