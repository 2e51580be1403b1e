/**
 * wait_for_channel keeps at most 64 tmux waiters per host (docs/design.md §7.8): the 65th channel
 * is refused with `busy`, a signal frees a slot, and closing leaves no `tmux wait-for` of ours.
 */
import { assert, assertEquals } from "../../support/assert.ts";
import { connectInProcess, fails, ok } from "../../support/client.ts";
import { eventually, TmuxFixture } from "../../support/fixture.ts";
import { tmuxWaiters } from "../../support/processes.ts";
import { MAX_CHANNEL_WAITERS } from "../../../src/tmux/manage/channels.ts";

/** Pids of `tmux … wait-for <channel>` processes on this fixture's socket (signals excluded). */
function waiters(fx: TmuxFixture): Promise<number[]> {
  return tmuxWaiters(fx.socket);
}

/** Whether a plain `tmux wait-for` on `channel` returns at once (the channel was latched). */
async function latched(fx: TmuxFixture, channel: string): Promise<boolean> {
  const child = new Deno.Command("tmux", {
    args: ["-S", fx.socket, "wait-for", channel],
    stdout: "null",
    stderr: "null",
  }).spawn();
  // Latched, it returns at once; the generous bound only ends a wait that would block for good
  // (then a signal of ours releases it), so a slow machine cannot turn "latched" into "not".
  const status = child.status.then((s) => s.success);
  const raced = await Promise.race([status, new Promise((r) => setTimeout(r, 10_000, "waiting"))]);
  if (raced !== "waiting") return raced as boolean;
  await new Deno.Command("tmux", { args: ["-S", fx.socket, "wait-for", "-S", channel] }).output();
  await status;
  return false;
}

Deno.test("wait_for_channel: 64 channels wait at once, the 65th is busy until one is signalled; close leaves none", async () => {
  await using fx = await TmuxFixture.start();
  const { client, close } = await connectInProcess(["-S", fx.socket]);
  let closed = false;
  try {
    assertEquals(MAX_CHANNEL_WAITERS, 64);
    const tool = (await client.listTools()).tools.find((t) => t.name === "wait_for_channel");
    assert(tool?.description?.includes("at most 64 channels"), "the tool says the bound");
    for (let i = 0; i < 64; i++) {
      const waited = await ok<{ outcome: string }>(client, "wait_for_channel", {
        channel: `bound.${i}`,
        timeoutMs: 0,
      });
      assertEquals(waited.outcome, "timeout", `bound.${i}`);
    }
    assertEquals((await waiters(fx)).length, 64, "one tmux waiter per channel");

    const refused = await fails(client, "wait_for_channel", { channel: "bound.64", timeoutMs: 0 });
    assertEquals([refused.code, refused.effects, refused.retryable], ["busy", "none", true]);
    assert(refused.text.includes("64"), refused.text);
    assert(/signal/.test(refused.text), refused.text);
    assertEquals((await waiters(fx)).length, 64, "no waiter started for the refused channel");

    // A channel that already has a waiter reuses it.
    const again = await ok<{ outcome: string }>(client, "wait_for_channel", {
      channel: "bound.7",
      timeoutMs: 0,
    });
    assertEquals(again.outcome, "timeout");
    assertEquals((await waiters(fx)).length, 64, "the same waiter, no new one");

    // A signal from outside (a script) ends one waiter: its slot is free again.
    await fx.tmux("wait-for", "-S", "bound.3");
    assert(await eventually(async () => (await waiters(fx)).length === 63));
    let admitted: { outcome: string } | undefined;
    assert(
      await eventually(async () => {
        const result = await client.callTool({
          name: "wait_for_channel",
          arguments: { channel: "bound.64", timeoutMs: 0 },
        });
        if (!result.isError) admitted = result.structuredContent as { outcome: string };
        return !result.isError;
      }),
      "the freed slot is given to a new channel",
    );
    assertEquals(admitted?.outcome, "timeout");
    // The signal bound.3 received while nobody listened is kept for its next wait.
    const kept = await ok<{ outcome: string }>(client, "wait_for_channel", {
      channel: "bound.3",
      timeoutMs: 0,
    });
    assertEquals(kept.outcome, "signalled");
    assertEquals((await waiters(fx)).length, 64);

    await close();
    closed = true;
    assertEquals(await waiters(fx), [], "no tmux wait-for of ours outlives close");
    // Nor a waiter inside tmux: a later signal is latched for the person's next wait.
    await fx.tmux("wait-for", "-S", "bound.10");
    assert(await latched(fx, "bound.10"), "the person's signal after close is not swallowed");
  } finally {
    if (!closed) await close();
  }
});
