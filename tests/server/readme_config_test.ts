/**
 * The README's client configurations work as written: every JSON and TOML block parses, and every
 * command line in them starts the server with exactly the permissions of `deno task start` (the
 * binary has them built in, see release_test.ts; the npm package's launcher passes them, see
 * npm_package_test.ts). The checkout lines are started for real against a private tmux; the JSR
 * and binary lines cannot run here (no JSR, no release download), and the npm lines name a package
 * that npm_package_test.ts builds, installs and starts through npx.
 */
// @ts-types="npm:@modelcontextprotocol/sdk@^1.32.2/client/stdio"
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { Client } from "@modelcontextprotocol/sdk/client";
import { assert, assertEquals, assertThrows } from "../support/assert.ts";
import { ok, startPermissions } from "../support/client.ts";
import { cleanEnv, TmuxFixture } from "../support/fixture.ts";
import { parseConfig } from "../../src/config.ts";
import { SURFACE } from "../../src/catalog.ts";
import { userDocs } from "../support/docs.ts";

const ROOT = new URL("../..", import.meta.url).pathname.replace(/\/$/, "");
const readme = await Deno.readTextFile(`${ROOT}/README.md`);
/** The install page the README links: its blocks count as the README's Install section. */
const installPage = await Deno.readTextFile(`${ROOT}/docs/install.md`);
/** README.md and the docs/ pages it links: pins and package names are checked wherever they are. */
const userText = (await userDocs()).map((d) => d.text).join("\n");
const manifest = JSON.parse(await Deno.readTextFile(`${ROOT}/deno.json`));
/** The Deno that .ci/run installs: every `deno@…` in the README pins the same. */
const PINNED = /npm install -g deno@(\d+\.\d+\.\d+)/.exec(
  await Deno.readTextFile(`${ROOT}/.ci/run`),
)![1];
const PACKAGE = `jsr:${manifest.name}@${manifest.version}`;
/** The npm package, pinned: the same name and version as JSR's (npm_package_test.ts checks). */
const NPM_PACKAGE = `${manifest.name}@${manifest.version}`;
const PERMISSIONS = (await startPermissions()).filter((f) => /^--(allow|deny)-/.test(f));
/** What a line with `--ssh` runs with instead: exactly `deno task start:ssh`'s. */
const SSH_PERMISSIONS = (await startPermissions("start:ssh")).filter((f) =>
  /^--(allow|deny)-/.test(f)
);
/** deno flags a launch line may carry besides the permissions: none of them grants anything. */
const HARMLESS = new Set(["--quiet", "--no-prompt", "--no-config"]);

// ---- reading the README ----

interface Fence {
  lang: string;
  body: string;
  /** The `##` section the block sits in. */
  section: string;
}

function fences(markdown: string): Fence[] {
  const out: Fence[] = [];
  let section = "";
  const lines = markdown.split("\n");
  for (let i = 0; i < lines.length; i++) {
    if (lines[i].startsWith("## ")) section = lines[i].slice(3).trim();
    const open = /^```(\w*)\s*$/.exec(lines[i]);
    if (!open) continue;
    const body: string[] = [];
    for (i++; i < lines.length && !lines[i].startsWith("```"); i++) body.push(lines[i]);
    out.push({ lang: open[1], body: body.join("\n"), section });
  }
  return out;
}

/**
 * The subset of TOML the README uses: `[dotted.table]` headers, `key = value` with basic and
 * literal strings, integers, booleans, arrays (across lines, trailing comma allowed) and inline
 * tables, and comments. Anything else is a SyntaxError, as are duplicate keys and tables.
 */
export function parseToml(text: string): Record<string, unknown> {
  const root: Record<string, unknown> = {};
  const defined = new Set<string>();
  let table = root;
  let i = 0;
  const fail = (why: string): never => {
    const line = text.slice(0, i).split("\n").length;
    throw new SyntaxError(`TOML line ${line}: ${why}`);
  };
  const skipSpace = () => {
    while (text[i] === " " || text[i] === "\t") i++;
  };
  const skipAll = () => {
    for (;;) {
      skipSpace();
      if (text[i] === "#") { while (i < text.length && text[i] !== "\n") i++; }
      else if (text[i] === "\n" || text[i] === "\r") i++;
      else return;
    }
  };
  const basicString = (): string => {
    let s = "";
    for (i++; text[i] !== '"'; i++) {
      if (i >= text.length || text[i] === "\n") fail("unterminated string");
      if (text[i] !== "\\") {
        s += text[i];
        continue;
      }
      const e = text[++i];
      const simple: Record<string, string> = { '"': '"', "\\": "\\", n: "\n", t: "\t", r: "\r" };
      if (e in simple) s += simple[e];
      else if (e === "u" && /^[0-9a-fA-F]{4}$/.test(text.slice(i + 1, i + 5))) {
        s += String.fromCharCode(parseInt(text.slice(i + 1, i + 5), 16));
        i += 4;
      } else fail(`unknown escape \\${e}`);
    }
    i++;
    return s;
  };
  const literalString = (): string => {
    const end = text.indexOf("'", i + 1);
    if (end < 0 || text.slice(i, end).includes("\n")) fail("unterminated string");
    const s = text.slice(i + 1, end);
    i = end + 1;
    return s;
  };
  const key = (): string[] => {
    const parts: string[] = [];
    for (;;) {
      skipSpace();
      if (text[i] === '"') parts.push(basicString());
      else {
        const bare = /^[A-Za-z0-9_-]+/.exec(text.slice(i));
        if (!bare) fail("expected a key");
        parts.push(bare![0]);
        i += bare![0].length;
      }
      skipSpace();
      if (text[i] !== ".") return parts;
      i++;
    }
  };
  const assign = (target: Record<string, unknown>, path: string[], value: unknown) => {
    let at = target;
    for (const part of path.slice(0, -1)) {
      at[part] ??= {};
      if (typeof at[part] !== "object" || Array.isArray(at[part])) fail(`${part} is not a table`);
      at = at[part] as Record<string, unknown>;
    }
    const last = path[path.length - 1];
    if (last in at) fail(`duplicate key ${path.join(".")}`);
    at[last] = value;
  };
  const value = (): unknown => {
    skipSpace();
    const c = text[i];
    if (c === '"') return basicString();
    if (c === "'") return literalString();
    if (c === "[") {
      const items: unknown[] = [];
      i++;
      for (;;) {
        skipAll();
        if (text[i] === "]") break;
        items.push(value());
        skipAll();
        if (text[i] === ",") i++;
        else if (text[i] !== "]") fail("expected , or ] in an array");
      }
      i++;
      return items;
    }
    if (c === "{") {
      const inline: Record<string, unknown> = {};
      i++;
      skipSpace();
      if (text[i] === "}") {
        i++;
        return inline;
      }
      for (;;) {
        const path = key();
        if (text[i] !== "=") fail("expected = in an inline table");
        i++;
        assign(inline, path, value());
        skipSpace();
        if (text[i] === "}") break;
        if (text[i] !== ",") fail("expected , or } in an inline table");
        i++;
      }
      i++;
      return inline;
    }
    const word = /^(true|false|[+-]?\d[\d_]*)(?=[\s,\]}#]|$)/.exec(text.slice(i));
    if (!word) return fail("expected a value");
    i += word[0].length;
    return word[0] === "true"
      ? true
      : word[0] === "false"
      ? false
      : Number(word[0].replaceAll("_", ""));
  };
  const endOfLine = () => {
    skipSpace();
    if (text[i] === "#") { while (i < text.length && text[i] !== "\n") i++; }
    if (i < text.length && text[i] !== "\n" && text[i] !== "\r") {
      fail("expected the end of the line");
    }
  };
  for (;;) {
    skipAll();
    if (i >= text.length) return root;
    if (text[i] === "[") {
      i++;
      if (text[i] === "[") fail("arrays of tables are not in the subset");
      const path = key();
      if (text[i] !== "]") fail("expected ]");
      i++;
      const name = path.join(".");
      if (defined.has(name)) fail(`table ${name} defined twice`);
      defined.add(name);
      table = root;
      for (const part of path) {
        table[part] ??= {};
        if (typeof table[part] !== "object" || Array.isArray(table[part])) {
          fail(`${part} is a value`);
        }
        table = table[part] as Record<string, unknown>;
      }
    } else {
      const path = key();
      if (text[i] !== "=") fail("expected =");
      i++;
      assign(table, path, value());
    }
    endOfLine();
  }
}

/** Shell text as logical lines: a backslash before the newline continues the line. */
function logicalLines(text: string): string[] {
  return text.replaceAll("\\\n", " ").split("\n").map((l) => l.trim()).filter(Boolean);
}

/**
 * Split one shell line into words as sh and zsh would: quotes group, `#` starts a comment. An
 * unquoted glob character (zsh stops with "no matches found") and any expansion or operator are
 * refused: a line copied from the README must mean exactly what it shows.
 */
export function shellWords(line: string): string[] {
  const words: string[] = [];
  let word: string | undefined;
  for (let i = 0; i < line.length; i++) {
    const c = line[i];
    if (c === " " || c === "\t") {
      if (word !== undefined) words.push(word);
      word = undefined;
    } else if (c === "#" && word === undefined) break;
    else if (c === "'") {
      const end = line.indexOf("'", i + 1);
      if (end < 0) throw new SyntaxError("unterminated single quote");
      word = (word ?? "") + line.slice(i + 1, end);
      i = end;
    } else if (c === '"') {
      let s = "";
      for (i++; line[i] !== '"'; i++) {
        if (i >= line.length) throw new SyntaxError("unterminated double quote");
        if (line[i] === "$" || line[i] === "`") throw new SyntaxError("expansion in double quotes");
        if (line[i] === "\\" && '"\\$`'.includes(line[i + 1])) i++;
        s += line[i];
      }
      word = (word ?? "") + s;
    } else if ("*?[".includes(c)) throw new SyntaxError(`unquoted glob character ${c}`);
    else if ("$`;&|<>(){}\\".includes(c)) throw new SyntaxError(`unquoted shell syntax ${c}`);
    else word = (word ?? "") + c;
  }
  if (word !== undefined) words.push(word);
  return words;
}

// ---- what a launch line must say ----

type Way = "npm" | "binary" | "jsr" | "checkout";

/** Check one client's command and args; the way it installs tmux-mcp. */
function launch(command: string, args: string[], where: string, kind = "run"): Way {
  if (command === "npx") {
    // The npm package: its launcher holds the permissions; only server options follow it.
    assertEquals(args.slice(0, 2), ["-y", NPM_PACKAGE], `${where}: npx runs the pinned package`);
    assert(!args.some((a) => a.startsWith("--allow")), `${where}: the launcher has them`);
    serverOptions(args.slice(2), where, kind);
    return "npm";
  }
  if (command === "deno") return denoRun(args, where, kind);
  assert(command.endsWith("/tmux-mcp"), `${where}: unknown command ${command}`);
  assert(!args.some((a) => a.startsWith("--allow")), `${where}: the binary has its permissions`);
  serverOptions(args, where, kind);
  return "binary";
}

function denoRun(args: string[], where: string, kind: string): "jsr" | "checkout" {
  assertEquals(args[0], "run", where);
  const at = args.findIndex((a, i) => i > 0 && !a.startsWith("-"));
  assert(at > 0, `${where}: no entry point`);
  const flags = args.slice(1, at);
  const ssh = args.slice(at + 1).some((a) => a === "--ssh" || a.startsWith("--ssh="));
  assertEquals(
    flags.filter((f) => /^--(allow|deny)-/.test(f)),
    ssh ? SSH_PERMISSIONS : PERMISSIONS,
    where,
  );
  for (const flag of flags.filter((f) => !/^--(allow|deny)-/.test(f))) {
    assert(HARMLESS.has(flag), `${where}: unexpected deno flag ${flag}`);
  }
  serverOptions(args.slice(at + 1), where, kind);
  if (args[at] === PACKAGE) return "jsr";
  assertEquals(args[at], "/path/to/tmux-mcp/main.ts", `${where}: entry point`);
  return "checkout";
}

/** Options after the entry point: a client's must serve (`run`); a shell line may ask --version. */
function serverOptions(args: string[], where: string, kind: string): void {
  const outcome = parseConfig(args, () => undefined, SURFACE);
  assertEquals(outcome.kind, kind, `${where}: server options ${args.join(" ")}`);
}

interface Server {
  way: Way;
  client: string;
  command: string;
  args: string[];
  env: Record<string, string>;
  section: string;
}

/** Every server the README configures, with the client format it was written for. */
function servers(): Server[] {
  const found: Server[] = [];
  const blocks = [
    ...fences(readme).map((fence, n) => ({ fence, where: `README block ${n + 1}` })),
    ...fences(installPage).map((fence, n) => ({
      fence: { ...fence, section: "Install" },
      where: `docs/install.md block ${n + 1}`,
    })),
  ];
  for (const { fence, where: at } of blocks) {
    const where = `${at} (${fence.lang}, ${fence.section})`;
    if (fence.lang === "json") {
      // A block may show a fragment of a server entry (`"args": [...]`): parsed inside braces.
      const text = fence.body.trim();
      const doc = JSON.parse(text.startsWith("{") ? text : `{${text}}`);
      if (Array.isArray(doc.args) && !doc.mcpServers && !doc.servers) {
        const command = doc.command ?? (doc.args[0] === "-y" ? "npx" : "deno");
        const way = launch(command, doc.args, `${where}: fragment`);
        found.push({
          way,
          client: "fragment",
          command,
          args: doc.args,
          env: {},
          section: fence.section,
        });
      }
      for (const [key, client] of [["mcpServers", "desktop"], ["servers", "vscode"]] as const) {
        for (const [name, entry] of Object.entries(doc[key] ?? {})) {
          const { command, args, env = {}, type } = entry as {
            command: string;
            args: string[];
            env?: Record<string, string>;
            type?: string;
          };
          if (client === "vscode") assertEquals(type, "stdio", `${where}: ${name}`);
          assert(Array.isArray(args) && (args as unknown[]).every((a) => typeof a === "string"));
          const way = launch(command, args, `${where}: ${name}`);
          found.push({ way, client, command, args, env, section: fence.section });
        }
      }
    } else if (fence.lang === "toml") {
      const doc = parseToml(fence.body) as {
        mcp_servers?: Record<string, { command: string; args: string[]; env_vars?: string[] }>;
      };
      for (const [name, entry] of Object.entries(doc.mcp_servers ?? {})) {
        const way = launch(entry.command, entry.args, `${where}: ${name}`);
        found.push({
          way,
          client: "codex",
          command: entry.command,
          args: entry.args,
          env: { env_vars: (entry.env_vars ?? []).join(",") },
          section: fence.section,
        });
      }
    } else if (fence.lang === "sh" && fence.section === "Install") {
      // Shell lines of the Install section (the other sections' lines are not checked here).
      for (const line of logicalLines(fence.body)) {
        if (!/^(claude mcp add|deno run|npx -y )/.test(line)) continue;
        const words = shellWords(line);
        if (line.startsWith("claude mcp add")) {
          const dash = words.indexOf("--");
          const way = launch(words[dash + 1], words.slice(dash + 2), `${where}: ${line}`);
          found.push({
            way,
            client: "claude-code",
            command: words[dash + 1],
            args: words.slice(dash + 2),
            env: {},
            section: fence.section,
          });
        } else {
          // A line run by hand asks --version or --check.
          const kind = words.includes("--check") ? "check" : "version";
          launch(words[0], words.slice(1), `${where}: ${line}`, kind);
        }
      }
    }
  }
  return found;
}

// ---- tests ----

const SOCKET_OPTIONS = new Set(["--socket-name", "-L", "--socket-path", "-S"]);
/** Options that would reach beyond the fixture (a remote host): dropped, with their value. */
const AWAY_OPTIONS = new Set([...SOCKET_OPTIONS, "--ssh"]);

Deno.test("the TOML and shell readers refuse what they cannot read", () => {
  assertEquals(parseToml('[a.b]\nc = "x" # note\nd = [\n  "1",\n  "2",\n]\ne = { F = "g" }\n'), {
    a: { b: { c: "x", d: ["1", "2"], e: { F: "g" } } },
  });
  assertThrows(() => parseToml('a = "open\n'), SyntaxError, "unterminated");
  assertThrows(() => parseToml("a = 1\na = 2\n"), SyntaxError, "duplicate");
  assertThrows(() => parseToml('a = ["x" "y"]\n'), SyntaxError, "expected , or ]");
  assertThrows(() => parseToml("a = b\n"), SyntaxError, "expected a value");
  assertThrows(() => parseToml("[t]\n[t]\n"), SyntaxError, "twice");
  assertEquals(logicalLines("a 'b c' \\\n  d # e\nf").map(shellWords), [["a", "b c", "d"], ["f"]]);
  assertThrows(() => shellWords("deno run --allow-env=A_* x"), SyntaxError, "glob");
  assertThrows(() => shellWords("echo $HOME"), SyntaxError, "shell syntax");
  assertThrows(() => shellWords('echo "$HOME"'), SyntaxError, "expansion");
});

Deno.test("every README config block parses and starts the server with the start permissions", () => {
  const found = servers();
  assert(found.length > 0);
  const install = found.filter((s) => s.section === "Install");
  assert(
    found.some((s) => s.section === "Remote hosts" && s.args.includes("--ssh")),
    "Remote hosts shows a client configuration",
  );
  const covered = new Set(install.map((s) => `${s.way}/${s.client}`));
  for (const way of ["npm", "binary", "jsr", "checkout"]) {
    for (const client of ["desktop", "vscode", "claude-code", "codex"]) {
      assert(covered.has(`${way}/${client}`), `Install shows ${way} for ${client}`);
    }
  }
  for (const s of install) {
    const where = `${s.way} for ${s.client}`;
    if (s.way === "jsr" || s.way === "checkout") assert(s.args.includes("--quiet"), where);
    if (s.way === "jsr") assert(s.args.includes("--no-config"), where);
    if (s.client === "desktop" || s.client === "vscode") {
      // macOS GUI apps do not inherit the shell's PATH: tmux (and deno, npx) must be findable.
      const path = s.env.PATH?.split(":") ?? [];
      assert(path.includes("/opt/homebrew/bin") && path.includes("/usr/local/bin"), where);
    }
    if (s.client === "codex") {
      assertEquals(s.env.env_vars, "TMUX,TMUX_PANE,TMUX_TMPDIR", `${where}: env_vars`);
    }
  }
});

Deno.test("README versions agree: the package, the binary and every pinned Deno", () => {
  for (const [, version] of userText.matchAll(/\bdeno@(\d+\.\d+\.\d+)/g)) {
    assertEquals(version, PINNED);
  }
  const packages = [...userText.matchAll(/jsr:(@[\w-]+\/[\w-]+)@([\w.-]+)/g)];
  assert(packages.length > 0);
  for (const [, name, version] of packages) {
    assertEquals([name, version], [manifest.name, manifest.version]);
  }
  const npm = [...readme.matchAll(/npx -y (@[\w-]+\/[\w-]+)@([\w.-]+)/g)];
  assert(npm.length > 0, "the README shows the npm package");
  for (const [, name, version] of npm) {
    assertEquals([name, version], [manifest.name, manifest.version]);
  }
  assertEquals(/^v=(\S+)$/m.exec(userText)?.[1], manifest.version, "the binary download names v");
  assert(userText.includes("/releases/download/v$v"), "the download names the tag v<version>");
  assert(userText.includes("tmux-mcp-$v-$t") && userText.includes("SHA256SUMS"));
});

Deno.test("each README checkout line, as written, serves MCP to a client against a private tmux", async () => {
  await using fx = await TmuxFixture.start({ session: "readme" });
  const lines = new Map<string, Server>();
  for (const s of servers().filter((s) => s.way === "checkout")) {
    lines.set(JSON.stringify([s.args, s.env.PATH ?? null]), s);
  }
  assert(lines.size > 0);
  for (const s of lines.values()) {
    // The line's own socket option (if any) gives way to the fixture's; a remote host is not
    // contacted (its line keeps the permissions --ssh needs).
    const args = s.args.map((a) => a.replace("/path/to/tmux-mcp", ROOT))
      .filter((a, i, all) => !AWAY_OPTIONS.has(a) && !AWAY_OPTIONS.has(all[i - 1]));
    const transport = new StdioClientTransport({
      command: Deno.execPath(),
      args: [...args, "-S", fx.socket],
      env: cleanEnv({ NO_COLOR: "1", ...(s.env.PATH ? { PATH: s.env.PATH } : {}) }),
      stderr: "pipe",
    });
    const client = new Client({ name: "readme-check", version: "1" });
    await client.connect(transport);
    try {
      await client.listTools();
      // list_panes: a tool of the default (core) preset, which these lines serve.
      const { panes } = await ok<{ panes: Array<{ sessionName: string }> }>(client, "list_panes");
      assertEquals(panes.map((x) => x.sessionName), ["readme"], args.join(" "));
    } finally {
      await client.close();
    }
  }
});
