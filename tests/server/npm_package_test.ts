/**
 * The npm package for real (docs/design.md §8.7): `deno task npm`'s build, packed with `npm pack`,
 * installed into an empty prefix with an empty npm cache (`deno` and its platform binary come from
 * the npm registry), started through `npx`, answering initialize and list_panes against a private
 * tmux — with exactly the start task's permissions, read from the Deno process's own argv and asked
 * of the server with `--check`. The launcher widens them for --ssh, --http and --record only,
 * passes SIGTERM and SIGINT on and ends with the server's exit status. Skipped, saying so, without
 * npm and node.
 */
// @ts-types="npm:@modelcontextprotocol/sdk@^1.32.2/client/stdio"
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { Client } from "@modelcontextprotocol/sdk/client";
import { assert, assertEquals, assertMatch } from "../support/assert.ts";
import { ok } from "../support/client.ts";
import { cleanEnv, eventually, TmuxFixture } from "../support/fixture.ts";
import { running } from "../support/processes.ts";
import { build } from "../../scripts/npm_package.ts";
import { baseFlags, ENV_VARIABLES } from "../../src/config/permissions.ts";

const decoder = new TextDecoder();

function has(program: string): boolean {
  try {
    return new Deno.Command(program, { args: ["--version"], stdout: "null", stderr: "null" })
      .outputSync().success;
  } catch {
    return false;
  }
}

const missing = !has("npm") ? "npm is not installed" : !has("node") ? "node is not installed" : "";
const skipped = (name: string) => missing ? `${name} (skipped: ${missing})` : name;

const ROOT = new URL("../..", import.meta.url).pathname.replace(/\/$/, "");

Deno.test("npm/package.json: deno.json's name and version, the CI's Deno, one bin; release.yml publishes it with provenance", async () => {
  const read = async (path: string) => await Deno.readTextFile(`${ROOT}/${path}`);
  const manifest = JSON.parse(await read("deno.json"));
  const pkg = JSON.parse(await read("npm/package.json"));
  const pinned = /npm install -g deno@(\d+\.\d+\.\d+)/.exec(await read(".ci/run"))![1];
  assertEquals([pkg.name, pkg.version], [manifest.name, manifest.version]);
  assertEquals(pkg.dependencies, { deno: pinned });
  assertEquals(pkg.bin, { "tmux-mcp": "bin/tmux-mcp.cjs" });
  assertEquals([pkg.os, pkg.cpu], [["linux", "darwin"], ["x64", "arm64"]]);
  const release = await read(".github/workflows/release.yml");
  assert(release.includes("deno task npm --no-pack"), "release.yml builds the package");
  assert(release.includes("npm publish --provenance --access public dist/npm"), "publishes it");
  assert(/publish:[\s\S]*id-token: write/.test(release), "with the OIDC token provenance needs");
});

/** One package for the file: built, packed and installed once, removed at the end. */
interface Installed {
  dir: string;
  tarball: string;
  prefix: string;
  /** The installed launcher (node_modules/.bin/tmux-mcp). */
  bin: string;
  /** The installed bundle the launcher runs. */
  bundle: string;
  env: Record<string, string>;
}

let installing: Promise<Installed> | undefined;
function installed(): Promise<Installed> {
  return installing ??= (async () => {
    const dir = await Deno.makeTempDir({ prefix: "tmux-mcp-npm-" });
    const tarball = await build({ dir });
    const prefix = `${dir}/prefix`;
    await Deno.mkdir(prefix);
    // An empty npm cache: what `npx -y` does on a machine that never saw the package.
    const env = cleanEnv({ NO_COLOR: "1", npm_config_cache: `${dir}/npm-cache` });
    const out = await new Deno.Command("npm", {
      args: ["install", "--prefix", prefix, "--no-audit", "--no-fund", tarball],
      clearEnv: true,
      env,
      stdin: "null",
    }).output();
    assert(out.success, `npm install failed: ${decoder.decode(out.stderr).slice(-2000)}`);
    const bundle = await Deno.realPath(`${prefix}/node_modules/@tmux-mcp/tmux-mcp/tmux-mcp.js`);
    return { dir, tarball, prefix, bin: `${prefix}/node_modules/.bin/tmux-mcp`, bundle, env };
  })();
}

/** Pid and argv of each process whose command line holds `text` (`ps` cuts long lines). */
async function processes(text: string): Promise<{ pid: number; argv: string[] }[]> {
  const out = await new Deno.Command("pgrep", { args: ["-f", "--", text] }).output();
  const found: { pid: number; argv: string[] }[] = [];
  for (const pid of decoder.decode(out.stdout).split("\n").filter(Boolean).map(Number)) {
    // Deno's own reads of /proc need --allow-all; cat's do not.
    const cat = await new Deno.Command("cat", { args: [`/proc/${pid}/cmdline`] }).output();
    const raw = decoder.decode(cat.stdout);
    if (raw !== "") found.push({ pid, argv: raw.split("\0").slice(0, -1) });
  }
  return found;
}

/** The Deno process running the installed bundle with `marker` among its arguments. */
async function denoProcess(
  pkg: Installed,
  marker: string,
): Promise<{ pid: number; argv: string[] }> {
  let found: { pid: number; argv: string[] } | undefined;
  await eventually(async () => {
    found = (await processes(pkg.bundle)).find((p) =>
      p.argv.includes(pkg.bundle) && p.argv.includes(marker)
    );
    return found !== undefined;
  });
  assert(found, `no Deno process runs ${pkg.bundle} with ${marker}`);
  return { pid: found.pid, argv: found.argv.slice(1) };
}

const FIXED = ["run", "--no-config", "--no-lock", "--quiet", "--no-prompt"];

Deno.test({
  name: skipped(
    "npm pack → empty prefix and cache → npx: initialize and list_panes, with exactly the start permissions",
  ),
  ignore: missing !== "",
  fn: async () => {
    await using fx = await TmuxFixture.start({ session: "npm" });
    const pkg = await installed();
    const transport = new StdioClientTransport({
      command: "npx",
      args: ["--no-install", "tmux-mcp", "-S", fx.socket],
      cwd: pkg.prefix,
      env: pkg.env,
      stderr: "pipe",
    });
    const client = new Client({ name: "npm-package", version: "1" });
    await client.connect(transport);
    try {
      const { panes } = await ok<{ panes: Array<{ sessionName: string }> }>(client, "list_panes");
      assertEquals(panes.map((p) => p.sessionName), ["npm"]);
      // No write, no net, no read, no run beyond tmux: the flags are exactly these.
      assertEquals((await denoProcess(pkg, fx.socket)).argv, [
        ...FIXED,
        ...baseFlags(),
        pkg.bundle,
        "-S",
        fx.socket,
      ]);
    } finally {
      await client.close();
    }
    // And the server, asked, agrees.
    const check = await new Deno.Command("npx", {
      args: ["--no-install", "tmux-mcp", "--check", "-S", fx.socket],
      cwd: pkg.prefix,
      clearEnv: true,
      env: pkg.env,
    }).output();
    const lines = decoder.decode(check.stdout).trim().split("\n");
    assertEquals(check.code, 0, lines.join("\n"));
    assert(
      lines.includes(
        `ok       permissions: run tmux; read ${ENV_VARIABLES.length} of the ` +
          `${ENV_VARIABLES.length} variables it uses; no files, no network, no other programs`,
      ),
      lines.join("\n"),
    );
  },
});

/** Call the launcher's own permissions(args, env) under node. */
async function widened(args: string[], env: Record<string, string> = {}): Promise<string[]> {
  const pkg = await installed();
  const script = `const l = require(${JSON.stringify(await Deno.realPath(pkg.bin))});` +
    `try { console.log(JSON.stringify(l.permissions(${JSON.stringify(args)}, ` +
    `${JSON.stringify(env)}))) } catch (e) { console.log(JSON.stringify(e.message)) }`;
  const out = await new Deno.Command("node", { args: ["-e", script] }).output();
  assert(out.success, decoder.decode(out.stderr));
  return JSON.parse(decoder.decode(out.stdout));
}

Deno.test({
  name: skipped("the launcher widens the permissions for --ssh, --http and --record only"),
  ignore: missing !== "",
  fn: async () => {
    const [run, env] = baseFlags();
    const ssh = ["--allow-run=tmux,ssh", `${env},SSH_AUTH_SOCK`];
    const cases: [string[], Record<string, string>, string[] | string][] = [
      [["-S", "/tmp/x", "--toolsets", "core,teardown"], {}, [run, env]],
      [["--ssh", "box=me@box"], {}, ssh],
      [["--ssh=box=me@box", "--ssh", "b2=b2"], {}, ssh],
      [[], { TMUX_MCP_SSH: "box=me@box" }, ssh],
      [[], { TMUX_MCP_SSH: "  " }, [run, env]],
      [["--http", "8765"], {}, [run, env, "--allow-net=127.0.0.1:8765"]],
      [["--http=LOCALHOST:9000"], {}, [run, env, "--allow-net=localhost:9000"]],
      [["--http", "[::1]:8765"], {}, [run, env, "--allow-net=[::1]:8765"]],
      // Not an address the server takes: nothing is granted, the server says why.
      [["--http", "0"], {}, [run, env]],
      [["--http", "a:b"], {}, [run, env]],
      [["--record", "/tmp/rec"], {}, [run, env, "--allow-read=/tmp/rec", "--allow-write=/tmp/rec"]],
      [[], { TMUX_MCP_RECORD: "/tmp/r2" }, [
        run,
        env,
        "--allow-read=/tmp/r2",
        "--allow-write=/tmp/r2",
      ]],
      [["--record", ""], {}, [run, env]],
      [["--record", "/tmp/a,b"], {}, "--record DIR must not hold a comma"],
      // A value is never taken for an option: these widen nothing.
      [["--socket-name", "--ssh"], {}, [run, env]],
      [["--http-token", "--http=0.0.0.0:80"], {}, [run, env]],
      [["-L", "--record"], {}, [run, env]],
    ];
    for (const [args, environment, expected] of cases) {
      const got = await widened(args, environment);
      if (typeof expected === "string") assertMatch(String(got), new RegExp(`^${expected}`));
      else assertEquals(got, expected, `${args.join(" ")} ${JSON.stringify(environment)}`);
    }
  },
});

Deno.test({
  name: skipped("the launcher passes SIGTERM and SIGINT on and ends with the server's status"),
  ignore: missing !== "",
  fn: async () => {
    await using fx = await TmuxFixture.start();
    const pkg = await installed();
    const refused = await new Deno.Command(pkg.bin, {
      args: ["--toolsets", "bogus"],
      clearEnv: true,
      env: pkg.env,
    }).output();
    assertEquals(refused.code, 2);
    assertMatch(decoder.decode(refused.stderr), /^tmux-mcp: .*bogus/);

    // An HTTP server with a remote host configured: widened, and still stopped by a signal.
    const port = freePort();
    for (const signal of ["SIGTERM", "SIGINT"] as const) {
      const child = new Deno.Command(pkg.bin, {
        args: ["-S", fx.socket, "--http", `127.0.0.1:${port}`, "--ssh", "box=nobody@127.0.0.1"],
        clearEnv: true,
        env: pkg.env,
        stdin: "null",
        stdout: "null",
        stderr: "piped",
      }).spawn();
      const stderr = new Response(child.stderr).text();
      let deno: number | undefined;
      try {
        const found = await denoProcess(pkg, fx.socket);
        deno = found.pid;
        assertEquals(found.argv.slice(0, FIXED.length), FIXED);
        assertEquals(found.argv.filter((a) => a.startsWith("--allow-")), [
          "--allow-run=tmux,ssh",
          `${baseFlags()[1]},SSH_AUTH_SOCK`,
          `--allow-net=127.0.0.1:${port}`,
        ]);
        const serving = await eventually(async () => {
          try {
            (await Deno.connect({ hostname: "127.0.0.1", port })).close();
            return true;
          } catch {
            return false;
          }
        });
        assert(serving, "the server did not listen");
        child.kill(signal);
        const status = await child.status;
        assertEquals([status.code, status.signal], [0, null], await stderr);
        assertMatch(await stderr, new RegExp(`shutting down: ${signal}`));
        assert(await eventually(async () => !await running(deno!)), "Deno outlived the launcher");
      } finally {
        // A failed check leaves nothing running.
        for (const pid of [child.pid, deno]) {
          try {
            if (pid !== undefined && await running(pid)) Deno.kill(pid, "SIGKILL");
          } catch {
            // gone already
          }
        }
        await child.status;
        await stderr;
      }
    }
  },
});

Deno.test({
  name: skipped("cleanup of the installed package"),
  ignore: missing !== "",
  fn: async () => {
    if (installing) await Deno.remove((await installing).dir, { recursive: true });
  },
});

function freePort(): number {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const { port } = listener.addr as Deno.NetAddr;
  listener.close();
  return port;
}
