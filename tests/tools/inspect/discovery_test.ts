/** list_sessions, list_windows, list_panes in-process against real tmux. */
import { assert, assertEquals } from "../../support/assert.ts";
import { connectInProcess, fails, ok } from "../../support/client.ts";
import { eventually, TmuxFixture } from "../../support/fixture.ts";
import type { PaneRow, SessionRow, WindowRow } from "../../../src/rows.ts";

Deno.test("list_sessions / list_windows / list_panes match tmux's view", async () => {
  await using fx = await TmuxFixture.start({ session: "alpha", width: 120, height: 40 });
  await fx.tmux("new-session", "-d", "-s", "alp", "-x", "80", "-y", "24", "sleep 100000");
  await fx.tmux("split-window", "-d", "-h", "-t", "=alpha:0", "sleep 100000");
  await fx.tmux("new-window", "-d", "-t", "=alpha", "-n", "second", "sleep 100000");
  const { client, close } = await connectInProcess(["-S", fx.socket]);
  try {
    const { sessions } = await ok<{ sessions: SessionRow[] }>(
      client,
      "list_sessions",
    );
    const tmuxSessions = (await fx.tmux(
      "list-sessions",
      "-F",
      "#{session_id} #{session_name} #{session_windows}",
    )).trim().split("\n").sort();
    assertEquals(
      sessions.map((s) => `${s.sessionId} ${s.sessionName} ${s.windows}`).sort(),
      tmuxSessions,
    );
    assert(sessions.every((s) => s.attached === 0));
    for (const s of sessions) {
      const view = await fx.display(`${s.sessionId}:`, "#{session_created}|#{session_path}");
      assertEquals(`${Date.parse(s.created as string) / 1000}|${s.path}`, view);
    }

    const { windows } = await ok<{ windows: WindowRow[] }>(
      client,
      "list_windows",
      { session: "alpha" },
    );
    const tmuxWindows = (await fx.tmux(
      "list-windows",
      "-t",
      "=alpha",
      "-F",
      "#{window_id}|#{window_index}|#{window_name}|#{session_id}|#{session_name}|#{window_active}|" +
        "#{window_panes}|#{window_width}|#{window_height}|#{window_zoomed_flag}",
    )).trim().split("\n");
    assertEquals(
      windows.map((w) =>
        [
          w.windowId,
          w.windowIndex,
          w.windowName,
          w.sessionId,
          w.sessionName,
          w.active ? 1 : 0,
          w.panes,
          w.width,
          w.height,
          w.zoomed ? 1 : 0,
        ].join("|")
      ),
      tmuxWindows,
    );
    assert(windows.some((w) => w.windowName === "second"));
    const alphaId = sessions.find((s) => s.sessionName === "alpha")!.sessionId as string;
    const byId = await ok<{ windows: unknown[] }>(client, "list_windows", { session: alphaId });
    assertEquals(byId.windows, windows);

    const { panes } = await ok<{ panes: PaneRow[] }>(client, "list_panes");
    assertEquals(panes.length, 4);
    const serverPid = await fx.serverPid();
    for (const pane of panes) {
      const view = (await fx.display(
        pane.paneId,
        "#{pane_pid}|#{session_id}|#{window_id}|#{window_index}|#{pane_index}|#{pane_active}|" +
          "#{pane_width}|#{pane_height}|#{pane_left}|#{pane_top}|#{pane_current_command}|" +
          "#{pane_dead}|#{pane_in_mode}|#{pane_title}|#{pane_current_path}|#{window_name}|" +
          "#{session_name}",
      )).split("|");
      assertEquals([
        String(pane.pid),
        pane.sessionId,
        pane.windowId,
        String(pane.windowIndex),
        String(pane.paneIndex),
        pane.active ? "1" : "0",
        String(pane.width),
        String(pane.height),
        String(pane.left),
        String(pane.top),
        pane.currentCommand,
        pane.dead ? "1" : "0",
        pane.inMode ? "1" : "0",
        pane.title,
        pane.currentPath,
        pane.windowName,
        pane.sessionName,
      ], view);
      assert(pane.generation.includes(serverPid.toString(36)));
      assert(pane.generation.includes(pane.pid.toString(36)));
      assertEquals(pane.isCaller, false);
      assertEquals(pane.isAttended, false);
    }
    const split = panes.filter((p) => p.sessionName === "alpha" && p.windowIndex === 0);
    assertEquals(split.map((p) => p.left).sort((a, b) => a - b)[0], 0);
    assert(split.some((p) => p.left > 0), "the horizontal split has a pane to the right");

    const oneWindow = await ok<{ panes: PaneRow[] }>(client, "list_panes", {
      window: split[0].windowId,
    });
    assertEquals(oneWindow.panes.length, 2);
    const filtered = await ok<{ panes: PaneRow[] }>(client, "list_panes", { session: "alp" });
    assertEquals(filtered.panes.map((p) => p.sessionName), ["alp"]);
  } finally {
    await close();
  }
});

Deno.test("session names match exactly: alp never reaches alpha", async () => {
  await using fx = await TmuxFixture.start({ session: "alpha" });
  const { client, close } = await connectInProcess(["-S", fx.socket]);
  try {
    for (const ref of ["alp", "al*", "alpha:0", "$99", "ALPHA"]) {
      const error = await fails(client, "list_windows", { session: ref });
      assertEquals(error.code, "target_not_found", ref);
      assertEquals(error.effects, "none");
      assert(error.text.startsWith("target_not_found: "), error.text);
      assert(error.text.includes("Hint: "), error.text);
    }
    assertEquals((await fails(client, "list_panes", { session: "alp" })).code, "target_not_found");
    assertEquals((await fails(client, "list_panes", { window: "@77" })).code, "target_not_found");
  } finally {
    await close();
  }
});

Deno.test("hostile names list exactly and never run", async () => {
  await using fx = await TmuxFixture.start({ session: "plain" });
  const marker = `${fx.dir}/FILE`;
  // Names as tmux stores them; new-session -s is format-expanded, so the fixture doubles '#'.
  const names = [`#(touch ${marker})`, "#{pane_id}", "foo;", "ñandú", "-leading", "tab\tname"];
  for (const name of names) {
    const arg = name.replaceAll("#", "##").replace(/;$/, "\\;");
    await fx.tmux("new-session", "-d", "-s", arg, "sleep 100000");
  }
  await fx.tmux("rename-window", "-t", "=plain:0", "a:b\tc\nd ##(touch " + marker + ")");
  const { client, close } = await connectInProcess(["-S", fx.socket]);
  try {
    const { sessions } = await ok<{ sessions: Array<{ sessionName: string; sessionId: string }> }>(
      client,
      "list_sessions",
    );
    const listed = sessions.map((s) => s.sessionName);
    // tmux itself stores a tab in a name as the two characters "\t".
    for (const name of [...names.slice(0, 5), "tab\\tname", "plain"]) {
      assert(listed.includes(name), `listed ${JSON.stringify(name)} in ${JSON.stringify(listed)}`);
    }
    for (const s of sessions) {
      const { windows } = await ok<{ windows: Array<{ sessionId: string }> }>(
        client,
        "list_windows",
        { session: s.sessionName },
      );
      assertEquals(windows.map((w) => w.sessionId), [s.sessionId], s.sessionName);
      const { panes } = await ok<{ panes: PaneRow[] }>(client, "list_panes", {
        session: s.sessionName,
      });
      assertEquals(panes.length, 1);
    }
    const { windows } = await ok<{ windows: Array<{ windowName: string }> }>(
      client,
      "list_windows",
      { session: "plain" },
    );
    assertEquals(windows[0].windowName, `a:b\\tc\\nd #(touch ${marker})`);
    assertEquals(await Deno.stat(marker).then(() => true, () => false), false);
  } finally {
    await close();
  }
});

Deno.test("no tmux server running: empty listings with a note", async () => {
  await using fx = await TmuxFixture.start();
  const { client, close } = await connectInProcess(["-S", fx.deadSocket]);
  try {
    for (
      const [tool, key] of [["list_sessions", "sessions"], ["list_windows", "windows"], [
        "list_panes",
        "panes",
      ]]
    ) {
      const result = await ok<Record<string, unknown>>(client, tool);
      assertEquals(result[key], []);
      assert(String(result.note).includes("no tmux server is running"), String(result.note));
    }
  } finally {
    await close();
  }
});

Deno.test("bad arguments are invalid_arguments and name the field, not the value", async () => {
  await using fx = await TmuxFixture.start();
  const { client, close } = await connectInProcess(["-S", fx.socket]);
  try {
    const secret = "sk-live-0123456789abcdefghijklmnop";
    const cases: Array<[string, Record<string, unknown>]> = [
      ["list_panes", { window: "1" }],
      ["list_panes", { window: secret }],
      ["list_windows", { session: "" }],
      ["list_windows", { session: 5 }],
      ["list_sessions", { extra: true }],
    ];
    for (const [tool, args] of cases) {
      const error = await fails(client, tool, args);
      assertEquals(error.code, "invalid_arguments", JSON.stringify(args));
      assertEquals(error.effects, "none");
      assert(!error.text.includes(secret), "never echo a rejected value");
    }
  } finally {
    await close();
  }
});

Deno.test("isCaller: the pane of $TMUX_PANE on the same server pid only", async () => {
  await using fx = await TmuxFixture.start();
  await fx.tmux("split-window", "-d", "sleep 100000");
  const pid = await fx.serverPid();
  const inside = await connectInProcess([], {
    TMUX: `${fx.socket},${pid},0`,
    TMUX_PANE: "%1",
  });
  try {
    const { panes } = await ok<{ panes: PaneRow[] }>(inside.client, "list_panes");
    assertEquals(panes.filter((p) => p.isCaller).map((p) => p.paneId), ["%1"]);
  } finally {
    await inside.close();
  }
  // Same socket path and pane id, but another server pid (a restarted server): not the caller.
  const other = await connectInProcess(["-S", fx.socket], {
    TMUX: `${fx.socket},${pid + 1},0`,
    TMUX_PANE: "%1",
  });
  try {
    const { panes } = await ok<{ panes: PaneRow[] }>(other.client, "list_panes");
    assertEquals(panes.filter((p) => p.isCaller), []);
  } finally {
    await other.close();
  }
});

async function attended(fx: TmuxFixture): Promise<string[]> {
  const { client, close } = await connectInProcess(["-S", fx.socket]);
  try {
    const { panes } = await ok<{ panes: PaneRow[] }>(client, "list_panes");
    return panes.filter((p) => p.isAttended).map((p) => p.paneId).sort();
  } finally {
    await close();
  }
}

Deno.test("isAttended: a terminal client watches its window's active pane only", async () => {
  await using fx = await TmuxFixture.start({ session: "watched" });
  await fx.tmux("split-window", "-d", "-t", "=watched:0", "sleep 100000");
  // A second, inactive window: its active pane is not on anyone's screen.
  await fx.tmux("new-window", "-d", "-t", "=watched:", "sleep 100000");
  await fx.tmux("new-session", "-d", "-s", "alone", "sleep 100000");
  const detach = await fx.attachPerson("watched");
  try {
    assertEquals(await attended(fx), [await fx.display("=watched:", "#{pane_id}")]);
    const { client, close } = await connectInProcess(["-S", fx.socket]);
    try {
      const { sessions } = await ok<{ sessions: Array<{ sessionName: string; attached: number }> }>(
        client,
        "list_sessions",
      );
      assertEquals(
        Object.fromEntries(sessions.map((s) => [s.sessionName, s.attached])),
        { watched: 1, alone: 0 },
      );
    } finally {
      await close();
    }
  } finally {
    await detach();
  }
});

Deno.test("isAttended: a client with its own active pane watches its whole window", async () => {
  await using fx = await TmuxFixture.start({ session: "own" });
  await fx.tmux("split-window", "-d", "-t", "=own:0", "sleep 100000");
  await fx.tmux("new-window", "-d", "-t", "=own:", "sleep 100000");
  // tmux 3.3's `attach -f active-pane`: the client may type into any pane of its window, and no
  // format tells which.
  const detach = await fx.attachPerson("own", ["-f", "active-pane"]);
  try {
    const window0 = (await fx.tmux("list-panes", "-t", "=own:0", "-F", "#{pane_id}")).trim().split(
      "\n",
    );
    assertEquals(await attended(fx), window0.sort());
  } finally {
    await detach();
  }
});

Deno.test("isAttended: a control client that is not ours (iTerm2 -CC) watches its session", async () => {
  await using fx = await TmuxFixture.start({ session: "cc" });
  await fx.tmux("split-window", "-d", "-t", "=cc:0", "sleep 100000");
  await fx.tmux("new-window", "-d", "-t", "=cc:", "sleep 100000");
  await fx.tmux("new-session", "-d", "-s", "other", "sleep 100000");
  const detach = await fx.attachControlPerson("cc");
  try {
    const all = (await fx.tmux("list-panes", "-s", "-t", "=cc", "-F", "#{pane_id}")).trim().split(
      "\n",
    );
    assertEquals(await attended(fx), all.sort());
  } finally {
    await detach();
  }
});

Deno.test("isAttended: a person on a grouped session watches that pane in every session of the group", async () => {
  await using fx = await TmuxFixture.start({ session: "main" });
  await fx.tmux("split-window", "-d", "-t", "=main:0", "sleep 100000");
  // A grouped session shares main's windows; the person attaches to the group's other member.
  await fx.tmux("new-session", "-d", "-s", "peer", "-t", "=main");
  const shown = await fx.display("=peer:", "#{pane_id}");
  const detach = await fx.attachPerson("peer");
  const { client, close } = await connectInProcess(["-S", fx.socket]);
  try {
    const { panes } = await ok<{ panes: PaneRow[] }>(client, "list_panes");
    const rows = panes.filter((p) => p.paneId === shown);
    assertEquals(rows.map((p) => p.sessionName).sort(), ["main", "peer"]);
    assert(rows.every((p) => p.isAttended), "every row of the watched pane says so");
    assertEquals(
      [...new Set(panes.filter((p) => p.isAttended).map((p) => p.paneId))],
      [shown],
    );
    const { panes: inMain } = await ok<{ panes: PaneRow[] }>(client, "list_panes", {
      session: "main",
    });
    assertEquals(inMain.filter((p) => p.isAttended).map((p) => p.paneId), [shown]);
  } finally {
    await close();
    await detach();
  }
});

Deno.test("a title a program sets cannot flood a listing: long fields are clipped", async () => {
  // OSC 2 sets the pane title from inside the pane; 300 KB of it.
  await using fx = await TmuxFixture.start({
    command: `sh -c 'printf "\\033]2;%0300000d\\033\\\\" 0; exec sleep 100000'`,
  });
  assert(await eventually(async () => (await fx.display("%0", "#{pane_title}")).length > 100_000));
  const { client, close } = await connectInProcess(["-S", fx.socket]);
  try {
    const result = await client.callTool({ name: "list_panes", arguments: {} });
    const text = (result.content as Array<{ text: string }>)[0].text;
    assert(text.length < 8_000, `listing is ${text.length} chars`);
    const { panes } = result.structuredContent as { panes: PaneRow[] };
    assertEquals(panes[0].title.length, 1024);
    assert(panes[0].title.endsWith("…"));
  } finally {
    await close();
  }
});
