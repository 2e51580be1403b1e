/**
 * Remote hosts (issue 31, docs/design.md §5.15): a warm `capture_pane` and `list_panes` of a pane on
 * a host reached over ssh, against the same calls on a local pane, p50/p95 over stdio as clients run
 * the server (`deno task start:ssh`). The "remote" host is a private sshd on 127.0.0.1
 * (tests/support/sshd.ts), so the figures are ssh's and the control connection's cost, not a
 * network's. Part of `deno task bench` (section `remote`); alone:
 *
 *   deno run --allow-all scripts/bench_remote.ts
 *
 * The fleet case (issue 41): 16 hosts, 15 of them aliases of one loopback sshd and `s1` on a second
 * one. A warm listing across all of them against one across a single host (goal: at most 3×); then
 * `s1`'s sshd is stopped (SIGSTOP, as a network that drops packets) and a listing runs about every
 * half second for BENCH_SILENT_SECONDS (45: past the back-off and into its retry): the time of each
 * one after the first (goal: none waits more than the per-host budget, 1.5 s).
 */
import { connectStdio } from "../tests/support/client.ts";
import { TmuxFixture } from "../tests/support/fixture.ts";
import { sshdMissing, SshRig } from "../tests/support/sshd.ts";
import { HOST_BUDGET_MS } from "../src/tmux/ssh/health.ts";
import { round, sleep, type Stat, time } from "./bench_support.ts";

/** What the section reports: each call locally and remotely, or why it could not run. */
export interface RemoteFigures {
  skipped?: string;
  local?: { capturePane: Stat; listPanes: Stat };
  remote?: { capturePane: Stat; listPanes: Stat; firstCall: number };
  fleet?: FleetFigures;
}

/** The fleet case's figures, in milliseconds. */
export interface FleetFigures {
  hosts: number;
  /** The first listing across every host (first contact with each), and its note if partial. */
  cold: { ms: number; note?: string };
  /** Warm `list_panes` across the local host and one remote host, and across all of them. */
  oneHost: Stat;
  allHosts: Stat;
  /** ssh processes of ours per host, warm. */
  sshPerHost: number;
  /** With `s1` silent: each listing's time, in order, and when `s1` was first noted backed off. */
  silent: { listings: number[]; backedOffAfterMs?: number; lastNote?: string };
}

const FLEET_HOSTS = 16;
const SILENT_SECONDS = Number(Deno.env.get("BENCH_SILENT_SECONDS") ?? 45);

/** Measure; `iterations` calls of each kind after a warm-up, then the fleet case. */
export async function remoteBench(iterations = 100): Promise<RemoteFigures> {
  const missing = await sshdMissing();
  if (missing) return { skipped: missing };
  const figures = await oneHostBench(iterations);
  return { ...figures, fleet: await fleetBench(iterations) };
}

/** One remote host against the local one. */
async function oneHostBench(iterations: number): Promise<RemoteFigures> {
  const rig = await SshRig.start();
  const local = await TmuxFixture.start({ session: "here", command: "sh" });
  try {
    await rig.tmux(0, "-f", "/dev/null", "new-session", "-d", "-s", "work", "-x", "80", "-y", "24");
    await local.tmux("send-keys", "-t", "%0", "seq 1 24", "Enter");
    await rig.tmux(0, "send-keys", "-t", "%0", "seq 1 24", "Enter");
    const server = await connectStdio(
      ["--socket-path", local.socket, ...rig.sshArgs([0])],
      {},
      undefined,
      undefined,
      "start:ssh",
    );
    try {
      const call = (name: string, args: Record<string, unknown>) => async () => {
        const result = await server.client.callTool({ name, arguments: args });
        if (result.isError) throw new Error(`${name}: ${JSON.stringify(result.content)}`);
      };
      const t0 = performance.now();
      await call("capture_pane", { paneId: "m1:%0" })();
      const firstCall = Math.round((performance.now() - t0) * 10) / 10;
      const figures: RemoteFigures = {
        local: {
          capturePane: await time(iterations, call("capture_pane", { paneId: "%0" }), 5),
          listPanes: await time(iterations, call("list_panes", { host: "local" }), 5),
        },
        remote: {
          capturePane: await time(iterations, call("capture_pane", { paneId: "m1:%0" }), 5),
          listPanes: await time(iterations, call("list_panes", { host: "m1" }), 5),
          firstCall,
        },
      };
      return figures;
    } finally {
      await server.close();
    }
  } finally {
    await local.tmux("kill-server").catch(() => {});
    await rig.close();
  }
}

/** The fleet case (see the module comment); `iterations` warm listings of each kind. */
export async function fleetBench(iterations = 100): Promise<FleetFigures> {
  // Machines m1, m2, s1 (the second sshd's), h1…h15: the fleet is h1…h15 and s1.
  const rig = await SshRig.start({ stoppable: true, aliases: FLEET_HOSTS - 1 });
  const local = await TmuxFixture.start({ session: "here", command: "sh" });
  const fleet = rig.machines.map((m, i) => ({ ...m, i })).filter((m) =>
    m.alias !== "m1" && m.alias !== "m2"
  );
  const one = fleet.filter((m) => m.alias === "h1");
  try {
    for (const { i } of fleet) {
      await rig.tmux(
        i,
        "-f",
        "/dev/null",
        "new-session",
        "-d",
        "-s",
        "work",
        "-x",
        "80",
        "-y",
        "24",
      );
    }
    const start = (machines: typeof fleet) =>
      connectStdio(
        ["--socket-path", local.socket, ...rig.sshArgs(machines.map((m) => m.i))],
        {},
        undefined,
        undefined,
        "start:ssh",
      );
    const list = (server: Awaited<ReturnType<typeof start>>) => async () => {
      const result = await server.client.callTool({ name: "list_panes", arguments: {} });
      if (result.isError) throw new Error(`list_panes: ${JSON.stringify(result.content)}`);
      return result.structuredContent as { panes: unknown[]; note?: string };
    };
    const single = await start(one);
    let oneHost: Stat;
    try {
      oneHost = await time(iterations, list(single), 5);
    } finally {
      await single.close();
    }
    const all = await start(fleet);
    try {
      const t0 = performance.now();
      const first = await list(all)();
      const cold = { ms: round(performance.now() - t0), note: first.note };
      const allHosts = await time(iterations, list(all), 5);
      const sshPerHost = round((await rig.ours()).length / fleet.length);
      await rig.stopSshd();
      const stopped = performance.now();
      const listings: number[] = [];
      let backedOffAfterMs: number | undefined;
      let lastNote: string | undefined;
      while (performance.now() - stopped < SILENT_SECONDS * 1000) {
        const t = performance.now();
        const { note } = await list(all)();
        listings.push(round(performance.now() - t));
        lastNote = note;
        if (backedOffAfterMs === undefined && /host s1 stopped answering/.test(note ?? "")) {
          backedOffAfterMs = Math.round(performance.now() - stopped);
        }
        await sleep(500);
      }
      return {
        hosts: fleet.length,
        cold,
        oneHost,
        allHosts,
        sshPerHost,
        silent: { listings, backedOffAfterMs, lastNote },
      };
    } finally {
      rig.resumeSshd();
      await all.close();
    }
  } finally {
    await local.tmux("kill-server").catch(() => {});
    await rig.close();
  }
}

/** The section's table lines. */
export function remoteTable(figures: RemoteFigures): string[] {
  if (figures.skipped || !figures.local || !figures.remote) {
    return [`remote hosts: skipped (${figures.skipped})`];
  }
  const { local, remote } = figures;
  const row = (what: string, l: Stat, r: Stat) =>
    `${what.padEnd(14)} ${l.p50.toFixed(2).padStart(8)} ${l.p95.toFixed(2).padStart(8)} ${
      r.p50.toFixed(2).padStart(8)
    } ${r.p95.toFixed(2).padStart(8)} ${(r.p50 / l.p50).toFixed(2).padStart(7)}× ${
      (r.p50 - l.p50).toFixed(2).padStart(7)
    } ms`;
  return [
    "remote host over ssh (loopback sshd), ms:  local p50/p95   remote p50/p95   ratio   extra",
    row("capture_pane", local.capturePane, remote.capturePane),
    row("list_panes", local.listPanes, remote.listPanes),
    `first call to the host (master, tmux -V, control client): ${remote.firstCall} ms`,
    "goal: a warm remote capture_pane at most 3× a local one, or +3 ms",
    ...(figures.fleet ? fleetTable(figures.fleet) : []),
  ];
}

/** The fleet case's table lines. */
export function fleetTable(fleet: FleetFigures): string[] {
  const [first, ...rest] = fleet.silent.listings;
  const worst = Math.max(...rest);
  return [
    `fleet of ${fleet.hosts} hosts (loopback sshd), warm list_panes across hosts, ms p50/p95:`,
    `  one host      ${fleet.oneHost.p50.toFixed(2).padStart(8)} ${
      fleet.oneHost.p95.toFixed(2).padStart(8)
    }`,
    `  ${String(fleet.hosts).padStart(2)} hosts      ${fleet.allHosts.p50.toFixed(2).padStart(8)} ${
      fleet.allHosts.p95.toFixed(2).padStart(8)
    }   ${(fleet.allHosts.p50 / fleet.oneHost.p50).toFixed(2)}× one host (goal: at most 3×)`,
    `  cold listing (first contact with every host): ${fleet.cold.ms} ms` +
    (fleet.cold.note ? ` (partial: ${fleet.cold.note})` : ", whole"),
    `  ssh processes per host: ${fleet.sshPerHost}`,
    `one host silent (sshd stopped): ${fleet.silent.listings.length} listings; the first ${first} ms,` +
    ` the others at most ${worst} ms (goal: at most the budget, ${HOST_BUDGET_MS} ms)`,
    `  backed off after ${fleet.silent.backedOffAfterMs ?? "—"} ms; listings (ms): ${
      fleet.silent.listings.map((ms) => Math.round(ms)).join(" ")
    }`,
  ];
}

if (import.meta.main) {
  const figures = await remoteBench(Number(Deno.env.get("BENCH_ITERATIONS") ?? 100));
  console.log(remoteTable(figures).join("\n"));
  console.log(JSON.stringify(figures));
}
