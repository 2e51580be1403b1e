/**
 * Lean results (docs/design.md §3.1) through a real MCP client and real tmux: an ordinary result's
 * envelope — its bytes minus the pane text, the cursor and the ids it carries — stays within 150
 * bytes, and what carries news (a cut, a clamp, seed 004's keys of capture_pane) is still said.
 */
import type { Client } from "@modelcontextprotocol/sdk/client";
import { assert, assertEquals } from "../support/assert.ts";
import { call, connectInProcess, ok } from "../support/client.ts";
import { eventually, TmuxFixture } from "../support/fixture.ts";

/** The most bytes an ordinary result may spend on saying how it went (issue 43). */
const ENVELOPE_BUDGET = 150;

/** The values that are the result's payload or ids, not its envelope. */
const PAYLOAD = ["text", "output", "cursor", "paneId", "generation", "runId"];

const encoder = new TextEncoder();
const bytes = (text: string) => encoder.encode(text).length;

/**
 * A success result's text block (the same JSON as its structuredContent) and its envelope: the
 * block's bytes less the JSON of each payload value.
 */
async function envelope(
  client: Client,
  name: string,
  args: Record<string, unknown>,
): Promise<{ data: Record<string, unknown>; text: string; envelope: number }> {
  const result = await call(client, name, args);
  assert(!result.isError, `${name}: ${JSON.stringify(result.content)}`);
  const data = result.structuredContent as Record<string, unknown>;
  const text = (result.content[0] as { text: string }).text;
  assertEquals(text, JSON.stringify(data), `${name}: the text block is the structured data`);
  const payload = PAYLOAD.filter((key) => key in data)
    .reduce((n, key) => n + bytes(JSON.stringify(data[key])), 0);
  return { data, text, envelope: bytes(text) - payload };
}

/** A window running `command` in a clean environment, once its screen shows `ready`. */
async function window(fx: TmuxFixture, command: string, ready: string): Promise<string> {
  const vars = `PATH=/usr/local/bin:/usr/bin:/bin HOME='${fx.dir}' TERM=screen`;
  const paneId = await fx.newWindow(`env -i ${vars} ${command}`, "=lean:");
  assert(
    await eventually(async () =>
      (await fx.tmux("capture-pane", "-p", "-t", paneId)).includes(ready)
    ),
    `${command}: ${ready}`,
  );
  return paneId;
}

Deno.test("an ordinary run_shell_command, REPL send_keys with waitFor and capture_since stay within a 150-byte envelope", async () => {
  await using fx = await TmuxFixture.start({ session: "lean", width: 100, height: 30 });
  const shell = await window(fx, "PS1='$ ' bash --norc --noprofile", "$");
  // A small REPL: reads a line at its prompt, answers it.
  const repl = await window(
    fx,
    `sh -c 'while printf ">>> "; read -r line; do echo "= $line"; done'`,
    ">>>",
  );
  const { client, close } = await connectInProcess(["-S", fx.socket, "--toolsets", "core"]);
  try {
    const run = await envelope(client, "run_shell_command", { paneId: shell, command: "echo hi" });
    assertEquals([run.data.outcome, run.data.exitStatus, run.data.output], ["completed", 0, "hi"]);

    const step = await envelope(client, "send_keys", {
      paneId: repl,
      keys: "1+1",
      waitFor: { pattern: "= 1+1" },
    });
    assertEquals(step.data.outcome, "matched");
    assert(String(step.data.text).includes("= 1+1"), String(step.data.text));

    // Follow the shell pane from here; once the new lines are on its screen, read them.
    let cursor = (await ok<{ cursor: string }>(client, "capture_since", { paneId: shell })).cursor;
    await fx.tmux("send-keys", "-t", shell, "echo new line", "Enter");
    let since: Awaited<ReturnType<typeof envelope>> | undefined;
    assert(
      await eventually(async () => {
        since = await envelope(client, "capture_since", { paneId: shell, cursor });
        cursor = since.data.cursor as string;
        return String(since.data.text).includes("new line\n");
      }),
      "the new lines came",
    );
    assertEquals(since!.data.outcome, "output");

    const sizes = { run: run.envelope, step: step.envelope, since: since!.envelope };
    const totals = [run, step, since!].map((r) => bytes(r.text));
    console.log(`envelopes: ${JSON.stringify(sizes)}; whole results: ${totals.join(", ")} bytes`);
    for (const [what, size] of Object.entries(sizes)) {
      assert(size <= ENVELOPE_BUDGET, `${what}: envelope of ${size} bytes > ${ENVELOPE_BUDGET}`);
    }
    // None of them says what only restates a default.
    for (const { data } of [run, step, since!]) {
      for (const key of ["truncated", "lineLimit", "encoding", "resolvedPaneIds", "timeoutMs"]) {
        assert(!(key in data), `${key} in ${JSON.stringify(data)}`);
      }
      assertEquals(data.terminalContent, "data", "pane text is still disclosed as data");
    }
  } finally {
    await close();
  }
});

Deno.test("lean results still say what was cut and clamped, and capture_pane keeps seed 004's keys", async () => {
  await using fx = await TmuxFixture.start({ session: "lean" });
  const shell = await window(fx, "PS1='$ ' bash --norc --noprofile", "$");
  const { client, close } = await connectInProcess(["-S", fx.socket, "--toolsets", "core"]);
  try {
    const cut = await ok<Record<string, unknown>>(client, "run_shell_command", {
      paneId: shell,
      command: "seq 3",
      maxLines: 1,
      timeoutMs: 10 ** 9,
    });
    assertEquals(
      [cut.output, cut.truncated, cut.truncatedLines, cut.truncatedBytes, cut.lineLimit],
      ["3", true, 2, 4, 1],
    );
    assertEquals([cut.byteLimit, cut.timeoutMs, cut.timeoutClamped], [65_536, 30_000, true]);
    assert(typeof cut.elapsedMs === "number", "a call that waited says how long");

    const screen = await ok<Record<string, unknown>>(client, "capture_pane", { paneId: shell });
    assertEquals(
      [screen.truncated, screen.lineLimit, screen.byteLimit, screen.encoding],
      [false, 200, 65_536, "utf-8"],
    );
    assert(!("truncatedLines" in screen) && !("truncatedBytes" in screen), "zero counts left out");
  } finally {
    await close();
  }
});
