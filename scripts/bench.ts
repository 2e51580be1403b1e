/**
 * Benchmark (`deno task bench`): our server over stdio, exactly as clients run it, against private
 * tmux servers. Prints tables, then all figures as JSON. Sections, in order (BENCH_ONLY picks some):
 *
 * - latency: p50/p95 of the calls and wake-ups against floors from the same run, and the control
 *   route's goals (scripts/bench_latency.ts).
 * - start: cold start to the `initialize` reply (a new `deno run` each time), and the server's RSS
 *   after its first calls, live and not.
 * - run: run_shell_command "true" in an idle bash.
 * - memory: the server's RSS with 50 streamed 200x50 panes, each having printed 10,000 lines
 *   since its stream began (so each terminal's history is full).
 * - flood: a pane printing `yes` for BENCH_FLOOD_SECONDS (15 by default; the issue's 60 s shortened
 *   to keep the bench reasonable): p50/p95 of list_panes during the flood, and the server's CPU
 *   seconds per MiB of output, with the pane streamed (a reader following it) and not streamed.
 * - screenshot: screenshot_pane of 80x24 and 200x50 panes of coloured text.
 * - slope, floodcpu, guard: footprint (issue 33), each beside its floor: RSS per followed pane, CPU
 *   of waiting through a BENCH_FLOOD_MIB flood, guarded send_keys and list_panes
 *   (scripts/bench_footprint.ts).
 * - remote: remote hosts (issue 31), warm calls over ssh against the same calls locally
 *   (scripts/bench_remote.ts).
 *
 * BENCH_ITERATIONS: calls timed per figure (40). BENCH_BASELINE=<path to another checkout's
 * main.ts> measures that build the same way too (the "before" column: e.g. the commit before
 * rendered reads). Shared helpers: scripts/bench_support.ts. Not a test: timings are not asserted.
 */
import { connectStdio, MAIN, startPermissions } from "../tests/support/client.ts";
import { cleanEnv, TmuxFixture } from "../tests/support/fixture.ts";
import { footprint } from "./bench_footprint.ts";
import { latency, overhead } from "./bench_latency.ts";
import { remoteBench, type RemoteFigures, remoteTable } from "./bench_remote.ts";
import {
  cpuSeconds,
  ITERATIONS,
  openControl,
  round,
  rssMiB,
  server,
  serverPid,
  settle,
  sleep,
  type Stat,
  stat,
  time,
} from "./bench_support.ts";

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
    await sleep(500);
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
    let bytes = 0;
    let done = false;
    const tail = new TextDecoder();
    const counter = await openControl(fx, (paneId, data) => {
      if (paneId !== "%0") return;
      bytes += data.length;
      if (tail.decode(data.subarray(-64)).includes("FLOOD-DONE")) done = true;
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
  await sleep(500);
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

const report: Record<string, unknown> = { iterations: ITERATIONS, runs: [] };
const started = performance.now();
if (ONLY.has("latency")) {
  const { runs, goals } = await latency(BASELINE);
  report.runs = runs;
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

report.footprint = await footprint(builds, ONLY, FLOOD_MIB);

if (ONLY.has("remote")) {
  // Remote hosts (issue 31): a private sshd on 127.0.0.1 stands for the remote machine.
  report.remote = await remoteBench(ITERATIONS * 2);
  console.log(`\n${remoteTable(report.remote as RemoteFigures).join("\n")}`);
}

report.totalSeconds = round((performance.now() - started) / 1000);
console.log(JSON.stringify(report));
