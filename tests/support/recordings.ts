/**
 * Reading what `--record` wrote (docs/design.md §11): session directories, the action log's lines
 * in order across its parts, a recording's header and events, and what `asciinema cat` (the real
 * one, under `script` for the terminal it opens) turns a recording into.
 */
import { assert } from "./assert.ts";
import { ok } from "./client.ts";
import { cleanEnv, eventually, type TmuxFixture } from "./fixture.ts";

/** Whether asciinema is installed; tests that need it say they are skipped when it is not. */
export const ASCIINEMA: boolean = await new Deno.Command("asciinema", {
  args: ["--version"],
  stdout: "null",
  stderr: "null",
}).output().then((out) => out.success, () => false);

if (!ASCIINEMA) {
  console.warn("asciinema is not installed (apt-get install asciinema): its checks are skipped");
}

/** One line of the action log. */
export type LogLine = Record<string, unknown> & { kind: string; t: string };

/** The session directories under a recording directory, oldest first. */
export function sessionDirs(dir: string): string[] {
  return [...Deno.readDirSync(dir)].filter((e) => e.isDirectory).map((e) => `${dir}/${e.name}`)
    .sort();
}

/** The parts of a file in order (`actions.jsonl`, `actions.2.jsonl`, …) that are still there. */
export function partsOf(dir: string, first: string): string[] {
  const dot = first.indexOf(".");
  const [stem, ext] = [first.slice(0, dot), first.slice(dot)];
  const part = (name: string) => {
    if (name === first) return 1;
    const m = new RegExp(`^${escape(stem)}\\.(\\d+)${escape(ext)}$`).exec(name);
    return m ? Number(m[1]) : undefined;
  };
  return [...Deno.readDirSync(dir)].map((e) => ({ name: e.name, n: part(e.name) }))
    .filter((p) => p.n !== undefined).sort((a, b) => a.n! - b.n!).map((p) => `${dir}/${p.name}`);
}

function escape(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}

/** Every line of a session's action log, across its parts; each must be one JSON object. */
export function actionLog(sessionDir: string): LogLine[] {
  return partsOf(sessionDir, "actions.jsonl").flatMap((path) => {
    const text = Deno.readTextFileSync(path);
    assert(text === "" || text.endsWith("\n"), `${path} ends inside a line`);
    return text.split("\n").filter((l) => l !== "").map((line) => {
      const value = JSON.parse(line);
      assert(value && typeof value === "object" && !Array.isArray(value), line);
      assert(typeof value.kind === "string" && typeof value.t === "string", line);
      return value as LogLine;
    });
  });
}

/** A recording file: its header and its events, each line checked to be what asciicast v2 says. */
export function castFile(path: string): {
  header: Record<string, unknown>;
  events: Array<[number, string, string]>;
} {
  const lines = Deno.readTextFileSync(path).split("\n");
  assert(lines.at(-1) === "", `${path} ends inside a line`);
  const header = JSON.parse(lines[0]);
  assert(header.version === 2 && Number.isInteger(header.width), lines[0]);
  const events = lines.slice(1, -1).map((line) => {
    const event = JSON.parse(line);
    assert(
      Array.isArray(event) && event.length === 3 && typeof event[0] === "number" &&
        ["o", "i", "m", "r"].includes(event[1]) && typeof event[2] === "string",
      line,
    );
    return event as [number, string, string];
  });
  return { header, events };
}

/**
 * What `asciinema cat FILE` prints: the recording's output. asciinema opens /dev/tty, so it runs
 * under `script`, its output redirected to a file of the fixture's.
 */
export async function asciinemaCat(fx: TmuxFixture, file: string): Promise<string> {
  const out = `${fx.dir}/cat-${crypto.randomUUID()}`;
  const status = await new Deno.Command("script", {
    args: ["-qec", `asciinema cat '${file}' > '${out}'`, "/dev/null"],
    clearEnv: true,
    env: cleanEnv({ PYTHONIOENCODING: "utf-8", LANG: "C.UTF-8", TERM: "xterm" }),
    stdin: "null",
    stdout: "null",
    stderr: "piped",
  }).output();
  const text = await Deno.readTextFile(out).catch(() => "");
  await Deno.remove(out).catch(() => {});
  assert(status.success, `asciinema cat failed: ${new TextDecoder().decode(status.stderr)}`);
  return text;
}

/** A path's permission bits. */
export function modeOf(path: string): number {
  return Deno.statSync(path).mode! & 0o777;
}

/**
 * Make the panes tmux creates run a clean bash with the prompt `$ ` (no rc files, tmux on PATH),
 * as create_session's and split_window's panes will.
 */
export async function cleanShells(fx: TmuxFixture): Promise<void> {
  await fx.tmux(
    "set-option",
    "-g",
    "default-command",
    `env -i PATH=/usr/local/bin:/usr/bin:/bin HOME=${fx.dir} TERM=screen PS1='$ ' ` +
      "bash --norc --noprofile",
  );
}

/**
 * A new session made by the agent (create_session) whose pane runs its shell, ready for
 * run_shell_command (until it has exec'd the shell, the pane runs `env`).
 */
export async function agentPane(
  client: Parameters<typeof ok>[0],
  fx: TmuxFixture,
  name: string,
): Promise<string> {
  const pane = (await ok<{ paneId: string }>(client, "create_session", { name })).paneId;
  assert(
    await eventually(async () => (await fx.display(pane, "#{pane_current_command}")) === "bash"),
    `the shell of ${pane} did not start`,
  );
  return pane;
}
