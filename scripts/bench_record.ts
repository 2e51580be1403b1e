/**
 * What `--record` costs (`deno task bench:record`, docs/design.md §11.6): our server over stdio,
 * as clients run it, against private tmux servers, recording and not.
 *
 * - flood: the server's CPU seconds (from /proc) while the agent starts a BENCH_FLOOD_MIB (40) MiB
 *   flood in a pane with send_keys and waits for its end with wait_for_text, recording
 *   (`deno task start:record`) and not (`deno task start`), BENCH_RECORD_ROUNDS (3) rounds each,
 *   alternated; the recording's size against the bytes printed.
 * - busy: the bytes a recording takes per minute of a busy pane — a build log printing up to 100
 *   coloured lines a second (a 10 ms sleep between lines) — over about BENCH_RECORD_SECONDS (60).
 *
 * Not a test: nothing is asserted. Prints a table, then the figures as JSON.
 */
import { connectStdio } from "../tests/support/client.ts";
import { TmuxFixture } from "../tests/support/fixture.ts";
import { cpuSeconds, exited, load, round, serverPid, settle } from "./bench_support.ts";

const FLOOD_MIB = Number(Deno.env.get("BENCH_FLOOD_MIB") ?? 40);
const ROUNDS = Number(Deno.env.get("BENCH_RECORD_ROUNDS") ?? 3);
const BUSY_SECONDS = Number(Deno.env.get("BENCH_RECORD_SECONDS") ?? 60);
const MAIN = new URL("../main.ts", import.meta.url).pathname;

/** Bytes of the files under a directory, and of its `.cast` files alone. */
async function sizes(dir: string): Promise<{ all: number; casts: number }> {
  let all = 0;
  let casts = 0;
  for await (const session of Deno.readDir(dir)) {
    for await (const entry of Deno.readDir(`${dir}/${session.name}`)) {
      const size = (await Deno.stat(`${dir}/${session.name}/${entry.name}`)).size;
      all += size;
      if (entry.name.endsWith(".cast")) casts += size;
    }
  }
  return { all, casts };
}

/** The bytes of output the recordings of a directory hold (their `o` events, as UTF-8). */
async function outputBytes(dir: string): Promise<number> {
  const encoder = new TextEncoder();
  let bytes = 0;
  for await (const session of Deno.readDir(dir)) {
    for await (const entry of Deno.readDir(`${dir}/${session.name}`)) {
      if (!entry.name.endsWith(".cast")) continue;
      const lines = (await Deno.readTextFile(`${dir}/${session.name}/${entry.name}`)).split("\n");
      for (const line of lines.slice(1, -1)) {
        const [, code, data] = JSON.parse(line);
        if (code === "o") bytes += encoder.encode(data).length;
      }
    }
  }
  return bytes;
}

/**
 * One flood: a pane waits for Enter, then prints `mib` MiB; the agent presses Enter (send_keys:
 * the pane's first touch, so a recording server records it from there) and waits for the end.
 */
async function flood(record: boolean, mib: number) {
  const bytes = mib * 1_048_576;
  const pane = `sh -c 'read go; yes flood-line-of-text | head -c ${bytes}; echo FLOOD-END; ` +
    "exec cat'";
  await using fx = await TmuxFixture.start({ session: "fc", command: pane });
  const dir = `${fx.dir}/records`;
  const task = record ? "start:record" : "start";
  const env: Record<string, string> = record ? { TMUX_MCP_RECORD: dir } : {};
  const server = await connectStdio(["-S", fx.socket], env, MAIN, undefined, task);
  const pid = await serverPid(MAIN);
  try {
    await server.client.callTool({ name: "list_panes", arguments: {} });
    await settle(pid);
    const cpu0 = await cpuSeconds(pid);
    const started = performance.now();
    await server.client.callTool({
      name: "send_keys",
      arguments: { paneId: "%0", keys: "", enter: true },
    });
    const waited = await server.client.callTool(
      {
        name: "wait_for_text",
        arguments: { paneId: "%0", patterns: ["FLOOD-END"], timeoutMs: 600_000 },
      },
      undefined,
      { timeout: 700_000 },
    );
    const outcome = (waited.structuredContent as { outcome?: string }).outcome;
    if (outcome !== "matched") throw new Error(`flood wait: ${JSON.stringify(waited)}`);
    const seconds = (performance.now() - started) / 1000;
    await settle(pid);
    const cpu = await cpuSeconds(pid) - cpu0;
    await server.close();
    await exited(pid);
    return {
      seconds: round(seconds),
      cpuSeconds: round(cpu),
      recordedBytes: record ? (await sizes(dir)).casts : 0,
    };
  } finally {
    await server.close().catch(() => {});
  }
}

/** A busy pane (a build log: a coloured line, then 10 ms of sleep) recorded for about `seconds`. */
async function busy(seconds: number) {
  const lines = seconds * 100;
  const pane = "sh -c 'read go; i=0; while [ $i -lt " + lines + " ]; do i=$((i+1)); " +
    'printf "\\033[32m[%5d]\\033[0m compiling src/module_%d.ts … \\033[1mok\\033[0m (%d ms)\\n" ' +
    "$i $((i % 97)) $((i % 1000)); sleep 0.01; done; echo BUSY-END; exec cat'";
  await using fx = await TmuxFixture.start({ session: "busy", command: pane });
  const dir = `${fx.dir}/records`;
  let printed: number;
  const server = await connectStdio(
    ["-S", fx.socket],
    { TMUX_MCP_RECORD: dir },
    MAIN,
    undefined,
    "start:record",
  );
  try {
    const started = performance.now();
    await server.client.callTool({
      name: "send_keys",
      arguments: { paneId: "%0", keys: "", enter: true },
    });
    // Waits are bounded by --wait-max-ms: go on from each one's cursor until the end shows.
    let cursor: string | undefined;
    for (;;) {
      const waited = await server.client.callTool({
        name: "wait_for_text",
        arguments: { paneId: "%0", patterns: ["BUSY-END"], ...(cursor ? { cursor } : {}) },
      });
      const data = waited.structuredContent as { outcome?: string; cursor?: string };
      if (data.outcome === "matched") break;
      if (data.outcome !== "timeout" || !data.cursor) {
        throw new Error(`busy wait: ${JSON.stringify(data).slice(0, 400)}`);
      }
      cursor = data.cursor;
    }
    const minutes = (performance.now() - started) / 60_000;
    await server.close();
    printed = await outputBytes(dir);
    const { casts, all } = await sizes(dir);
    return {
      minutes: round(minutes),
      lines,
      linesPerSecond: round(lines / (minutes * 60)),
      recordedBytes: casts,
      allBytes: all,
      bytesPerMinute: Math.round(casts / minutes),
      printedBytes: printed,
      perBytePrinted: round(casts / printed),
    };
  } finally {
    await server.close().catch(() => {});
  }
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[values.length >> 1];

console.log(`record bench, load ${await load()}`);
const runs: { record: boolean; seconds: number; cpuSeconds: number; recordedBytes: number }[] = [];
for (let round = 0; round < ROUNDS; round++) {
  for (const record of [false, true]) {
    const f = await flood(record, FLOOD_MIB);
    runs.push({ record, ...f });
    console.log(
      `flood ${FLOOD_MIB} MiB ${record ? "recorded    " : "not recorded"}: server CPU ` +
        `${f.cpuSeconds.toFixed(2)} s in ${f.seconds.toFixed(1)} s` +
        (record ? `, recording ${(f.recordedBytes / 1_048_576).toFixed(1)} MiB` : ""),
    );
  }
}
/** The flood's medians, recorded and not (undefined when no round ran). */
function floodMedians() {
  if (runs.length === 0) return undefined;
  const cpu = (record: boolean) =>
    median(runs.filter((r) => r.record === record).map((r) => r.cpuSeconds));
  const recorded = median(runs.filter((r) => r.record).map((r) => r.recordedBytes));
  const summary = {
    mib: FLOOD_MIB,
    cpuNotRecorded: cpu(false),
    cpuRecorded: cpu(true),
    overheadSeconds: round(cpu(true) - cpu(false)),
    overheadRatio: round(cpu(true) / cpu(false)),
    recordingMiB: round(recorded / 1_048_576),
  };
  console.log(
    `flood median: ${summary.cpuNotRecorded.toFixed(2)} s not recorded, ` +
      `${summary.cpuRecorded.toFixed(2)} s recorded (+${summary.overheadSeconds.toFixed(2)} s, ` +
      `${summary.overheadRatio.toFixed(2)}x); the recording ${summary.recordingMiB} MiB ` +
      `for ${FLOOD_MIB} MiB printed`,
  );
  return summary;
}
const floodSummary = floodMedians();
const b = await busy(BUSY_SECONDS);
console.log(
  `busy pane (${b.linesPerSecond.toFixed(0)} coloured lines a second, ${b.minutes.toFixed(2)} ` +
    "min): recording " +
    `${(b.bytesPerMinute / 1024).toFixed(0)} KiB a minute, ${b.perBytePrinted.toFixed(2)} bytes ` +
    `per byte printed (${b.recordedBytes} bytes; with the log ${b.allBytes})`,
);
console.log(JSON.stringify({ load: await load(), flood: floodSummary, runs, busy: b }, null, 2));
