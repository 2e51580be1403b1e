/**
 * Release builds and the checks release.yml runs on them.
 *
 *   deno task release [--target T]... [--out DIR] [--tag vX.Y.Z]
 *       one `deno compile` per target (default: the four of TARGETS; `host` = this machine's),
 *       with exactly the start task's permissions and `--no-prompt` baked in, named
 *       tmux-mcp-<version>-<target>, plus SHA256SUMS. `--tag` refuses a tag other than
 *       v<deno.json version>.
 *   deno task release smoke BINARY
 *       `BINARY --version`, then initialize, tools/list and list_panes over stdio against a
 *       headless tmux on a private socket.
 *   deno task version [--check]
 *       write src/base/version.ts from deno.json's version (`--check`: exit 1 if they differ).
 *
 * A build applies these rules in this order:
 * 1. The target is one of TARGETS. Windows has no tmux, so there is no Windows build.
 * 2. `--tag`, when given, names deno.json's version.
 * 3. src/base/version.ts says deno.json's version, so `--version` and the file names agree (the
 *    published package holds no deno.json reader). A local build rewrites it; a tagged build
 *    refuses a stale one, since JSR publishes the committed file.
 * 4. `DENORT_BIN` (deno compile's own variable: a local runtime instead of the download) reaches
 *    only the build whose target its file header names; the other targets download their own.
 * 5. A runtime download that fails ends the release with one line: the next target would fail the
 *    same way (docs/design.md §8.5: this project's CI cannot reach dl.deno.land).
 * 6. SHA256SUMS is written once every target has built.
 */
import { parseArgs } from "node:util";

/** The targets a release builds: every platform tmux runs on that `deno compile` supports. */
export const TARGETS = [
  "x86_64-unknown-linux-gnu",
  "aarch64-unknown-linux-gnu",
  "x86_64-apple-darwin",
  "aarch64-apple-darwin",
] as const;

/** One release target. */
export type Target = typeof TARGETS[number];

const ROOT = new URL("..", import.meta.url).pathname.replace(/\/$/, "");
const MANIFEST = `${ROOT}/deno.json`;
const VERSION_MODULE = `${ROOT}/src/base/version.ts`;
const ENTRY = `${ROOT}/main.ts`;

/** The parts of deno.json a release reads. */
export interface Manifest {
  version: string;
  tasks: Record<string, string>;
}

/** deno.json as the release sees it. */
export async function readManifest(): Promise<Manifest> {
  return JSON.parse(await Deno.readTextFile(MANIFEST));
}

/** The file name of one target's binary. */
export function artifactName(version: string, target: Target): string {
  return `tmux-mcp-${version}-${target}`;
}

/**
 * The flags a binary is compiled with: the permission flags of the start task, nothing else of it
 * (`--quiet` is about deno's own output), plus `--no-prompt`, so a missing permission fails
 * instead of asking a terminal that an MCP client does not have.
 */
export function releaseFlags(startTask: string): string[] {
  const words = startTask.trim().split(/\s+/);
  const flags = words.filter((w) => /^--(allow|deny)-[a-z-]+(=|$)/.test(w));
  if (!flags.some((f) => f.startsWith("--allow-run="))) {
    throw new Error(`the start task has no scoped --allow-run: ${startTask.slice(0, 80)}`);
  }
  return [...flags, "--no-prompt"];
}

/** The text of src/base/version.ts for a version (what `deno fmt` leaves unchanged). */
export function versionModule(version: string): string {
  return [
    "// Generated from deno.json's version by `deno task version` (scripts/release.ts): edit",
    "// deno.json, not this file. A test checks that the two agree.",
    "",
    '/** This build\'s version, e.g. "0.1.0". */',
    `export const VERSION: string = ${JSON.stringify(version)};`,
    "",
  ].join("\n");
}

/** Whether src/base/version.ts is exactly what `deno task version` writes for `version`. */
async function versionModuleAgrees(version: string): Promise<boolean> {
  return await Deno.readTextFile(VERSION_MODULE).catch(() => "") === versionModule(version);
}

/** Rewrite src/base/version.ts when it does not say `version`; true when it was rewritten. */
export async function writeVersionModule(version: string): Promise<boolean> {
  if (await versionModuleAgrees(version)) return false;
  await Deno.writeTextFile(VERSION_MODULE, versionModule(version));
  return true;
}

/**
 * The release target a runtime binary was built for, read from its header: ELF (Linux) or 64-bit
 * Mach-O (macOS), x86-64 or arm64. Undefined for anything else (a universal Mach-O, Windows PE, a
 * script), which then serves no target.
 */
export function runtimeTarget(header: Uint8Array): Target | undefined {
  const view = new DataView(header.buffer, header.byteOffset, header.byteLength);
  if (header.length >= 20 && view.getUint32(0) === 0x7f454c46) {
    // 64-bit, little-endian ELF; e_machine at byte 18.
    if (header[4] !== 2 || header[5] !== 1) return undefined;
    const machine = view.getUint16(18, true);
    if (machine === 0x3e) return "x86_64-unknown-linux-gnu";
    if (machine === 0xb7) return "aarch64-unknown-linux-gnu";
    return undefined;
  }
  if (header.length >= 8 && view.getUint32(0, true) === 0xfeedfacf) {
    const cpu = view.getUint32(4, true);
    if (cpu === 0x01000007) return "x86_64-apple-darwin";
    if (cpu === 0x0100000c) return "aarch64-apple-darwin";
  }
  return undefined;
}

async function readHeader(path: string): Promise<Uint8Array> {
  using file = await Deno.open(path);
  const buffer = new Uint8Array(64);
  const n = await file.read(buffer);
  return buffer.subarray(0, n ?? 0);
}

/** `SHA256SUMS` for files (base names), in the format `sha256sum -c` and `shasum -c` read. */
export async function checksums(dir: string, names: string[]): Promise<string> {
  const lines = [];
  for (const name of [...names].sort()) {
    const digest = await crypto.subtle.digest("SHA-256", await Deno.readFile(`${dir}/${name}`));
    const hex = Array.from(new Uint8Array(digest), (b) => b.toString(16).padStart(2, "0")).join("");
    lines.push(`${hex}  ${name}\n`);
  }
  return lines.join("");
}

/** A failure that ends the script with one line on stderr. */
export class ReleaseError extends Error {}

const ANSI = new RegExp(String.fromCharCode(27) + "\\[[0-9;]*m", "g");

/**
 * The one line for a compile that could not fetch its runtime, or undefined when deno failed for
 * another reason. deno says "Setting up base binary" and names the denort URL with the cause
 * chain below it, the last link being the most specific ("Connection refused", "dns error…").
 */
export function downloadFailure(stderr: string, target: Target): string | undefined {
  const text = stderr.replace(ANSI, "");
  if (!/Setting up base binary|dl\.deno\.land/.test(text)) return undefined;
  const url = /https:\/\/dl\.deno\.land\/\S+?\.zip/.exec(text)?.[0] ?? "dl.deno.land";
  const chain = text.split("Caused by:")[1]?.split("Stack backtrace")[0] ?? "";
  const causes = [...chain.matchAll(/^\s*\d+: (.+)$/gm)].map((m) => m[1].trim());
  const cause = causes.at(-1) ?? "download failed";
  return `release: cannot download the Deno runtime for ${target} (${url}): ${cause}. ` +
    `Build where that download is reachable, or set DENORT_BIN to a denort binary for ${target}.`;
}

/** The environment of one target's `deno compile`: DENORT_BIN only for its own target. */
export async function compileEnv(
  env: Record<string, string>,
  target: Target,
): Promise<{ env: Record<string, string>; note?: string }> {
  const runtime = env.DENORT_BIN;
  if (!runtime) return { env };
  let header: Uint8Array;
  try {
    header = await readHeader(runtime);
  } catch (error) {
    throw new ReleaseError(`release: DENORT_BIN cannot be read: ${(error as Error).message}`);
  }
  const serves = runtimeTarget(header);
  if (serves === target) return { env };
  const rest = { ...env };
  delete rest.DENORT_BIN;
  return { env: rest, note: `DENORT_BIN is a runtime for ${serves ?? "no release target"}` };
}

async function compile(target: Target, out: string, name: string, flags: string[]) {
  const { env, note } = await compileEnv(Deno.env.toObject(), target);
  const result = await new Deno.Command(Deno.execPath(), {
    args: [
      "compile",
      "--quiet",
      "--frozen",
      ...flags,
      "--target",
      target,
      "--output",
      `${out}/${name}`,
      ENTRY,
    ],
    cwd: ROOT,
    clearEnv: true,
    env,
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).output();
  if (result.success) {
    const { size } = await Deno.stat(`${out}/${name}`);
    const source = note
      ? `, runtime downloaded: ${note}`
      : env.DENORT_BIN
      ? ", runtime DENORT_BIN"
      : "";
    console.log(`built ${out}/${name} (${(size / 1e6).toFixed(1)} MB${source})`);
    return;
  }
  const stderr = new TextDecoder().decode(result.stderr);
  const line = downloadFailure(stderr, target);
  if (line) throw new ReleaseError(note ? `${line} (${note}.)` : line);
  throw new ReleaseError(
    `release: deno compile failed for ${target}:\n${stderr.replace(ANSI, "").trim()}`,
  );
}

function chooseTargets(asked: string[]): Target[] {
  if (asked.length === 0) return [...TARGETS];
  return asked.map((t) => {
    const name = t === "host" ? Deno.build.target : t;
    if ((TARGETS as readonly string[]).includes(name)) return name as Target;
    if (name.includes("windows")) {
      throw new ReleaseError(
        "release: there is no Windows build: tmux does not run on Windows (under WSL, use a Linux binary)",
      );
    }
    throw new ReleaseError(
      `release: unknown target ${name.slice(0, 60)}; one of ${TARGETS.join(", ")}`,
    );
  });
}

async function build(args: string[]): Promise<void> {
  let values;
  try {
    ({ values } = parseArgs({
      args,
      options: {
        target: { type: "string", multiple: true },
        out: { type: "string" },
        tag: { type: "string" },
      },
    }));
  } catch (error) {
    throw new ReleaseError(`release: ${(error as Error).message}`);
  }
  const targets = chooseTargets(values.target ?? []);
  const manifest = await readManifest();
  if (values.tag !== undefined && values.tag !== `v${manifest.version}`) {
    throw new ReleaseError(
      `release: tag ${values.tag.slice(0, 40)} does not name deno.json's version ` +
        `${manifest.version}; tag v${manifest.version}, or bump deno.json first`,
    );
  }
  if (values.tag !== undefined) {
    if (!await versionModuleAgrees(manifest.version)) {
      throw new ReleaseError(
        `release: src/base/version.ts does not say ${manifest.version}; run deno task version and commit`,
      );
    }
  } else if (await writeVersionModule(manifest.version)) {
    console.log(`src/base/version.ts now says ${manifest.version}`);
  }
  // Absolute, because deno compile runs in the checkout and this script may not.
  const out = values.out === undefined
    ? `${ROOT}/dist/release`
    : values.out.startsWith("/")
    ? values.out
    : `${Deno.cwd()}/${values.out}`;
  await Deno.mkdir(out, { recursive: true });
  const flags = releaseFlags(manifest.tasks.start);
  const names = [];
  for (const target of targets) {
    const name = artifactName(manifest.version, target);
    await compile(target, out, name, flags);
    names.push(name);
  }
  await Deno.writeTextFile(`${out}/SHA256SUMS`, await checksums(out, names));
  console.log(`wrote ${out}/SHA256SUMS (${names.length} ${names.length === 1 ? "file" : "files"})`);
}

// ---- smoke: what release.yml checks on the native binary ----

/** Environment for processes the smoke test starts: nothing that points at another tmux server. */
function isolatedEnv(): Record<string, string> {
  const env = Deno.env.toObject();
  for (const key of Object.keys(env)) {
    if (key === "TMUX" || key === "TMUX_PANE" || /^(TMUX_MCP_|LIBTMUX_)/.test(key)) {
      delete env[key];
    }
  }
  return env;
}

async function tmux(socket: string, args: string[]): Promise<void> {
  const result = await new Deno.Command("tmux", {
    args: ["-S", socket, "-f", "/dev/null", ...args],
    clearEnv: true,
    env: isolatedEnv(),
    stdin: "null",
    stdout: "null",
    stderr: "piped",
  }).output();
  if (!result.success) {
    const reason = new TextDecoder().decode(result.stderr).trim().split("\n")[0];
    throw new ReleaseError(`smoke: tmux ${args[0]} failed: ${reason}`);
  }
}

/** JSON-RPC over a child's stdio: one request at a time, replies matched by id. */
class Session {
  readonly #child: Deno.ChildProcess;
  readonly #writer: WritableStreamDefaultWriter<Uint8Array>;
  readonly #replies = new Map<number, Record<string, unknown>>();
  #buffer = "";
  #wake: (() => void) | undefined;
  #closed = false;
  #failure: string | undefined;
  /** What the server printed on stderr so far. */
  stderr = "";
  readonly done: Promise<void>;

  constructor(child: Deno.ChildProcess) {
    this.#child = child;
    this.#writer = child.stdin.getWriter();
    this.done = Promise.all([this.#read(), this.#readStderr()]).then(() => {});
  }

  async #read(): Promise<void> {
    const decoder = new TextDecoder();
    for await (const chunk of this.#child.stdout) {
      this.#buffer += decoder.decode(chunk, { stream: true });
      let nl;
      while ((nl = this.#buffer.indexOf("\n")) >= 0) {
        const line = this.#buffer.slice(0, nl);
        this.#buffer = this.#buffer.slice(nl + 1);
        try {
          const message = JSON.parse(line);
          if (typeof message.id === "number") this.#replies.set(message.id, message);
        } catch {
          // stdout is for MCP only; anything else there breaks a real client
          this.#failure ??= `smoke: stdout carried a line that is not JSON: ${line.slice(0, 60)}`;
        }
        this.#wake?.();
      }
    }
    this.#closed = true;
    this.#wake?.();
  }

  async #readStderr(): Promise<void> {
    const decoder = new TextDecoder();
    for await (const chunk of this.#child.stderr) this.stderr += decoder.decode(chunk);
  }

  async notify(method: string, params: Record<string, unknown> = {}): Promise<void> {
    const line = JSON.stringify({ jsonrpc: "2.0", method, params }) + "\n";
    await this.#writer.write(new TextEncoder().encode(line));
  }

  async request(id: number, method: string, params: Record<string, unknown> = {}) {
    const line = JSON.stringify({ jsonrpc: "2.0", id, method, params }) + "\n";
    await this.#writer.write(new TextEncoder().encode(line));
    while (!this.#replies.has(id)) {
      if (this.#failure) throw new ReleaseError(this.#failure);
      if (this.#closed) {
        throw new ReleaseError(`smoke: the server exited before answering ${method}`);
      }
      await new Promise<void>((resolve) => this.#wake = resolve);
    }
    const reply = this.#replies.get(id)!;
    if (reply.error) {
      throw new ReleaseError(
        `smoke: ${method} failed: ${JSON.stringify(reply.error).slice(0, 200)}`,
      );
    }
    return reply.result as Record<string, unknown>;
  }

  async end(): Promise<void> {
    await this.#writer.close().catch(() => {});
  }
}

/** What the smoke test checks on a binary; the summary line on success. */
export async function smoke(binary: string, version: string): Promise<string> {
  const deadline = AbortSignal.timeout(20_000);
  let printed: Deno.CommandOutput;
  try {
    printed = await new Deno.Command(binary, {
      args: ["--version"],
      clearEnv: true,
      env: isolatedEnv(),
      stdin: "null",
      stdout: "piped",
      stderr: "piped",
      signal: deadline,
    }).output();
  } catch (error) {
    throw new ReleaseError(`smoke: cannot run ${binary}: ${(error as Error).message}`);
  }
  const said = new TextDecoder().decode(printed.stdout).trim();
  if (!printed.success || said !== version) {
    throw new ReleaseError(
      `smoke: ${binary} --version printed "${
        said.split("\n")[0].slice(0, 40)
      }" (exit ${printed.code}), ` +
        `expected "${version}"`,
    );
  }

  const dir = await Deno.makeTempDir({ prefix: `tmux-mcp-smoke-${Deno.pid}-` });
  const socket = `${dir}/tmux.sock`;
  let session: Session | undefined;
  let child: Deno.ChildProcess | undefined;
  try {
    await tmux(socket, ["new-session", "-d", "-s", "smoke", "-x", "80", "-y", "24", "sleep 600"]);
    child = new Deno.Command(binary, {
      args: ["-S", socket],
      clearEnv: true,
      env: isolatedEnv(),
      stdin: "piped",
      stdout: "piped",
      stderr: "piped",
      signal: deadline,
    }).spawn();
    session = new Session(child);
    const init = await session.request(1, "initialize", {
      protocolVersion: "2025-06-18",
      capabilities: {},
      clientInfo: { name: "tmux-mcp-smoke", version },
    });
    const info = init.serverInfo as { name?: string; version?: string } | undefined;
    if (info?.version !== version) {
      throw new ReleaseError(
        `smoke: initialize named version ${info?.version}, expected ${version}`,
      );
    }
    await session.notify("notifications/initialized");
    const listed = await session.request(2, "tools/list");
    const names = (listed.tools as Array<{ name: string }>).map((t) => t.name);
    // list_panes: in the default (core) preset, which the binary serves without options.
    if (!names.includes("list_panes")) {
      throw new ReleaseError(`smoke: tools/list lacks list_panes (${names.length} tools)`);
    }
    const called = await session.request(3, "tools/call", { name: "list_panes", arguments: {} });
    const sessions = (called.structuredContent as { panes?: Array<{ sessionName: string }> })
      ?.panes?.map((s) => s.sessionName);
    if (called.isError || !sessions?.includes("smoke")) {
      throw new ReleaseError(
        `smoke: list_panes did not see the headless session: ${
          JSON.stringify(called).slice(0, 200)
        }`,
      );
    }
    await session.end();
    const status = await child.status;
    if (!status.success) throw new ReleaseError(`smoke: the server exited ${status.code} at EOF`);
    return `smoke: ${binary} ${version} answered initialize, tools/list (${names.length} tools) ` +
      "and list_panes against a headless tmux";
  } catch (error) {
    if (deadline.aborted) throw new ReleaseError("smoke: no answer within 20 s");
    const tail = session?.stderr.trim().split("\n").at(-1);
    if (error instanceof ReleaseError && tail) {
      throw new ReleaseError(`${error.message} (server stderr: ${tail.slice(0, 200)})`);
    }
    throw error;
  } finally {
    try {
      child?.kill();
    } catch {
      // already gone
    }
    await session?.done.catch(() => {});
    await tmux(socket, ["kill-server"]).catch(() => {});
    await Deno.remove(dir, { recursive: true }).catch(() => {});
  }
}

async function version(args: string[]): Promise<void> {
  const { version } = await readManifest();
  if (args.includes("--check")) {
    if (!await versionModuleAgrees(version)) {
      throw new ReleaseError(
        `version: src/base/version.ts does not say ${version}; run deno task version`,
      );
    }
    return;
  }
  if (await writeVersionModule(version)) console.log(`src/base/version.ts now says ${version}`);
}

async function run(args: string[]): Promise<void> {
  if (args[0] === "version") return await version(args.slice(1));
  if (args[0] === "smoke") {
    if (!args[1]) throw new ReleaseError("smoke: name the binary to check");
    console.log(await smoke(args[1], (await readManifest()).version));
    return;
  }
  await build(args);
}

if (import.meta.main) {
  try {
    await run(Deno.args);
  } catch (error) {
    if (!(error instanceof ReleaseError)) throw error;
    console.error(error.message);
    Deno.exit(1);
  }
}
