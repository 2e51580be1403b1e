/**
 * Shipping: the version's one source, the release script (`deno task release`, its smoke check),
 * the JSR package's contents and the workflows that call them. `deno compile` cannot download its
 * runtime here (docs/design.md §8.5), so builds use a stand-in runtime through DENORT_BIN and the
 * download is made to fail on purpose through a dead proxy, wherever the suite runs.
 */
import { assert, assertEquals, assertMatch } from "../support/assert.ts";
import { MAIN, runMain, startPermissions } from "../support/client.ts";
import {
  artifactName,
  releaseFlags,
  runtimeTarget,
  type Target,
  TARGETS,
  versionModule,
} from "../../scripts/release.ts";
import { VERSION } from "../../src/base/version.ts";
import { MIN_TMUX } from "../../src/tmux/core/version.ts";

const ROOT = new URL("../..", import.meta.url).pathname.replace(/\/$/, "");
const manifest = JSON.parse(await Deno.readTextFile(`${ROOT}/deno.json`));
const decoder = new TextDecoder();

/** Run scripts/release.ts as `deno task release` does, with `env` over ours. */
async function release(
  args: string[],
  env: Record<string, string | undefined> = {},
): Promise<{ code: number; stdout: string; stderr: string; ms: number; pid: number }> {
  const words: string[] = manifest.tasks.release.split(/\s+/);
  const flags = words.slice(words.indexOf("run") + 1, words.indexOf("scripts/release.ts"));
  const merged: Record<string, string> = { ...Deno.env.toObject(), NO_COLOR: "1" };
  for (const [key, value] of Object.entries(env)) {
    if (value === undefined) delete merged[key];
    else merged[key] = value;
  }
  const started = performance.now();
  const child = new Deno.Command(Deno.execPath(), {
    args: ["run", ...flags, `${ROOT}/scripts/release.ts`, ...args],
    cwd: ROOT,
    clearEnv: true,
    env: merged,
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  const out = await child.output();
  return {
    code: out.code,
    stdout: decoder.decode(out.stdout),
    stderr: decoder.decode(out.stderr),
    ms: performance.now() - started,
    pid: child.pid,
  };
}

/**
 * An environment where dl.deno.land cannot be reached, on any machine: every HTTPS request goes to
 * a proxy on a closed local port. (npm packages come from DENO_DIR, which earlier tests filled.)
 */
const NO_DOWNLOAD = {
  HTTPS_PROXY: "http://127.0.0.1:9",
  https_proxy: "http://127.0.0.1:9",
  NO_PROXY: undefined,
  no_proxy: undefined,
  DENORT_BIN: undefined,
};

/** Whether deno already holds the runtime for `target` in its cache (then nothing downloads). */
function runtimeCached(target: Target): boolean {
  const info = new Deno.Command(Deno.execPath(), { args: ["info", "--json"], stderr: "null" })
    .outputSync();
  const denoDir = JSON.parse(decoder.decode(info.stdout)).denoDir as string;
  try {
    Deno.statSync(`${denoDir}/dl/release/v${Deno.version.deno}/denort-${target}.zip`);
    return true;
  } catch {
    return false;
  }
}

/**
 * The metadata `deno compile` writes into a binary (`{"argv":[…],…,"permissions":{…},…}`): the
 * permissions the binary will run with, read back from the file itself.
 */
function embeddedMetadata(binary: Uint8Array): Record<string, unknown> {
  const text = new TextDecoder("latin1").decode(binary);
  const start = text.indexOf('{"argv":');
  assert(start >= 0, "no deno compile metadata in the binary");
  let depth = 0;
  let inString = false;
  for (let i = start; i < text.length; i++) {
    const c = text[i];
    if (inString) {
      if (c === "\\") i++;
      else if (c === '"') inString = false;
    } else if (c === '"') inString = true;
    else if (c === "{") depth++;
    else if (c === "}" && --depth === 0) return JSON.parse(text.slice(start, i + 1));
  }
  throw new Error("unterminated metadata");
}

// ---- the version ----

Deno.test("src/base/version.ts holds deno.json's version, as `deno task version` writes it", async () => {
  assertEquals(VERSION, manifest.version);
  assertEquals(
    await Deno.readTextFile(`${ROOT}/src/base/version.ts`),
    versionModule(manifest.version),
  );
  const printed = await runMain(["--version"]);
  assertEquals(printed.stdout, `${manifest.version}\n`);
  const source = await Deno.readTextFile(`${ROOT}/src/base/version.ts`);
  assert(!source.includes("import"), "the published package reads no deno.json");
});

Deno.test("`deno task version` rewrites a stale src/base/version.ts; a tagged release refuses one", async () => {
  // In a copy of the three files involved, so the checkout's own base/version.ts is never touched.
  const dir = await Deno.makeTempDir({ prefix: "tmux-mcp-release-" });
  try {
    await Deno.mkdir(`${dir}/scripts`);
    await Deno.mkdir(`${dir}/src/base`, { recursive: true });
    await Deno.copyFile(`${ROOT}/scripts/release.ts`, `${dir}/scripts/release.ts`);
    await Deno.writeTextFile(
      `${dir}/deno.json`,
      JSON.stringify({ version: "9.8.7", tasks: manifest.tasks }),
    );
    await Deno.writeTextFile(`${dir}/src/base/version.ts`, versionModule(manifest.version));
    const script = (...args: string[]) =>
      new Deno.Command(Deno.execPath(), {
        args: [
          "run",
          "--no-config",
          "--allow-read",
          "--allow-write",
          `${dir}/scripts/release.ts`,
          ...args,
        ],
        env: { NO_COLOR: "1" },
      }).output();

    const tagged = await script("--tag", "v9.8.7", "--target", "host");
    assertEquals(tagged.code, 1);
    assertEquals(
      decoder.decode(tagged.stderr).trim(),
      "release: src/base/version.ts does not say 9.8.7; run deno task version and commit",
    );
    assertEquals((await script("version", "--check")).code, 1);
    const written = await script("version");
    assertEquals(decoder.decode(written.stdout), "src/base/version.ts now says 9.8.7\n");
    assertEquals(await Deno.readTextFile(`${dir}/src/base/version.ts`), versionModule("9.8.7"));
    assertEquals((await script("version", "--check")).code, 0);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

// ---- binaries ----

Deno.test("release binaries get exactly the start task's permission flags plus --no-prompt", async () => {
  const start = await startPermissions();
  const permissions = start.filter((f) => f.startsWith("--allow-") || f.startsWith("--deny-"));
  assertEquals(releaseFlags(manifest.tasks.start), [...permissions, "--no-prompt"]);
  assert(permissions.includes("--allow-run=tmux"));
  assertEquals(permissions.filter((f) => !/^--allow-(run|env)=/.test(f)), []);
  assertEquals(manifest.tasks.compile, "deno task release --target host");
});

Deno.test("runtimeTarget reads the target from ELF and Mach-O headers and nothing else", () => {
  const elf = (machine: number, klass = 2) => {
    const h = new Uint8Array(64);
    h.set([0x7f, 0x45, 0x4c, 0x46, klass, 1]);
    new DataView(h.buffer).setUint16(18, machine, true);
    return h;
  };
  const macho = (cpu: number) => {
    const h = new Uint8Array(64);
    new DataView(h.buffer).setUint32(0, 0xfeedfacf, true);
    new DataView(h.buffer).setUint32(4, cpu, true);
    return h;
  };
  assertEquals(runtimeTarget(elf(0x3e)), "x86_64-unknown-linux-gnu");
  assertEquals(runtimeTarget(elf(0xb7)), "aarch64-unknown-linux-gnu");
  assertEquals(runtimeTarget(elf(0x3e, 1)), undefined); // 32-bit
  assertEquals(runtimeTarget(elf(0x28)), undefined); // arm32
  assertEquals(runtimeTarget(macho(0x01000007)), "x86_64-apple-darwin");
  assertEquals(runtimeTarget(macho(0x0100000c)), "aarch64-apple-darwin");
  assertEquals(runtimeTarget(new Uint8Array([0xca, 0xfe, 0xba, 0xbe, 0, 0, 0, 2])), undefined);
  assertEquals(runtimeTarget(new TextEncoder().encode("MZ\x90\0")), undefined);
  assertEquals(runtimeTarget(new TextEncoder().encode("#!/bin/sh\n")), undefined);
});

Deno.test({
  name: "with the runtime download unreachable, the release fails with one line and builds nothing",
  ignore: runtimeCached("aarch64-apple-darwin"),
  fn: async () => {
    const out = await Deno.makeTempDir({ prefix: "tmux-mcp-release-" });
    try {
      const run = await release(["--target", "aarch64-apple-darwin", "--out", out], NO_DOWNLOAD);
      assertEquals(run.code, 1, run.stderr);
      assertEquals(run.stdout, "");
      const lines = run.stderr.trimEnd().split("\n");
      assertEquals(lines.length, 1, run.stderr);
      assertMatch(
        lines[0],
        /^release: cannot download the Deno runtime for aarch64-apple-darwin \(https:\/\/dl\.deno\.land\/\S+\/denort-aarch64-apple-darwin\.zip\): .+\. Build where that download is reachable, or set DENORT_BIN/,
      );
      // Fails at once, not after retries: idle, a few seconds (a busy machine took 74 s to start it).
      assert(run.ms < 180_000, `took ${run.ms} ms`);
      assertEquals([...Deno.readDirSync(out)].map((e) => e.name), []);
    } finally {
      await Deno.remove(out, { recursive: true });
    }
  },
});

/** A local executable the release can take for a runtime, and the target its header names. */
const standIn = (() => {
  const path = "/bin/true";
  try {
    const file = Deno.openSync(path);
    const header = new Uint8Array(64);
    file.readSync(header);
    file.close();
    return { path, target: runtimeTarget(header) };
  } catch {
    return { path, target: undefined };
  }
})();

Deno.test({
  name:
    "DENORT_BIN serves only its own target: that build uses it, is named and checksummed, and bakes in the start permissions",
  ignore: standIn.target === undefined,
  fn: async () => {
    const target = standIn.target!;
    const other = TARGETS.find((t) => t !== target)!;
    const out = await Deno.makeTempDir({ prefix: "tmux-mcp-release-" });
    try {
      // Downloads are impossible, so a build that succeeds took its runtime from DENORT_BIN.
      const env = { ...NO_DOWNLOAD, DENORT_BIN: standIn.path };
      const built = await release(["--target", target, "--out", out], env);
      assertEquals(built.code, 0, built.stderr);
      const name = artifactName(manifest.version, target);
      assertEquals(built.stdout.split("\n").filter(Boolean), [
        `built ${out}/${name} (${
          (Deno.statSync(`${out}/${name}`).size / 1e6).toFixed(1)
        } MB, runtime DENORT_BIN)`,
        `wrote ${out}/SHA256SUMS (1 file)`,
      ]);
      assertEquals([...Deno.readDirSync(out)].map((e) => e.name).sort(), ["SHA256SUMS", name]);

      // The README's check (`shasum -a 256 -c`, on Linux and macOS alike) accepts the file.
      const sums = await new Deno.Command("shasum", {
        args: ["-a", "256", "-c", "SHA256SUMS"],
        cwd: out,
        stdout: "piped",
      }).output();
      assertEquals(decoder.decode(sums.stdout), `${name}: OK\n`);
      assertMatch(
        Deno.readTextFileSync(`${out}/SHA256SUMS`),
        new RegExp(`^[0-9a-f]{64}  ${name}\n$`),
      );

      const { permissions } = embeddedMetadata(await Deno.readFile(`${out}/${name}`)) as {
        permissions: Record<string, unknown>;
      };
      const envList = (await startPermissions()).find((f) => f.startsWith("--allow-env="))!;
      assertEquals(permissions.allow_run, ["tmux"]);
      assertEquals(permissions.allow_env, envList.slice("--allow-env=".length).split(","));
      for (const kind of ["read", "write", "net", "ffi", "sys"]) {
        assertEquals(permissions[`allow_${kind}`], null, kind);
      }
      assertEquals(permissions.prompt, false);

      // The same DENORT_BIN is not used for another target: that one tries its own download.
      const refused = await release(["--target", other, "--out", out], env);
      assertEquals(refused.code, 1);
      assertEquals(refused.stderr.trimEnd().split("\n").length, 1, refused.stderr);
      assert(
        refused.stderr.includes(`cannot download the Deno runtime for ${other}`) &&
          refused.stderr.includes(`DENORT_BIN is a runtime for ${target}`),
        refused.stderr,
      );
    } finally {
      await Deno.remove(out, { recursive: true });
    }
  },
});

Deno.test("the release refuses Windows, unknown targets and a tag that is not the version", async () => {
  const windows = await release(["--target", "x86_64-pc-windows-msvc"]);
  assertEquals([windows.code, windows.stdout], [1, ""]);
  assertMatch(windows.stderr, /^release: there is no Windows build: tmux does not run on Windows/);
  const unknown = await release(["--target", "riscv64gc-unknown-linux-gnu"]);
  assertMatch(unknown.stderr, /^release: unknown target riscv64gc-unknown-linux-gnu; one of /);
  const tag = await release(["--tag", "v0.0.0-not-this", "--target", "host"]);
  assertEquals(tag.code, 1);
  assertEquals(
    tag.stderr.trim(),
    `release: tag v0.0.0-not-this does not name deno.json's version ${manifest.version}; ` +
      `tag v${manifest.version}, or bump deno.json first`,
  );
});

// ---- the smoke check release.yml runs on the native binary ----

/** An executable file standing in for a release binary. */
async function executable(dir: string, name: string, script: string): Promise<string> {
  const path = `${dir}/${name}`;
  await Deno.writeTextFile(path, `#!/bin/sh\n${script}\n`);
  await Deno.chmod(path, 0o755);
  return path;
}

const quote = (s: string) => `'${s.replaceAll("'", `'\\''`)}'`;

Deno.test("smoke passes a binary that serves MCP over stdio and leaves no tmux behind", async () => {
  const dir = await Deno.makeTempDir({ prefix: "tmux-mcp-release-" });
  try {
    // The checkout's server under the start permissions: what the native binary runs.
    const perms = (await startPermissions()).map(quote).join(" ");
    const bin = await executable(
      dir,
      "tmux-mcp",
      `exec ${quote(Deno.execPath())} run ${perms} ${quote(MAIN)} "$@"`,
    );
    const run = await release(["smoke", bin]);
    assertEquals(run.code, 0, run.stderr);
    assertMatch(
      run.stdout,
      new RegExp(
        `^smoke: ${bin} ${manifest.version} answered initialize, tools/list \\(\\d+ tools\\) and list_panes against a headless tmux\n$`,
      ),
    );
    const ps = await new Deno.Command("ps", { args: ["-eo", "args"] }).output();
    const marker = `tmux-mcp-smoke-${run.pid}-`;
    assert(!decoder.decode(ps.stdout).includes(marker), "the smoke's tmux server was killed");
    const tmp = Deno.env.get("TMPDIR") ?? "/tmp";
    assertEquals([...Deno.readDirSync(tmp)].filter((e) => e.name.startsWith(marker)), []);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("smoke fails, in one line, a binary with the wrong version or without the tools", async () => {
  const dir = await Deno.makeTempDir({ prefix: "tmux-mcp-release-" });
  try {
    const wrong = await executable(dir, "wrong-version", "echo 0.0.0-other");
    const run = await release(["smoke", wrong]);
    assertEquals([run.code, run.stdout], [1, ""]);
    assertEquals(
      run.stderr.trim(),
      `smoke: ${wrong} --version printed "0.0.0-other" (exit 0), expected "${manifest.version}"`,
    );

    const perms = (await startPermissions()).map(quote).join(" ");
    const empty = await executable(
      dir,
      "no-tools",
      `exec ${quote(Deno.execPath())} run ${perms} ${quote(MAIN)} "$@" --toolsets ""`,
    );
    const bare = await release(["smoke", empty]);
    assertEquals(bare.code, 1);
    assertEquals(bare.stderr.trimEnd().split("\n").length, 1, bare.stderr);
    assertMatch(bare.stderr, /^smoke: tools\/list lacks list_panes \(0 tools\)/);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

// ---- the JSR package ----

Deno.test("the JSR dry run ships main.ts, mod.ts, src/ without its unit tests, README.md, docs/ (the pages it links), LICENSE and deno.json only", async () => {
  const run = await new Deno.Command(Deno.execPath(), {
    // Types are checked by `deno task check`; the dry run still builds the graph and checks slow
    // types, and lists the files.
    args: ["publish", "--dry-run", "--allow-dirty", "--no-check"],
    cwd: ROOT,
    env: { NO_COLOR: "1" },
  }).output();
  const text = decoder.decode(run.stdout) + decoder.decode(run.stderr);
  assertEquals(run.code, 0, text);
  const shipped = [...text.matchAll(/^\s+file:\/\/(\S+) \(/gm)]
    .map((m) => m[1].slice(ROOT.length + 1))
    .sort();
  const sources: string[] = [];
  const walk = (dir: string) => {
    for (const entry of Deno.readDirSync(`${ROOT}/${dir}`)) {
      if (entry.isDirectory) walk(`${dir}/${entry.name}`);
      else if (!entry.name.endsWith("_test.ts")) sources.push(`${dir}/${entry.name}`);
    }
  };
  walk("src");
  walk("docs");
  assertEquals(
    shipped,
    ["LICENSE", "README.md", "deno.json", "main.ts", "mod.ts", ...sources].sort(),
  );
});

Deno.test("the published entry points main.ts and mod.ts pass deno doc --lint", async () => {
  const run = await new Deno.Command(Deno.execPath(), {
    args: ["doc", "--lint", "main.ts", "mod.ts"],
    cwd: ROOT,
    env: { NO_COLOR: "1" },
  }).output();
  assertEquals(run.code, 0, decoder.decode(run.stderr).slice(-2000));
});

// ---- the workflows ----

Deno.test("the workflows call tasks that exist, pin one Deno and build the minimum tmux", async () => {
  const ci = await Deno.readTextFile(`${ROOT}/.github/workflows/ci.yml`);
  const rel = await Deno.readTextFile(`${ROOT}/.github/workflows/release.yml`);
  const ciRun = await Deno.readTextFile(`${ROOT}/.ci/run`);
  const pinned = /npm install -g deno@(\d+\.\d+\.\d+)/.exec(ciRun)![1];
  for (const [name, text] of [["ci.yml", ci], ["release.yml", rel]]) {
    const versions = [...text.matchAll(/deno-version: (\S+)/g)].map((m) => m[1]);
    assert(versions.length > 0 && versions.every((v) => v === pinned), `${name}: ${versions}`);
    for (const [, task] of text.matchAll(/deno task ([a-z:]+)/g)) {
      assert(task in manifest.tasks, `${name} runs deno task ${task}, which deno.json lacks`);
    }
  }
  assert(ci.includes(".ci/run"), "ci.yml runs .ci/run");
  assert(/ubuntu-/.test(ci) && /macos-/.test(ci), "ci.yml runs on Linux and macOS");
  // The minimum is built from its release tarball (a package manager has one version per image).
  assertMatch(ci, new RegExp(`tmux: "${MIN_TMUX.major}\\.${MIN_TMUX.minor}[a-z]?"`));
  assert(ci.includes("github.com/tmux/tmux/releases/download/$TMUX_RELEASE/"), "tarball build");
  assert(rel.includes("deno task release --tag"), "release.yml checks the tag against the version");
  assert(rel.includes("deno task release smoke"), "release.yml smoke-tests the native binary");
  assert(
    /id-token: write/.test(rel) && /deno publish/.test(rel),
    "release.yml publishes with OIDC",
  );
});
