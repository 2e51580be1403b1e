/** Listings keep the same rows whether their size is bounded at once or measured row by row. */
import { assertEquals } from "../tests/support/assert.ts";
import { boundRows, byteLength } from "./results.ts";

/** The exact rule: rows kept while the JSON of the kept rows fits. */
function exact<T>(rows: T[], maxRows: number, maxBytes: number): number {
  let bytes = 2;
  let kept = 0;
  for (const row of rows.slice(0, maxRows)) {
    bytes += byteLength(JSON.stringify(row)) + 1;
    if (bytes > maxBytes) break;
    kept++;
  }
  return kept;
}

Deno.test("boundRows keeps exactly the rows whose JSON fits, escapes, emoji and dates included", () => {
  // Rows of nothing but control characters: every one takes six bytes (`\u0000`), the most.
  for (let n = 1; n < 20; n++) {
    const rows = Array.from({ length: n }, () => ({ t: "\x00".repeat(50) }));
    const size = byteLength(JSON.stringify(rows));
    for (const maxBytes of [size - 1, size]) {
      assertEquals(boundRows(rows, 1000, maxBytes).rows.length, exact(rows, 1000, maxBytes));
    }
  }
  const texts = ["plain", 'quote" back\\slash', "\x00\x1f\x7f ctl", "é中😀", "\u2028", ""];
  for (let n = 0; n < 40; n++) {
    const rows = Array.from({ length: n }, (_, i) => ({
      id: `%${i}`,
      title: texts[i % texts.length].repeat(1 + (i % 7)),
      width: i * 1000.5,
      dead: i % 2 === 0,
      when: i % 5 === 0 ? new Date(0) : undefined,
      nested: { list: [i, "x".repeat(i)] },
    }));
    const size = byteLength(JSON.stringify(rows));
    for (const maxBytes of [2, 100, size - 1, size, size + 1, 6 * size + 100]) {
      for (const maxRows of [0, n - 1, n, 1000]) {
        const bounded = boundRows(rows, maxRows, maxBytes);
        const kept = exact(rows, maxRows, maxBytes);
        assertEquals(bounded.rows, rows.slice(0, kept), `${n} rows, ${maxRows}, ${maxBytes}`);
        assertEquals(bounded.dropped, n - kept);
      }
    }
  }
});
