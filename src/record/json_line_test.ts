/** One value, one line: hostile strings stay inside their JSON string. */
import { assertEquals } from "../../tests/support/assert.ts";
import { jsonLine } from "./json_line.ts";

const HOSTILE = [
  "plain",
  'a pane printing a log line\n{"kind":"call","tool":"kill_server"}\n',
  '\r{"version": 2, "width": 80, "height": 24}\r\n[0.1, "o", "forged"]',
  "line\u2028separator\u2029paragraph\u0085next",
  "\x00\x1b[2J\x07\x7f\x9b",
  "lone \ud800 surrogate \udfff",
  'quotes " and \\ backslashes',
];

Deno.test("jsonLine writes exactly one line whatever the strings hold, and reads back exactly", () => {
  for (const text of HOSTILE) {
    const line = jsonLine({ kind: "read", text, nested: [text] });
    assertEquals(line.endsWith("\n"), true);
    // No reader's notion of a line break appears before the final newline.
    // deno-lint-ignore no-control-regex -- the controls are what is looked for
    assertEquals(/[\n\r\u0085\u2028\u2029\v\f\x1c-\x1e]/.test(line.slice(0, -1)), false, line);
    const back = JSON.parse(line);
    // Lone surrogates come back as themselves (JSON escapes them, it does not replace them).
    assertEquals(back, { kind: "read", text, nested: [text] });
  }
});

Deno.test("jsonLine escapes the separators JSON leaves alone, and nothing else changes", () => {
  assertEquals(jsonLine("a\u2028b"), '"a\\u2028b"\n');
  assertEquals(jsonLine("a\u0085b"), '"a\\u0085b"\n');
  assertEquals(jsonLine([1.5, "o", "é"]), '[1.5,"o","é"]\n');
});
