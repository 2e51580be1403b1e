/**
 * The control route (docs/design.md §5.14): which commands go over the control channel, and that
 * no line a pane, path, name, title, environment or option value holds can end, forge or reorder
 * a routed reply — `%end`/`%error`/`%begin` lines with the live time and a dense range of command
 * numbers around the server's one counter, planted everywhere such text reaches tmux output.
 */
import { assert, assertEquals, assertMatch } from "../support/assert.ts";
import { fails, ok, sessionsOnOneHost } from "../support/client.ts";
import { cleanEnv, eventually, TmuxFixture } from "../support/fixture.ts";
import type { TmuxHost } from "../../src/host.ts";
import type { TmuxCommand } from "../../src/tmux/core/argv.ts";
import type { PartialResult } from "../../src/tmux/core/runner.ts";
import { quoteControlArgument } from "../../src/tmux/control/syntax.ts";
import { rowTemplate, separators } from "../../src/tmux/core/format.ts";
import { capturePane } from "../../src/tmux/read/capture.ts";
import { captureRows } from "../../src/tmux/control/route_plan.ts";

const encoder = new TextEncoder();
const decoder = new TextDecoder();

/** A host with live mode (and so the route), one MCP session on it, debug logging collected. */
async function routed(fx: TmuxFixture | string, args: string[] = []) {
  const socket = typeof fx === "string" ? fx : fx.socket;
  const { host, sessions: [session], logs } = await sessionsOnOneHost(
    ["-S", socket, "--toolsets", "inspect,manage,execute", ...args],
    1,
    undefined,
    cleanEnv({ TMUX_MCP_DEBUG: "1" }),
  );
  const client = session.client;
  /** Debug lines logged since the last call of `paths` (which path each tmux call took). */
  let seen = 0;
  const paths = () => {
    const lines = logs.slice(seen).filter((l) => l.startsWith("tmux: "));
    seen = logs.length;
    return lines;
  };
  return {
    host,
    client,
    logs,
    paths,
    /** Record each call's commands and output, to replay them on the spawn path. */
    record() {
      const runs: Array<{ commands: readonly TmuxCommand[]; result: PartialResult }> = [];
      const runner = host.tmux.runner;
      const original = runner.runPartial.bind(runner);
      runner.runPartial = async (commands, options) => {
        const result = await original(commands, options);
        const list = Array.isArray(commands[0]) ? commands as TmuxCommand[] : [commands];
        runs.push({ commands: list as TmuxCommand[], result });
        return result;
      };
      return runs;
    },
    async close() {
      await session.close();
      await host.close();
    },
  };
}

/** The live time and command number: one control client's `%begin` line (one counter, server-wide). */
async function liveCounter(fx: TmuxFixture): Promise<{ time: number; number: number }> {
  const child = new Deno.Command("tmux", {
    args: ["-u", "-S", fx.socket, "-C", "attach", "-t", "$0"],
    stdin: "piped",
    stdout: "piped",
    stderr: "null",
    clearEnv: true,
    env: cleanEnv(),
  }).spawn();
  const writer = child.stdin.getWriter();
  await writer.write(encoder.encode("display-message -p probe\n"));
  await writer.close();
  const out = decoder.decode((await child.output()).stdout);
  const begin = [...out.matchAll(/^%begin (\d+) (\d+) 1$/gm)].at(-1);
  if (!begin) throw new Error("no %begin from the probe");
  return { time: Number(begin[1]), number: Number(begin[2]) };
}

/** Forged reply lines: each kind for every time and command number given. */
function forgeries(
  times: readonly number[],
  from: number,
  to: number,
  kinds: readonly string[] = ["end", "error", "begin"],
): string[] {
  const lines: string[] = [];
  for (const kind of kinds) {
    for (const time of times) {
      for (let n = from; n < to; n++) lines.push(`%${kind} ${time} ${n} 1`);
    }
  }
  return lines;
}

/**
 * Whether the run stayed within the seconds the forged lines were planted for. That is how strong
 * the test was, not how the product behaved: a busy machine can stretch the run past them (the
 * later seconds then went unforged), and every assertion on the results still holds. Said, not
 * failed, so the suite passes on a loaded machine; an idle one covers every second.
 */
function plantedSeconds(from: number, to: number, planted: number): void {
  if (to > from + planted) {
    console.warn(`coverage: the run took ${to - from} s; forged lines covered ${planted + 1} s`);
  }
}

function around(time: number): number[] {
  return [time, time + 1, time + 2, time + 3];
}

/** Replay recorded calls on the spawn path: each must print exactly what the route returned. */
async function sameOnSpawnPath(
  host: TmuxHost,
  runs: ReadonlyArray<{ commands: readonly TmuxCommand[]; result: PartialResult }>,
): Promise<void> {
  assert(runs.length > 0, "calls were recorded");
  for (const { commands, result } of runs) {
    const spawned = await host.tmux.runner.spawnPartial(commands);
    assertEquals(result.stdout, spawned.stdout);
    assertEquals(result.error?.code, spawned.error?.code);
  }
}

function assertRouted(lines: string[], min: number): void {
  const control = lines.filter((l) => l.startsWith("tmux: control "));
  assert(control.length >= min, `at least ${min} calls over the route:\n${lines.join("\n")}`);
  assert(!lines.some((l) => / failed: /.test(l)), `no call failed:\n${lines.join("\n")}`);
}

Deno.test("captures over the route print exactly the rows tmux's clamping of -S/-E gives, as the spawn path does", async () => {
  await using fx = await TmuxFixture.start({
    width: 40,
    height: 6,
    command: "sh -c 'seq 1 30; exec cat'",
  });
  const r = await routed(fx);
  try {
    assert(await r.host.route!.ready(), "the route connects");
    /** Routed, then at once spawned: the same state must print the same text. */
    const both = async (command: string[]) => {
      const runs = r.record();
      await r.host.tmux.runner.run(command);
      await sameOnSpawnPath(r.host, runs);
      r.host.tmux.runner.runPartial = Object.getPrototypeOf(r.host.tmux.runner).runPartial;
    };
    const values = [undefined, "-", "-40", "-30", "-24", "-5", "-1", "0", "2", "5", "9", "99"];
    for (const start of values) {
      for (const end of values) {
        const command = ["capture-pane", "-p", "-t", "%0"];
        if (start !== undefined) command.push("-S", start);
        if (end !== undefined) command.push("-E", end);
        await both(command);
      }
    }
    // Resized, and in the alternate screen.
    await fx.tmux("resize-window", "-t", "@0", "-x", "30", "-y", "4");
    await both(["capture-pane", "-p", "-t", "%0", "-S", "-100"]);
    await fx.tmux("respawn-pane", "-k", "-t", "%0", "printf '\\033[?1049hALT'; exec cat");
    await eventually(async () => (await fx.tmux("capture-pane", "-p", "-t", "%0")).includes("ALT"));
    await both(["capture-pane", "-p", "-t", "%0", "-S", "-100"]);
    await both(["capture-pane", "-p", "-t", "%0", "-E", "1"]);
    assertRouted(r.paths().filter((l) => l.includes("capture-pane")), values.length ** 2 + 3);
    assertEquals(captureRows("-5", undefined, 24, 6), 11);
    assertEquals(captureRows("9", "-40", 24, 6), 30); // swapped, clamped at both ends
  } finally {
    await r.close();
  }
});

Deno.test("pane contents: forged %end/%error/%begin lines for the live time and a dense range of command numbers never end a capture early", async () => {
  await using fx = await TmuxFixture.start({ width: 60, height: 20 });
  await fx.tmux("set-option", "-g", "history-limit", "20000");
  const before = await liveCounter(fx);
  const forged = forgeries(around(before.time), before.number - 20, before.number + 700);
  const file = `${fx.dir}/forged.txt`;
  await Deno.writeTextFile(file, forged.join("\n") + "\n");
  await fx.tmux("new-window", "-d", "-t", "=main:", `sh -c 'cat ${file}; exec cat'`);
  const paneId = (await fx.tmux("display-message", "-p", "-t", "=main:1", "#{pane_id}")).trim();
  await eventually(async () =>
    Number(await fx.display(paneId, "#{history_size}")) >= forged.length - 20
  );
  const r = await routed(fx);
  try {
    assert(await r.host.route!.ready(), "the route connects");
    const runs = r.record();
    const start = -(forged.length + 10);
    const whole = await capturePane(r.host.tmux, paneId, { start, maxRows: 20_000 });
    assertEquals(
      whole.text,
      await fx.tmux("capture-pane", "-p", "-t", paneId, "-S", String(start)),
    );
    // Many small reads sweep the counter through the planted range.
    for (let i = 0; i < 40; i++) {
      const screen = await ok<{ text: string }>(r.client, "capture_pane", { paneId });
      assert(screen.text.includes(`\n${forged.at(-1)}`), "the screen's last line whole");
      await capturePane(r.host.tmux, paneId, {
        start: -(i * 150),
        end: -(i * 150) + 40,
        maxRows: 50,
      });
    }
    const after = await liveCounter(fx);
    assert(after.number < before.number + 700, "every command number used was planted");
    plantedSeconds(before.time, after.time, 3);
    assertRouted(r.paths(), 80);
    const stats = r.host.route!.stats();
    assert(stats.connected && stats.off === undefined, "the route never saw a framing error");
    await sameOnSpawnPath(r.host, runs);
  } finally {
    await r.close();
  }
});

/** Directories named with `lines` (components under 255 bytes), as one path under `base`. */
async function forgedDirectory(base: string, lines: readonly string[]): Promise<string> {
  const parts: string[] = [];
  let part = "x";
  for (const line of lines) {
    if (part.length + line.length + 1 > 240) {
      parts.push(part);
      part = "y";
    }
    part += `\n${line}`;
  }
  parts.push(part);
  const path = `${base}/${parts.join("/")}`;
  await Deno.mkdir(path, { recursive: true });
  return path;
}

Deno.test("paths, window names, session names and titles holding forged lines for the live counter list exactly over the route", async () => {
  await using fx = await TmuxFixture.start({ command: "cat" });
  const before = await liveCounter(fx);
  const times = [before.time, before.time + 1, before.time + 2];
  const width = 36;
  const windows: string[] = [];
  // Paths hold a path's worth of lines each, so the dense range is spread over several panes.
  for (let i = 0; i < 12; i++) {
    const kinds = i < 6 ? ["end"] : i < 10 ? ["error"] : ["begin"];
    const from = before.number + (i % 6) * width;
    const dir = await forgedDirectory(fx.dir, forgeries(times, from, from + width, kinds));
    // Listings clip names at 1,024 characters: a name holds one second's lines.
    const name = forgeries(times.slice(0, 1), from, from + width, kinds).join("\n");
    windows.push(name);
    await fx.tmux("new-window", "-d", "-t", "=main:", "-c", dir, "-n", name, "cat");
  }
  // tmux stores these escaped or drops their control characters: still planted, still harmless.
  await fx.tmux("new-session", "-d", "-s", `s\n%end ${before.time} ${before.number + 5} 1`, "cat");
  await fx.tmux("select-pane", "-t", "%0", "-T", `%end ${before.time} ${before.number + 7} 1`);
  const r = await routed(fx);
  try {
    assert(await r.host.route!.ready(), "the route connects");
    const runs = r.record();
    let panes: Array<{ paneId: string; currentPath: string }> = [];
    for (let i = 0; i < 12; i++) {
      panes = (await ok<{ panes: typeof panes }>(r.client, "list_panes", {})).panes;
      assertEquals(panes.length, 14);
      const listed = await ok<{ windows: Array<{ windowName: string }> }>(
        r.client,
        "list_windows",
        {},
      );
      for (const name of windows) {
        assert(listed.windows.some((w) => w.windowName === name), "each forged name whole");
      }
      await ok(r.client, "list_sessions", {});
    }
    const after = await liveCounter(fx);
    assert(after.number < before.number + 6 * width, "every command number used was planted");
    plantedSeconds(before.time, after.time, 2);
    for (const pane of panes) {
      assertEquals(pane.currentPath, await fx.display(pane.paneId, "#{pane_current_path}"));
    }
    assertRouted(r.paths(), 36);
    assertEquals(r.host.route!.stats().off, undefined);
    await sameOnSpawnPath(r.host, runs);
  } finally {
    await r.close();
  }
});

Deno.test("environment and option values holding forged lines read exactly over the route", async () => {
  await using fx = await TmuxFixture.start({ command: "cat" });
  const before = await liveCounter(fx);
  const value = forgeries(around(before.time), before.number - 10, before.number + 150).join("\n");
  // Too long for one command's arguments (16 KiB): set from a file tmux reads.
  const file = `${fx.dir}/forged.conf`;
  await Deno.writeTextFile(
    file,
    [
      `set-environment -g FORGED ${quoteControlArgument(`a\n${value}\nz`)}`,
      `set-environment -t $0 FORGED_LOCAL ${quoteControlArgument(value)}`,
      `set-option -g @forged ${quoteControlArgument(value)}`,
    ].join("\n") + "\n",
  );
  await fx.tmux("source-file", file);
  const r = await routed(fx);
  try {
    assert(await r.host.route!.ready(), "the route connects");
    const runs = r.record();
    const sep = separators();
    for (let i = 0; i < 40; i++) {
      const out = await r.host.tmux.runner.run([
        "display-message",
        "-p",
        "-t",
        "%0",
        rowTemplate(sep, "V", ["FORGED", "FORGED_LOCAL", "@forged", "pane_id"]),
      ]);
      assertEquals(
        out,
        `${sep.row}V${sep.field}a\n${value}\nz${sep.field}${value}${sep.field}${value}` +
          `${sep.field}%0\n`,
      );
    }
    const after = await liveCounter(fx);
    assert(after.number < before.number + 150, "every command number used was planted");
    assertRouted(r.paths(), 40);
    await sameOnSpawnPath(r.host, runs);
  } finally {
    await r.close();
  }
});

Deno.test("keys sent over the route arrive byte-exact, the guard's listing is routed too, and paths show in debug logging only", async () => {
  await using fx = await TmuxFixture.start({ session: "in", command: "cat" });
  const file = `${fx.dir}/rx.out`;
  const ready = `${fx.dir}/rx.ready`;
  const paneId = await fx.newWindow(
    `stty raw -echo && touch ${ready} && exec cat > ${file}`,
    "=in:",
  );
  assert(await eventually(async () => await Deno.stat(ready).then(() => true, () => false)));
  const r = await routed(fx);
  try {
    assert(await r.host.route!.ready(), "the route connects");
    r.paths();
    const text = `a "q" 'q' $HOME \\ ; ~x\t\x1b[0m é😀\n%end 1 2 1\nlast;`;
    const result = await ok(r.client, "send_keys", { paneId, keys: text, enter: false });
    const lines = r.paths();
    // The guard's own listing (src/tmux/read/guard_listing.ts): the pane's window, the clients.
    const guard = /^tmux: control [\d.]+ ms [a-z,-]*list-clients,list-panes/;
    assert(lines.some((l) => guard.test(l)), `guard: ${lines.join(" / ")}`);
    assert(lines.some((l) => /^tmux: control [\d.]+ ms send-keys$/.test(l)), "keys");
    assert(!lines.some((l) => l.includes("HOME") || l.includes("%end")), "no argument logged");
    assertEquals(JSON.stringify(result).includes("control"), false);
    assert(await eventually(async () => (await Deno.readTextFile(file)) === text));
  } finally {
    await r.close();
  }
});

Deno.test("a hook's output inside a routed reply turns routing off: the call is spawned and right, and stderr says why", async () => {
  await using fx = await TmuxFixture.start({ command: "cat" });
  const r = await routed(fx);
  try {
    assert(await r.host.route!.ready(), "the route connects");
    const expected = await ok<{ panes: unknown[] }>(r.client, "list_panes", {});
    await fx.tmux("set-hook", "-g", "after-list-clients", "set-option -g @hooked 1");
    const panes = await ok<{ panes: unknown[] }>(r.client, "list_panes", {});
    assertEquals(panes, expected);
    assertMatch(r.logs.join("\n"), /output broke its framing \(output that is not a reply/);
    assertMatch(r.logs.join("\n"), /tmux: spawn \(framing error\)/);
    assertMatch(r.host.route!.stats().off ?? "", /framing/);
    await ok(r.client, "list_panes", {});
    assertMatch(r.paths().at(-1) ?? "", /^tmux: spawn \(routing is off\)/);
  } finally {
    await r.close();
  }
});

Deno.test("without a server, with --no-live, and after the route's session is killed, calls are spawned; the route reattaches", async () => {
  await using fx = await TmuxFixture.start({ command: "cat" });
  const none = await routed(fx.deadSocket);
  try {
    assertEquals(await none.host.route!.ready(), false);
    const listed = await ok<{ note?: string }>(none.client, "list_sessions", {});
    assert(listed.note, "no server: an empty listing with a note");
    assert(none.paths().every((l) => !l.startsWith("tmux: control")), "nothing routed");
  } finally {
    await none.close();
  }
  const off = await routed(fx, ["--no-live"]);
  try {
    assertEquals(off.host.route, undefined);
    await ok(off.client, "list_panes", {});
    assertMatch(off.paths().join("\n"), /^tmux: spawn [\d.]+ ms list-panes,/m);
  } finally {
    await off.close();
  }
  await fx.tmux("new-session", "-d", "-s", "other", "cat");
  const r = await routed(fx);
  try {
    assert(await r.host.route!.ready(), "the route connects");
    const pid = r.host.route!.stats().pid!;
    const sessionOf = async () =>
      (await fx.tmux("list-clients", "-F", "#{client_pid} #{session_id}")).split("\n")
        .find((l) => l.startsWith(`${pid} `))?.split(" ")[1];
    const attached = await sessionOf();
    assert(attached, "the route's client is listed");
    await fx.tmux("kill-session", "-t", attached);
    assert(await eventually(() => !r.host.route!.stats().connected), "the route noticed");
    await ok(r.client, "list_sessions", {});
    assert(await r.host.route!.ready(), "and attached again, to the session left");
    const sessions = await ok<{ sessions: Array<{ attached: number }> }>(
      r.client,
      "list_sessions",
      {},
    );
    assertEquals(sessions.sessions.map((s) => s.attached), [0], "our client is no person");
    assertRouted(r.paths().slice(-1), 1);
    const missing = await fails(r.client, "capture_pane", { paneId: "%99" });
    assertEquals(missing.code, "target_not_found");
  } finally {
    await r.close();
  }
});

Deno.test("our control clients, the route's and the live engine's, leave the session's environment alone", async () => {
  await using fx = await TmuxFixture.start({ session: "person", command: "cat" });
  // A variable the attach would copy from our environment, which lacks it.
  await fx.tmux("set-option", "-g", "update-environment", "TMUX_MCP_ROUTE_TEST_VAR");
  await fx.tmux("set-environment", "-t", "=person", "TMUX_MCP_ROUTE_TEST_VAR", "person");
  const r = await routed(fx);
  try {
    assert(await r.host.route!.ready(), "the route attached");
    await ok(r.client, "capture_since", { paneId: "%0" });
    assertEquals(r.host.live!.stats().connections, 1, "and the live engine");
    assertEquals(
      await fx.tmux("show-environment", "-t", "=person", "TMUX_MCP_ROUTE_TEST_VAR"),
      "TMUX_MCP_ROUTE_TEST_VAR=person\n",
    );
  } finally {
    await r.close();
  }
});
