/**
 * Latency benchmark (`deno task bench`): our server over stdio, exactly as clients run it,
 * against private tmux servers with 4 and 50 panes, with live mode on and off. Reports p50/p95
 * of tools/call and of capture_since's wake-up, next to two floors measured in the same run:
 * spawning tmux directly, and one raw control-mode round trip. Prints a table, then JSON.
 */
import { TmuxRunner } from "../src/tmux/command.ts";
import { ControlClient } from "../src/tmux/control.ts";
import { connectStdio } from "../tests/support/client.ts";
import { cleanEnv, TmuxFixture } from "../tests/support/fixture.ts";

const ITERATIONS = Number(Deno.env.get("BENCH_ITERATIONS") ?? 40);

interface Stat {
  p50: number;
  p95: number;
  n: number;
}

function stat(samples: number[]): Stat {
  const sorted = [...samples].sort((a, b) => a - b);
  const at = (q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))];
  return { p50: round(at(0.5)), p95: round(at(0.95)), n: sorted.length };
}

function round(ms: number): number {
  return Math.round(ms * 1000) / 1000;
}

async function time(n: number, fn: () => Promise<unknown>): Promise<Stat> {
  await fn(); // warm-up
  const samples: number[] = [];
  for (let i = 0; i < n; i++) {
    const t = performance.now();
    await fn();
    samples.push(performance.now() - t);
  }
  return stat(samples);
}

/** A server with `panes` panes, each having printed 2,000 lines (so there is history). */
async function server(panes: number): Promise<TmuxFixture> {
  const fx = await TmuxFixture.start({ session: "bench", command: "sh -c 'seq 1 2000; exec cat'" });
  await fx.tmux("set-option", "-g", "history-limit", "5000");
  for (let i = 1; i < panes; i++) {
    await fx.tmux("new-window", "-d", "-t", "=bench:", "sh -c 'seq 1 2000; exec cat'");
  }
  await new Promise((r) => setTimeout(r, 500));
  return fx;
}

async function floors(fx: TmuxFixture) {
  const spawn = await time(
    ITERATIONS,
    () =>
      new Deno.Command("tmux", { args: ["-S", fx.socket, "display-message", "-p", "x"] }).output(),
  );
  const runner = new TmuxRunner({
    socket: { kind: "path", path: fx.socket },
    env: (n) => cleanEnv()[n],
  });
  const control = await ControlClient.open(runner, "$0", { onOutput() {}, onClose() {} });
  try {
    const roundTrip = await time(
      ITERATIONS * 5,
      () => control.command(["display-message", "-p", "x"]),
    );
    return { spawn, control: roundTrip };
  } finally {
    await control.close();
  }
}

async function ours(fx: TmuxFixture, live: boolean, panes: number) {
  const { client, close } = await connectStdio(["-S", fx.socket, ...(live ? [] : ["--no-live"])]);
  const runner = new TmuxRunner({
    socket: { kind: "path", path: fx.socket },
    env: (n) => cleanEnv()[n],
  });
  const typist = await ControlClient.open(runner, "$0", { onOutput() {}, onClose() {} });
  const call = (name: string, args: Record<string, unknown>) =>
    client.callTool({ name, arguments: args });
  try {
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
      await new Promise((r) => setTimeout(r, live ? 20 : 300));
      const t = performance.now();
      await typist.command(["send-keys", "-t", "%0", "-l", `w${i}`]);
      const reply = await waiting;
      wakes.push(performance.now() - t);
      cursor = (reply.structuredContent as { cursor?: string }).cursor;
    }
    result.capture_since_wake = stat(wakes);
    return result;
  } finally {
    await typist.close();
    await close();
  }
}

const report: Record<string, unknown> = { iterations: ITERATIONS, runs: [] };
const rows: string[] = [];
const started = performance.now();
for (const panes of [4, 50]) {
  const fx = await server(panes);
  try {
    const floor = await floors(fx);
    for (const live of [true, false]) {
      const figures = await ours(fx, live, panes);
      const entry = {
        panes,
        live,
        floors: floor,
        tools: figures,
        ratios: {} as Record<string, unknown>,
      };
      for (const [name, s] of Object.entries(figures)) {
        entry.ratios[name] = {
          vsSpawn: round(s.p50 / floor.spawn.p50),
          vsControl: round(s.p50 / floor.control.p50),
        };
        rows.push(
          [
            String(panes).padStart(5),
            (live ? "live" : "no-live").padEnd(8),
            name.padEnd(22),
            s.p50.toFixed(2).padStart(8),
            s.p95.toFixed(2).padStart(8),
            (s.p50 / floor.spawn.p50).toFixed(1).padStart(9),
            (s.p50 / floor.control.p50).toFixed(0).padStart(10),
          ].join(" "),
        );
      }
      (report.runs as unknown[]).push(entry);
    }
    rows.push(
      `${String(panes).padStart(5)} floor    tmux spawn            ${
        floor.spawn.p50.toFixed(2).padStart(8)
      } ${floor.spawn.p95.toFixed(2).padStart(8)}`,
      `${String(panes).padStart(5)} floor    control round trip    ${
        floor.control.p50.toFixed(3).padStart(8)
      } ${floor.control.p95.toFixed(3).padStart(8)}`,
    );
  } finally {
    await fx.close();
  }
}
report.totalSeconds = round((performance.now() - started) / 1000);
console.log("panes mode     call                    p50 ms   p95 ms  x spawn  x control");
for (const row of rows) console.log(row);
console.log(JSON.stringify(report));
