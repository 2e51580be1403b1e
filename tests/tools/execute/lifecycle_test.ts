/**
 * Lifecycle tools against real tmux: create_session (also on a socket where no server runs),
 * create_window, split_window and respawn_pane — state read back from tmux, names stored
 * literally, start directories checked, the person's view left alone, and respawn's guards.
 */
import { assert, assertEquals, assertMatch } from "../../support/assert.ts";
import { connectInProcess, connectStdio, fails, ok } from "../../support/client.ts";
import {
  eventually,
  FIXTURE_PREFIX,
  nestedClient,
  removeAndCheck,
  TmuxFixture,
  tmuxOn,
} from "../../support/fixture.ts";
import { CONFIG_VARIABLES } from "../../../src/tmux/execute/server_scrub.ts";

interface Created {
  paneId: string;
  generation: string;
  startDirectory: string;
}
interface SessionCreated extends Created {
  sessionId: string;
  name: string;
  windowId: string;
  /** Present (true) only when the call started the server (docs/design.md §3.1). */
  serverStarted?: boolean;
}
interface WindowCreated extends Created {
  sessionId: string;
  windowId: string;
  windowIndex: number;
  name: string;
}

/** A fixture directory with a socket path where no server runs until a test starts one. */
class EmptySocket {
  private constructor(readonly dir: string) {}

  static async make(): Promise<EmptySocket> {
    return new EmptySocket(await Deno.makeTempDir({ prefix: FIXTURE_PREFIX }));
  }

  get socket(): string {
    return `${this.dir}/fresh.sock`;
  }

  /** Run tmux against this socket; rejects when tmux fails (e.g. no server). */
  tmux(...args: string[]): Promise<string> {
    return tmuxOn(this.socket, ...args);
  }

  async running(): Promise<boolean> {
    return await this.tmux("list-sessions").then(() => true, () => false);
  }

  async [Symbol.asyncDispose](): Promise<void> {
    await this.tmux("kill-server").catch(() => {});
    await removeAndCheck(this.dir);
  }
}

async function exists(path: string): Promise<boolean> {
  return await Deno.stat(path).then(() => true, () => false);
}

/** The generation list_panes reports for a pane. */
async function listedGeneration(
  client: Parameters<typeof ok>[0],
  paneId: string,
): Promise<string | undefined> {
  const { panes } = await ok<{ panes: Array<{ paneId: string; generation: string }> }>(
    client,
    "list_panes",
  );
  return panes.find((p) => p.paneId === paneId)?.generation;
}

Deno.test("stdio under the start permissions: create_session starts a server without our configuration variables; create_window, split_window and respawn_pane work on it", async () => {
  await using empty = await EmptySocket.make();
  const secrets = {
    TMUX_MCP_HTTP_TOKEN: "canary-token-4711",
    TMUX_MCP_WAIT_MAX_MS: "30000",
    LIBTMUX_TOOLSETS: "inspect,execute",
  };
  const { client, close } = await connectStdio(["-S", empty.socket], secrets);
  try {
    assert(!await empty.running(), "no server before");
    const made = await ok<SessionCreated>(client, "create_session", {
      name: "agent",
      windowName: "work",
      width: 100,
      height: 30,
    });
    assertEquals(made.serverStarted, true);
    assertEquals(made.name, "agent");
    const fmt = "#{session_id} #{window_id} #{pane_id} #{window_name} #{window_width}x" +
      "#{window_height} #{pid} #{pane_pid}";
    const [sid, wid, pid, wname, size, serverPid, panePid] =
      (await empty.tmux("display-message", "-p", "-t", made.paneId, fmt)).trim().split(" ");
    assertEquals([made.sessionId, made.windowId, made.paneId, wname, size], [
      sid,
      wid,
      pid,
      "work",
      "100x30",
    ]);
    assertEquals(made.generation, await listedGeneration(client, made.paneId));
    assert(made.generation.includes(Number(panePid).toString(36)), "generation from pane pid");
    assert(made.generation.includes(Number(serverPid).toString(36)), "and server pid");

    // Neither the global environment nor the first shell holds our configuration.
    const global = await empty.tmux("show-environment", "-g");
    assert(!/^-?(TMUX_MCP_|LIBTMUX_)/m.test(global), global);
    if (Deno.build.os === "linux") {
      // Another user's process: read through `cat`, as the test has no blanket read access.
      const out = await new Deno.Command("cat", { args: [`/proc/${panePid}/environ`] }).output();
      const environ = new TextDecoder().decode(out.stdout);
      assert(environ.includes("PATH="), "the environment was read");
      assert(!environ.includes("canary-token-4711"), "the first shell has no token");
      assert(!/(^|\0)(TMUX_MCP_|LIBTMUX_)/.test(environ), "nor any configuration variable");
    }

    const again = await ok<SessionCreated>(client, "create_session", { name: "second" });
    assertEquals(again.serverStarted ?? false, false);

    const window = await ok<WindowCreated>(client, "create_window", {
      session: "agent",
      name: "logs",
    });
    assertEquals(
      (await empty.tmux(
        "display-message",
        "-p",
        "-t",
        window.paneId,
        "#{window_id} #{window_name}",
      ))
        .trim(),
      `${window.windowId} logs`,
    );
    const split = await ok<Created & { windowId: string }>(client, "split_window", {
      paneId: window.paneId,
      direction: "right",
    });
    assertEquals(split.windowId, window.windowId);
    assertEquals(
      (await empty.tmux("list-panes", "-t", window.windowId, "-F", "#{pane_id}")).trim().split(
        "\n",
      ).sort(),
      [window.paneId, split.paneId].sort(),
    );
    const respawned = await ok<Created>(client, "respawn_pane", {
      paneId: split.paneId,
      kill: true,
    });
    assertEquals(respawned.paneId, split.paneId);
    assert(respawned.generation !== split.generation, "a new generation");
    assertEquals(respawned.generation, await listedGeneration(client, split.paneId));
  } finally {
    await close();
  }
});

Deno.test("create_session on a socket without a server: a missing start directory is refused and no server is left behind", async () => {
  await using empty = await EmptySocket.make();
  const { client, close } = await connectInProcess(["-S", empty.socket]);
  try {
    const refused = await fails(client, "create_session", {
      startDirectory: `${empty.dir}/does-not-exist`,
    });
    assertEquals([refused.code, refused.effects], ["invalid_arguments", "possible"]);
    assertMatch(refused.text, /does not exist/);
    assert(await eventually(async () => !await empty.running()), "the server we started is gone");
    const made = await ok<SessionCreated>(client, "create_session", { startDirectory: empty.dir });
    assertEquals([made.serverStarted, made.startDirectory], [true, await Deno.realPath(empty.dir)]);
  } finally {
    await close();
  }
});

Deno.test("create_window, split_window: placed as asked and read back; select: false leaves a person's view alone, select: true is refused where a person watches", async () => {
  await using fx = await TmuxFixture.start({ session: "main", width: 100, height: 40 });
  const detach = await fx.attachPerson("main");
  const { client, close } = await connectInProcess(["-S", fx.socket]);
  try {
    const view = () => fx.display("=main:", "#{window_id} #{pane_id}");
    const before = await view();
    const [firstWindow, firstPane] = before.split(" ");
    const oh = Number(await fx.display(firstPane, "#{pane_height}"));

    const after = await ok<WindowCreated>(client, "create_window", {
      session: "main",
      afterWindowId: firstWindow,
    });
    const ahead = await ok<WindowCreated>(client, "create_window", {
      session: "main",
      beforeWindowId: firstWindow,
    });
    const order = (await fx.tmux("list-windows", "-t", "=main", "-F", "#{window_id}")).trim()
      .split("\n");
    assertEquals(order, [ahead.windowId, firstWindow, after.windowId]);
    // Inserting before the first window shifted the others; each index was right when created.
    assertEquals([after.windowIndex, ahead.windowIndex], [1, 0]);
    assertEquals(after.sessionId, await fx.display("=main:", "#{session_id}"));

    const below = await ok<Created & { windowId: string }>(client, "split_window", {
      paneId: firstPane,
      direction: "below",
      size: "25%",
    });
    const right = await ok<Created & { windowId: string }>(client, "split_window", {
      paneId: firstPane,
      direction: "right",
      size: 30,
    });
    const above = await ok<Created>(client, "split_window", {
      paneId: firstPane,
      direction: "above",
    });
    const left = await ok<Created>(client, "split_window", {
      paneId: firstPane,
      direction: "left",
    });
    assertEquals(await view(), before, "the person still sees the same window and pane");
    const geometry = async (pane: string) =>
      (await fx.display(pane, "#{pane_left} #{pane_top} #{pane_width} #{pane_height}"))
        .split(" ").map(Number);
    const [ol, ot] = await geometry(firstPane);
    const [bl, bt, , bh] = await geometry(below.paneId);
    const [rl, , rw] = await geometry(right.paneId);
    const [, at] = await geometry(above.paneId);
    const [ll] = await geometry(left.paneId);
    assert(bt > ot && bl === 0, "below");
    assert(Math.abs(bh - oh / 4) <= 1, `25% of ${oh} rows: ${bh}`);
    assert(rl > ol && rw === 30, "right, 30 cells");
    assert(at < ot, "above");
    assert(ll < ol, "left");
    assertEquals(below.windowId, firstWindow);

    // select: true would change what the person sees: the view guard refuses it here…
    for (
      const [tool, args] of [
        ["create_window", { session: "main", select: true }],
        ["split_window", { paneId: firstPane, direction: "below", select: true }],
      ] as const
    ) {
      const denied = await fails(client, tool, args);
      assertEquals([denied.code, denied.effects], ["target_denied", "none"], tool);
      assertMatch(denied.text, /a person is watching/);
    }
    assertEquals(await view(), before);
    // …and honours it where nobody watches.
    await fx.tmux("new-session", "-d", "-s", "quiet", "sleep 100000");
    const shown = await ok<WindowCreated>(client, "create_window", {
      session: "quiet",
      select: true,
    });
    assertEquals(await fx.display("=quiet:", "#{window_id}"), shown.windowId);
    const active = await ok<Created>(client, "split_window", {
      paneId: shown.paneId,
      direction: "right",
      select: true,
    });
    assertEquals(await fx.display("=quiet:", "#{pane_id}"), active.paneId);
  } finally {
    await close();
    await detach();
  }
});

Deno.test("hostile names are stored literally and run no shell job", async () => {
  await using fx = await TmuxFixture.start();
  const canary = `${fx.dir}/canary`;
  // Were it expanded, the directory would not exist and the calls would be refused.
  const dir = `${fx.dir}/dir with spaces #x #{pane_id} #(echo hi) ;`;
  await Deno.mkdir(dir);
  const { client, close } = await connectInProcess(["-S", fx.socket]);
  const resolved = await Deno.realPath(dir);
  try {
    const names = [
      `#(touch ${canary})`,
      "#{pane_id}",
      "x-y",
      "ends;",
      "##{session_id}",
      "é€😀 tab-free",
      "cost $9 or $",
    ];
    for (const [i, name] of names.entries()) {
      const made = await ok<SessionCreated>(client, "create_session", {
        name,
        windowName: name,
        startDirectory: dir,
      });
      assertEquals(made.name, name);
      assertEquals(await fx.display(made.sessionId, "#{session_name}"), name);
      assertEquals(await fx.display(made.paneId, "#{window_name}"), name);
      assertEquals(made.startDirectory, resolved, `start directory, name ${i}`);
      const window = await ok<WindowCreated>(client, "create_window", {
        session: made.sessionId,
        name,
        startDirectory: dir,
      });
      assertEquals([window.name, window.startDirectory], [name, resolved]);
      const split = await ok<Created>(client, "split_window", {
        paneId: window.paneId,
        direction: "below",
        startDirectory: dir,
      });
      assertEquals(split.startDirectory, resolved);
    }
    // Sessions by their exact (hostile) name.
    const byName = await ok<WindowCreated>(client, "create_window", { session: "#{pane_id}" });
    assertEquals(await fx.display(byName.windowId, "#{session_name}"), "#{pane_id}");
    await fx.jobsRan();
    assert(!await exists(canary), "no #(…) ran");
  } finally {
    await close();
  }
});

Deno.test("start directories: missing ones are refused before anything is created; a symlink reads back resolved", async () => {
  await using fx = await TmuxFixture.start();
  const real = `${fx.dir}/real dir #1`;
  await Deno.mkdir(real);
  await Deno.symlink(real, `${fx.dir}/link`);
  await Deno.writeTextFile(`${fx.dir}/file`, "");
  const { client, close } = await connectInProcess(["-S", fx.socket]);
  try {
    const paneId = await fx.display("=main:", "#{pane_id}");
    const count = async () => (await fx.tmux("list-panes", "-a", "-F", "#{pane_id}")).trim();
    const before = await count();
    for (const bad of [`${fx.dir}/missing`, `${fx.dir}/file`, `${fx.dir}/missing/deeper`]) {
      const cases: Array<[string, Record<string, unknown>]> = [
        ["create_session", { startDirectory: bad }],
        ["create_window", { session: "main", startDirectory: bad }],
        ["split_window", { paneId, direction: "below", startDirectory: bad }],
        ["respawn_pane", { paneId, kill: true, startDirectory: bad }],
      ];
      for (const [tool, args] of cases) {
        const refused = await fails(client, tool, args);
        assertEquals([refused.code, refused.effects], ["invalid_arguments", "none"], tool);
        assertMatch(refused.text, /does not exist or is not a directory/);
        assertMatch(refused.text, /Hint: .*silently/);
      }
    }
    assertEquals(await count(), before, "nothing was created or respawned");

    const resolved = await Deno.realPath(real);
    const viaLink = await ok<SessionCreated>(client, "create_session", {
      startDirectory: `${fx.dir}/link/`,
    });
    assertEquals(viaLink.startDirectory, resolved);
    const split = await ok<Created>(client, "split_window", {
      paneId: viaLink.paneId,
      direction: "right",
      startDirectory: `${fx.dir}/link`,
    });
    assertEquals(split.startDirectory, resolved);
    const respawned = await ok<Created>(client, "respawn_pane", {
      paneId: split.paneId,
      kill: true,
      startDirectory: "/",
    });
    assertEquals(respawned.startDirectory, "/");
  } finally {
    await close();
  }
});

Deno.test("lifecycle tools: bad input is a typed error with the right code", async () => {
  await using fx = await TmuxFixture.start({ session: "alpha" });
  await fx.tmux("new-session", "-d", "-s", "beta");
  const alphaWindow = await fx.display("=alpha:", "#{window_id}");
  const betaWindow = await fx.display("=beta:", "#{window_id}");
  const pane = await fx.display("=alpha:", "#{pane_id}");
  const { client, close } = await connectInProcess(["-S", fx.socket]);
  try {
    const cases: Array<[string, Record<string, unknown>, string]> = [
      ["create_session", { name: "alpha" }, "invalid_arguments"],
      ["create_session", { name: "a:b" }, "invalid_arguments"],
      ["create_session", { name: "a.b" }, "invalid_arguments"],
      ["create_session", { name: "$3" }, "invalid_arguments"],
      ["create_session", { name: "back\\slash" }, "invalid_arguments"],
      ["create_session", { name: "a$HOME" }, "invalid_arguments"],
      ["create_session", { name: "a${x}" }, "invalid_arguments"],
      ["create_session", { name: "bell\x07" }, "invalid_arguments"],
      ["create_session", { name: "" }, "invalid_arguments"],
      // One rule set for names (src/tmux/manage/labels.ts): what a rename refuses, creation refuses.
      ["create_session", { name: "-x" }, "invalid_arguments"],
      ["create_session", { windowName: "-x" }, "invalid_arguments"],
      ["create_window", { session: "alpha", name: "w$y\\z" }, "invalid_arguments"],
      ["create_window", { session: "alpha", name: "$HOME" }, "invalid_arguments"],
      ["create_session", { windowName: "line\nbreak" }, "invalid_arguments"],
      ["create_session", { startDirectory: "relative/dir" }, "invalid_arguments"],
      ["create_session", { startDirectory: "~/x" }, "invalid_arguments"],
      ["create_session", { width: 0 }, "invalid_arguments"],
      ["create_session", { command: "sh" }, "invalid_arguments"],
      ["create_window", { session: "alp" }, "target_not_found"],
      ["create_window", { session: "al*" }, "target_not_found"],
      ["create_window", { session: "alpha", afterWindowId: "@999" }, "target_not_found"],
      ["create_window", { session: "alpha", afterWindowId: betaWindow }, "invalid_arguments"],
      [
        "create_window",
        { session: "alpha", afterWindowId: alphaWindow, beforeWindowId: alphaWindow },
        "invalid_arguments",
      ],
      ["create_window", { session: "alpha", name: "tab\there" }, "invalid_arguments"],
      ["split_window", { paneId: "%999", direction: "below" }, "target_not_found"],
      ["split_window", { paneId: pane, direction: "up" }, "invalid_arguments"],
      ["split_window", { paneId: pane, direction: "below", size: "150%" }, "invalid_arguments"],
      ["respawn_pane", { paneId: "%999", kill: true }, "target_not_found"],
      ["respawn_pane", { paneId: pane }, "invalid_arguments"],
      ["respawn_pane", { paneId: pane, kill: true, generation: "g1.2" }, "stale_target"],
    ];
    for (const [tool, args, code] of cases) {
      const error = await fails(client, tool, args);
      assertEquals(error.code, code, `${tool} ${JSON.stringify(args)}`);
      assert(!error.message.includes("\x07") && !error.message.includes("\n"), "no echo");
    }
    assertEquals(
      (await fx.tmux("list-sessions", "-F", "#{session_name}")).trim().split("\n").sort(),
      ["alpha", "beta"],
    );
    assertEquals(await fx.display(pane, "#{window_panes}"), "1", "nothing was split");
    // tmux clamps a size that is too large; a pane with no room left cannot be split at all.
    await fx.tmux("split-window", "-d", "-l", "500", "-t", pane);
    const cramped = await fails(client, "split_window", { paneId: pane, direction: "below" });
    assertEquals([cramped.code, cramped.effects], ["invalid_arguments", "none"]);
    assertMatch(cramped.text, /too small/);
  } finally {
    await close();
  }
});

Deno.test("respawn_pane: a dead pane restarts with a new generation; the own pane needs force; a watched pane is refused even with force", async () => {
  await using fx = await TmuxFixture.start({ session: "main" });
  await fx.tmux("set-option", "-g", "remain-on-exit", "on");
  const watched = await fx.display("=main:", "#{pane_id}");
  const dead = await fx.newWindow("sh -c 'exit 3'", "=main:");
  const own = (await fx.tmux("new-window", "-d", "-t", "=main:", "-P", "-F", "#{pane_id}"))
    .trim();
  assert(await eventually(async () => await fx.display(dead, "#{pane_dead}") === "1"), "dead");
  const pid = await fx.serverPid();
  const caller = { TMUX: `${fx.socket},${pid},0`, TMUX_PANE: own };
  const detach = await fx.attachPerson("main");
  const strict = await connectInProcess(["-S", fx.socket], caller);
  const allowing = await connectInProcess(["-S", fx.socket, "--allow-watched-panes"]);
  try {
    const deadGeneration = await listedGeneration(strict.client, dead);
    const restarted = await ok<Created>(strict.client, "respawn_pane", {
      paneId: dead,
      generation: deadGeneration,
    });
    assert(restarted.generation !== deadGeneration, "new generation");
    assertEquals(restarted.generation, await listedGeneration(strict.client, dead));

    const ownPid = await fx.display(own, "#{pane_pid}");
    const refused = await fails(strict.client, "respawn_pane", { paneId: own, kill: true });
    assertEquals([refused.code, refused.effects], ["target_denied", "none"]);
    assertMatch(refused.text, /own terminal/);
    assertMatch(refused.text, /force: true/);
    assertEquals(await fx.display(own, "#{pane_pid}"), ownPid, "not respawned");
    await ok(strict.client, "respawn_pane", { paneId: own, kill: true, force: true });
    assert(await fx.display(own, "#{pane_pid}") !== ownPid, "respawned with force");

    const watchedPid = await fx.display(watched, "#{pane_pid}");
    for (const force of [false, true]) {
      const denied = await fails(strict.client, "respawn_pane", {
        paneId: watched,
        kill: true,
        force,
      });
      assertEquals(denied.code, "target_denied");
      assertMatch(denied.text, /a person is watching pane/);
      assertMatch(denied.text, /--allow-watched-panes/);
    }
    assertEquals(await fx.display(watched, "#{pane_pid}"), watchedPid, "not respawned");
    await ok(allowing.client, "respawn_pane", { paneId: watched, kill: true });
    assert(await fx.display(watched, "#{pane_pid}") !== watchedPid, "allowed by the person");
  } finally {
    await strict.close();
    await allowing.close();
    await detach();
  }
});

Deno.test("respawn_pane: a pane running a tmux client of this server is refused, even with force", async () => {
  await using fx = await TmuxFixture.start({ session: "main" });
  await fx.tmux("new-session", "-d", "-s", "work", "sleep 100000");
  const host = await nestedClient(fx, "main", "work");
  const { client, close } = await connectInProcess(["-S", fx.socket, "--allow-watched-panes"]);
  try {
    const refused = await fails(client, "respawn_pane", { paneId: host, kill: true, force: true });
    assertEquals(refused.code, "target_denied");
    assertMatch(refused.text, /runs a tmux client attached to this tmux server/);
  } finally {
    await close();
  }
});

Deno.test("CONFIG_VARIABLES names every variable the server reads", async () => {
  const read = new Set<string>();
  const sources = [new URL("../../../main.ts", import.meta.url)];
  const walk = async (dir: URL): Promise<void> => {
    for await (const entry of Deno.readDir(dir)) {
      if (entry.isDirectory) await walk(new URL(`${entry.name}/`, dir));
      else if (entry.name.endsWith(".ts") && !entry.name.endsWith("_test.ts")) {
        sources.push(new URL(entry.name, dir));
      }
    }
  };
  await walk(new URL("../../../src/", import.meta.url));
  for (const url of sources) {
    const names = (await Deno.readTextFile(url)).match(/\b(?:TMUX_MCP|LIBTMUX)_[A-Z_]*[A-Z]\b/g);
    for (const name of names ?? []) read.add(name);
  }
  const missing = [...read].filter((name) =>
    !(CONFIG_VARIABLES as readonly string[]).includes(name)
  );
  assertEquals(missing, [], "add them to CONFIG_VARIABLES in src/tmux/execute/server_scrub.ts");
});
