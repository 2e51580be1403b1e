/**
 * Benchmark (`deno task bench`): our server over stdio, exactly as clients run it, against private
 * tmux servers. Prints tables, then all figures as JSON.
 *
 * - Latency, with 4 and 50 panes, live mode on and off: p50/p95 of tools/call and of
 *   capture_since's and wait_for_text's wake-up, next to two floors measured in the same run
 *   (spawning tmux directly, one raw control-mode round trip).
 * - The control route (docs/design.md §5.14; live mode routes ordinary commands over one control
 *   connection): a third floor, an MCP tools/call that touches no tmux (capture_since with a
 *   cursor no stream issued; an MCP ping beside it), and send_keys with its guard. The goals are
 *   checked against the floors: list_panes and capture_pane of a screen at p50 ≤ 0.25× one spawn
 *   and within 0.3 ms of the no-tmux call, send_keys ≤ 0.35× one spawn. Where the no-tmux call's
 *   time goes: the same ping and call in process (no stdio), zod's check of the arguments, JSON.
 * - Start: cold start to the `initialize` reply (a new `deno run` each time), and the server's RSS
 *   after its first calls, live and not.
 * - Memory: the server's RSS with 50 streamed 200x50 panes, each having printed 10,000 lines
 *   since its stream began (so each terminal's history is full).
 * - Flood: a pane printing `yes` for BENCH_FLOOD_SECONDS (15 by default; the issue's 60 s shortened
 *   to keep the bench reasonable): p50/p95 of list_panes during the flood, and the server's CPU
 *   seconds per MiB of output, with the pane streamed (a reader following it) and not streamed.
 *
 * - Footprint (issue 33), each beside its floor: RSS slope per followed 160x45 pane (slope),
 *   CPU of waiting through a BENCH_FLOOD_MIB flood, this server plus tmux's extra over tmux alone
 *   (floodcpu; /proc read by the bench), guarded send_keys among 51 panes against one spawn and
 *   list_panes against an MCP call touching no tmux plus tmux's control-mode listing (guard).
 *
 * - Remote hosts (issue 31): a warm capture_pane and list_panes on a pane reached over ssh (a private
 *   sshd on 127.0.0.1, scripts/bench_remote.ts) against the same calls locally, p50/p95.
 *
 * BENCH_BASELINE=<path to another checkout's main.ts> measures that build the same way too (the
 * "before" column: e.g. the commit before rendered reads). Not a test: timings are not asserted.
 */
import { TOOLS } from "../src/catalog.ts";
import { TmuxRunner } from "../src/tmux/command.ts";
import { ControlClient } from "../src/tmux/control.ts";
import { connectInProcess, connectStdio, MAIN, startPermissions } from "../tests/support/client.ts";
import { cleanEnv, TmuxFixture } from "../tests/support/fixture.ts";
import { remoteBench, type RemoteFigures, remoteTable } from "./bench_remote.ts";

const ITERATIONS = Number(Deno.env.get("BENCH_ITERATIONS") ?? 40);
const FLOOD_SECONDS = Number(Deno.env.get("BENCH_FLOOD_SECONDS") ?? 15);
const BASELINE = Deno.env.get("BENCH_BASELINE");
/**
 * Sections to run: any of latency, start, run, memory, flood, screenshot, and issue 33's
 * footprint figures slope, floodcpu, guard, and remote (issue 31; comma-separated; all by default).
 */
const ONLY = new Set(
  (Deno.env.get("BENCH_ONLY") ??
    "latency,start,run,memory,flood,screenshot,slope,floodcpu,guard,remote").split(","),
);
/** MiB the floodcpu section prints. */
const FLOOD_MIB = Number(Deno.env.get("BENCH_FLOOD_MIB") ?? 40);
/** Clock ticks per second in /proc/<pid>/stat (`getconf CLK_TCK`; 100 on Linux). */
const CLOCK_TICKS = 100;

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

/** A call that touches no tmux: a cursor no stream issued is refused before tmux is asked. */
const NO_TMUX = {
  name: "capture_since",
  arguments: { paneId: "%0", cursor: `ltxc1.${"0".repeat(32)}.0` },
};

async function floors(fx: TmuxFixture) {
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
    return { spawn, control: roundTrip, noTmux, ping };
  } finally {
    await control.close();
  }
}

async function ours(fx: TmuxFixture, live: boolean, panes: number, entry = MAIN) {
  const { client, close } = await connectStdio(
    ["-S", fx.socket, ...(live ? [] : ["--no-live"])],
    {},
    entry,
  );
  const runner = new TmuxRunner({
    socket: { kind: "path", path: fx.socket },
    env: (n) => cleanEnv()[n],
  });
  const typist = await ControlClient.open(runner, "$0", { onOutput() {}, onClose() {} });
  const call = (name: string, args: Record<string, unknown>) =>
    client.callTool({ name, arguments: args });
  try {
    // The control route attaches in the background on first use: let it, then measure.
    for (let i = 0; i < 5; i++) await call("list_panes", {});
    await new Promise((r) => setTimeout(r, 200));
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
      await new Promise((r) => setTimeout(r, live ? 20 : 300));
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
    await new Promise((r) => setTimeout(r, live ? 20 : 300));
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
 * The round trip of run_shell_command "true" in an idle bash over stdio: the line typed, the
 * shell reading the command back through tmux, its end frame seen, the reply.
 */
async function runRoundTrip(entry: string): Promise<Stat> {
  const fx = await TmuxFixture.start({
    session: "bench",
    command: "env -i PATH=/usr/local/bin:/usr/bin:/bin TERM=screen PS1='$ ' HISTFILE=/dev/null " +
      "bash --norc --noprofile",
  });
  try {
    await new Promise((r) => setTimeout(r, 500));
    const { client, close } = await connectStdio(["-S", fx.socket], {}, entry);
    try {
      return await time(ITERATIONS, async () => {
        const reply = await client.callTool({
          name: "run_shell_command",
          arguments: { paneId: "%0", command: "true" },
        });
        const data = reply.structuredContent as { outcome?: string };
        if (data.outcome !== "completed") throw new Error(`run: ${JSON.stringify(reply)}`);
      });
    } finally {
      await close();
    }
  } finally {
    await fx.close();
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
async function serverPid(entry: string): Promise<number> {
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
async function rssMiB(pid: number): Promise<number> {
  const line = (await proc(pid, "status")).split("\n").find((l) => l.startsWith("VmRSS:"));
  return Number(line?.split(/\s+/)[1] ?? 0) / 1024;
}

/** User and system CPU time a process has used, in seconds. */
async function cpuSeconds(pid: number): Promise<number> {
  const stat = await proc(pid, "stat");
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  // utime and stime are fields 14 and 15 of the whole line, 12 and 13 after the name.
  return (Number(fields[11]) + Number(fields[12])) / CLOCK_TICKS;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * Wait until a process has used (almost) no CPU for half a second, at most `ms`; returns when its
 * quiet time began.
 */
async function settle(pid: number, ms = 60_000): Promise<number> {
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

/** The server's RSS idle, with 50 streams started, and after each stream's pane printed 10,000 lines. */
async function memory(entry: string) {
  const pane = "sh -c 'read go; seq 1 10000; exec cat'";
  const fx = await TmuxFixture.start({ session: "mem", width: 200, height: 50, command: pane });
  try {
    for (let i = 1; i < 50; i++) await fx.tmux("new-window", "-d", "-t", "=mem:", pane);
    const panes = (await fx.tmux("list-panes", "-s", "-t", "=mem", "-F", "#{pane_id}")).trim()
      .split("\n");
    const { client, close } = await connectStdio(["-S", fx.socket], {}, entry);
    try {
      const pid = await serverPid(entry);
      await client.callTool({ name: "list_panes", arguments: {} });
      await settle(pid);
      const idle = await rssMiB(pid);
      const cursors = new Map<string, string>();
      for (const paneId of panes) {
        const first = await client.callTool({ name: "capture_since", arguments: { paneId } });
        cursors.set(paneId, (first.structuredContent as { cursor: string }).cursor);
      }
      await settle(pid);
      const streamed = await rssMiB(pid);
      for (const paneId of panes) await fx.tmux("send-keys", "-t", paneId, "Enter");
      for (const paneId of panes) {
        while (!(await fx.tmux("capture-pane", "-p", "-t", paneId)).includes("10000")) {
          await sleep(100);
        }
      }
      await settle(pid);
      // One read per pane, as a reader would: the reads themselves hold nothing afterwards.
      for (const [paneId, cursor] of cursors) {
        await client.callTool({ name: "capture_since", arguments: { paneId, cursor } });
      }
      await settle(pid);
      const printed = await rssMiB(pid);
      return {
        idle: round(idle),
        streamed: round(streamed),
        printed: round(printed),
        perPane: round((printed - idle) / panes.length),
      };
    } finally {
      await close();
    }
  } finally {
    await fx.close();
  }
}

/**
 * One pane prints `yes` for FLOOD_SECONDS while list_panes is called every 50 ms (and, when the
 * pane is streamed, a reader follows it once a second). Output is counted by a control client of
 * the bench's own; the server's CPU time runs until it has caught up with the flood.
 */
async function flood(entry: string, streamed: boolean) {
  const fx = await TmuxFixture.start({
    session: "flood",
    command: `sh -c 'read go; timeout ${FLOOD_SECONDS} yes; echo FLOOD-DONE; exec cat'`,
  });
  try {
    for (let i = 0; i < 3; i++) await fx.tmux("new-window", "-d", "-t", "=flood:", "cat");
    const runner = new TmuxRunner({
      socket: { kind: "path", path: fx.socket },
      env: (n) => cleanEnv()[n],
    });
    let bytes = 0;
    let done = false;
    const tail = new TextDecoder();
    const counter = await ControlClient.open(runner, "$0", {
      onOutput(paneId, data) {
        if (paneId !== "%0") return;
        bytes += data.length;
        if (tail.decode(data.subarray(-64)).includes("FLOOD-DONE")) done = true;
      },
      onClose() {},
    });
    const { client, close } = await connectStdio(["-S", fx.socket], {}, entry);
    try {
      const pid = await serverPid(entry);
      let cursor: string | undefined;
      if (streamed) {
        const first = await client.callTool({ name: "capture_since", arguments: { paneId: "%0" } });
        cursor = (first.structuredContent as { cursor: string }).cursor;
      }
      await settle(pid);
      const cpu0 = await cpuSeconds(pid);
      await fx.tmux("send-keys", "-t", "%0", "Enter");
      const started = Date.now();
      const latencies: number[] = [];
      let lastRead = started;
      while (!done && Date.now() - started < (FLOOD_SECONDS + 60) * 1000) {
        const t = performance.now();
        await client.callTool({ name: "list_panes", arguments: {} });
        latencies.push(performance.now() - t);
        if (cursor && Date.now() - lastRead >= 1000) {
          const next = await client.callTool({
            name: "capture_since",
            arguments: { paneId: "%0", cursor, maxLines: 20 },
          });
          cursor = (next.structuredContent as { cursor?: string }).cursor ?? cursor;
          lastRead = Date.now();
        }
        await sleep(50);
      }
      const ended = Date.now();
      const caughtUp = await settle(pid);
      const cpu = await cpuSeconds(pid) - cpu0;
      const mib = bytes / 1_048_576;
      return {
        listPanes: stat(latencies),
        mib: round(mib),
        cpuSeconds: round(cpu),
        cpuPerMiB: round(cpu / mib),
        catchUpSeconds: round(Math.max(0, caughtUp - ended) / 1000),
      };
    } finally {
      await close();
      await counter.close();
    }
  } finally {
    await fx.close();
  }
}

/**
 * screenshot_pane over stdio on a `columns`x`rows` pane whose every row is coloured text (words in
 * the 16 and 256 colours, bold, a background): p50/p95 and the PNG's size.
 */
async function screenshots(entry: string, columns: number, rows: number) {
  await using fx = await TmuxFixture.start({ session: "shot", width: columns, height: rows });
  const words = ["ok", "FAILED", "src/app.ts", "42", "warning:", "deno", "test", "│", "─"];
  const lines = Array.from({ length: rows - 1 }, (_, row) => {
    let line = "";
    for (let i = 0; line.length < columns * 6; i++) {
      const word = words[(row * 7 + i * 3) % words.length];
      line += `\x1b[${i % 5 === 0 ? "1;" : ""}38;5;${(row * 11 + i * 29) % 256}m${word} `;
    }
    return line.slice(0, columns * 6) + (row % 4 === 0 ? "\x1b[44m  \x1b[0m" : "\x1b[0m");
  });
  await Deno.writeTextFile(`${fx.dir}/screen`, lines.join("\r\n"));
  const paneId = (await fx.tmux(
    "new-window",
    "-d",
    "-P",
    "-F",
    "#{pane_id}",
    "-t",
    "=shot:",
    `sh -c "cat '${fx.dir}/screen'; exec sleep 100000"`,
  )).trim();
  await new Promise((r) => setTimeout(r, 500));
  const { client, close } = await connectStdio(["-S", fx.socket], {}, entry);
  try {
    let bytes = 0;
    const s = await time(ITERATIONS, async () => {
      const result = await client.callTool({ name: "screenshot_pane", arguments: { paneId } });
      bytes = (result.structuredContent as { bytes: number }).bytes;
    });
    return { ...s, bytes };
  } finally {
    await close();
  }
}

/** Cold start: a new server process each time, from spawn to its `initialize` reply. */
async function coldStart(entry: string, socket: string): Promise<Stat> {
  const permissions = await startPermissions();
  const initialize = JSON.stringify({
    jsonrpc: "2.0",
    id: 1,
    method: "initialize",
    params: {
      protocolVersion: "2025-06-18",
      capabilities: {},
      clientInfo: { name: "bench", version: "1" },
    },
  }) + "\n";
  const once = async () => {
    const started = performance.now();
    const child = new Deno.Command(Deno.execPath(), {
      args: ["run", ...permissions, entry, "-S", socket],
      clearEnv: true,
      env: cleanEnv({ NO_COLOR: "1" }),
      stdin: "piped",
      stdout: "piped",
      stderr: "null",
    }).spawn();
    const writer = child.stdin.getWriter();
    await writer.write(new TextEncoder().encode(initialize));
    const reader = child.stdout.getReader();
    let seen = "";
    while (!seen.includes("\n")) {
      const { done, value } = await reader.read();
      if (done) break;
      seen += new TextDecoder().decode(value);
    }
    const ms = performance.now() - started;
    await writer.close();
    await reader.cancel();
    await child.status;
    return ms;
  };
  const samples: number[] = [];
  for (let i = 0; i < 5; i++) samples.push(await once());
  return stat(samples);
}

/** The server's RSS after connecting and a few listings and captures (no stream started). */
async function idleRss(entry: string, socket: string, live: boolean): Promise<number> {
  const { client, close } = await connectStdio(
    ["-S", socket, ...(live ? [] : ["--no-live"])],
    {},
    entry,
  );
  try {
    for (let i = 0; i < 10; i++) {
      await client.callTool({ name: "list_panes", arguments: {} });
      await client.callTool({ name: "capture_pane", arguments: { paneId: "%0" } });
    }
    const pid = await serverPid(entry);
    await settle(pid, 5_000);
    return round(await rssMiB(pid));
  } finally {
    await close();
  }
}

/**
 * Where the no-tmux call's time goes: the same ping and call in process (no stdio, no JSON lines),
 * zod's check of its arguments, and JSON encoding of the request and its answer.
 */
async function overhead(socket: string) {
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

/** "met", or by how much a figure missed its goal. */
function verdict(value: number, limit: number, unit: string): string {
  return value <= limit
    ? "met"
    : `missed by ${(value - limit).toFixed(unit === "x" ? 2 : 3)}${
      unit === "x" ? "x" : ` ${unit}`
    }`;
}

const report: Record<string, unknown> = { iterations: ITERATIONS, runs: [] };
const goals: string[] = [];
const rows: string[] = [];
const started = performance.now();
for (const panes of ONLY.has("latency") ? [4, 50] : []) {
  const fx = await server(panes);
  try {
    const floor = await floors(fx);
    const builds: Array<[string, boolean, string]> = [["live", true, MAIN], [
      "no-live",
      false,
      MAIN,
    ]];
    if (BASELINE) builds.push(["before", true, BASELINE]);
    for (const [mode, live, main] of builds) {
      const figures = await ours(fx, live, panes, main);
      const entry = {
        panes,
        mode,
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
            mode.padEnd(8),
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
      `${String(panes).padStart(5)} floor    no-tmux tools/call    ${
        floor.noTmux.p50.toFixed(3).padStart(8)
      } ${floor.noTmux.p95.toFixed(3).padStart(8)}`,
      `${String(panes).padStart(5)} floor    MCP ping              ${
        floor.ping.p50.toFixed(3).padStart(8)
      } ${floor.ping.p95.toFixed(3).padStart(8)}`,
    );
    // The control route's goals, on the live build of this run.
    const live =
      (report.runs as Array<{ panes: number; mode: string; tools: Record<string, Stat> }>)
        .find((r) => r.panes === panes && r.mode === "live")!.tools;
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
  } finally {
    await fx.close();
  }
}
if (rows.length > 0) {
  console.log("panes mode     call                    p50 ms   p95 ms  x spawn  x control");
  for (const row of rows) console.log(row);
  console.log("\ncontrol route goals (live mode, p50, floors from the same run)");
  for (const goal of goals) console.log(goal);
  report.goals = goals;
}

if (ONLY.has("latency") || ONLY.has("start")) {
  const fx = await server(4);
  try {
    if (ONLY.has("latency")) {
      const o = await overhead(fx.socket);
      report.overhead = o;
      console.log(
        "\nno-tmux call, in process (no stdio): " +
          `ping ${o.inProcessPing.p50.toFixed(3)} ms, call ${
            o.inProcessNoTmux.p50.toFixed(3)
          } ms; ` +
          `zod on its arguments ${o.zodArgumentsMs.toFixed(4)} ms, ` +
          `JSON of request and answer ${o.jsonMs.toFixed(4)} ms`,
      );
    }
    if (ONLY.has("start")) {
      const start = {
        coldStart: await coldStart(MAIN, fx.socket),
        rssLiveMiB: await idleRss(MAIN, fx.socket, true),
        rssNoLiveMiB: await idleRss(MAIN, fx.socket, false),
      };
      report.start = start;
      console.log(
        `\nstart: cold start to the initialize reply p50 ${start.coldStart.p50.toFixed(1)} ms ` +
          `(p95 ${start.coldStart.p95.toFixed(1)}); RSS after first calls ` +
          `${start.rssLiveMiB.toFixed(1)} MiB live, ${start.rssNoLiveMiB.toFixed(1)} MiB --no-live`,
      );
    }
  } finally {
    await fx.close();
  }
}

if (ONLY.has("run")) {
  const run = report.runShellCommand = await runRoundTrip(MAIN);
  console.log(
    `\nrun_shell_command "true" in bash over stdio: p50 ${run.p50.toFixed(1)} ms, ` +
      `p95 ${run.p95.toFixed(1)} ms`,
  );
}

const builds: Array<[string, string]> = [["now", MAIN], ...(BASELINE ? [["before", BASELINE]] : [])]
  .map(([name, main]) => [name, main] as [string, string]);

report.memory = [];
if (ONLY.has("memory")) {
  console.log(
    "\nmemory: 50 streamed 200x50 panes, each printing 10,000 lines after its stream began",
  );
  console.log("build   idle MiB  streamed MiB  printed MiB  per pane MiB");
  for (const [name, main] of builds) {
    const m = await memory(main);
    (report.memory as unknown[]).push({ build: name, ...m });
    console.log(
      [
        name.padEnd(7),
        m.idle.toFixed(1).padStart(8),
        m.streamed.toFixed(1).padStart(13),
        m.printed.toFixed(1).padStart(12),
        m.perPane.toFixed(2).padStart(13),
      ].join(" "),
    );
  }
}

report.flood = [];
if (ONLY.has("flood")) {
  console.log(`\nflood: \`yes\` for ${FLOOD_SECONDS} s in one pane`);
  console.log(
    "build   pane          list_panes p50 ms  p95 ms   MiB out  CPU s  CPU s/MiB  catch-up s",
  );
  for (const [name, main] of builds) {
    for (const streamed of name === "now" ? [true, false] : [true]) {
      const f = await flood(main, streamed);
      (report.flood as unknown[]).push({ build: name, streamed, ...f });
      console.log(
        [
          name.padEnd(7),
          (streamed ? "streamed" : "not streamed").padEnd(13),
          f.listPanes.p50.toFixed(2).padStart(17),
          f.listPanes.p95.toFixed(2).padStart(7),
          f.mib.toFixed(1).padStart(9),
          f.cpuSeconds.toFixed(2).padStart(6),
          f.cpuPerMiB.toFixed(3).padStart(10),
          f.catchUpSeconds.toFixed(1).padStart(11),
        ].join(" "),
      );
    }
  }
}

report.screenshot = [];
if (ONLY.has("screenshot")) {
  console.log("\nscreenshot_pane over stdio, every row coloured text");
  console.log("pane      p50 ms   p95 ms  PNG bytes");
  for (const [columns, rows] of [[80, 24], [200, 50]]) {
    const s = await screenshots(MAIN, columns, rows);
    (report.screenshot as unknown[]).push({ columns, rows, ...s });
    console.log(
      `${`${columns}x${rows}`.padEnd(7)} ${s.p50.toFixed(1).padStart(8)} ${
        s.p95.toFixed(1).padStart(8)
      } ${String(s.bytes).padStart(10)}`,
    );
  }
}

await footprint();

if (ONLY.has("remote")) {
  // Remote hosts (issue 31): a private sshd on 127.0.0.1 stands for the remote machine.
  report.remote = await remoteBench(ITERATIONS * 2);
  console.log(`\n${remoteTable(report.remote as RemoteFigures).join("\n")}`);
}

report.totalSeconds = round((performance.now() - started) / 1000);
console.log(JSON.stringify(report));

/**
 * Memory slope of following panes (issue 33): RSS with 1 and with `n` followed 160x45 panes, each
 * with 5,000 lines of history before it is followed and 3,000 coloured lines printed while it is;
 * the slope is MiB per followed pane.
 */
async function slope(entry: string, n = 30) {
  const fx = await TmuxFixture.start({
    session: "slope",
    width: 160,
    height: 45,
    command: "sleep 100000",
  });
  try {
    const script = `${fx.dir}/pane.sh`;
    await Deno.writeTextFile(
      script,
      "seq 1 5000; read go; i=0; while [ $i -lt 3000 ]; do i=$((i+1)); " +
        "printf '\\033[3%dmline %d \\033[1;4%dm%s\\033[0m\\n' $((i%8)) $i $((i%8)) " +
        "'coloured text coloured text coloured text coloured text coloured text'; done; exec cat\n",
    );
    const pane = `sh ${script}`;
    await fx.tmux("set-option", "-g", "history-limit", "10000");
    for (let i = 1; i <= n; i++) await fx.tmux("new-window", "-d", "-t", "=slope:", pane);
    await fx.tmux("kill-window", "-t", "=slope:0");
    const panes = (await fx.tmux("list-panes", "-s", "-t", "=slope", "-F", "#{pane_id}")).trim()
      .split("\n");
    for (const paneId of panes) {
      while (!(await fx.tmux("capture-pane", "-p", "-t", paneId)).includes("5000")) await sleep(50);
    }
    const { client, close } = await connectStdio(["-S", fx.socket], {}, entry);
    try {
      const pid = await serverPid(entry);
      const follow = async (paneIds: string[]) => {
        for (const paneId of paneIds) {
          await client.callTool({ name: "capture_since", arguments: { paneId } });
          await fx.tmux("send-keys", "-t", paneId, "Enter");
        }
        for (const paneId of paneIds) {
          while (!(await fx.tmux("capture-pane", "-p", "-t", paneId)).includes("line 3000")) {
            await sleep(100);
          }
        }
        await settle(pid);
        return await rssMiB(pid);
      };
      const one = await follow(panes.slice(0, 1));
      const all = await follow(panes.slice(1));
      await close();
      await exited(pid);
      return { one: round(one), all: round(all), panes: n, perPane: round((all - one) / (n - 1)) };
    } catch (error) {
      await close();
      throw error;
    }
  } finally {
    await fx.close();
  }
}

/**
 * CPU of a FLOOD_MIB flood (issue 33): tmux alone (nobody follows the pane), then with the server
 * following it, the agent in wait_for_text on the flood's end marker. CPU seconds of the server
 * and of the tmux server, from /proc (the bench may read it; the server does not). `"discard"`:
 * a bare control client whose output goes to /dev/null follows instead, so what tmux spends on
 * any control client that is sent every byte (escaping each into `%output`) is measured apart.
 */
async function floodCpu(entry: string | undefined | "discard") {
  const bytes = FLOOD_MIB * 1_048_576;
  const pane = `sh -c 'read go; yes flood-line-of-text | head -c ${bytes}; echo FLOOD-END; ` +
    "exec cat'";
  const fx = await TmuxFixture.start({ session: "fc", command: pane });
  try {
    const tmuxPid = await fx.serverPid();
    let server: { client: Awaited<ReturnType<typeof connectStdio>>; pid: number } | undefined;
    let discard: Deno.ChildProcess | undefined;
    if (entry === "discard") {
      discard = new Deno.Command("tmux", {
        args: ["-S", fx.socket, "-C", "attach", "-t", "=fc"],
        clearEnv: true,
        env: cleanEnv(),
        stdin: "piped",
        stdout: "null",
        stderr: "null",
      }).spawn();
      while (!(await fx.tmux("list-clients", "-F", "#{client_pid}")).includes(`${discard.pid}`)) {
        await sleep(50);
      }
    } else if (entry) {
      const stdio = await connectStdio(["-S", fx.socket], {}, entry);
      server = { client: stdio, pid: await serverPid(entry) };
      await stdio.client.callTool({ name: "capture_since", arguments: { paneId: "%0" } });
      await settle(server.pid);
    }
    await settle(tmuxPid);
    const ours0 = server ? await cpuSeconds(server.pid) : 0;
    const tmux0 = await cpuSeconds(tmuxPid);
    const started = performance.now();
    const waiting = server?.client.client.callTool(
      {
        name: "wait_for_text",
        arguments: { paneId: "%0", patterns: ["FLOOD-END"], timeoutMs: 600_000 },
      },
      undefined,
      { timeout: 700_000 },
    );
    await fx.tmux("send-keys", "-t", "%0", "Enter");
    if (waiting) {
      const data = (await waiting).structuredContent as { outcome?: string };
      if (data.outcome !== "matched") throw new Error(`flood wait: ${JSON.stringify(data)}`);
    } else {
      while (!(await fx.tmux("capture-pane", "-p", "-t", "%0")).includes("FLOOD-END")) {
        await sleep(250);
      }
    }
    const seconds = (performance.now() - started) / 1000;
    if (server) await settle(server.pid);
    await settle(tmuxPid);
    const ours = server ? await cpuSeconds(server.pid) - ours0 : 0;
    if (server) {
      await server.client.close();
      await exited(server.pid);
    }
    if (discard) {
      await discard.stdin.close();
      await discard.status;
    }
    return {
      seconds: round(seconds),
      oursCpu: round(ours),
      tmuxCpu: round(await cpuSeconds(tmuxPid) - tmux0),
    };
  } finally {
    await fx.close();
  }
}

/** list_panes' own fields (src/tmux/queries.ts), for its floor: tmux's control-mode answer. */
function listPanesFields(): string {
  return [
    "pane_id",
    "pane_pid",
    "pid",
    "session_id",
    "session_name",
    "window_id",
    "window_index",
    "window_name",
    "pane_index",
    "pane_active",
    "pane_width",
    "pane_height",
    "pane_left",
    "pane_top",
    "pane_current_command",
    "pane_current_path",
    "pane_dead",
    "pane_dead_status",
    "pane_in_mode",
    "pane_title",
    "history_size",
    "history_limit",
    "alternate_on",
    "synchronize-panes",
    "pane_input_off",
    "pane_tty",
  ].map((v) => `#{${v}}`).join("\x1f");
}

/**
 * Guarded send_keys among 51 panes against one tmux spawn, and list_panes against its floor (an
 * MCP call that touches no tmux plus tmux's own control-mode answer to the same listing).
 */
async function guardFigures(entry: string) {
  const fx = await server(51);
  try {
    const floor = await floors(fx);
    const runner = new TmuxRunner({
      socket: { kind: "path", path: fx.socket },
      env: (n) => cleanEnv()[n],
    });
    const control = await ControlClient.open(runner, "$0", { onOutput() {}, onClose() {} });
    let listing: Stat;
    try {
      listing = await time(
        ITERATIONS * 5,
        () => control.command(["list-panes", "-a", "-F", listPanesFields()]),
      );
    } finally {
      await control.close();
    }
    const { client, close } = await connectStdio(["-S", fx.socket], {}, entry);
    const pid = await serverPid(entry);
    try {
      for (let i = 0; i < 5; i++) await client.callTool({ name: "list_panes", arguments: {} });
      await sleep(200);
      const keys = await time(ITERATIONS, () =>
        client.callTool({
          name: "send_keys",
          arguments: { paneId: "%1", keys: "k", enter: false },
        }));
      const list = await time(
        ITERATIONS,
        () => client.callTool({ name: "list_panes", arguments: {} }),
      );
      return {
        spawn: floor.spawn,
        noTmux: floor.noTmux,
        listingControl: listing,
        sendKeys: keys,
        listPanes: list,
        sendKeysVsSpawn: round(keys.p50 / floor.spawn.p50),
        listPanesFloor: round(floor.noTmux.p50 + listing.p50),
        listPanesOverFloor: round(list.p50 - floor.noTmux.p50 - listing.p50),
      };
    } finally {
      await close();
      await exited(pid);
    }
  } finally {
    await fx.close();
  }
}

/** Wait (at most 60 s) until a process we started has exited, so its fixture finds it gone. */
async function exited(pid: number): Promise<void> {
  for (let i = 0; i < 600; i++) {
    const out = await new Deno.Command("ps", { args: ["-o", "pid=", "-p", String(pid)] }).output();
    if (new TextDecoder().decode(out.stdout).trim() === "") return;
    await sleep(100);
  }
}

/** The load average when a section ran: the machine is shared, so ratios are what carry over. */
async function load(): Promise<string> {
  return (await proc(Deno.pid, "../loadavg")).trim().split(" ").slice(0, 3).join(" ");
}

/** Issue 33's four figures, each beside its floor, for each build. */
async function footprint() {
  const out: Record<string, unknown> = {};
  report.footprint = out;
  const lines = {
    push(...texts: string[]) {
      for (const text of texts) console.log(text);
    },
  };
  console.log(`\nfootprint (issue 33), load ${await load()}`);
  for (const [name, main] of builds) {
    if (ONLY.has("slope")) {
      const m = await slope(main);
      out[`slope_${name}`] = { ...m, load: await load() };
      lines.push(
        `${name.padEnd(7)} memory: ${m.perPane.toFixed(2)} MiB per followed 160x45 pane ` +
          `(1 pane ${m.one.toFixed(1)} MiB, ${m.panes} panes ${m.all.toFixed(1)} MiB; ` +
          `goal ≤ 1.5: ${verdict(m.perPane, 1.5, "MiB")})`,
      );
    }
    if (ONLY.has("floodcpu")) {
      const alone = await floodCpu(undefined);
      const followed = await floodCpu(main);
      const discarded = name === "now" ? await floodCpu("discard") : undefined;
      const extra = followed.oursCpu + Math.max(0, followed.tmuxCpu - alone.tmuxCpu);
      const ratio = extra / alone.tmuxCpu;
      out[`floodcpu_${name}`] = {
        alone,
        followed,
        discarded,
        ratio: round(ratio),
        load: await load(),
      };
      lines.push(
        `${name.padEnd(7)} flood ${FLOOD_MIB} MiB: server ${followed.oursCpu.toFixed(2)} s + ` +
          `tmux's extra ${(followed.tmuxCpu - alone.tmuxCpu).toFixed(2)} s against tmux alone ` +
          `${alone.tmuxCpu.toFixed(2)} s = ${ratio.toFixed(2)}x (goal ≤ 2: ` +
          `${verdict(ratio, 2, "x")})` +
          (discarded
            ? `; tmux's extra for a control client discarding every byte: ` +
              `${(discarded.tmuxCpu - alone.tmuxCpu).toFixed(2)} s = ` +
              `${((discarded.tmuxCpu - alone.tmuxCpu) / alone.tmuxCpu).toFixed(2)}x on its own`
            : ""),
      );
    }
    if (ONLY.has("guard")) {
      const g = await guardFigures(main);
      out[`guard_${name}`] = { ...g, load: await load() };
      lines.push(
        `${name.padEnd(7)} send_keys among 51 panes: ${g.sendKeys.p50.toFixed(2)} ms = ` +
          `${g.sendKeysVsSpawn.toFixed(2)}x one spawn (${g.spawn.p50.toFixed(2)} ms; goal ≤ 0.5: ` +
          `${verdict(g.sendKeysVsSpawn, 0.5, "x")})`,
        `${name.padEnd(7)} list_panes among 51 panes: ${g.listPanes.p50.toFixed(2)} ms, floor ` +
          `${g.listPanesFloor.toFixed(2)} ms (no-tmux ${g.noTmux.p50.toFixed(2)} + control ` +
          `listing ${g.listingControl.p50.toFixed(2)}): +${g.listPanesOverFloor.toFixed(2)} ms ` +
          `(goal ≤ 0.5: ${verdict(g.listPanesOverFloor, 0.5, "ms")})`,
      );
    }
  }
  console.log(`load afterwards ${await load()}`);
}
