/**
 * The label rules of the manage setters without tmux (docs/design.md §5.12): names and titles tmux
 * would store altered are refused with a reason, never changed.
 */
import { assertEquals, assertThrows } from "../../../tests/support/assert.ts";
import { ToolError } from "../../errors.ts";
import {
  checkName,
  checkPrintable,
  checkSessionName,
  checkTitle,
  MAX_NAME_CHARS,
  MAX_TITLE_CHARS,
} from "./labels.ts";

Deno.test("names: printable, not flag-like, no backslash or $name; session names also no : . or $N", () => {
  const accepted = ["main", "a b", "é😀", "x-y", "$", "$1x", "50% done", "#{pane_id}", "a;b"];
  for (const name of accepted) {
    assertEquals(checkName(name, "window name"), name);
    assertEquals(checkSessionName(name), name);
  }
  assertEquals(checkName("x".repeat(MAX_NAME_CHARS), "window name").length, MAX_NAME_CHARS);
  const refusedNames: Array<[string, string]> = [
    ["", "is empty"],
    ["-t", 'must not start with "-"'],
    ["tab\there", "control character"],
    ["\u009b", "control character"],
    ["lone \ud800", "lone surrogate"],
    ["x".repeat(MAX_NAME_CHARS + 1), `longer than ${MAX_NAME_CHARS}`],
    ["back\\slash", 'backslash or "$"'],
    ["$HOME", 'backslash or "$"'],
    ["${x}", 'backslash or "$"'],
    ["$_", 'backslash or "$"'],
  ];
  for (const [name, why] of refusedNames) {
    assertThrows(() => checkName(name, "window name"), ToolError, why);
    assertThrows(() => checkSessionName(name), ToolError, why);
  }
  const refusedSessions: Array<[string, string]> = [
    ["a:b", 'holds ":" or "."'],
    ["v1.2", 'holds ":" or "."'],
    ["$3", "looks like an id"],
  ];
  for (const [name, why] of refusedSessions) {
    assertEquals(checkName(name, "window name"), name);
    assertThrows(() => checkSessionName(name), ToolError, why);
  }
});

Deno.test("titles: a leading - and backslashes are fine; control characters and length are not", () => {
  for (const title of ["-dash", "back\\slash $HOME", "x".repeat(MAX_TITLE_CHARS)]) {
    assertEquals(checkTitle(title), title);
  }
  const refused: Array<[string, string]> = [
    ["", "is empty"],
    ["bell\x07", "control character"],
    ["x".repeat(MAX_TITLE_CHARS + 1), `longer than ${MAX_TITLE_CHARS}`],
  ];
  for (const [title, why] of refused) {
    const error = assertThrows(() => checkTitle(title), ToolError, why);
    assertEquals(error.code, "invalid_arguments");
  }
});

Deno.test("one rule set: create_session's argument names appear in the refusals", () => {
  // create_session passes its own argument names; the rules are the renames' own.
  const cases: Array<[() => string, string]> = [
    [() => checkSessionName("-x", "name"), 'name must not start with "-"'],
    [() => checkSessionName("a.b", "name"), 'name "a.b" holds ":" or "."'],
    [() => checkSessionName("$7", "name"), 'name "$7" looks like an id'],
    [() => checkName("w$y\\z", "windowName"), 'windowName "w$y\\\\z" holds a backslash'],
    [() => checkName("", "windowName"), "windowName is empty"],
  ];
  for (const [check, message] of cases) {
    const error = assertThrows(check, ToolError, message);
    assertEquals(error.code, "invalid_arguments");
  }
});

Deno.test("printable text: control characters and lone surrogates only (no length, no - rule)", () => {
  for (const text of ["", "-x", "/tmp/a b", "é😀", "$HOME\\x"]) {
    assertEquals(checkPrintable(text, "startDirectory"), text);
  }
  for (const text of ["/tmp/\n", "/tmp/\x1b[1m", "/tmp/\u0085", "/tmp/\udc00", "\x7f"]) {
    const error = assertThrows(
      () => checkPrintable(text, "startDirectory"),
      ToolError,
      "startDirectory",
    );
    assertEquals(error.code, "invalid_arguments");
  }
});
