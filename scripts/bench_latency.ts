/**
 * Latency, section `latency` of `deno task bench` (scripts/bench.ts): with 4 and 50 panes, live
 * mode on and off (and a BENCH_BASELINE build), p50/p95 of tools/call and of capture_since's and
 * wait_for_text's wake-up, next to floors measured in the same run (spawning tmux directly, one raw
 * control-mode round trip, an MCP tools/call that touches no tmux and an MCP ping).
 *
 * The control route (docs/design.md §5.14; live mode routes ordinary commands over one control
 * connection) has goals checked against the floors: list_panes and capture_pane of a screen at
 * p50 ≤ 0.25× one spawn and within 0.3 ms of the no-tmux call, send_keys (with its guard) ≤ 0.35×
 * one spawn. {@link overhead}: where the no-tmux call's time goes (the same ping and call in
 * process, no stdio; zod's check of the arguments; JSON).
 */
import { TOOLS } from "../src/catalog.ts";
import type { ControlClient } from "../src/tmux/control/client.ts";
import { connectInProcess, connectStdio, MAIN } from "../tests/support/client.ts";
import type { TmuxFixture } from "../tests/support/fixture.ts";
import {
  type Floors,
  floors,
  ITERATIONS,
  NO_TMUX,
  openControl,
  round,
  server,
  sleep,
  type Stat,
  stat,
  time,
  verdict,
} from "./bench_support.ts";

async function ours(fx: TmuxFixture, live: boolean, panes: number, entry = MAIN) {
  const { client, close } = await connectStdio(
    ["-S", fx.socket, ...(live ? [] : ["--no-live"])],
    {},
    entry,
  );
  const typist = await openControl(fx);
  const call = (name: string, args: Record<string, unknown>) =>
    client.callTool({ name, arguments: args });
  try {
    // The control route attaches in the background on first use: let it, then measure.
    for (let i = 0; i < 5; i++) await call("list_panes", {});
    await sleep(200);
    const result: Record<string, Stat> = {
      list_panes: await time(ITERATIONS, () => call("list_panes", {})),
      capture_pane_screen: await time(ITERATIONS, () => call("capture_pane", { paneId: "%0" })),
      capture_pane_history: await time(
        ITERATIONS,
        () =>
          call("capture_pane", { paneId: "%0", start: -2000, maxLines: 2100, maxBytes: 262_144 }),
      ),
      [`search_panes_${panes}`]: await time(
        Math.ceil(ITERATIONS / 2),
        () => call("search_panes", { pattern: "1999", scrollbackLines: 100 }),
      ),
      // Its guard lists the whole server first; %1 runs cat and nobody watches it.
      send_keys: await time(
        ITERATIONS,
        () => call("send_keys", { paneId: "%1", keys: "k", enter: false }),
      ),
    };
    // Wake latency: a caller waits on capture_since; the pane prints; the reply arrives.
    const first = await call("capture_since", { paneId: "%0" });
    let cursor = (first.structuredContent as { cursor?: string }).cursor;
    const wakes: number[] = [];
    for (let i = 0; i < Math.ceil(ITERATIONS / 2); i++) {
      const waiting = call("capture_since", {
        paneId: "%0",
        ...(cursor ? { cursor } : {}),
        waitMs: 5000,
      });
      await sleep(live ? 20 : 300);
      const t = performance.now();
      await typist.command(["send-keys", "-t", "%0", "-l", `w${i}`]);
      const reply = await waiting;
      wakes.push(performance.now() - t);
      cursor = (reply.structuredContent as { cursor?: string }).cursor;
    }
    result.capture_since_wake = stat(wakes);
    const textWake = await waitForTextWake(client, typist, live);
    if (textWake) result.wait_for_text_wake = textWake;
    return result;
  } finally {
    await typist.close();
    await close();
  }
}

/**
 * Wake latency of wait_for_text: a caller waits for a word not yet printed, the pane echoes it, the
 * reply arrives. Each wait continues from the previous one's cursor. Undefined for a build without
 * the tool (a BENCH_BASELINE from before it).
 */
async function waitForTextWake(
  client: Awaited<ReturnType<typeof connectStdio>>["client"],
  typist: ControlClient,
  live: boolean,
): Promise<Stat | undefined> {
  if (!(await client.listTools()).tools.some((t) => t.name === "wait_for_text")) return undefined;
  const first = await client.callTool({ name: "capture_since", arguments: { paneId: "%0" } });
  let cursor = (first.structuredContent as { cursor?: string }).cursor;
  const wakes: number[] = [];
  for (let i = 0; i < Math.ceil(ITERATIONS / 2); i++) {
    const word = `ready-${i}-now`;
    const waiting = client.callTool({
      name: "wait_for_text",
      arguments: { paneId: "%0", patterns: [word], ...(cursor ? { cursor } : {}), timeoutMs: 5000 },
    });
    await sleep(live ? 20 : 300);
    const t = performance.now();
    await typist.command(["send-keys", "-t", "%0", "-l", `${word} `]);
    const reply = await waiting;
    wakes.push(performance.now() - t);
    const data = reply.structuredContent as { outcome?: string; cursor?: string };
    if (data.outcome !== "matched") throw new Error(`wait_for_text: ${JSON.stringify(data)}`);
    cursor = data.cursor;
  }
  return stat(wakes);
}

/**
 * Where the no-tmux call's time goes: the same ping and call in process (no stdio, no JSON lines),
 * zod's check of its arguments, and JSON encoding of the request and its answer.
 */
export async function overhead(socket: string): Promise<{
  inProcessPing: Stat;
  inProcessNoTmux: Stat;
  zodArgumentsMs: number;
  jsonMs: number;
}> {
  const { client, close } = await connectInProcess(["-S", socket]);
  try {
    const ping = await time(ITERATIONS * 5, () => client.ping());
    const noTmux = await time(ITERATIONS * 5, () => client.callTool(NO_TMUX));
    const spec = TOOLS.find((t) => t.name === NO_TMUX.name)!;
    const micro = (fn: () => unknown) => {
      for (let i = 0; i < 1000; i++) fn();
      const t = performance.now();
      for (let i = 0; i < 10_000; i++) fn();
      return round((performance.now() - t) / 10_000);
    };
    const request = { jsonrpc: "2.0", id: 7, method: "tools/call", params: NO_TMUX };
    const answer = await client.callTool(NO_TMUX);
    return {
      inProcessPing: ping,
      inProcessNoTmux: noTmux,
      zodArgumentsMs: micro(() => spec.input.safeParse(NO_TMUX.arguments)),
      jsonMs: micro(() => {
        JSON.parse(JSON.stringify(request));
        JSON.parse(JSON.stringify({ jsonrpc: "2.0", id: 7, result: answer }));
      }),
    };
  } finally {
    await close();
  }
}

/** One row of the latency table. */
function row(panes: number, mode: string, name: string, s: Stat, floor: Floors): string {
  return [
    String(panes).padStart(5),
    mode.padEnd(8),
    name.padEnd(22),
    s.p50.toFixed(2).padStart(8),
    s.p95.toFixed(2).padStart(8),
    (s.p50 / floor.spawn.p50).toFixed(1).padStart(9),
    (s.p50 / floor.control.p50).toFixed(0).padStart(10),
  ].join(" ");
}

/** The table's floor rows for one pane count. */
function floorRows(panes: number, floor: Floors): string[] {
  const at = (label: string, s: Stat, digits: number) =>
    `${String(panes).padStart(5)} floor    ${label.padEnd(22)}${
      s.p50.toFixed(digits).padStart(8)
    } ${s.p95.toFixed(digits).padStart(8)}`;
  return [
    at("tmux spawn", floor.spawn, 2),
    at("control round trip", floor.control, 3),
    at("no-tmux tools/call", floor.noTmux, 3),
    at("MCP ping", floor.ping, 3),
  ];
}

/** The control route's goals, on the live build of one pane count. */
function goalLines(panes: number, live: Record<string, Stat>, floor: Floors): string[] {
  const goals: string[] = [];
  for (const name of ["list_panes", "capture_pane_screen"]) {
    const p50 = live[name].p50;
    const ratio = p50 / floor.spawn.p50;
    const over = p50 - floor.noTmux.p50;
    goals.push(
      `${String(panes).padStart(5)} ${name.padEnd(20)} ${p50.toFixed(3).padStart(8)} ms  ` +
        `${ratio.toFixed(2)}x spawn (goal ≤ 0.25: ${verdict(ratio, 0.25, "x")})  ` +
        `+${over.toFixed(3)} ms over no-tmux (goal ≤ 0.3: ${verdict(over, 0.3, "ms")})`,
    );
  }
  const keys = live.send_keys.p50 / floor.spawn.p50;
  goals.push(
    `${String(panes).padStart(5)} ${"send_keys".padEnd(20)} ${
      live.send_keys.p50.toFixed(3).padStart(8)
    } ms  ${keys.toFixed(2)}x spawn (goal ≤ 0.35: ${verdict(keys, 0.35, "x")})`,
  );
  return goals;
}

/**
 * The latency section: every build on a server of 4 and of 50 panes; prints the table and the
 * control route's goals, and returns the report's `runs` and `goals` entries.
 */
export async function latency(baseline: string | undefined): Promise<{
  runs: unknown[];
  goals: string[];
}> {
  const runs: unknown[] = [];
  const goals: string[] = [];
  const rows: string[] = [];
  for (const panes of [4, 50]) {
    const fx = await server(panes);
    try {
      const floor = await floors(fx);
      const builds: Array<[string, boolean, string]> = [["live", true, MAIN], [
        "no-live",
        false,
        MAIN,
      ]];
      if (baseline) builds.push(["before", true, baseline]);
      let live: Record<string, Stat> | undefined;
      for (const [mode, isLive, main] of builds) {
        const figures = await ours(fx, isLive, panes, main);
        if (mode === "live") live = figures;
        const ratios: Record<string, unknown> = {};
        for (const [name, s] of Object.entries(figures)) {
          ratios[name] = {
            vsSpawn: round(s.p50 / floor.spawn.p50),
            vsControl: round(s.p50 / floor.control.p50),
          };
          rows.push(row(panes, mode, name, s, floor));
        }
        runs.push({ panes, mode, live: isLive, floors: floor, tools: figures, ratios });
      }
      rows.push(...floorRows(panes, floor));
      goals.push(...goalLines(panes, live!, floor));
    } finally {
      await fx.close();
    }
  }
  console.log("panes mode     call                    p50 ms   p95 ms  x spawn  x control");
  for (const line of rows) console.log(line);
  console.log("\ncontrol route goals (live mode, p50, floors from the same run)");
  for (const goal of goals) console.log(goal);
  return { runs, goals };
}
