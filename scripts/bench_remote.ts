/**
 * Remote hosts (issue 31, docs/design.md §5.15): a warm `capture_pane` and `list_panes` of a pane on
 * a host reached over ssh, against the same calls on a local pane, p50/p95 over stdio as clients run
 * the server (`deno task start:ssh`). The "remote" host is a private sshd on 127.0.0.1
 * (tests/support/sshd.ts), so the figures are ssh's and the control connection's cost, not a
 * network's. Part of `deno task bench` (section `remote`); alone:
 *
 *   deno run --allow-all scripts/bench_remote.ts
 */
import { connectStdio } from "../tests/support/client.ts";
import { TmuxFixture } from "../tests/support/fixture.ts";
import { sshdMissing, SshRig } from "../tests/support/sshd.ts";
import { type Stat, time } from "./bench_support.ts";

/** What the section reports: each call locally and remotely, or why it could not run. */
export interface RemoteFigures {
  skipped?: string;
  local?: { capturePane: Stat; listPanes: Stat };
  remote?: { capturePane: Stat; listPanes: Stat; firstCall: number };
}

/** Measure; `iterations` calls of each kind after a warm-up. */
export async function remoteBench(iterations = 100): Promise<RemoteFigures> {
  const missing = await sshdMissing();
  if (missing) return { skipped: missing };
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
      return {
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
    } finally {
      await server.close();
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
  ];
}

if (import.meta.main) {
  const figures = await remoteBench(Number(Deno.env.get("BENCH_ITERATIONS") ?? 100));
  console.log(remoteTable(figures).join("\n"));
  console.log(JSON.stringify(figures));
}
