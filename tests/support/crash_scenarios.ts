/**
 * The hostile scenarios of the no-crash work (docs/design.md §7.4): loops that read, create and
 * kill through a real MCP client, and a person's loop of plain tmux commands, run against one
 * private server until a deadline or until that server dies. Shared by tests/tmux/no_crash_test.ts
 * (bounded) and scripts/crash_soak.ts (the 5×60 s runs the figures come from).
 */
import type { Client } from "@modelcontextprotocol/sdk/client";
import { call } from "./client.ts";
import { cleanEnv, type TmuxFixture } from "./fixture.ts";

/** What one scenario run saw. */
export interface ScenarioOutcome {
  /** Whether the server died during the run (the crash this work prevents). */
  crashed: boolean;
  /** Milliseconds from the start until the server was seen dead, or the whole run. */
  ms: number;
  /** Tool calls made by the agent's loops. */
  calls: number;
  /** Commands run by the person's loop. */
  personActions: number;
}

/** Make `count` extra sessions `r0…` running `cat` and return one pane id per session. */
export async function readingSessions(fx: TmuxFixture, count: number): Promise<string[]> {
  for (let i = 0; i < count; i++) await fx.tmux("new-session", "-d", "-s", `r${i}`, "cat");
  const rows = (await fx.tmux("list-panes", "-a", "-F", "#{session_name} #{pane_id}")).trim();
  return rows.split("\n").filter((r) => /^r\d+ /.test(r)).map((r) => r.split(" ")[1]);
}

/** Whether the server process still exists (a signal 0 probe). */
function alive(pid: number): boolean {
  try {
    Deno.kill(pid, "SIGCONT");
    return true;
  } catch {
    return false;
  }
}

/** Loops of a scenario; each runs until `stop` is aborted. */
type Loop = (stop: AbortSignal, counted: () => void) => Promise<void>;

/** The agent reading: `capture_since` over every pane in turn, starting at `offset`. */
export function readLoop(client: Client, panes: string[], offset = 0): Loop {
  return async (stop, counted) => {
    for (let i = offset; !stop.aborted; i++) {
      await call(client, "capture_since", { paneId: panes[i % panes.length] }).catch(() => {});
      counted();
    }
  };
}

/** The agent making and ending its own sessions: `create_session` then `kill_session`. */
export function createKillLoop(client: Client): Loop {
  return async (stop, counted) => {
    for (let i = 0; !stop.aborted; i++) {
      const name = `agent${i}`;
      await call(client, "create_session", { name }).catch(() => {});
      counted();
      await call(client, "kill_session", { session: name, force: true }).catch(() => {});
      counted();
    }
  };
}

/**
 * A person at the keyboard: `new-session -d`, `rename-session`, `kill-session` through plain tmux
 * clients (not ours), one after the other, as fast as they go (about every 20 ms here).
 */
export function personLoop(fx: TmuxFixture): Loop {
  return async (stop, counted) => {
    const env = cleanEnv();
    const tmux = (...args: string[]) =>
      new Deno.Command("tmux", {
        args: ["-S", fx.socket, ...args],
        clearEnv: true,
        env,
        stdin: "null",
        stdout: "null",
        stderr: "null",
      }).output();
    for (let i = 0; !stop.aborted; i++) {
      await tmux("new-session", "-d", "-s", `p${i}`, "cat");
      await tmux("rename-session", "-t", `=p${i}`, `q${i}`);
      await tmux("kill-session", "-t", `=q${i}`);
      counted();
    }
  };
}

/**
 * Run the agent's loops (`agent`) and the person's (`person`) for `ms`, or until the server dies;
 * the server is looked at every 100 ms by its pid (no tmux client of ours, which would notify).
 */
export async function runScenario(
  fx: TmuxFixture,
  ms: number,
  agent: Loop[],
  person: Loop[] = [],
): Promise<ScenarioOutcome> {
  const pid = await fx.serverPid();
  const stop = new AbortController();
  let calls = 0;
  let personActions = 0;
  const started = performance.now();
  let crashed = false;
  const running = [
    ...agent.map((loop) => loop(stop.signal, () => calls++)),
    ...person.map((loop) => loop(stop.signal, () => personActions++)),
  ];
  while (performance.now() - started < ms) {
    await new Promise((resolve) => setTimeout(resolve, 100));
    if (!alive(pid)) {
      crashed = true;
      break;
    }
  }
  const elapsed = performance.now() - started;
  stop.abort();
  await Promise.all(running);
  return { crashed, ms: Math.round(elapsed), calls, personActions };
}
