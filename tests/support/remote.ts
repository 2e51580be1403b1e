/**
 * The remote tests' harness above the sshd rig (tests/support/sshd.ts): main.ts over stdio on a
 * local tmux server and the rig's machines, and the funnel's own ssh layer (a master and its remote
 * processes) for one machine of the rig.
 */
import type { Client } from "@modelcontextprotocol/sdk/client";
import { assert, assertEquals } from "./assert.ts";
import { type Connected, connectStdio } from "./client.ts";
import { TmuxFixture } from "./fixture.ts";
import { SshRig } from "./sshd.ts";
import { chainArgs, type SocketSpec, type TmuxCommand } from "../../src/tmux/core/argv.ts";
import { SshMaster } from "../../src/tmux/ssh/master.ts";
import { RemoteProcesses } from "../../src/tmux/ssh/remote_processes.ts";
import { SshSpawner } from "../../src/tmux/ssh/spawn.ts";

const decoder = new TextDecoder();
const SIZE = ["-x", "80", "-y", "24"];

/** An sshd rig, a local tmux server (session "here") and our server on both; disposed together. */
export interface RemoteStack extends AsyncDisposable {
  rig: SshRig;
  local: TmuxFixture;
  server: Connected;
}

/** What {@link remoteStack} starts. */
export interface RemoteStackOptions {
  /** The rig: one the caller started (the stack then owns it), or options to start one. */
  rig?: SshRig | Parameters<typeof SshRig.start>[0];
  /** A session (80×24) to make on each machine named: [machine index, session name]. */
  sessions?: readonly (readonly [number, string])[];
  /** The machines given to `--ssh` (the rig's default when unset). */
  hosts?: readonly number[];
  /** More arguments for main.ts, after the socket and the ssh ones. */
  args?: string[] | ((rig: SshRig) => string[]);
  /** The MCP client to connect (e.g. an asking one). */
  client?: Client;
}

/**
 * main.ts over stdio under the ssh permissions (`deno task start:ssh`), on a fresh local tmux
 * server and the rig's machines, with the sessions asked for. What it started is ended again when
 * starting fails part way.
 */
export async function remoteStack(options: RemoteStackOptions = {}): Promise<RemoteStack> {
  const rig = options.rig instanceof SshRig ? options.rig : await SshRig.start(options.rig);
  let local: TmuxFixture | undefined;
  try {
    local = await TmuxFixture.start({ session: "here" });
    for (const [machine, session] of options.sessions ?? [[0, "work"]]) {
      await rig.tmux(machine, "-f", "/dev/null", "new-session", "-d", "-s", session, ...SIZE);
    }
    const extra = typeof options.args === "function" ? options.args(rig) : options.args ?? [];
    const args = ["--socket-path", local.socket, ...rig.sshArgs(options.hosts), ...extra];
    const server = await connectStdio(args, {}, undefined, options.client, "start:ssh");
    const fixture = local;
    return {
      rig,
      local: fixture,
      server,
      async [Symbol.asyncDispose]() {
        await server.close().catch(() => {});
        await fixture.close();
        await rig.close();
      },
    };
  } catch (error) {
    await local?.close().catch(() => {});
    await rig.close();
    throw error;
  }
}

/** The funnel's ssh layer for machine `alias` of the rig: its master and remote processes. */
export function sshHost(
  rig: SshRig,
  alias: string,
  connectTimeoutSec?: number,
): { master: SshMaster; processes: RemoteProcesses } {
  const spawner = new SshSpawner((n) => Deno.env.get(n), () => {});
  const master = new SshMaster({
    host: { name: alias, destination: alias, socket: { kind: "default" } },
    configFile: rig.config,
    controlPath: `${rig.controlDir}/${alias}`,
    ...(connectTimeoutSec === undefined ? {} : { connectTimeoutSec }),
  }, spawner);
  return { master, processes: new RemoteProcesses(master, spawner) };
}

/** Run a chain on a remote tmux through `processes` and return stdout; a failure fails the test. */
export async function remoteTmux(
  processes: RemoteProcesses,
  socket: SocketSpec,
  commands: readonly TmuxCommand[],
  stdin?: string,
): Promise<string> {
  const out = await processes.collect(
    chainArgs(socket, commands),
    stdin,
    AbortSignal.timeout(30_000),
  );
  assert(out, "answered");
  assertEquals(out.success, true, decoder.decode(out.stderr));
  return decoder.decode(out.stdout);
}
