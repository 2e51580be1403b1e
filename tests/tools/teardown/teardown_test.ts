/**
 * Teardown tools against real tmux: kill_pane, kill_window, kill_session and
 * clear_pane_scrollback — what ended read back from tmux, exact targets, the own-pane and
 * watched-pane guards over every pane a target contains, generations, and the last session.
 */
import { assert, assertEquals, assertMatch } from "../../support/assert.ts";
import { connectInProcess, connectStdio, fails, ok } from "../../support/client.ts";
import { eventually, TmuxFixture } from "../../support/fixture.ts";

const TEARDOWN = ["--toolsets", "inspect,execute,teardown"];

/** What a kill ended; a flag is present (true) only when that ended too (docs/design.md §3.1). */
interface Ended {
  panesEnded: string[];
  windowEnded?: boolean;
  sessionEnded?: boolean;
  serverExited?: boolean;
}

/** Ids of every pane, window or session on the server (empty when no server runs). */
async function ids(fx: TmuxFixture, what: "panes" | "windows" | "sessions"): Promise<string[]> {
  const [command, format] = what === "panes"
    ? ["list-panes", "#{pane_id}"]
    : what === "windows"
    ? ["list-windows", "#{window_id}"]
    : ["list-sessions", "#{session_id}"];
  const args = what === "sessions" ? [command, "-F", format] : [command, "-a", "-F", format];
  const out = await fx.tmux(...args).catch(() => "");
  return out.split("\n").filter((l) => l !== "");
}

/** A new detached window in `session`, returning its window and pane ids. */
async function window(fx: TmuxFixture, session: string): Promise<[string, string]> {
  const out = await fx.tmux(
    "new-window",
    "-d",
    "-t",
    `=${session}:`,
    "-P",
    "-F",
    "#{window_id} #{pane_id}",
    "sleep 100000",
  );
  const [w, p] = out.trim().split(" ");
  return [w, p];
}

async function split(fx: TmuxFixture, pane: string): Promise<string> {
  return (await fx.tmux("split-window", "-d", "-t", pane, "-P", "-F", "#{pane_id}", "sleep 1e6"))
    .trim();
}

Deno.test("kill_pane, kill_window, kill_session: what ended is read back from tmux; the last session ends the server", async () => {
  await using fx = await TmuxFixture.start({ session: "main" });
  await fx.tmux("new-session", "-d", "-s", "other", "sleep 100000");
  const [w1, p1] = await window(fx, "main");
  const p2 = await split(fx, p1);
  const [w2, p3] = await window(fx, "main");
  const p4 = await split(fx, p3);
  const { client, close } = await connectInProcess(["-S", fx.socket, ...TEARDOWN]);
  try {
    const one = await ok<Ended & { paneId: string }>(client, "kill_pane", { paneId: p2 });
    assertEquals(one, { paneId: p2, panesEnded: [p2] });
    assert(!(await ids(fx, "panes")).includes(p2), "p2 is gone");
    const last = await ok<Ended>(client, "kill_pane", { paneId: p1 });
    assertEquals([last.panesEnded, last.windowEnded, last.sessionEnded], [[p1], true, undefined]);
    assert(!(await ids(fx, "windows")).includes(w1), "its window closed");

    const win = await ok<Ended & { windowId: string }>(client, "kill_window", { windowId: w2 });
    assertEquals(win, {
      windowId: w2,
      panesEnded: [p3, p4],
      windowEnded: true,
    });
    assertEquals((await ids(fx, "windows")).includes(w2), false);

    const otherId = await fx.display("=other:", "#{session_id}");
    const mainPanes = (await fx.tmux("list-panes", "-s", "-t", "=main", "-F", "#{pane_id}"))
      .trim().split("\n");
    const session = await ok<Ended & { sessionId: string }>(client, "kill_session", {
      session: "main",
    });
    assertEquals(session, {
      sessionId: session.sessionId,
      panesEnded: mainPanes,
      windowEnded: true,
      sessionEnded: true,
    });
    assertEquals(await ids(fx, "sessions"), [otherId]);

    const final = await ok<Ended>(client, "kill_session", { session: otherId });
    assertEquals([final.sessionEnded, final.serverExited], [true, true]);
    assertEquals(await fx.tmux("list-sessions").then(() => "running", () => "gone"), "gone");
  } finally {
    await close();
  }
});

Deno.test("teardown targets are exact: alp and al* never match alpha; missing targets are target_not_found", async () => {
  await using fx = await TmuxFixture.start({ session: "alpha" });
  await fx.tmux("new-session", "-d", "-s", "al*", "sleep 100000");
  const { client, close } = await connectInProcess(["-S", fx.socket, ...TEARDOWN]);
  try {
    const cases: Array<[string, Record<string, unknown>]> = [
      ["kill_session", { session: "alp" }],
      ["kill_session", { session: "alph" }],
      ["kill_session", { session: "$99" }],
      ["kill_pane", { paneId: "%999" }],
      ["kill_window", { windowId: "@999" }],
      ["clear_pane_scrollback", { paneId: "%999" }],
    ];
    for (const [tool, args] of cases) {
      const error = await fails(client, tool, args);
      assertEquals([error.code, error.effects], ["target_not_found", "none"], tool);
    }
    // "al*" is a session's exact name here: it ends that session, never alpha.
    await ok(client, "kill_session", { session: "al*" });
    assertEquals((await fx.tmux("list-sessions", "-F", "#{session_name}")).trim(), "alpha");
    const error = await fails(client, "kill_session", { session: "al*" });
    assertEquals(error.code, "target_not_found");
    assertEquals((await fx.tmux("list-sessions", "-F", "#{session_name}")).trim(), "alpha");
  } finally {
    await close();
  }
});

Deno.test("teardown guard: the own pane, its window and its session need force", async () => {
  await using fx = await TmuxFixture.start({ session: "main" });
  const pid = await fx.serverPid();
  // One session per case, each with the caller's pane inside (the pane of $TMUX_PANE).
  const cases: Array<[string, (own: string, win: string, session: string) => object]> = [
    ["clear_pane_scrollback", (own) => ({ paneId: own })],
    ["kill_pane", (own) => ({ paneId: own })],
    ["kill_window", (_own, win) => ({ windowId: win })],
    ["kill_session", (_own, _win, session) => ({ session })],
  ];
  for (const [tool, argsFor] of cases) {
    const session = `own-${tool}`;
    await fx.tmux("new-session", "-d", "-s", session, "sleep 100000");
    const [win, own] = await window(fx, session);
    await split(fx, own);
    const caller = { TMUX: `${fx.socket},${pid},0`, TMUX_PANE: own };
    const { client, close } = await connectInProcess(["-S", fx.socket, ...TEARDOWN], caller);
    try {
      const args = argsFor(own, win, session) as Record<string, unknown>;
      const denied = await fails(client, tool, args);
      assertEquals([denied.code, denied.effects], ["target_denied", "none"], tool);
      assertMatch(denied.text, new RegExp(`pane ${own}.* is the pane this server was started`));
      assertMatch(denied.text, /force: true/);
      assert((await ids(fx, "panes")).includes(own), `${tool}: nothing was killed`);
      await ok(client, tool, { ...args, force: true });
      if (tool !== "clear_pane_scrollback") {
        assert(!(await ids(fx, "panes")).includes(own), `${tool} with force ended the pane`);
      }
    } finally {
      await close();
    }
  }
});

Deno.test("teardown guard: a watched pane is refused even with force; --allow-watched-panes allows it", async () => {
  await using fx = await TmuxFixture.start({ session: "main" });
  const watchedWindow = await fx.display("=main:", "#{window_id}");
  const watched = await fx.display("=main:", "#{pane_id}");
  const beside = await split(fx, watched); // in the watched window, but not its active pane
  const [quietWindow, quietPane] = await window(fx, "main");
  const detach = await fx.attachPerson("main");
  const strict = await connectInProcess(["-S", fx.socket, ...TEARDOWN]);
  const allowing = await connectInProcess([
    "-S",
    fx.socket,
    ...TEARDOWN,
    "--allow-watched-panes",
  ]);
  try {
    const cases: Array<[string, Record<string, unknown>]> = [
      ["kill_pane", { paneId: watched }],
      ["clear_pane_scrollback", { paneId: watched }],
      ["kill_window", { windowId: watchedWindow }],
      ["kill_session", { session: "main" }],
    ];
    for (const [tool, args] of cases) {
      for (const force of [false, true]) {
        const denied = await fails(strict.client, tool, { ...args, force });
        assertEquals([denied.code, denied.effects], ["target_denied", "none"], tool);
        assertMatch(denied.text, new RegExp(`a person is watching pane ${watched}`));
        assertMatch(denied.text, /force does not override/);
        assertMatch(denied.text, /--allow-watched-panes/);
      }
    }
    assertEquals((await ids(fx, "panes")).length, 3, "nothing was killed");
    // Panes the person does not see may go.
    await ok(strict.client, "kill_window", { windowId: quietWindow });
    assert(!(await ids(fx, "panes")).includes(quietPane));
    await ok(strict.client, "kill_pane", { paneId: beside });
    // A person who started the server with --allow-watched-panes allowed it.
    await ok(allowing.client, "clear_pane_scrollback", { paneId: watched });
    const ended = await ok<Ended>(allowing.client, "kill_pane", { paneId: watched });
    assertEquals([ended.sessionEnded, ended.serverExited], [true, true]);
  } finally {
    await strict.close();
    await allowing.close();
    await detach();
  }
});

Deno.test("kill_pane: a generation from before a respawn is stale_target and nothing is killed", async () => {
  await using fx = await TmuxFixture.start({ session: "main" });
  const [, pane] = await window(fx, "main");
  const { client, close } = await connectInProcess(["-S", fx.socket, ...TEARDOWN]);
  try {
    const { panes } = await ok<{ panes: Array<{ paneId: string; generation: string }> }>(
      client,
      "list_panes",
    );
    const generation = panes.find((p) => p.paneId === pane)!.generation;
    await fx.tmux("respawn-pane", "-k", "-t", pane);
    const stale = await fails(client, "kill_pane", { paneId: pane, generation });
    assertEquals([stale.code, stale.effects], ["stale_target", "none"]);
    assert((await ids(fx, "panes")).includes(pane), "still there");
    const { panes: fresh } = await ok<{ panes: Array<{ paneId: string; generation: string }> }>(
      client,
      "list_panes",
    );
    const current = fresh.find((p) => p.paneId === pane)!.generation;
    await ok(client, "kill_pane", { paneId: pane, generation: current });
    assert(!(await ids(fx, "panes")).includes(pane), "killed with the current generation");
  } finally {
    await close();
  }
});

Deno.test("clear_pane_scrollback: history and the visible screen are cleared in one step", async () => {
  await using fx = await TmuxFixture.start({
    session: "main",
    command: "seq 1 500; sleep 100000",
  });
  const pane = await fx.display("=main:", "#{pane_id}");
  assert(
    await eventually(async () => Number(await fx.display(pane, "#{history_size}")) > 400),
    "scrollback filled",
  );
  const { client, close } = await connectInProcess(["-S", fx.socket, ...TEARDOWN]);
  try {
    const cleared = await ok<{ paneId: string; historyLines: number }>(
      client,
      "clear_pane_scrollback",
      { paneId: pane },
    );
    assertEquals(cleared, { paneId: pane, historyLines: 0 });
    assertEquals(await fx.display(pane, "#{history_size}"), "0");
    const everything = await fx.tmux("capture-pane", "-p", "-S", "-", "-t", pane);
    assertEquals(everything.trim(), "", "no line survives, on screen or in the history");
  } finally {
    await close();
  }
});

Deno.test("teardown is off by default: the tools answer tool_denied naming the toolset", async () => {
  await using fx = await TmuxFixture.start({ session: "main" });
  const pane = await fx.display("=main:", "#{pane_id}");
  const { client, close } = await connectInProcess(["-S", fx.socket]);
  try {
    const { tools } = await client.listTools();
    assert(!tools.some((t) => t.name.startsWith("kill_")), "not listed");
    const denied = await fails(client, "kill_pane", { paneId: pane });
    assertEquals(denied.code, "tool_denied");
    assertMatch(denied.text, /--toolsets \S*teardown/);
    assert((await ids(fx, "panes")).includes(pane));
  } finally {
    await close();
  }
});

Deno.test("stdio with --toolsets …,teardown under the start permissions: the four teardown tools", async () => {
  await using fx = await TmuxFixture.start({ session: "main", command: "seq 1 300; sleep 1e6" });
  await fx.tmux("new-session", "-d", "-s", "spare", "sleep 100000");
  const [win, pane] = await window(fx, "main");
  const other = await split(fx, pane);
  const first = await fx.display("=main:", "#{pane_id}");
  const { client, close } = await connectStdio(["-S", fx.socket, ...TEARDOWN]);
  try {
    const { tools } = await client.listTools();
    for (const name of ["clear_pane_scrollback", "kill_pane", "kill_window", "kill_session"]) {
      const tool = tools.find((t) => t.name === name);
      assert(tool, `${name} is listed`);
      assertEquals(
        [tool.annotations?.readOnlyHint, tool.annotations?.destructiveHint],
        [false, true],
      );
      assertEquals(tool.annotations?.idempotentHint, false);
    }
    assert(await eventually(async () => Number(await fx.display(first, "#{history_size}")) > 0));
    const cleared = await ok<{ historyLines: number }>(client, "clear_pane_scrollback", {
      paneId: first,
    });
    assertEquals(cleared.historyLines, 0);
    const killed = await ok<Ended>(client, "kill_pane", { paneId: other });
    assertEquals(killed.panesEnded, [other]);
    const closed = await ok<Ended>(client, "kill_window", { windowId: win });
    assertEquals([closed.panesEnded, closed.windowEnded], [[pane], true]);
    const ended = await ok<Ended>(client, "kill_session", { session: "main" });
    assertEquals([ended.sessionEnded, ended.serverExited ?? false], [true, false]);
    const missing = await fails(client, "kill_session", { session: "spar" });
    assertEquals(missing.code, "target_not_found");
    const last = await ok<Ended>(client, "kill_session", { session: "spare" });
    assertEquals(last.serverExited, true);
  } finally {
    await close();
  }
});
