/**
 * A start from a checkout fetches the server and nothing else, and says only its own lines: the
 * tooling of the suite and the scripts (puppeteer, fonts, PNG decoding, the browser's xterm) is
 * pinned by deno.dev.lock, out of deno.json's import map and out of deno.lock, which `deno task`
 * installs in full before it runs any task (README "Development", docs/design.md §8.5).
 */
import { assert, assertEquals } from "../support/assert.ts";
import { TmuxFixture } from "../support/fixture.ts";

const ROOT = new URL("../..", import.meta.url).pathname.replace(/\/$/, "");
const decoder = new TextDecoder();

/** `name@version` of an npm package key (`@a/b@1.0.0_peer@2` or node_modules' `@a+b@1.0.0`). */
function packageId(key: string): string {
  return key.replace(/_.*$/, "").replace(/^@([^+/]+)\+/, "@$1/");
}

async function lockPackages(file: string): Promise<Map<string, unknown>> {
  const lock = JSON.parse(await Deno.readTextFile(`${ROOT}/${file}`));
  return new Map(Object.entries(lock.npm ?? {}).map(([key, entry]) => [packageId(key), entry]));
}

/**
 * The npm packages main.ts and mod.ts load: those their modules import, and what those depend on
 * (`deno info` lists every package of the lock besides; only the closure counts).
 */
async function graphPackages(): Promise<Set<string>> {
  const found = new Set<string>();
  for (const entry of ["main.ts", "mod.ts"]) {
    const out = await new Deno.Command(Deno.execPath(), {
      args: ["info", "--json", entry],
      cwd: ROOT,
      env: { NO_COLOR: "1" },
      stderr: "null",
    }).output();
    assert(out.success, `deno info ${entry}`);
    const info = JSON.parse(decoder.decode(out.stdout)) as {
      modules: { kind?: string; npmPackage?: string }[];
      npmPackages: Record<string, { dependencies?: string[] }>;
    };
    const todo = info.modules.flatMap((m) =>
      m.kind === "npm" && m.npmPackage ? [m.npmPackage] : []
    );
    const seen = new Set<string>();
    while (todo.length > 0) {
      const key = todo.pop()!;
      if (seen.has(key)) continue;
      seen.add(key);
      todo.push(...info.npmPackages[key]?.dependencies ?? []);
    }
    for (const key of seen) found.add(packageId(key));
  }
  return found;
}

/** Copy what a start needs (the config, the lock, the entry points and src/) into `dir`. */
async function copyCheckout(dir: string): Promise<void> {
  const copy = async (path: string) => {
    const info = await Deno.stat(`${ROOT}/${path}`);
    if (info.isDirectory) {
      await Deno.mkdir(`${dir}/${path}`, { recursive: true });
      for await (const entry of Deno.readDir(`${ROOT}/${path}`)) {
        await copy(`${path}/${entry.name}`);
      }
    } else await Deno.copyFile(`${ROOT}/${path}`, `${dir}/${path}`);
  };
  await Deno.mkdir(dir, { recursive: true });
  for (const path of ["deno.json", "deno.lock", "main.ts", "mod.ts", "src"]) await copy(path);
}

Deno.test("deno.lock pins exactly the server's packages; deno.dev.lock pins the same versions", async () => {
  const server = await lockPackages("deno.lock");
  const dev = await lockPackages("deno.dev.lock");
  assertEquals([...server.keys()].sort(), [...await graphPackages()].sort());
  for (const [id, entry] of server) assertEquals(dev.get(id), entry, `${id} in deno.dev.lock`);
  const manifest = JSON.parse(await Deno.readTextFile(`${ROOT}/deno.json`));
  assertEquals(manifest.lock, { path: "./deno.lock", frozen: true });
  for (const [name, task] of Object.entries(manifest.tasks as Record<string, string>)) {
    // A start takes the server's lock; the suite and the scripts take the tooling's.
    if (name.startsWith("start")) assert(!task.includes("deno.dev.lock"), name);
    if (/^(test|check|bench|view|soak|conformance|pattern-worker)/.test(name)) {
      assert(task.includes("--lock=deno.dev.lock"), `${name} runs with deno.dev.lock`);
    }
  }
});

Deno.test("deno task -q start in a fresh checkout installs only main.ts's packages and prints only its own lines", async () => {
  await using fx = await TmuxFixture.start({ session: "quiet" });
  const dir = `${fx.dir}/checkout`;
  await copyCheckout(dir);
  const child = new Deno.Command(Deno.execPath(), {
    args: ["task", "-q", "start", "-S", fx.socket],
    cwd: dir,
    env: { NO_COLOR: "1" },
    stdin: "piped",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  const writer = child.stdin.getWriter();
  await writer.write(new TextEncoder().encode(
    JSON.stringify({
      jsonrpc: "2.0",
      id: 1,
      method: "initialize",
      params: {
        protocolVersion: "2025-06-18",
        capabilities: {},
        clientInfo: { name: "quiet-start", version: "1" },
      },
    }) + "\n",
  ));
  // Once it has answered, closing stdin ends the server.
  let stdout = "";
  const stdoutDone = (async () => {
    for await (const chunk of child.stdout) {
      stdout += decoder.decode(chunk, { stream: true });
      if (stdout.includes('"serverInfo"')) await writer.close().catch(() => {});
    }
  })();
  const stderrText = new Response(child.stderr).text();
  const status = await child.status;
  await stdoutDone;
  await writer.close().catch(() => {});
  const stderr = (await stderrText).trim().split("\n");
  assert(stdout.includes('"serverInfo"'), `no initialize answer: ${stdout.slice(0, 300)}`);
  assertEquals(status.code, 0, stderr.join("\n"));
  assertEquals(stderr.filter((line) => !line.startsWith("tmux-mcp: ")), [], stderr.join("\n"));
  const installed = new Set<string>();
  for await (const entry of Deno.readDir(`${dir}/node_modules/.deno`)) {
    if (entry.isDirectory && entry.name !== "node_modules") installed.add(packageId(entry.name));
  }
  assertEquals([...installed].sort(), [...await graphPackages()].sort());
});
