/**
 * The no-crash soak (docs/design.md §7.4): runs the hostile scenarios of tests/support/
 * crash_scenarios.ts against private tmux servers and prints one JSON line per run, then a total.
 *
 *   deno task soak [--scenario agent|person|mixed|attach] [--runs 5] [--ms 60000]
 *
 * - agent: two loops reading 12 sessions plus one creating and killing sessions, from the first
 *   call;
 * - person: the streams up first (one capture_since per session), then the two reading loops
 *   while a person makes, renames and kills sessions every ~20 ms;
 * - mixed: as person, plus the agent's create/kill loop;
 * - attach: the person's loop throughout while a fresh server of ours follows all 12 sessions
 *   and closes, again and again: crashes per 1,000 attaches while streams come up. A crashed tmux
 *   server is replaced and the count goes on.
 */
import { parseArgs } from "node:util";
import { connectInProcess, ok } from "../tests/support/client.ts";
import {
  createKillLoop,
  personLoop,
  readingSessions,
  readLoop,
  runScenario,
} from "../tests/support/crash_scenarios.ts";
import { TmuxFixture } from "../tests/support/fixture.ts";

const TOOLSETS = ["--toolsets", "inspect,manage,execute,teardown"];
const SESSIONS = 12;

const { values } = parseArgs({
  args: Deno.args,
  options: {
    scenario: { type: "string", default: "agent" },
    runs: { type: "string", default: "5" },
    ms: { type: "string", default: "60000" },
  },
});
const scenario = values.scenario!;
const runs = Number(values.runs);
const ms = Number(values.ms);

/** One run of agent, person or mixed on a new server. */
async function steady(): Promise<Record<string, unknown>> {
  await using fx = await TmuxFixture.start({ session: "main", command: "cat" });
  const panes = await readingSessions(fx, SESSIONS);
  const { client, built, close } = await connectInProcess(["-S", fx.socket, ...TOOLSETS]);
  try {
    if (scenario !== "agent") {
      for (const paneId of panes) await ok(client, "capture_since", { paneId });
    }
    const readers = [readLoop(client, panes, 0), readLoop(client, panes, SESSIONS / 2)];
    const agent = scenario === "person" ? readers : [...readers, createKillLoop(client)];
    const person = scenario === "agent" ? [] : [personLoop(fx)];
    const outcome = await runScenario(fx, ms, agent, person);
    const { attaches, detaches } = built.live!.stats();
    return { ...outcome, attaches, detaches };
  } finally {
    await close();
  }
}

/** The attach scenario: servers of ours come and go under the person's loop. */
async function attaching(): Promise<Record<string, unknown>> {
  let attaches = 0;
  let crashes = 0;
  let personActions = 0;
  const started = performance.now();
  while (performance.now() - started < ms) {
    await using fx = await TmuxFixture.start({ session: "main", command: "cat" });
    const panes = await readingSessions(fx, SESSIONS);
    const servers = async (stop: AbortSignal) => {
      while (!stop.aborted && performance.now() - started < ms) {
        const { client, built, close } = await connectInProcess(["-S", fx.socket, ...TOOLSETS]);
        for (const paneId of panes) {
          await ok(client, "capture_since", { paneId }).catch(() => {});
        }
        attaches += built.live!.stats().attaches;
        await close();
      }
    };
    const outcome = await runScenario(fx, ms - (performance.now() - started), [
      (stop) => servers(stop),
    ], [personLoop(fx)]);
    personActions += outcome.personActions;
    if (outcome.crashed) crashes++;
  }
  return {
    crashed: crashes > 0,
    crashes,
    attaches,
    personActions,
    crashesPer1000Attaches: Number((1000 * crashes / Math.max(1, attaches)).toFixed(2)),
  };
}

const results: Record<string, unknown>[] = [];
for (let run = 1; run <= runs; run++) {
  const result = scenario === "attach" ? await attaching() : await steady();
  results.push(result);
  console.log(JSON.stringify({ scenario, run, ...result }));
}
const crashed = results.filter((r) => r.crashed).length;
console.log(`${scenario}: ${crashed} of ${runs} runs crashed the tmux server`);
