/**
 * TmuxFixture: a private tmux server on a temp `-S` socket, with fixed sizes and deterministic
 * pane programs, killed in teardown. Tests never touch the default tmux server.
 */

import { TmuxRunner } from "../../src/tmux/command.ts";

/** Prefix of every fixture directory; the leftover check looks for it. */
export const FIXTURE_PREFIX = "tmux-mcp-test-";

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
    const out = await new Deno.Command("tmux", {
      args: ["-u", "-S", this.socket, ...args],
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

  /** Print one format for a target (tmux's own view, for comparing results). */
  async display(target: string, format: string): Promise<string> {
    return (await this.tmux("display-message", "-p", "-t", target, format)).replace(/\n$/, "");
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
   * extra attach flags such as `-f active-pane`. Resolves once tmux lists it; call the returned
   * function to detach it and wait for it to exit.
   */
  async attachPerson(session: string, flags: string[] = []): Promise<() => Promise<void>> {
    const child = new Deno.Command("script", {
      args: [
        "-q",
        "-c",
        `tmux -S ${this.socket} attach ${flags.join(" ")} -t =${session}`,
        "/dev/null",
      ],
      clearEnv: true,
      env: cleanEnv({ TERM: "xterm" }),
      stdin: "null",
      stdout: "null",
      stderr: "null",
    }).spawn();
    await this.#waitForClient(session);
    return async () => {
      // Detaching ends the client and with it `script` (which takes ~2 s on SIGTERM).
      await this.tmux("detach-client", "-s", `=${session}`).catch(() => {});
      const fallback = setTimeout(() => child.kill("SIGKILL"), 3000);
      await child.status;
      clearTimeout(fallback);
    };
  }

  /**
   * Attach a control-mode client that is NOT the server's own (as iTerm2's `-CC` is): a person.
   * Call the returned function to end it.
   */
  async attachControlPerson(session: string): Promise<() => Promise<void>> {
    const child = new Deno.Command("tmux", {
      args: ["-u", "-S", this.socket, "-C", "attach", "-t", `=${session}`],
      stdin: "piped",
      stdout: "null",
      stderr: "null",
    }).spawn();
    await this.#waitForClient(session);
    return async () => {
      await child.stdin.close();
      await child.status;
    };
  }

  async #waitForClient(session: string): Promise<void> {
    const attached = await eventually(async () =>
      (await this.tmux("list-clients", "-F", "#{session_name}")).split("\n").includes(session)
    );
    if (!attached) throw new Error(`no client attached to ${session}`);
  }

  /** Kill the server (if still running) and remove the directory. */
  async close(): Promise<void> {
    try {
      await this.tmux("kill-server");
    } catch {
      // already gone
    }
    await Deno.remove(this.dir, { recursive: true }).catch(() => {});
  }

  async [Symbol.asyncDispose](): Promise<void> {
    await this.close();
  }
}

/** Poll `check` until it returns true or `ms` passes; for waiting on tmux to settle. */
export async function eventually(
  check: () => boolean | Promise<boolean>,
  ms = 5000,
): Promise<boolean> {
  const end = Date.now() + ms;
  while (Date.now() < end) {
    if (await check()) return true;
    await new Promise((r) => setTimeout(r, 25));
  }
  return await check();
}
