/**
 * Refusals under the default `core` preset, against real tmux: a hint names only tools this
 * session serves, or says the flag that enables the one it names (docs/design.md §4).
 */
import { assert, assertEquals, assertMatch } from "../support/assert.ts";
import { connectInProcess, fails, ok } from "../support/client.ts";
import { eventually, TmuxFixture } from "../support/fixture.ts";
import { TOOLS } from "../../src/catalog.ts";

/** The two ways to type into a pane, as [tool, arguments]. */
const TYPING: ReadonlyArray<[string, Record<string, unknown>]> = [
  ["send_keys", { keys: "echo typed" }],
  ["paste_text", { text: "pasted" }],
];

/** The hint of an error result's text. */
function hintOf(text: string): string {
  const at = text.indexOf("\nHint: ");
  assert(at >= 0, text);
  return text.slice(at + "\nHint: ".length);
}

/** The tools a hint names that are not enabled and whose enabling flag it does not give. */
function unexplained(hint: string, enabled: readonly string[]): string[] {
  return TOOLS.map((t) => t.name).filter((name) =>
    new RegExp(`\\b${name}\\b`).test(hint) && !enabled.includes(name) &&
    !hint.includes(`--tools ${name}`)
  );
}

Deno.test("core preset: the dead-pane and copy-mode refusals name only enabled tools or the enabling flag", async () => {
  await using fx = await TmuxFixture.start({ session: "hints", command: "sleep 100000" });
  await fx.tmux("set-option", "-g", "remain-on-exit", "on");
  const dead = await fx.newWindow("exit 3");
  assert(await eventually(async () => await fx.display(dead, "#{pane_dead}") === "1"), "dead");
  const copy = await fx.newWindow("sleep 100000");
  await fx.tmux("copy-mode", "-t", copy);
  assertEquals(await fx.display(copy, "#{pane_in_mode}"), "1");
  const { client, close } = await connectInProcess(["-S", fx.socket, "--toolsets", "core"]);
  try {
    const enabled = (await client.listTools()).tools.map((t) => t.name);
    assert(!enabled.includes("respawn_pane") && !enabled.includes("snapshot_pane"), "core");
    for (const [paneId, said] of [[dead, /is dead/], [copy, /is in a mode/]] as const) {
      for (const [tool, args] of TYPING) {
        const refused = await fails(client, tool, { paneId, ...args });
        assertEquals(refused.code, "target_denied");
        assertMatch(refused.text, said);
        assertEquals(unexplained(hintOf(refused.text), enabled), [], refused.text);
      }
    }
    // The dead pane's way out is named with the flag that enables it.
    const deadHint = hintOf((await fails(client, "send_keys", { paneId: dead, keys: "x" })).text);
    assertMatch(deadHint, /list_panes/);
    assertMatch(deadHint, /respawn_pane is not enabled here: .*--tools respawn_pane/);
  } finally {
    await close();
  }
});

Deno.test("core preset: text to a pane whose run timed out is busy, and the hint names wait_for_command", async () => {
  await using fx = await TmuxFixture.start({ session: "hints", command: "sleep 100000" });
  const paneId = await fx.newWindow(
    `env -i PATH=/usr/local/bin:/usr/bin:/bin HOME=${fx.dir} TERM=screen PS1='$ ' ` +
      "bash --norc --noprofile",
  );
  assert(
    await eventually(async () =>
      (await fx.tmux("capture-pane", "-p", "-t", paneId)).split("\n").some((l) =>
        l.trimEnd() === "$"
      )
    ),
    "bash shows its prompt",
  );
  const { client, close } = await connectInProcess(["-S", fx.socket, "--toolsets", "core"]);
  const go = `${fx.dir}/go`;
  try {
    const enabled = (await client.listTools()).tools.map((t) => t.name);
    // It runs until the test lets it go, so only the timeout can end the call.
    const ran = await ok<{ outcome: string; runId?: string }>(client, "run_shell_command", {
      paneId,
      command: `until [ -e ${go} ]; do sleep 0.05; done`,
      timeoutMs: 300,
    });
    assertEquals(ran.outcome, "timeout");
    assert(ran.runId, "a runId to follow the command with");
    for (const [tool, args] of TYPING) {
      const busy = await fails(client, tool, { paneId, ...args });
      assertEquals(busy.code, "busy");
      const hint = hintOf(busy.text);
      assertMatch(hint, /wait_for_command/);
      assert(!/capture_since/.test(hint), hint);
      assertEquals(unexplained(hint, enabled), [], hint);
    }
  } finally {
    await Deno.writeTextFile(go, "");
    await close();
  }
});
