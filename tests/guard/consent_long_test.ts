/**
 * "Allow once" never lets through text the person was not shown (docs/design.md §6.11): a text,
 * or a batch row, too long for the question is refused without asking, with a hint to send it in
 * pieces. Real tmux, a person's client attached, a real MCP client that would answer "allow once".
 */
import type { ElicitResult } from "@modelcontextprotocol/sdk/types.js";
import { CHOICES } from "../../src/guard/ask.ts";
import { assert, assertEquals, assertMatch } from "../support/assert.ts";
import { askingClient, connectInProcess, fails, ok, type Question } from "../support/client.ts";
import { eventually, TmuxFixture } from "../support/fixture.ts";
import { watchedReceiver } from "../support/watched.ts";

Deno.test("a text too long to show the person never reaches a watched pane, even from a person who allows everything", async () => {
  await using fx = await TmuxFixture.start();
  const { paneId, typed, detach } = await watchedReceiver(fx);
  const questions: string[] = [];
  const client = askingClient("person", (question: Question): ElicitResult => {
    questions.push(question.message);
    return { action: "accept", content: { decision: CHOICES.once } };
  });
  const { close } = await connectInProcess(
    ["-S", fx.socket, "--ask-timeout-ms", "5000", "--toolsets", "inspect,execute"],
    {},
    undefined,
    client,
  );
  // 1,500 characters, the command that matters at the end, past any preview's cut.
  const long = (mark: string) => `echo ${"a".repeat(1_480)} ${mark}`;
  try {
    const calls: Array<[string, Record<string, unknown>, RegExp]> = [
      ["send_keys", { paneId, keys: long("LONG-MARK-1") }, /the text \(1,497 characters\)/],
      ["paste_text", { paneId, text: long("LONG-MARK-2"), enter: true }, /the text \(1,497/],
    ];
    for (const [tool, args, message] of calls) {
      const denied = await fails(client, tool, args);
      assertEquals([denied.code, denied.effects], ["target_denied", "none"], tool);
      assertMatch(denied.message, message);
      assertMatch(denied.text, /Hint: .*Send it in pieces of at most 1,000 characters each/);
    }
    assertEquals(questions, []);

    // A batch: the long row is refused unasked, the short one after it is asked about and runs.
    const batch = await ok<{ completed: number; failures: Array<{ index: number }> }>(
      client,
      "send_keys_batch",
      {
        operations: [{ paneId, keys: long("LONG-MARK-3") }, { paneId, keys: "echo row-after" }],
        onError: "continue",
      },
    );
    assertEquals([batch.completed, batch.failures.map((f) => f.index)], [1, [0]]);
    assertEquals(questions.length, 1);
    assertMatch(questions[0], /Row 1 \(pane %\d+\): "echo row-after", then Enter/);
    assert(!questions[0].includes("MARK"), questions[0]);

    // Positive sentinel: a short text is asked about, allowed and arrives after all the above.
    await ok(client, "send_keys", { paneId, keys: "echo sentinel" });
    assertEquals(questions.length, 2);
    assert(
      await eventually(async () => (await typed()).includes("echo sentinel\n")),
      await typed(),
    );
    const seen = await typed();
    assert(seen.includes("echo row-after\n"), seen);
    assert(!seen.includes("MARK"), seen);
  } finally {
    await close();
    await detach();
  }
});
