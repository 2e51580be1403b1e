/**
 * The busy rule (src/guard/busy.ts, docs/design.md §6.12) against made-up inputs: which sends are
 * key presses only, and what a busy mark means for each; no tmux.
 */
import { assert, assertEquals } from "../../tests/support/assert.ts";
import { busyVerdict, type InputKind, keysKind } from "./busy.ts";
import { ToolError } from "../errors.ts";

Deno.test("keysKind: a key name, one character or Enter alone are key presses; the rest is text", () => {
  const cases: Array<[string, boolean, InputKind]> = [
    ["C-c", false, "keys"],
    ["Escape", false, "keys"],
    ["M-x", false, "keys"],
    ["S-F5", false, "keys"],
    ["q", false, "keys"],
    ["y", true, "keys"],
    ["é", false, "keys"],
    ["🙂", false, "keys"],
    ["", false, "keys"],
    // literal: a key name is typed, so it is text
    ["C-c", true, "text"],
    ["Up", true, "text"],
    // what tmux itself would also press, but we type (docs/design.md §5.6)
    ["end", false, "text"],
    ["^c", false, "text"],
    ["0x41", false, "text"],
    ["ls -la", false, "text"],
    ["C-c C-c", false, "text"],
    ["qq", false, "text"],
  ];
  for (const [keys, literal, want] of cases) {
    assertEquals(keysKind(keys, literal), want, `${JSON.stringify(keys)} literal=${literal}`);
  }
});

Deno.test("keysKind: a sequence is judged whole: key names and at most one character are key presses", () => {
  const cases: Array<[string[], boolean, InputKind]> = [
    [["Escape", "Enter"], false, "keys"],
    [["C-c", "Up", "Enter"], false, "keys"],
    [["y", "Enter"], false, "keys"],
    [["Down", "Down", "q"], false, "keys"],
    [["Escape", ":wq"], false, "text"],
    // A command spelled one character per item is still text.
    [["r", "m", "Enter"], false, "text"],
    [["Escape"], true, "text"],
    [["q"], true, "keys"],
  ];
  for (const [keys, literal, want] of cases) {
    assertEquals(keysKind(keys, literal), want, `${JSON.stringify(keys)} literal=${literal}`);
  }
});

Deno.test("busyVerdict: a free pane passes all; a busy one refuses text with busy and lets key presses through, noted", () => {
  const cases: Array<[boolean, InputKind, "pass" | "note_key" | "busy"]> = [
    [false, "text", "pass"],
    [false, "keys", "pass"],
    [true, "keys", "note_key"],
    [true, "text", "busy"],
  ];
  for (const [running, input, want] of cases) {
    const verdict = busyVerdict("%4", running, input);
    const got = verdict instanceof ToolError ? verdict.code : verdict;
    assertEquals(got, want, `running=${running} ${input}`);
  }
  const refusal = busyVerdict("%4", true, "text");
  assert(refusal instanceof ToolError);
  assertEquals(refusal.effects, "none");
  assert(refusal.message.includes("pane %4"), refusal.message);
  assert(refusal.hint.includes('send_keys {keys: "C-c", enter: false}'), refusal.hint);
});
