/**
 * What the person is asked about is what "allow once" lets through (docs/design.md §6.11): a
 * batch's rows are previewed by where their input goes — synchronized partners of a watched pane
 * included — and a row the question did not show is not covered by its answer. Real tmux, a
 * person's client attached, a real MCP client answering the elicitation.
 */
import type { Client } from "@modelcontextprotocol/sdk/client";
// @ts-types="npm:@modelcontextprotocol/sdk@^1.32.2/types"
import type { ElicitResult } from "@modelcontextprotocol/sdk/types.js";
import { CHOICES } from "../../src/guard/ask.ts";
import { assert, assertEquals, assertMatch } from "../support/assert.ts";
import { askingClient, connectInProcess, ok, type Question } from "../support/client.ts";
import { eventually, TmuxFixture } from "../support/fixture.ts";

/** A person who answers from a script ("decline" once it runs out) and keeps each question. */
function person(...script: Array<"once" | "decline">) {
  const questions: string[] = [];
  const answer = (question: Question): ElicitResult => {
    questions.push(question.message);
    return (script.shift() ?? "decline") === "once"
      ? { action: "accept", content: { decision: CHOICES.once } }
      : { action: "decline" };
  };
  return { questions, client: askingClient("person", answer) };
}

/**
 * A window made current in "main" with two panes, each appending what is typed into it to its
 * own file, and `synchronize-panes` on (the person's own setting); a person watches the window,
 * so its active pane `watched` is protected while `partner` is not — but every key typed into
 * `partner` reaches `watched` too.
 */
async function syncedWindow(fx: TmuxFixture) {
  const file = (name: string) => `${fx.dir}/${name}`;
  const loop = (name: string) => `while :; do cat >> ${file(name)}; done`;
  const watched = (await fx.tmux(
    "new-window",
    "-t",
    "=main:",
    "-P",
    "-F",
    "#{pane_id}",
    loop("watched"),
  )).trim();
  const partner = (await fx.tmux(
    "split-window",
    "-d",
    "-t",
    watched,
    "-P",
    "-F",
    "#{pane_id}",
    loop("partner"),
  )).trim();
  await fx.tmux("set-option", "-w", "-t", watched, "synchronize-panes", "on");
  const detach = await fx.attachPerson("main");
  // The person's `script` wrapper may type a NUL as it attaches (see ask_test.ts).
  const typed = async (name: string) =>
    (await Deno.readTextFile(file(name)).catch(() => "")).replaceAll("\0", "");
  return { watched, partner, typed, detach };
}

async function connect(fx: TmuxFixture, client: Client) {
  return await connectInProcess(
    ["-S", fx.socket, "--ask-timeout-ms", "5000", "--toolsets", "inspect,execute"],
    {},
    undefined,
    client,
  );
}

Deno.test("a batch question shows every row whose input reaches the watched pane through synchronize-panes, and allow once covers those rows", async () => {
  await using fx = await TmuxFixture.start();
  const w = await syncedWindow(fx);
  const p = person("once");
  const { close } = await connect(fx, p.client);
  try {
    const batch = await ok<{ completed: number }>(p.client, "send_keys_batch", {
      operations: [
        { paneId: w.watched, keys: "echo harmless-row" },
        { paneId: w.partner, keys: "C-u", enter: false },
        { paneId: w.partner, keys: "echo EVIL" },
      ],
    });
    assertEquals(batch.completed, 3);
    assertEquals(p.questions.length, 1);
    const rows = p.questions[0].split("\n").filter((l) => l.startsWith("Row "));
    assertEquals(rows, [
      `Row 0 (pane ${w.watched}): "echo harmless-row", then Enter`,
      `Row 1 (pane ${w.partner}, synchronized: also types into ${w.watched}): "C-u"`,
      `Row 2 (pane ${w.partner}, synchronized: also types into ${w.watched}): "echo EVIL", ` +
      "then Enter",
    ]);
    assert(
      await eventually(async () => (await w.typed("watched")).endsWith("echo EVIL\n")),
      await w.typed("watched"),
    );

    // A batch of partner rows alone is previewed too.
    p.questions.length = 0;
    const refused = await ok<{ completed: number }>(p.client, "send_keys_batch", {
      operations: [{ paneId: w.partner, keys: "echo only-partner" }],
    });
    assertEquals([refused.completed, p.questions.length], [0, 1]);
    assertMatch(p.questions[0], /Row 0 \(pane %\d+, synchronized: .*"echo only-partner"/);
  } finally {
    await close();
    await w.detach();
  }
});

Deno.test("allow once does not cover a row the question left out: that row is asked about when it comes", async () => {
  await using fx = await TmuxFixture.start();
  const w = await syncedWindow(fx);
  const p = person("once", "decline");
  const { close } = await connect(fx, p.client);
  try {
    // 995 characters: shown whole, leaving too little of the question's 1,000 for row 1.
    const long = "echo " + "a".repeat(990);
    const batch = await ok<{ completed: number; failures: Array<{ index: number }> }>(
      p.client,
      "send_keys_batch",
      {
        operations: [
          { paneId: w.watched, keys: long },
          { paneId: w.partner, keys: "echo HIDDEN" },
          { paneId: w.watched, keys: "echo after" },
        ],
        onError: "continue",
      },
    );
    // The first question showed row 0 whole and ran out of room: rows 1 and 2 were counted.
    assertMatch(p.questions[0], /…and 2 more rows for these panes \(not covered/);
    assert(p.questions[0].includes(`"${long}", then Enter`), p.questions[0]);
    assert(!p.questions[0].includes("HIDDEN"));
    // Row 1 was asked about on its own (and declined); row 2 was then refused unasked.
    assertEquals(p.questions.length, 2);
    assertMatch(p.questions[1], /Row 1 \(pane %\d+, synchronized: .*"echo HIDDEN"/);
    assertEquals([batch.completed, batch.failures.map((f) => f.index)], [1, [1, 2]]);
    // Positive sentinel: row 0 arrived; the refused rows never reached either pane.
    assert(
      await eventually(async () => (await w.typed("partner")).includes(`${long}\n`)),
      await w.typed("partner"),
    );
    for (const name of ["watched", "partner"]) {
      const typed = await w.typed(name);
      assert(!typed.includes("HIDDEN") && !typed.includes("after"), `${name}: ${typed}`);
    }
  } finally {
    await close();
    await w.detach();
  }
});
