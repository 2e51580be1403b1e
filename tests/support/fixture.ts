/**
 * TmuxFixture: a private tmux server on a temp `-S` socket, with fixed sizes and deterministic
 * pane programs, killed in teardown. Tests never touch the default tmux server.
 */

import { TmuxRunner } from "../../src/tmux/core/runner.ts";
import type { TmuxContext } from "../../src/tmux/core/context.ts";
import { PaneQueue } from "../../src/tmux/core/pane_queue.ts";

/**
 * Prefix of every fixture directory of THIS test run (it holds the test process's id), so a
 * directory left behind says which run left it.
 */
export const FIXTURE_PREFIX = `tmux-mcp-test-${Deno.pid}-`;

/**
 * The leftovers check, run by each fixture as it is disposed, once its server was killed: no
 * process may name the fixture's directory (the tmux server, the MCP server's control clients,
 * person clients and their `script` wrappers, pane programs all carry the socket path or files in
 * it), and the directory is removed and must stay gone. Only this fixture's own processes are
 * looked at: other tests, other suites and other users on the machine never trip it. Processes
 * get time to exit after the kill, and the removal is retried, because a busy machine schedules
 * them late (a shell killed with its server may still be saving its history into the directory);
 * a survivor fails the test.
 */
export async function removeAndCheck(dir: string): Promise<void> {
  const mine = `${dir}/`;
  let left: string[] = [];
  const gone = await eventually(async () => {
    const out = await new Deno.Command("ps", { args: ["-eo", "pid=,args="] }).output();
    left = new TextDecoder().decode(out.stdout).split("\n")
      .filter((line) => line.includes(mine))
      .map((line) => line.trim());
    return left.length === 0;
  });
  if (!gone) throw new Error(`processes of fixture ${dir} outlived it:\n${left.join("\n")}`);
  const removed = await eventually(async () => {
    await Deno.remove(dir, { recursive: true }).catch(() => {});
    return !await Deno.stat(dir).then(() => true, () => false);
  });
  if (!removed) throw new Error(`fixture directory ${dir} could not be removed`);
}

/**
 * Run tmux (UTF-8, a clean environment, no stdin) on the server at `socket` and return stdout;
 * rejects, with tmux's message, when tmux fails (no server there, a bad command).
 */
export async function tmuxOn(socket: string, ...args: string[]): Promise<string> {
  const out = await new Deno.Command("tmux", {
    args: ["-u", "-S", socket, ...args],
    clearEnv: true,
    env: cleanEnv(),
    stdin: "null",
  }).output();
  const dec = new TextDecoder();
  if (!out.success) {
    throw new Error(`tmux ${args.join(" ")} failed: ${dec.decode(out.stderr).trim()}`);
  }
  return dec.decode(out.stdout);
}

/** Environment for tmux processes the fixture starts: ours minus anything naming another server. */
export function cleanEnv(extra: Record<string, string> = {}): Record<string, string> {
  const env = Deno.env.toObject();
  delete env.TMUX;
  delete env.TMUX_PANE;
  for (const key of Object.keys(env)) {
    if (key.startsWith("TMUX_MCP_") || key.startsWith("LIBTMUX_")) delete env[key];
  }
  return { ...env, ...extra };
}

/** Options of a fixture's first session. */
export interface FixtureOptions {
  session?: string;
  command?: string;
  width?: number;
  height?: number;
}

/** A private tmux server for one test. */
export class TmuxFixture {
  readonly dir: string;
  readonly socket: string;

  private constructor(dir: string) {
    this.dir = dir;
    this.socket = `${dir}/tmux.sock`;
  }

  /** Start a server with one detached session (default: "main" running `sleep`). */
  static async start(options: FixtureOptions = {}): Promise<TmuxFixture> {
    const fixture = new TmuxFixture(await Deno.makeTempDir({ prefix: FIXTURE_PREFIX }));
    await fixture.tmuxRaw([
      "-f",
      "/dev/null",
      "new-session",
      "-d",
      "-s",
      options.session ?? "main",
      "-x",
      String(options.width ?? 80),
      "-y",
      String(options.height ?? 24),
      options.command ?? "sleep 100000",
    ]);
    return fixture;
  }

  /** A socket path in this fixture's directory where no server runs. */
  get deadSocket(): string {
    return `${this.dir}/nobody.sock`;
  }

  /** Run tmux against this server (argv as given; callers escape any trailing `;` themselves). */
  async tmux(...args: string[]): Promise<string> {
    return await this.tmuxRaw(args);
  }

  private async tmuxRaw(args: string[]): Promise<string> {
    return await tmuxOn(this.socket, ...args);
  }

  /**
   * A new detached window, in session `target` (e.g. `=main:`) when given, running `command` (one
   * shell command line, or argv); its pane id.
   */
  async newWindow(command?: string | readonly string[], target?: string): Promise<string> {
    const argv = typeof command === "string" ? [command] : command ?? [];
    const at = target === undefined ? [] : ["-t", target];
    return (await this.tmux("new-window", "-d", ...at, "-P", "-F", "#{pane_id}", ...argv)).trim();
  }

  /** Print one format for a target (tmux's own view, for comparing results). */
  async display(target: string, format: string): Promise<string> {
    return (await this.tmux("display-message", "-p", "-t", target, format)).replace(/\n$/, "");
  }

  /**
   * Positive sentinel for "no `#()` job ran": start one of our own now and wait until it has run.
   * A job a hostile string would have started earlier would have run by then too. tmux ends a
   * client's jobs when the client exits, so ours waits on a channel until its job has run.
   */
  async jobsRan(): Promise<void> {
    const token = crypto.randomUUID();
    const sentinel = `${this.dir}/job-sentinel-${token}`;
    const client = new Deno.Command("tmux", {
      args: ["-u", "-S", this.socket, "display-message", "-p", `#(touch ${sentinel})`, ";"]
        .concat(["wait-for", `job-${token}`]),
      clearEnv: true,
      env: cleanEnv(),
      stdin: "null",
      stdout: "null",
      stderr: "null",
    }).spawn();
    const ran = await eventually(() => Deno.stat(sentinel).then(() => true, () => false));
    await this.tmux("wait-for", "-S", `job-${token}`);
    await client.status;
    if (!ran) throw new Error("tmux never ran the sentinel #() job");
  }

  /** The server's pid. */
  async serverPid(): Promise<number> {
    return Number((await this.tmux("display-message", "-p", "#{pid}")).trim());
  }

  /** A runner of ours pinned to this server (for funnel-level tests). */
  runner(): TmuxRunner {
    const env = cleanEnv();
    return new TmuxRunner({ socket: { kind: "path", path: this.socket }, env: (n) => env[n] });
  }

  /**
   * Attach a person's terminal client to a session (under `script`, which gives it a tty), with
   * extra attach flags such as `-f active-pane`. Resolves once tmux lists THAT client as attached
   * (not merely some client of the session: the MCP server's own control client may be attached
   * already); call the returned function to detach it and wait for it to exit.
   */
  async attachPerson(session: string, flags: string[] = []): Promise<() => Promise<void>> {
    const before = await this.#clientPids();
    const child = new Deno.Command("script", {
      args: [
        "-q",
        "-c",
        // `exec`: the tmux client replaces the shell, so it is `script`'s own child.
        `exec tmux -S ${this.socket} attach ${flags.join(" ")} -t =${session}`,
        "/dev/null",
      ],
      clearEnv: true,
      env: cleanEnv({ TERM: "xterm" }),
      stdin: "null",
      stdout: "null",
      stderr: "null",
    }).spawn();
    const name = await this.#waitForClient(
      session,
      async (pid) => !before.has(pid) && await descendsFrom(pid, child.pid),
      child,
    );
    return async () => {
      // Detach only this client (`-s` would detach every client of the session, the MCP server's
      // own control client included); that ends it and with it `script`.
      await this.tmux("detach-client", "-t", name).catch(() => {});
      const fallback = setTimeout(() => child.kill("SIGKILL"), 3000);
      await child.status;
      clearTimeout(fallback);
    };
  }

  /**
   * Attach a control-mode client that is NOT the server's own (as iTerm2's `-CC` is): a person.
   * Resolves once tmux lists that very client (matched by its pid); call the returned function to
   * end it.
   */
  async attachControlPerson(session: string): Promise<() => Promise<void>> {
    const child = new Deno.Command("tmux", {
      args: ["-u", "-S", this.socket, "-C", "attach", "-t", `=${session}`],
      clearEnv: true,
      env: cleanEnv(),
      stdin: "piped",
      stdout: "null",
      stderr: "null",
    }).spawn();
    await this.#waitForClient(session, (pid) => pid === child.pid, child);
    return async () => {
      await child.stdin.close();
      await child.status;
    };
  }

  /** Pids of the clients attached right now. */
  async #clientPids(): Promise<Set<number>> {
    const out = await this.tmux("list-clients", "-F", "#{client_pid}");
    return new Set(out.split("\n").filter((l) => l !== "").map(Number));
  }

  /**
   * Wait until a client that `isTheOne` accepts is attached to `session`; return its name (its
   * tty, for `detach-client -t`). Fails early if `child` exits first; on failure `child` is
   * killed, so nothing is left behind.
   */
  async #waitForClient(
    session: string,
    isTheOne: (pid: number) => boolean | Promise<boolean>,
    child: Deno.ChildProcess,
  ): Promise<string> {
    let exited = false;
    child.status.then(() => exited = true);
    let name: string | undefined;
    await eventually(async () => {
      if (exited) return true;
      const out = await this.tmux(
        "list-clients",
        "-F",
        "#{client_pid}\t#{client_name}\t#{session_name}",
      );
      for (const line of out.split("\n")) {
        const [pid, clientName, sessionName] = line.split("\t");
        if (sessionName === session && await isTheOne(Number(pid))) {
          name = clientName;
          return true;
        }
      }
      return false;
    }, 10_000);
    if (name === undefined) {
      try {
        child.kill("SIGKILL");
      } catch {
        // already exited
      }
      await child.status;
      throw new Error(
        `the client started for ${session} did not attach${exited ? " (it exited)" : ""}`,
      );
    }
    return name;
  }

  /**
   * Kill the server (if still running), then remove the directory and check that nothing of this
   * fixture is left ({@link removeAndCheck}).
   */
  async close(): Promise<void> {
    try {
      await this.tmux("kill-server");
    } catch {
      // already gone
    }
    await removeAndCheck(this.dir);
  }

  async [Symbol.asyncDispose](): Promise<void> {
    await this.close();
  }
}

/** Whether process `pid` is `ancestor` or one of its descendants (walks up at most 4 levels). */
async function descendsFrom(pid: number, ancestor: number): Promise<boolean> {
  for (let level = 0; level <= 4 && pid > 1; level++) {
    if (pid === ancestor) return true;
    const out = await new Deno.Command("ps", { args: ["-o", "ppid=", "-p", String(pid)] }).output();
    pid = Number(new TextDecoder().decode(out.stdout).trim());
    if (!Number.isInteger(pid)) return false;
  }
  return false;
}

/**
 * How long a test waits for what must happen at all (a condition, a call's end, a process's exit)
 * before failing. Only a regression ever reaches it, so it is generous: a busy machine may take
 * seconds. It bounds liveness, never speed (scripts/bench.ts measures speed).
 */
export const LIVENESS_MS = 20_000;

/**
 * Poll `check` until it returns true or `ms` passes; for waiting on a condition. `ms` only matters
 * when the condition never comes, so it is generous (see {@link LIVENESS_MS}).
 */
export async function eventually(
  check: () => boolean | Promise<boolean>,
  ms = LIVENESS_MS,
): Promise<boolean> {
  const end = Date.now() + ms;
  while (Date.now() < end) {
    if (await check()) return true;
    await new Promise((r) => setTimeout(r, 25));
  }
  return await check();
}

/** A funnel context around `runner`, for tests that call src/tmux/ functions directly. */
export function contextFor(runner: TmuxRunner): TmuxContext {
  return { runner, ownClientPids: new Set(), inputQueue: new PaneQueue() };
}

/**
 * A new window whose pane writes every byte it receives to a file: `stty raw -echo` turns the line
 * discipline off, so the file holds exactly what tmux wrote.
 */
export async function rawReceiver(fx: TmuxFixture): Promise<{ paneId: string; file: string }> {
  const file = `${fx.dir}/received`;
  const ready = `${fx.dir}/ready`;
  const paneId = await fx.newWindow(
    `bash --norc --noprofile -c 'stty raw -echo && touch ${ready} && exec cat > ${file}'`,
  );
  if (!await eventually(() => Deno.stat(ready).then(() => true, () => false))) {
    throw new Error("the receiver did not get ready");
  }
  return { paneId, file };
}

/**
 * A pane of session `inSession` running `tmux attach` to session `target` of the same server (a
 * nested client); resolves once tmux lists that client. Returns the hosting pane's id.
 */
export async function nestedClient(
  fx: TmuxFixture,
  inSession: string,
  target: string,
): Promise<string> {
  const host = await fx.newWindow(
    `env -u TMUX TERM=screen tmux -S ${fx.socket} attach -t =${target}`,
    `=${inSession}:`,
  );
  const attached = await eventually(async () =>
    (await fx.tmux("list-clients", "-F", "#{session_name}")).split("\n").includes(target)
  );
  if (!attached) throw new Error("the nested client did not attach");
  return host;
}
