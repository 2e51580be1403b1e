/**
 * send_keys with `keys` as a list (a sequence), against real tmux and a real MCP client: items
 * arrive in order, each by the single-keys rule, `literal` on every item, Enter after the last;
 * the limits are typed refusals; the guard judges and asks about the sequence as a whole; the
 * send_keys_batch contract is unchanged (a row's keys stay one string).
 */
import type { Client } from "@modelcontextprotocol/sdk/client";
// @ts-types="npm:@modelcontextprotocol/sdk@^1.32.2/types"
import type { ElicitResult } from "@modelcontextprotocol/sdk/types.js";
import { assert, assertEquals, assertMatch } from "../../support/assert.ts";
import { askingClient, connectInProcess, fails, ok, type Question } from "../../support/client.ts";
import { eventually, TmuxFixture } from "../../support/fixture.ts";
import { watchedReceiver } from "../../support/watched.ts";
import { CHOICES } from "../../../src/guard/ask.ts";

const decoder = new TextDecoder();

/** Typed after everything a test sent: its arrival shows that nothing else is on the way. */
const SENTINEL = "#end#";

/**
 * A pane that writes every byte it receives to a file: `stty raw -echo` turns the line
 * discipline off (no signals, no CR/LF mapping), so the file holds exactly what tmux wrote.
 */
async function receiver(
  fx: TmuxFixture,
): Promise<{ paneId: string; bytes: () => Promise<string> }> {
  const file = `${fx.dir}/received`;
  const ready = `${fx.dir}/ready`;
  const paneId = await fx.newWindow(
    `bash --norc --noprofile -c 'stty raw -echo && touch ${ready} && exec cat > ${file}'`,
  );
  assert(
    await eventually(() => Deno.stat(ready).then(() => true, () => false)),
    "the receiver set up its terminal",
  );
  // What arrived since the last look, before a sentinel typed behind it (tmux writes to a pane
  // in order). The file is never truncated: cat keeps writing at its own offset.
  let seen = 0;
  const bytes = async () => {
    await fx.tmux("send-keys", "-t", paneId, "-l", SENTINEL);
    let text = "";
    assert(
      await eventually(async () => {
        text = decoder.decode(await Deno.readFile(file).catch(() => new Uint8Array()));
        return text.endsWith(SENTINEL);
      }),
      "the sentinel arrived",
    );
    const news = text.slice(seen, -SENTINEL.length);
    seen = text.length;
    return news;
  };
  return { paneId, bytes };
}

Deno.test("send_keys sequence: items arrive in order, key names pressed and the rest typed, Enter after the last", async () => {
  await using fx = await TmuxFixture.start({ command: "sleep 100000" });
  const rx = await receiver(fx);
  const { client, close } = await connectInProcess(["-S", fx.socket]);
  try {
    const send = (keys: string[], extra: Record<string, unknown> = {}) =>
      ok<{ sent: boolean; paneId: string }>(client, "send_keys", {
        paneId: rx.paneId,
        keys,
        ...extra,
      });
    // Words tmux itself would press (`end`, `0x41`) are typed, as with one `keys`; `;` is text.
    await send(["a", "Escape", "b;", "C-c", "0x41", "Up", "end"]);
    assertEquals(JSON.stringify(await rx.bytes()), JSON.stringify("a\x1bb;\x030x41\x1b[Aend\r"));
    // literal: every item typed, key names too; enter: false: no Enter after the last.
    await send(["Escape", "C-c"], { literal: true, enter: false });
    assertEquals(await rx.bytes(), "EscapeC-c");
    // A large item goes through a private buffer in its place; small ones around it keep order.
    const large = "x".repeat(10_000);
    await send(["<", large, "Tab", ">"], { enter: false });
    assertEquals(await rx.bytes(), `<${large}\t>`);
    // Many items whose text together exceeds one tmux command line: still in order, whole.
    const items = Array.from(
      { length: 64 },
      (_, i) => `${String(i).padStart(2, "0")}${"y".repeat(198)}`,
    );
    await send(items, { enter: false });
    assertEquals(await rx.bytes(), items.join(""));
    assertEquals(await fx.tmux("list-buffers"), "", "no buffer left behind");
  } finally {
    await close();
  }
});

Deno.test("send_keys sequence: the limits are typed refusals before anything is sent; batch rows keep one string", async () => {
  await using fx = await TmuxFixture.start({ command: "sleep 100000" });
  const rx = await receiver(fx);
  const { client, close } = await connectInProcess(["-S", fx.socket]);
  try {
    const cases: Array<[unknown, RegExp]> = [
      [[], /keys lists 0 items; a sequence takes 1 to 64/],
      [Array.from({ length: 65 }, () => "a"), /keys lists 65 items/],
      [["a", ""], /keys\[1\] is empty/],
      [["a", "nul\0"], /keys\[1\] contains a NUL/],
      [["x".repeat(600_000), "x".repeat(600_000)], /keys \(all items together\) is 1200000 bytes/],
      [["a", 7], /.+/],
    ];
    for (const [keys, message] of cases) {
      const refused = await fails(client, "send_keys", { paneId: rx.paneId, keys });
      assertEquals([refused.code, refused.effects], ["invalid_arguments", "none"]);
      assertMatch(refused.message, message);
    }
    const row = await fails(client, "send_keys_batch", {
      operations: [{ paneId: rx.paneId, keys: ["a", "b"] }],
    });
    assertEquals(row.code, "invalid_arguments");
    assertEquals(await rx.bytes(), "", "nothing was sent");
  } finally {
    await close();
  }
});

Deno.test("send_keys sequence: a watched pane refuses it whole; the person is asked once and sees every item", async () => {
  await using fx = await TmuxFixture.start();
  const rx = await watchedReceiver(fx);
  const questions: Question[] = [];
  const answers: string[] = [];
  const person = (question: Question): ElicitResult => {
    questions.push(question);
    const decision = answers.shift();
    return decision ? { action: "accept", content: { decision } } : { action: "decline" };
  };
  const plain = await connectInProcess(["-S", fx.socket]);
  const asking = await connectInProcess(
    ["-S", fx.socket],
    {},
    undefined,
    askingClient("p", person),
  );
  const sequence = { paneId: rx.paneId, keys: ["one", "Tab", "two"] };
  try {
    const refused = await fails(plain.client, "send_keys", sequence);
    assertEquals([refused.code, refused.effects], ["target_denied", "none"]);
    // Declined: one question for the whole sequence, nothing typed.
    const declined = await fails(asking.client, "send_keys", sequence);
    assertEquals(declined.code, "target_denied");
    assertEquals(questions.length, 1);
    assert(
      questions[0].message.includes('Keys, in order: "one", key Tab, "two", then Enter'),
      questions[0].message,
    );
    // Allowed once: one more question, and the whole sequence arrives in order.
    answers.push(CHOICES.once);
    await ok(asking.client, "send_keys", sequence);
    assertEquals(questions.length, 2);
    await fx.tmux("send-keys", "-t", rx.paneId, "-l", SENTINEL);
    await fx.tmux("send-keys", "-t", rx.paneId, "Enter");
    let typed = "";
    assert(await eventually(async () => (typed = await rx.typed()).includes(SENTINEL)), typed);
    assertEquals(typed, `one\ttwo\n${SENTINEL}\n`, "only the allowed sequence, whole");
  } finally {
    await plain.close();
    await asking.close();
    await rx.detach();
  }
});

/** Run `command` framed in a bash pane until its 300 ms timeout: the pane is then busy (§6.12). */
async function busyShell(fx: TmuxFixture, client: Client): Promise<string> {
  const pane = await fx.newWindow(
    "env -i PATH=/usr/local/bin:/usr/bin:/bin TERM=screen PS1='$ ' bash --norc --noprofile",
  );
  assert(
    await eventually(async () =>
      (await fx.tmux("capture-pane", "-p", "-t", pane)).split("\n").includes("$")
    ),
    "prompt",
  );
  const ran = await ok<{ outcome: string }>(client, "run_shell_command", {
    paneId: pane,
    command: "sleep 30",
    timeoutMs: 300,
  });
  assertEquals(ran.outcome, "timeout");
  return pane;
}

Deno.test("send_keys sequence: the busy rule judges the sequence whole: text spelled per item is refused, key presses pass", async () => {
  await using fx = await TmuxFixture.start({ command: "sleep 100000" });
  const { client, close } = await connectInProcess(["-S", fx.socket]);
  try {
    const pane = await busyShell(fx, client);
    for (const keys of [["r", "m", "Enter"], ["C-c", "echo typed"]]) {
      const refused = await fails(client, "send_keys", { paneId: pane, keys, enter: false });
      assertEquals([refused.code, refused.effects], ["busy", "none"], JSON.stringify(keys));
    }
    const interrupted = await ok<{ outcome?: string; text?: string }>(client, "send_keys", {
      paneId: pane,
      keys: ["C-c"],
      enter: false,
      waitFor: {},
    });
    assertEquals(interrupted.outcome, "prompt", JSON.stringify(interrupted));
    const screen = await fx.tmux("capture-pane", "-p", "-t", pane);
    assert(!screen.includes("rm") && !screen.includes("typed"), screen);
  } finally {
    await close();
  }
});
