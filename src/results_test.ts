/** Bounding helpers: tail-first, UTF-8-safe, and honest about what they dropped. */
import { assertEquals } from "../tests/support/assert.ts";
import { boundRows, boundText, byteLength, clipText, utf8Tail } from "./results.ts";

Deno.test("boundText keeps the newest lines; a final newline is not a line", () => {
  assertEquals(boundText("a\nb\nc\n", 2, 1000), {
    text: "b\nc\n",
    truncated: true,
    truncatedLines: 1,
    truncatedBytes: 2,
  });
  // Consecutive chunks of a stream concatenate exactly.
  assertEquals(boundText("1\n2\n", 10, 100).text + boundText("3\n", 10, 100).text, "1\n2\n3\n");
  assertEquals(boundText("\n", 10, 100).text, "\n");
  assertEquals(boundText("a\nb\nc", 5, 1000), {
    text: "a\nb\nc",
    truncated: false,
    truncatedLines: 0,
    truncatedBytes: 0,
  });
  assertEquals(boundText("", 5, 10).text, "");
});

Deno.test("boundText drops whole lines for bytes, then cuts the last line on a code point", () => {
  const lines = Array.from({ length: 10 }, (_, i) => `line-${i}`).join("\n"); // 6 bytes each
  const fit = boundText(lines, 100, 20);
  assertEquals(fit.text, "line-7\nline-8\nline-9");
  assertEquals(fit.truncatedLines, 7);
  assertEquals(fit.truncatedBytes, byteLength(lines) - 20);

  const wide = "日本語テキスト"; // 3 bytes per character
  const cut = boundText(wide, 10, 10);
  assertEquals(cut.text, "テキスト".slice(1)); // 9 bytes: never half a character
  assertEquals(cut.truncatedBytes, byteLength(wide) - 9);
  assertEquals(cut.truncated, true);
  assertEquals(boundText("😀😀😀", 1, 5).text, "😀");
});

Deno.test("utf8Tail never splits a multi-byte sequence", () => {
  for (let max = 0; max <= 12; max++) {
    const tail = utf8Tail("aé😀ü", max);
    assertEquals(byteLength(tail) <= max, true);
    assertEquals(tail.includes("\ufffd"), false);
  }
});

Deno.test("boundRows caps by count and by JSON bytes; clipText marks the cut", () => {
  const rows = Array.from({ length: 50 }, (_, i) => ({ i, pad: "x".repeat(90) }));
  assertEquals(boundRows(rows, 10, 1_000_000).rows.length, 10);
  assertEquals(boundRows(rows, 10, 1_000_000).dropped, 40);
  const byBytes = boundRows(rows, 100, 1000);
  assertEquals(byBytes.rows.length < 10, true);
  assertEquals(byteLength(JSON.stringify(byBytes.rows)) <= 1000, true);
  assertEquals(byBytes.dropped, 50 - byBytes.rows.length);
  assertEquals(clipText("abcdef", 4), "abc…");
  assertEquals(clipText("abc", 4), "abc");
});
