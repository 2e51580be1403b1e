/**
 * The question's preview escapes every character that could hide or fake text (docs/design.md
 * §6.11): `cd build<U+115F>; touch MARK` must not read as `cd build; touch MARK`. Pure: no tmux.
 */
import { MARKS_PER_BASE, visible } from "./preview.ts";
import { assertEquals } from "../../tests/support/assert.ts";

const hex = (code: number) => `\\u{${code.toString(16)}}`;

/** Code points that must never reach the person raw, by why. */
const ESCAPED: ReadonlyArray<[string, readonly number[]]> = [
  ["Hangul fillers", [0x115f, 0x1160, 0x3164, 0xffa0]],
  ["combining grapheme joiner", [0x034f]],
  ["Khmer inherent vowels", [0x17b4, 0x17b5]],
  ["Mongolian variation selectors and vowel separator", [0x180b, 0x180c, 0x180d, 0x180e, 0x180f]],
  ["variation selectors", Array.from({ length: 16 }, (_, i) => 0xfe00 + i)],
  ["variation selectors supplement", [0xe0100, 0xe01ef]],
  ["tags", [0xe0000, 0xe0001, 0xe0020, 0xe0041, 0xe007f, 0xe0fff]],
  ["braille blank", [0x2800]],
  ["no-break and other non-ASCII spaces", [
    0x00a0,
    0x0085,
    0x1680,
    ...Array.from({ length: 11 }, (_, i) => 0x2000 + i),
    0x202f,
    0x205f,
    0x3000,
  ]],
  ["line and paragraph separators", [0x2028, 0x2029]],
  ["zero-width and direction marks", [0x200b, 0x200c, 0x200d, 0x200e, 0x200f, 0x061c]],
  ["bidi embeddings and isolates", [0x202a, 0x202b, 0x202c, 0x202d, 0x202e, 0x2066, 0x2069]],
  ["word joiner and invisible operators", [0x2060, 0x2061, 0x2062, 0x2063, 0x2064]],
  ["soft hyphen, byte order mark, interlinear annotation", [0x00ad, 0xfeff, 0xfff9, 0xfffb]],
  ["other default-ignorable code points", [0x1bca0, 0x1d173, 0x1d17a, 0xfff0]],
  ["C1 controls", [0x0080, 0x009b, 0x009f]],
  ["private use and unassigned", [0xe000, 0xf8ff, 0x10ffff, 0x0378]],
  ["other blank-looking characters", [0x16fe4, 0x1d159]],
];

for (const [why, codes] of ESCAPED) {
  Deno.test(`the preview escapes ${why}`, () => {
    for (const code of codes) {
      const ch = String.fromCodePoint(code);
      assertEquals(visible(`a${ch}b`), `"a${hex(code)}b"`, hex(code));
    }
  });
}

Deno.test("the issue's example reads as what it is", () => {
  assertEquals(
    visible("cd build\u115f; touch MARK"),
    '"cd build\\u{115f}; touch MARK"',
  );
});

Deno.test("the preview keeps printable text as it is: ASCII, letters of every script, emoji", () => {
  const raw = [
    "echo hello; ls -la | grep '~' && [ $? ]",
    "café naïve Ελληνικά кириллица",
    "中文 日本語 한국어",
    "हिन्दी العربية עברית",
    "😀 ✓ → ─ █",
    "e\u0301", // one combining mark on its base
  ];
  for (const text of raw) assertEquals(visible(text), `"${text}"`, text);
});

Deno.test("combining marks: at most two on one base character, none without a shown base", () => {
  assertEquals(MARKS_PER_BASE, 2);
  const table: Array<[string, string]> = [
    ["e\u0301\u0302", '"e\u0301\u0302"'],
    ["e\u0301\u0302\u0303", '"e\u0301\u0302\\u{303}"'],
    ["x" + "\u0336".repeat(20), `"x\u0336\u0336${"\\u{336}".repeat(18)}"`],
    // A new base character starts a new count.
    ["a\u0301\u0301b\u0301\u0301", '"a\u0301\u0301b\u0301\u0301"'],
    // No base: at the start, or after an escaped character.
    ["\u0301a", '"\\u{301}a"'],
    ["\u200b\u0301", '"\\u{200b}\\u{301}"'],
    ["\t\u20dd", '"\\t\\u{20dd}"'],
  ];
  for (const [text, shown] of table) assertEquals(visible(text), shown, text);
});

Deno.test("escaped characters count once toward the preview's bound", () => {
  assertEquals(
    visible("\u115f".repeat(5), 3),
    '"\\u{115f}\\u{115f}\\u{115f}" …(2 more characters)',
  );
});
