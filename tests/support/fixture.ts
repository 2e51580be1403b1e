/**
 * TmuxFixture: a private tmux server on a temp `-S` socket, with fixed sizes and deterministic
 * pane programs, killed in teardown. Tests never touch the default tmux server.
 */

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
