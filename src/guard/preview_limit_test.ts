/**
 * The question shows every text whole or the call is not asked about (docs/design.md §6.11):
 * "allow once" must never let through text the person did not see. Pure: no tmux, no person —
 * the elicitation is a function that records what it was asked.
 */
import { CallConsent, GrantBook } from "./ask.ts";
import { callPreview, QUESTION_TEXT_CHARS, type Receivers } from "./preview.ts";
import { ToolError } from "../errors.ts";
import { assert, assertEquals, assertMatch, assertRejects } from "../../tests/support/assert.ts";

const alone: Receivers = (id) => [id];
const scope = { asked: ["%1"], receivers: alone, fromRow: 0 };
const text = (n: number) => "x".repeat(n);

Deno.test("a single text, keys or command up to the limit is shown whole; one character more is too long", () => {
  assertEquals(QUESTION_TEXT_CHARS, 1_000);
  const table: Array<[string, string, Record<string, unknown>]> = [
    ["send_keys", "Keys", { keys: text(QUESTION_TEXT_CHARS) }],
    ["paste_text", "Text", { text: text(QUESTION_TEXT_CHARS) }],
    ["run_shell_command", "Command", { command: text(QUESTION_TEXT_CHARS) }],
  ];
  for (const [tool, label, args] of table) {
    const shown = callPreview(args, scope);
    assert(shown.tooLong === undefined, tool);
    assertEquals(shown.lines.length, 1, tool);
    assert(shown.lines[0].startsWith(`${label}: "${text(QUESTION_TEXT_CHARS)}"`), tool);
    assert(!shown.lines[0].includes("more characters"), tool);
    const field = Object.keys(args)[0];
    const over = callPreview({ [field]: text(QUESTION_TEXT_CHARS) + "!" }, scope);
    assertEquals(over, { tooLong: QUESTION_TEXT_CHARS + 1 }, tool);
  }
});

Deno.test("the limit counts characters, not UTF-16 units or escaped width", () => {
  // 1,000 emoji are 2,000 UTF-16 units; 1,000 Hangul fillers are shown as 8,000 characters.
  for (const ch of ["😀", "\u115f"]) {
    const shown = callPreview({ text: ch.repeat(QUESTION_TEXT_CHARS) }, scope);
    assert(shown.tooLong === undefined, ch);
    assertEquals(
      callPreview({ text: ch.repeat(QUESTION_TEXT_CHARS + 1) }, scope),
      { tooLong: QUESTION_TEXT_CHARS + 1 },
    );
  }
});

Deno.test("batch rows are shown whole while they fit; the rest are counted and not covered", () => {
  const row = (keys: string, paneId = "%1") => ({ paneId, keys });
  const table: Array<[string, unknown[], number, string[] | { tooLong: number }]> = [
    ["all fit", [row(text(400)), row(text(600))], 0, ["Row 0", "Row 1"]],
    ["second does not fit", [row(text(400)), row(text(601)), row("x")], 0, [
      "Row 0",
      "…and 2 more rows for these panes (not covered by this answer: asked about when they come)",
    ]],
    ["rows for other panes are skipped", [row(text(999)), row(text(999), "%2"), row("x")], 0, [
      "Row 0",
      "Row 2",
    ]],
    ["from the row being checked", [row(text(999)), row(text(999))], 1, ["Row 1"]],
    ["the row being checked alone is too long", [row(text(1_001)), row("x")], 0, {
      tooLong: 1_001,
    }],
    ["too long after earlier rows were sent", [row("x"), row(text(5_000))], 1, {
      tooLong: 5_000,
    }],
  ];
  for (const [why, operations, fromRow, expected] of table) {
    const shown = callPreview({ operations }, { ...scope, fromRow });
    if (!Array.isArray(expected)) {
      assertEquals(shown, expected, why);
      continue;
    }
    assert(shown.tooLong === undefined, why);
    assertEquals(shown.lines.map((l) => l.startsWith("Row") ? l.slice(0, 5) : l), expected, why);
    assert(shown.lines.every((l) => !l.includes("more characters")), why);
    // Exactly the rows shown are covered.
    const covered = expected.filter((l) => l.startsWith("Row")).map((l) => Number(l.slice(4)));
    assertEquals([...shown.rows.keys()], covered, why);
  }
});

const pane = {
  paneId: "%1",
  generation: "g1",
  sessionName: "main",
  windowIndex: 0,
  windowName: "w",
  currentCommand: "bash",
  isAttended: true,
  isCaller: false,
};

function consent(tool: string, args: unknown) {
  const asked: string[] = [];
  const calls = new CallConsent({
    tool,
    args,
    grants: new GrantBook(),
    timeoutMs: 5_000,
    elicit: (message) => {
      asked.push(message);
      return Promise.resolve({ action: "accept", content: { decision: "allow once" } });
    },
  });
  return { calls, asked };
}

const refusal = () =>
  new ToolError("target_denied", "pane %1 is watched by a person", { hint: "pick another" });

Deno.test("a text too long to show is refused without asking, with a hint to send it in pieces", async () => {
  const table: Array<[string, Record<string, unknown>, RegExp]> = [
    ["send_keys", { keys: text(1_500) }, /Send it in pieces of at most 1,000 characters each/],
    ["paste_text", { text: text(1_500) }, /Send it in pieces of at most 1,000 characters each/],
    ["run_shell_command", { command: text(1_500) }, /several commands of at most 1,000/],
  ];
  for (const [tool, args, next] of table) {
    const { calls, asked } = consent(tool, args);
    const error = await assertRejects(() => calls.ask(refusal(), "input", [pane]), ToolError);
    assertEquals([error.code, error.effects, asked.length], ["target_denied", "none", 0], tool);
    assertMatch(error.message, /not asked: the (text|command) \(1,500 characters\)/);
    assertMatch(error.hint, next);
    assertMatch(error.hint, /"allow once" covers only text they were shown/);
    assert(!calls.permits(pane), tool);
  }
});

Deno.test("a batch row too long to show is refused unasked; the next rows are still asked about", async () => {
  const operations = [{ paneId: "%1", keys: text(1_200) }, { paneId: "%1", keys: "echo ok" }];
  const { calls, asked } = consent("send_keys_batch", { operations });
  calls.enterRow(0);
  const error = await assertRejects(() => calls.ask(refusal(), "input", [pane]), ToolError);
  assertMatch(error.message, /the row's keys \(1,200 characters\)/);
  assertEquals(asked.length, 0);
  calls.enterRow(1);
  await calls.ask(refusal(), "input", [pane]);
  assertEquals(asked.length, 1);
  assertMatch(asked[0], /Row 1 \(pane %1\): "echo ok", then Enter/);
  assert(calls.permits(pane));
});

Deno.test("a text that fits is asked about in full and allow once covers it", async () => {
  const { calls, asked } = consent("paste_text", { text: text(QUESTION_TEXT_CHARS) });
  await calls.ask(refusal(), "input", [pane]);
  assertEquals(asked.length, 1);
  assert(asked[0].includes(`Text: "${text(QUESTION_TEXT_CHARS)}"\n`));
  assert(calls.permits(pane));
});

Deno.test("a send_keys sequence is shown whole on one line, keys named and texts quoted, or not asked about", () => {
  const table: Array<[Record<string, unknown>, string[] | { tooLong: number }]> = [
    [{ keys: ["Escape", ":wq"] }, ['Keys, in order: key Escape, ":wq", then Enter']],
    [{ keys: ["Escape", "C-c"], literal: true, enter: false }, [
      'Keys, in order: "Escape", "C-c" (typed literally)',
    ]],
    // What could hide something is escaped; a typed key name is quoted, so never read as a key.
    [{ keys: ["ok\x1b[2J", "Up"], enter: false }, ['Keys, in order: "ok\\x1b[2J", key Up']],
    // The whole sequence counts against the limit, not each item.
    [{ keys: [text(600), "Tab", text(400)] }, { tooLong: 1_003 }],
  ];
  for (const [args, expected] of table) {
    const shown = callPreview(args, scope);
    if (Array.isArray(expected)) assertEquals(shown, { lines: expected, rows: new Map() });
    else assertEquals(shown, expected);
  }
});
