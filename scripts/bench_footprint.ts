/**
 * Footprint (issue 33), sections `slope`, `floodcpu` and `guard` of `deno task bench`
 * (scripts/bench.ts), each figure beside its floor:
 *
 * - slope: RSS per followed 160x45 pane, from 1 to 30 followed panes printing coloured lines:
 *   windows of one session, and a session each.
 * - floodcpu: CPU of waiting through a BENCH_FLOOD_MIB flood, this server plus tmux's extra over
 *   tmux alone (/proc read by the bench), and tmux's extra for a bare control client that discards
 *   every byte.
 * - guard: guarded send_keys among 51 panes against one spawn, and list_panes among 51 and among 4
 *   panes against an MCP call touching no tmux plus tmux's control-mode listing with list_panes'
 *   fields (issue 33's list_panes figure came from the 4-pane scenario).
 */
import { PANE_ROW_FIELDS } from "../src/tmux/read/queries.ts";
import { connectStdio } from "../tests/support/client.ts";
import { TmuxFixture } from "../tests/support/fixture.ts";
import {
  cpuSeconds,
  exited,
  ITERATIONS,
  load,
  NO_TMUX,
  openControl,
  round,
  rssMiB,
  server,
  serverPid,
  settle,
  sleep,
  type Stat,
  stat,
  verdict,
} from "./bench_support.ts";

/**
 * Memory slope of following panes (issues 33, 40): RSS with 1 and with `n` followed 160x45 panes,
 * each with 5,000 lines of history before it is followed and 3,000 coloured lines printed while it
 * is; the slope is MiB per followed pane. The panes are windows of one session (one control
 * connection for all), or with `sessions` each in a session of its own (a connection each, as a
 * black-box check that made a session per pane measured).
 */
async function slope(entry: string, sessions: boolean, n = 30) {
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
    for (let i = 1; i <= n; i++) {
      if (sessions) {
        await fx.tmux("new-session", "-d", "-s", `slope${i}`, "-x", "160", "-y", "45", pane);
      } else await fx.tmux("new-window", "-d", "-t", "=slope:", pane);
    }
    await fx.tmux(
      ...(sessions ? ["kill-session", "-t", "=slope"] : ["kill-window", "-t", "=slope:0"]),
    );
    const panes = (await fx.tmux("list-panes", "-a", "-F", "#{pane_id}")).trim().split("\n");
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
 * CPU of a `mib` MiB flood (issue 33): tmux alone (nobody follows the pane), then with the server
 * following it, the agent in wait_for_text on the flood's end marker. CPU seconds of the server
 * and of the tmux server, from /proc (the bench may read it; the server does not). `"discard"`:
 * a bare control client whose output goes to /dev/null follows instead, so what tmux spends on
 * any control client that is sent every byte (escaping each into `%output`) is measured apart.
 */
async function floodCpu(entry: string | undefined | "discard", mib: number) {
  const bytes = mib * 1_048_576;
  const pane = `sh -c 'read go; yes flood-line-of-text | head -c ${bytes}; echo FLOOD-END; ` +
    "exec cat'";
  const fx = await TmuxFixture.start({ session: "fc", command: pane });
  try {
    const tmuxPid = await fx.serverPid();
    let server: { client: Awaited<ReturnType<typeof connectStdio>>; pid: number } | undefined;
    // A bare control client that discards its output: what tmux spends for any control client.
    const detach = entry === "discard" ? await fx.attachControlPerson("fc") : undefined;
    if (entry && !detach) {
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
    await detach?.();
    return {
      seconds: round(seconds),
      oursCpu: round(ours),
      tmuxCpu: round(await cpuSeconds(tmuxPid) - tmux0),
    };
  } finally {
    await fx.close();
  }
}

/**
 * list_panes' floor listing: the fields list_panes asks tmux for (src/tmux/read/queries.ts), so the
 * figure over the floor is what this server adds, not what it asks tmux.
 */
function listPanesFields(): string {
  return Object.values(PANE_ROW_FIELDS).map((v) => `#{${v}}`).join("\x1f");
}

/** The guarded keypress measured: one key to %1, which nobody watches and `cat` reads. */
const SEND_KEYS = { name: "send_keys", arguments: { paneId: "%1", keys: "k", enter: false } };

/** What {@link among} measured of one build, with the floors of the same rounds. */
interface Among {
  /** One `tmux display-message` spawned. */
  spawn: Stat;
  /** This build's MCP tools/call that touches no tmux. */
  noTmux: Stat;
  /** tmux's control-mode answer to a listing with list_panes' fields. */
  listing: Stat;
  list: Stat;
  keys?: Stat;
}

/** Milliseconds `fn` took, appended to `samples`. */
async function sample(samples: number[], fn: () => Promise<unknown>): Promise<void> {
  const t = performance.now();
  await fn();
  samples.push(performance.now() - t);
}

/**
 * On one server of `panes` panes, every build side by side: in each round one spawn, one
 * control-mode listing with list_panes' fields, then for each build in turn its no-tmux call, its
 * guarded send_keys to %1 (when `keys`) and its list_panes. Interleaving rounds lets the machine's
 * load, which drifts over seconds here, weigh on every figure alike. Each build is warm: its control
 * route attaches in the background on first use.
 */
async function among(entries: string[], panes: number, keys: boolean): Promise<Among[]> {
  const fx = await server(panes);
  // Attached with no-output, as the servers' own routes are: a control client that is sent pane
  // output is a person to their guards (who would refuse every send_keys).
  const control = await openControl(fx, undefined, ["no-output"]);
  const servers = [];
  try {
    for (const entry of entries) servers.push(await connectStdio(["-S", fx.socket], {}, entry));
    for (const { client } of servers) {
      for (let i = 0; i < 5; i++) await client.callTool({ name: "list_panes", arguments: {} });
      if (!keys) continue;
      const sent = await client.callTool(SEND_KEYS);
      // A refused call is cheaper than a sent one: measuring it would flatter the build.
      if (sent.isError) throw new Error(`send_keys was refused: ${JSON.stringify(sent)}`);
    }
    await sleep(200);
    const spawn: number[] = [];
    const listing: number[] = [];
    const per = servers.map(() => ({
      noTmux: [] as number[],
      keys: [] as number[],
      list: [] as number[],
    }));
    const spawnOnce = () =>
      new Deno.Command("tmux", { args: ["-S", fx.socket, "display-message", "-p", "x"] }).output();
    const listOnce = () => control.command(["list-panes", "-a", "-F", listPanesFields()]);
    for (let round = -1; round < ITERATIONS; round++) {
      // Round -1 warms every path up and is not counted.
      const into = (samples: number[]) => round < 0 ? [] : samples;
      await sample(into(spawn), spawnOnce);
      for (let i = 0; i < 5; i++) await sample(into(listing), listOnce);
      for (const [i, { client }] of servers.entries()) {
        for (let j = 0; j < 5; j++) {
          await sample(into(per[i].noTmux), () => client.callTool(NO_TMUX));
        }
        if (keys) {
          await sample(into(per[i].keys), () => client.callTool(SEND_KEYS));
        }
        await sample(
          into(per[i].list),
          () => client.callTool({ name: "list_panes", arguments: {} }),
        );
      }
    }
    return per.map((p) => ({
      spawn: stat(spawn),
      noTmux: stat(p.noTmux),
      listing: stat(listing),
      list: stat(p.list),
      ...(keys ? { keys: stat(p.keys) } : {}),
    }));
  } finally {
    for (const { close, pid } of servers) {
      await close();
      if (typeof pid === "number") await exited(pid);
    }
    await control.close();
    await fx.close();
  }
}

/** How far list_panes' p50 is above its floor (no-tmux call + control-mode listing), in ms. */
function overFloor(m: Among): number {
  return round(m.list.p50 - m.noTmux.p50 - m.listing.p50);
}

/**
 * Guarded send_keys among 51 panes against one tmux spawn, and list_panes among 51 and among 4
 * panes against its floor (an MCP call that touches no tmux plus tmux's own control-mode answer to
 * the same listing), for every build side by side; one server per pane count.
 */
async function guardFigures(entries: string[]) {
  const many = await among(entries, 51, true);
  const few = await among(entries, 4, false);
  return many.map((m, i) => {
    const f = few[i];
    const keys = m.keys!;
    return {
      spawn: m.spawn,
      noTmux: m.noTmux,
      listingControl: m.listing,
      sendKeys: keys,
      listPanes: m.list,
      sendKeysVsSpawn: round(keys.p50 / m.spawn.p50),
      listPanesFloor: round(m.noTmux.p50 + m.listing.p50),
      listPanesOverFloor: overFloor(m),
      noTmux4: f.noTmux,
      listingControl4: f.listing,
      listPanes4: f.list,
      listPanes4Floor: round(f.noTmux.p50 + f.listing.p50),
      listPanes4OverFloor: overFloor(f),
    };
  });
}

/** The printed line of list_panes against its floor among `panes` panes. */
function listLine(
  name: string,
  panes: number,
  list: Stat,
  floor: number,
  noTmux: Stat,
  listing: Stat,
  over: number,
): string {
  return `${name.padEnd(7)} list_panes among ${panes} panes: ${list.p50.toFixed(2)} ms, floor ` +
    `${floor.toFixed(2)} ms (no-tmux ${noTmux.p50.toFixed(2)} + control ` +
    `listing ${listing.p50.toFixed(2)}): +${over.toFixed(2)} ms ` +
    `(goal ≤ 0.5: ${verdict(over, 0.5, "ms")})`;
}

/** The floodcpu figure of one build: its JSON entry and its printed line. */
async function floodFigure(name: string, main: string, mib: number) {
  const alone = await floodCpu(undefined, mib);
  const followed = await floodCpu(main, mib);
  const discarded = name === "now" ? await floodCpu("discard", mib) : undefined;
  const extra = followed.oursCpu + Math.max(0, followed.tmuxCpu - alone.tmuxCpu);
  const ratio = extra / alone.tmuxCpu;
  const entry = { alone, followed, discarded, ratio: round(ratio), load: await load() };
  const line = `${name.padEnd(7)} flood ${mib} MiB: server ${followed.oursCpu.toFixed(2)} s + ` +
    `tmux's extra ${(followed.tmuxCpu - alone.tmuxCpu).toFixed(2)} s against tmux alone ` +
    `${alone.tmuxCpu.toFixed(2)} s = ${ratio.toFixed(2)}x (goal ≤ 2: ` +
    `${verdict(ratio, 2, "x")})` +
    (discarded
      ? `; tmux's extra for a control client discarding every byte: ` +
        `${(discarded.tmuxCpu - alone.tmuxCpu).toFixed(2)} s = ` +
        `${((discarded.tmuxCpu - alone.tmuxCpu) / alone.tmuxCpu).toFixed(2)}x on its own`
      : "");
  return { entry, line };
}

/**
 * Issue 33's figures, each beside its floor, for each build (`[name, main.ts]`; "now" first) and
 * each of the sections slope, floodcpu and guard in `only`; prints a line per figure and returns
 * the report's `footprint` entry. `floodMiB`: the floodcpu section's flood (BENCH_FLOOD_MIB).
 */
export async function footprint(
  builds: Array<[string, string]>,
  only: Set<string>,
  floodMiB: number,
): Promise<Record<string, unknown>> {
  const out: Record<string, unknown> = {};
  console.log(`\nfootprint (issue 33), load ${await load()}`);
  for (const [name, main] of builds) {
    if (only.has("slope")) {
      for (const sessions of [false, true]) {
        const m = await slope(main, sessions);
        out[`slope${sessions ? "_sessions" : ""}_${name}`] = { ...m, load: await load() };
        console.log(
          `${name.padEnd(7)} memory: ${m.perPane.toFixed(2)} MiB per followed 160x45 pane, ` +
            `${sessions ? "a session each" : "windows of one session"} ` +
            `(1 pane ${m.one.toFixed(1)} MiB, ${m.panes} panes ${m.all.toFixed(1)} MiB; ` +
            `goal ≤ 1.5: ${verdict(m.perPane, 1.5, "MiB")})`,
        );
      }
    }
    if (only.has("floodcpu")) {
      const { entry, line } = await floodFigure(name, main, floodMiB);
      out[`floodcpu_${name}`] = entry;
      console.log(line);
    }
  }
  if (only.has("guard")) {
    const figures = await guardFigures(builds.map(([, main]) => main));
    const at = await load();
    for (const [i, [name]] of builds.entries()) {
      const g = figures[i];
      out[`guard_${name}`] = { ...g, load: at };
      console.log(
        `${name.padEnd(7)} send_keys among 51 panes: ${g.sendKeys.p50.toFixed(2)} ms = ` +
          `${g.sendKeysVsSpawn.toFixed(2)}x one spawn (${g.spawn.p50.toFixed(2)} ms; goal ≤ 0.5: ` +
          `${verdict(g.sendKeysVsSpawn, 0.5, "x")})`,
      );
      console.log(
        listLine(
          name,
          51,
          g.listPanes,
          g.listPanesFloor,
          g.noTmux,
          g.listingControl,
          g.listPanesOverFloor,
        ),
      );
      console.log(
        listLine(
          name,
          4,
          g.listPanes4,
          g.listPanes4Floor,
          g.noTmux4,
          g.listingControl4,
          g.listPanes4OverFloor,
        ),
      );
    }
  }
  console.log(`load afterwards ${await load()}`);
  return out;
}
