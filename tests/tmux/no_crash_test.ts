/**
 * Never crash the person's tmux server (docs/design.md §7.4): the agent alone — two loops reading
 * the panes of 12 sessions (more than the old cap of 8 connections), while a third creates and
 * kills sessions — must leave tmux 3.3a's server alive, with one attach per session.
 * Before the attach gate this crashed the server in 1.7–3.8 s, 5 runs of 5 (`control_write` on a
 * client with no control state yet).
 * Run alone: `deno task test:crash` (TMUX_MCP_CRASH_MS sets the duration, default 15 s).
 */
import { assert, assertEquals } from "../support/assert.ts";
import { connectInProcess } from "../support/client.ts";
import {
  createKillLoop,
  readingSessions,
  readLoop,
  runScenario,
} from "../support/crash_scenarios.ts";
import { TmuxFixture } from "../support/fixture.ts";

const RUN_MS = Number(Deno.env.get("TMUX_MCP_CRASH_MS") ?? 15_000);

Deno.test("no-crash: the agent alone reading 12 sessions while creating and killing sessions", async () => {
  await using fx = await TmuxFixture.start({ session: "main", command: "cat" });
  const panes = await readingSessions(fx, 12);
  const { client, built, close } = await connectInProcess([
    "-S",
    fx.socket,
    "--toolsets",
    "inspect,manage,execute,teardown",
  ]);
  try {
    const outcome = await runScenario(fx, RUN_MS, [
      readLoop(client, panes, 0),
      readLoop(client, panes, 6),
      createKillLoop(client),
    ]);
    const { attaches, detaches } = built.live!.stats();
    console.log(`agent alone: ${JSON.stringify({ ...outcome, attaches, detaches })}`);
    assert(!outcome.crashed, `the tmux server crashed after ${outcome.ms} ms`);
    // One attach per followed session (and one for the control route), none evicted.
    assert(attaches <= panes.length + 1, `${attaches} attaches for ${panes.length} sessions`);
    assertEquals(detaches, 0);
  } finally {
    await close();
  }
});
