/** asciicast v2 lines and the output decoder. */
import { assertEquals } from "../../tests/support/assert.ts";
import { castEvent, castHeader, castSize, OutputText } from "./asciicast.ts";

Deno.test("the header is asciicast v2 on one line", () => {
  const line = castHeader({ width: 80, height: 24, timestamp: 1700000000.9, title: "local %3" });
  assertEquals(JSON.parse(line), {
    version: 2,
    width: 80,
    height: 24,
    timestamp: 1700000000,
    title: "local %3",
  });
  assertEquals(line.split("\n").length, 2);
});

Deno.test("events are [seconds, code, data] with microseconds, never negative", () => {
  const cases: Array<[number, "o" | "i" | "m" | "r", string, string]> = [
    [0, "o", "hi", '[0,"o","hi"]\n'],
    [1.23456789, "i", "\r", '[1.234568,"i","\\r"]\n'],
    [-0.001, "m", "#1 send_keys", '[0,"m","#1 send_keys"]\n'],
    [2, "r", castSize(100, 30), '[2,"r","100x30"]\n'],
    [3, "o", "\x1b[31mred\x1b[0m\n", '[3,"o","\\u001b[31mred\\u001b[0m\\n"]\n'],
  ];
  for (const [seconds, code, data, line] of cases) {
    assertEquals(castEvent(seconds, code, data), line);
  }
});

Deno.test("a forged header or event printed by a pane stays data inside one event", () => {
  const forged = '{"version": 2, "width": 1, "height": 1}\n[0, "o", "owned"]\n';
  const line = castEvent(1, "o", forged);
  assertEquals(line.indexOf("\n"), line.length - 1);
  assertEquals(JSON.parse(line), [1, "o", forged]);
});

Deno.test("OutputText joins sequences split across reads and replaces invalid bytes", () => {
  const euro = [0xe2, 0x82, 0xac];
  const table: Array<[number[][], string]> = [
    [[[0x61, 0x62]], "ab"],
    [[[euro[0]], [euro[1], euro[2]]], "€"],
    [[[euro[0], euro[1]], [euro[2], 0x21]], "€!"],
    [[[0xff, 0x61]], "\ufffda"],
    [[[0xf0, 0x9f], [0x98], [0x80]], "😀"],
    [[[0xe2, 0x82], [0x41]], "\ufffdA"],
  ];
  for (const [reads, text] of table) {
    const out = new OutputText();
    assertEquals(reads.map((r) => out.decode(new Uint8Array(r))).join("") + out.flush(), text);
  }
  // A stream that ends inside a sequence says so once, and the next one starts clean.
  const out = new OutputText();
  assertEquals(out.decode(new Uint8Array([0xe2, 0x82])), "");
  assertEquals(out.flush(), "\ufffd");
  assertEquals(out.decode(new Uint8Array([0x41])), "A");
});
