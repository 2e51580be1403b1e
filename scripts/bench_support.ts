/**
 * What every section of `deno task bench` (scripts/bench.ts) shares: timing and percentiles, the
 * private tmux servers, the floors measured beside each figure, and reading another process's
 * memory and CPU from /proc (the bench may; the server never does).
 */
import { TmuxRunner } from "../src/tmux/core/runner.ts";
import { ControlClient } from "../src/tmux/control/client.ts";
import { connectStdio } from "../tests/support/client.ts";
import { cleanEnv, TmuxFixture } from "../tests/support/fixture.ts";

/** Calls timed per figure (BENCH_ITERATIONS, 40 by default); the floors time five times as many. */
export const ITERATIONS = Number(Deno.env.get("BENCH_ITERATIONS") ?? 40);
/** Clock ticks per second in /proc/<pid>/stat (`getconf CLK_TCK`; 100 on Linux). */
const CLOCK_TICKS = 100;

/** Percentiles of one measured thing, in milliseconds. */
export interface Stat {
  p50: number;
  p95: number;
  n: number;
}

/** p50 and p95 of some samples (nearest rank). */
export function stat(samples: number[]): Stat {
  const sorted = [...samples].sort((a, b) => a - b);
  const at = (q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))];
  return { p50: round(at(0.5)), p95: round(at(0.95)), n: sorted.length };
}

/** Three decimals: microseconds of a millisecond figure, enough for the JSON. */
export function round(ms: number): number {
  return Math.round(ms * 1000) / 1000;
}

/**
 * `n` timed runs of `fn` after `warmUp` untimed ones (the first call pays for compiling and
 * caches).
 */
export async function time(n: number, fn: () => Promise<unknown>, warmUp = 1): Promise<Stat> {
  for (let i = 0; i < warmUp; i++) await fn();
  const samples: number[] = [];
  for (let i = 0; i < n; i++) {
    const t = performance.now();
    await fn();
    samples.push(performance.now() - t);
  }
  return stat(samples);
}

/** Resolves after `ms` milliseconds. */
export const sleep = (ms: number): Promise<unknown> => new Promise((r) => setTimeout(r, ms));

/** A server with `panes` panes, each having printed 2,000 lines (so there is history). */
export async function server(panes: number): Promise<TmuxFixture> {
  const fx = await TmuxFixture.start({ session: "bench", command: "sh -c 'seq 1 2000; exec cat'" });
  await fx.tmux("set-option", "-g", "history-limit", "5000");
  for (let i = 1; i < panes; i++) {
    await fx.tmux("new-window", "-d", "-t", "=bench:", "sh -c 'seq 1 2000; exec cat'");
  }
  await sleep(500);
  return fx;
}

/**
 * A control client of the bench's own on a fixture's server (session $0): the raw round trip the
 * server's control route is measured against, or a counter of a pane's output. `clientFlags`:
 * `no-output` for one that must not look like a person to a server's guard while it measures.
 */
export function openControl(
  fx: TmuxFixture,
  onOutput: (paneId: string, data: Uint8Array) => void = () => {},
  clientFlags: string[] = [],
): Promise<ControlClient> {
  const runner = new TmuxRunner({
    socket: { kind: "path", path: fx.socket },
    env: (n) => cleanEnv()[n],
  });
  return ControlClient.open(runner, "$0", { onOutput, onClose() {} }, { clientFlags });
}

/** A call that touches no tmux: a cursor no stream issued is refused before tmux is asked. */
export const NO_TMUX = {
  name: "capture_since",
  arguments: { paneId: "%0", cursor: `ltxc1.${"0".repeat(32)}.0` },
};

/** What a figure is set against, measured on the same server in the same run. */
export interface Floors {
  /** One `tmux display-message` spawned. */
  spawn: Stat;
  /** The same command over one raw control connection. */
  control: Stat;
  /** An MCP tools/call over stdio that touches no tmux ({@link NO_TMUX}). */
  noTmux: Stat;
  /** An MCP ping over stdio. */
  ping: Stat;
}

/** The floors on `fx`'s server. */
export async function floors(fx: TmuxFixture): Promise<Floors> {
  const spawn = await time(
    ITERATIONS,
    () =>
      new Deno.Command("tmux", { args: ["-S", fx.socket, "display-message", "-p", "x"] }).output(),
  );
  // The MCP floor: JSON-RPC, validation and stdio, no tmux (live mode, so no fallback polling).
  const stdio = await connectStdio(["-S", fx.socket]);
  let noTmux: Stat;
  let ping: Stat;
  try {
    noTmux = await time(ITERATIONS * 5, () => stdio.client.callTool(NO_TMUX));
    ping = await time(ITERATIONS * 5, () => stdio.client.ping());
  } finally {
    await stdio.close();
  }
  const control = await openControl(fx);
  try {
    const roundTrip = await time(
      ITERATIONS * 5,
      () => control.command(["display-message", "-p", "x"]),
    );
    return { spawn, control: roundTrip, noTmux, ping };
  } finally {
    await control.close();
  }
}

/**
 * A /proc file of another process. Deno refuses to read /proc without --allow-all, which the bench
 * task does not grant, so `cat` (allowed by --allow-run) reads it.
 */
async function proc(pid: number, file: string): Promise<string> {
  const out = await new Deno.Command("cat", { args: [`/proc/${pid}/${file}`] }).output();
  return new TextDecoder().decode(out.stdout);
}

/** The MCP server process `connectStdio` started for `entry`: a child of this process. */
export async function serverPid(entry: string): Promise<number> {
  const out = await new Deno.Command("ps", {
    args: ["-o", "pid=,args=", "--ppid", String(Deno.pid)],
  }).output();
  // The newest one: a server closed just before may not have exited yet.
  for (const line of new TextDecoder().decode(out.stdout).trim().split("\n").reverse()) {
    const [pid, ...args] = line.trim().split(/\s+/);
    if (args.includes(entry)) return Number(pid);
  }
  throw new Error(`no server process runs ${entry}`);
}

/** Resident memory of a process, in MiB. */
export async function rssMiB(pid: number): Promise<number> {
  const line = (await proc(pid, "status")).split("\n").find((l) => l.startsWith("VmRSS:"));
  return Number(line?.split(/\s+/)[1] ?? 0) / 1024;
}

/** User and system CPU time a process has used, in seconds. */
export async function cpuSeconds(pid: number): Promise<number> {
  const stat = await proc(pid, "stat");
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  // utime and stime are fields 14 and 15 of the whole line, 12 and 13 after the name.
  return (Number(fields[11]) + Number(fields[12])) / CLOCK_TICKS;
}

/**
 * Wait until a process has used (almost) no CPU for half a second, at most `ms`; returns when its
 * quiet time began.
 */
export async function settle(pid: number, ms = 60_000): Promise<number> {
  const end = Date.now() + ms;
  let last = await cpuSeconds(pid);
  let quiet = 0;
  let since = Date.now();
  while (Date.now() < end && quiet < 2) {
    await sleep(250);
    const now = await cpuSeconds(pid);
    if (now - last < 0.02) quiet++;
    else [quiet, since] = [0, Date.now()];
    last = now;
  }
  return since;
}

/** Wait (at most 60 s) until a process we started has exited, so its fixture finds it gone. */
export async function exited(pid: number): Promise<void> {
  for (let i = 0; i < 600; i++) {
    const out = await new Deno.Command("ps", { args: ["-o", "pid=", "-p", String(pid)] }).output();
    if (new TextDecoder().decode(out.stdout).trim() === "") return;
    await sleep(100);
  }
}

/** The load average when a section ran: the machine is shared, so ratios are what carry over. */
export async function load(): Promise<string> {
  return (await proc(Deno.pid, "../loadavg")).trim().split(" ").slice(0, 3).join(" ");
}

/** "met", or by how much a figure missed its goal. */
export function verdict(value: number, limit: number, unit: string): string {
  return value <= limit
    ? "met"
    : `missed by ${(value - limit).toFixed(unit === "x" ? 2 : 3)}${
      unit === "x" ? "x" : ` ${unit}`
    }`;
}
