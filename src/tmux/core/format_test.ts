/**
 * tmux format syntax on its own (docs/design.md §5): literal agent strings, and rows split on
 * per-call separators that no printed value can forge. No tmux: the output is written by hand as
 * tmux prints it (tests/tmux/funnel_test.ts checks it against tmux).
 */
import { assert, assertEquals, assertThrows } from "../../../tests/support/assert.ts";
import {
  flag,
  int,
  literal,
  marker,
  nonce,
  parseRows,
  rowFormat,
  rowTemplate,
  separators,
  splitSections,
} from "./format.ts";

Deno.test("literal doubles every #, so nothing expands or runs", () => {
  const cases: [string, string][] = [
    ["", ""],
    ["plain", "plain"],
    ["#{pane_id}", "##{pane_id}"],
    ["#(rm -rf ~)", "##(rm -rf ~)"],
    ["##", "####"],
    ["a#b#", "a##b##"],
  ];
  for (const [value, want] of cases) assertEquals(literal(value), want, value);
});

Deno.test("separators embed a fresh nonce between ASCII record and unit separators", () => {
  assertEquals(separators("f00d"), { row: "\x1ef00d\x1e", field: "\x1ff00d\x1f" });
  const [a, b] = [nonce(), nonce()];
  assert(/^[0-9a-f]{16}$/.test(a), a);
  assert(a !== b, "one nonce per call");
  assert(separators().row !== separators().row);
});

Deno.test("rowTemplate and marker: the row separator, the tag, then each variable", () => {
  const sep = separators("1");
  assertEquals(
    rowTemplate(sep, "P", ["pane_id", "pane_pid"]),
    "\x1e1\x1eP\x1f1\x1f#{pane_id}\x1f1\x1f#{pane_pid}",
  );
  assertEquals(rowTemplate(sep, "M", []), "\x1e1\x1eM");
  assertEquals(marker(sep, "C"), ["display-message", "-p", "\x1e1\x1eC"]);
});

Deno.test("parseRows: values keep newlines, look-alike separators and each other's tags", () => {
  const sep = separators("abc");
  const row = (tag: string, ...fields: string[]) =>
    sep.row + [tag, ...fields].join(sep.field) + "\n";
  // A path holding a newline, a forged separator with another nonce, a value ending in a newline.
  const hostile = ["/tmp/a\nP", "\x1exyz\x1eP\x1fxyz\x1f", "end\n"];
  const stdout = "noise before\n" + row("P", "%1", ...hostile) + row("W", "@2") + row("E");
  assertEquals(parseRows(stdout, sep), [
    { tag: "P", fields: ["%1", ...hostile] },
    { tag: "W", fields: ["@2"] },
    { tag: "E", fields: [] },
  ]);
  assertEquals(parseRows("", sep), []);
  assertEquals(parseRows("no rows at all\n", sep), []);
  // Only one newline ends a row: the rest belongs to its last field.
  assertEquals(parseRows(row("P", "x\n"), sep), [{ tag: "P", fields: ["x\n"] }]);
});

Deno.test("rowFormat: a template in key order, rows of its tag decoded, a wrong field count refused", () => {
  const sep = separators("9");
  const format = rowFormat("P", { id: "pane_id", path: "pane_current_path", dead: "pane_dead" });
  assertEquals(
    format.template(sep),
    rowTemplate(sep, "P", ["pane_id", "pane_current_path", "pane_dead"]),
  );
  const rows = [
    { tag: "P", fields: ["%1", "/a", "0"] },
    { tag: "W", fields: ["@1"] },
    { tag: "P", fields: ["%2", "/b\n", "1"] },
  ];
  assertEquals(format.decode(rows), [
    { id: "%1", path: "/a", dead: "0" },
    { id: "%2", path: "/b\n", dead: "1" },
  ]);
  assertThrows(
    () => format.decode([{ tag: "P", fields: ["%1", "/a"] }]),
    Error,
    "row of P has 2 fields, want 3",
  );
  assertThrows(
    () => format.decode([{ tag: "P", fields: ["%1", "/a", "0", "forged"] }]),
    Error,
    "row of P has 4 fields, want 3",
  );
});

Deno.test("int and flag: decimal integers and tmux's 1/0 flags, anything else the fallback", () => {
  const ints: [string, number | undefined, number][] = [
    ["42", undefined, 42],
    ["-7", undefined, -7],
    ["007", undefined, 7],
    ["", undefined, 0],
    ["", -1, -1],
    ["1.5", 3, 3],
    ["1e3", 3, 3],
    [" 4", 3, 3],
    ["0x10", 3, 3],
  ];
  for (const [value, fallback, want] of ints) assertEquals(int(value, fallback), want, value);
  for (const [value, want] of [["1", true], ["0", false], ["", false], ["true", false]] as const) {
    assertEquals(flag(value), want, value);
  }
});

Deno.test("splitSections: markers with the body printed after them, header rows with their fields", () => {
  const sep = separators("5");
  const stdout = [
    "before\n",
    sep.row + "CAP\n",
    "line 1\nline 2\n",
    sep.row + "H" + sep.field + "%1" + sep.field + "a\nb\n",
    sep.row + "END",
  ].join("");
  const sections = splitSections(stdout, sep);
  assertEquals(sections.map(({ tag, fields }) => ({ tag, fields })), [
    { tag: "CAP", fields: [] },
    // A header's fields may hold newlines: the whole section but its last newline is split.
    { tag: "H", fields: ["%1", "a\nb"] },
    { tag: "END", fields: [] },
  ]);
  // A bare marker's body is what was printed after its line.
  assertEquals([sections[0].body, sections[2].body], ["line 1\nline 2\n", ""]);
  assertEquals(splitSections("nothing\n", sep), []);
});
