/** Metadata inspect tools against real tmux: values checked against tmux's own view. */
import { assert, assertEquals, assertMatch } from "../../support/assert.ts";
import { type Connected, connectInProcess, fails, ok } from "../../support/client.ts";
import { eventually, TmuxFixture } from "../../support/fixture.ts";

async function withServer(
  fx: TmuxFixture,
  fn: (c: Connected) => Promise<void>,
  env: Record<string, string> = {},
): Promise<void> {
  const connected = await connectInProcess(["-S", fx.socket], env);
  try {
    await fn(connected);
  } finally {
    await connected.close();
  }
}

Deno.test("get_server_info: version, socket, pid, counts, caller", async () => {
  await using fx = await TmuxFixture.start({ session: "one" });
  await fx.tmux("split-window", "-d", "sleep 100000");
  await fx.tmux("new-session", "-d", "-s", "two", "sleep 100000");
  // A window linked into a second session is still one window.
  await fx.tmux("link-window", "-d", "-s", "=one:0", "-t", "=two:5");
  const pid = await fx.serverPid();
  await withServer(fx, async ({ client }) => {
    const info = await ok<Record<string, unknown>>(client, "get_server_info");
    const tmuxV = new TextDecoder().decode(
      (await new Deno.Command("tmux", { args: ["-V"] }).output()).stdout,
    ).trim();
    assertEquals(`tmux ${info.version}`, tmuxV);
    assertEquals(info.socketPath, fx.socket);
    assertEquals(info.socket, undefined, "one machine-readable socket field");
    assertEquals(info.pid, pid);
    assertEquals(info.alive, true);
    assertEquals([info.sessions, info.windows, info.panes, info.people], [2, 2, 3, 0]);
    // Our own control clients (the route's, attached in the background) count as clients, never
    // as people: there may be one by now, or not yet.
    assert((info.clients as number) <= 2, `clients: ${info.clients}`);
    assertEquals(info.insideThisServer, false);
    assertEquals(info.callerPaneId, undefined);
  });
  await withServer(fx, async ({ client }) => {
    const info = await ok<Record<string, unknown>>(client, "get_server_info");
    assertEquals(info.insideThisServer, true);
    assertEquals(info.callerPaneId, "%1");
  }, { TMUX: `${fx.socket},${pid},0`, TMUX_PANE: "%1" });
});

Deno.test("get_server_info: a server that is not running is alive:false", async () => {
  await using fx = await TmuxFixture.start();
  const { client, close } = await connectInProcess(["-S", fx.deadSocket]);
  try {
    const info = await ok<Record<string, unknown>>(client, "get_server_info");
    assertEquals([info.alive, info.pid, info.sessions], [false, null, 0]);
    assertEquals(info.socketPath, fx.deadSocket);
  } finally {
    await close();
  }
});

Deno.test("get_session_info: ids, name, active window, windows; exact names only", async () => {
  await using fx = await TmuxFixture.start({ session: "alpha" });
  await fx.tmux("new-window", "-t", "=alpha", "-n", "w2", "sleep 100000");
  await fx.tmux("new-session", "-d", "-s", "alphabet", "sleep 100000");
  await withServer(fx, async ({ client }) => {
    const info = await ok<Record<string, unknown>>(client, "get_session_info", {
      session: "alpha",
    });
    assertEquals(info.sessionId, await fx.display("=alpha:", "#{session_id}"));
    assertEquals(info.activeWindowId, await fx.display("=alpha:", "#{window_id}"));
    const windows = info.windows as Array<{ windowName: string; windowId: string }>;
    assertEquals(windows.length, 2);
    assertEquals(info.windowCount, 2);
    assert(windows.some((w) => w.windowName === "w2"));
    assertEquals(
      Date.parse(info.created as string) / 1000,
      Number(await fx.display("=alpha:", "#{session_created}")),
    );
    const byId = await ok<Record<string, unknown>>(client, "get_session_info", {
      session: info.sessionId,
    });
    assertEquals(byId, info);
    for (const ref of ["alp", "alpha*", "$42"]) {
      assertEquals(
        (await fails(client, "get_session_info", { session: ref })).code,
        "target_not_found",
      );
    }
    assertEquals((await fails(client, "get_session_info", {})).code, "invalid_arguments");
  });
});

Deno.test("get_window_info: size, layout, zoom, active pane, panes", async () => {
  await using fx = await TmuxFixture.start({ width: 100, height: 30 });
  await fx.tmux("split-window", "-d", "-v", "-t", "@0", "sleep 100000");
  await withServer(fx, async ({ client }) => {
    const info = await ok<Record<string, unknown>>(client, "get_window_info", { windowId: "@0" });
    assertEquals(info.layout, await fx.display("@0", "#{window_layout}"));
    assertEquals([info.width, info.height, info.zoomed], [100, 30, false]);
    assertEquals(info.activePaneId, await fx.display("@0", "#{pane_id}"));
    assertEquals((info.panes as unknown[]).length, 2);
    await fx.tmux("resize-pane", "-Z", "-t", "@0");
    const zoomed = await ok<Record<string, unknown>>(client, "get_window_info", { windowId: "@0" });
    assertEquals(zoomed.zoomed, true);
    assertEquals(
      (await fails(client, "get_window_info", { windowId: "@99" })).code,
      "target_not_found",
    );
    assertEquals(
      (await fails(client, "get_window_info", { windowId: "0" })).code,
      "invalid_arguments",
    );
  });
});

Deno.test("get_pane_info: row, history, dead pane exit status, alternate screen, generation", async () => {
  await using fx = await TmuxFixture.start();
  await fx.tmux("set-option", "-g", "remain-on-exit", "on");
  await fx.tmux("set-option", "-g", "history-limit", "1234");
  await fx.tmux("new-window", "-d", "sh -c 'seq 1 100; exit 3'");
  await fx.tmux("new-window", "-d", "sh -c 'printf \"\\033[?1049h\"; sleep 100000'");
  await withServer(fx, async ({ client }) => {
    const { panes } = await ok<{ panes: Array<{ paneId: string; generation: string }> }>(
      client,
      "list_panes",
    );
    const [live, dead, alt] = panes;
    assert(await eventually(async () => (await fx.display(dead.paneId, "#{pane_dead}")) === "1"));
    // tmux 3.3a learns the exit status a moment after the pane dies (sometimes never, under
    // polling): compare with its own view.
    await eventually(
      async () => (await fx.display(dead.paneId, "#{pane_dead_status}")) === "3",
      1000,
    );
    const status = await fx.display(dead.paneId, "#{pane_dead_status}");
    const deadInfo = await ok<Record<string, unknown>>(client, "get_pane_info", {
      paneId: dead.paneId,
    });
    assertEquals([deadInfo.dead, deadInfo.exitStatus], [
      true,
      status === "" ? undefined : Number(status),
    ]);
    assertEquals(deadInfo.historyLimit, 1234);
    assertEquals(deadInfo.historyLines, Number(await fx.display(dead.paneId, "#{history_size}")));
    assert(await eventually(async () => (await fx.display(alt.paneId, "#{alternate_on}")) === "1"));
    const altInfo = await ok<Record<string, unknown>>(client, "get_pane_info", {
      paneId: alt.paneId,
    });
    assertEquals(altInfo.alternateOn, true);
    const liveInfo = await ok<Record<string, unknown>>(client, "get_pane_info", {
      paneId: live.paneId,
      generation: live.generation,
    });
    assertEquals([liveInfo.dead, liveInfo.exitStatus, liveInfo.alternateOn], [
      false,
      undefined,
      false,
    ]);
    // Respawning replaces the process: the old generation is now stale.
    await fx.tmux("respawn-pane", "-k", "-t", live.paneId, "sleep 100000");
    const stale = await fails(client, "get_pane_info", {
      paneId: live.paneId,
      generation: live.generation,
    });
    assertEquals(stale.code, "stale_target");
    assertEquals(
      (await fails(client, "get_pane_info", { paneId: "%999" })).code,
      "target_not_found",
    );
    assertEquals((await fails(client, "get_pane_info", { paneId: "1" })).code, "invalid_arguments");
  });
});

Deno.test("find_pane_by_position: each corner of a 2x2 grid, and zoom", async () => {
  await using fx = await TmuxFixture.start({ width: 80, height: 24 });
  await fx.tmux("split-window", "-d", "-h", "-t", "%0", "sleep 100000"); // %1 right
  await fx.tmux("split-window", "-d", "-v", "-t", "%0", "sleep 100000"); // %2 bottom-left
  await fx.tmux("split-window", "-d", "-v", "-t", "%1", "sleep 100000"); // %3 bottom-right
  await withServer(fx, async ({ client }) => {
    const expected: Record<string, string> = {
      "top-left": "%0",
      "top-right": "%1",
      "bottom-left": "%2",
      "bottom-right": "%3",
    };
    for (const [corner, paneId] of Object.entries(expected)) {
      const found = await ok<Record<string, unknown>>(client, "find_pane_by_position", {
        windowId: "@0",
        corner,
      });
      assertEquals([found.found, found.paneId], [true, paneId], corner);
      const geometry = found.geometry as Record<string, number>;
      assertEquals(
        `${geometry.left},${geometry.top},${geometry.width},${geometry.height}`,
        await fx.display(paneId, "#{pane_left},#{pane_top},#{pane_width},#{pane_height}"),
      );
      assertEquals(
        found.generation,
        (await ok<{ generation: string }>(client, "get_pane_info", { paneId })).generation,
      );
    }
    await fx.tmux("resize-pane", "-Z", "-t", "%3");
    const zoomed = await ok<Record<string, unknown>>(client, "find_pane_by_position", {
      windowId: "@0",
      corner: "top-left",
    });
    assertEquals(zoomed.paneId, "%3");
    assertEquals(
      (await fails(client, "find_pane_by_position", { windowId: "@0", corner: "middle" })).code,
      "invalid_arguments",
    );
    assertEquals(
      (await fails(client, "find_pane_by_position", { windowId: "@9", corner: "top-left" })).code,
      "target_not_found",
    );
  });
});

Deno.test("get_tmux_variables: environment names are withheld, long values cut", async () => {
  // A pane whose title a program set to 10,000 characters.
  await using fx = await TmuxFixture.start({
    session: "env",
    command: `sh -c 'printf "\\033]2;%010000d\\033\\\\" 0; exec sleep 100000'`,
  });
  await fx.tmux("set-environment", "-g", "GITHUB_TOKEN", "ghp_global_secret");
  await fx.tmux("set-environment", "-t", "=env", "http_proxy", "http://user:pw@proxy");
  assert(await eventually(async () => (await fx.display("%0", "#{pane_title}")).length > 9000));
  // tmux itself answers environment names through formats: the leak being closed.
  assertEquals(await fx.display("%0", "#{GITHUB_TOKEN}"), "ghp_global_secret");
  await withServer(fx, async ({ client }) => {
    const result = await ok<
      { values: Record<string, string>; withheld: string[]; truncated?: boolean }
    >(client, "get_tmux_variables", {
      names: ["GITHUB_TOKEN", "http_proxy", "session_name", "pane_title"],
      paneId: "%0",
    });
    assertEquals(result.withheld.sort(), ["GITHUB_TOKEN", "http_proxy"]);
    assertEquals(Object.keys(result.values).sort(), ["pane_title", "session_name"]);
    assert(!JSON.stringify(result).includes("secret") && !JSON.stringify(result).includes("pw@"));
    assertEquals(result.values.pane_title.length, 4096);
    assertEquals(result.truncated, true);
  });
});

Deno.test("get_tmux_variables: hidden variables are withheld whatever their name, secret names always", async () => {
  await using fx = await TmuxFixture.start({ session: "env" });
  await fx.tmux("set-environment", "-g", "-h", "MY_API_TOKEN", "s3cr3t-global");
  await fx.tmux("set-environment", "-t", "=env", "-h", "DB_PASSWORD", "s3cr3t-session");
  await fx.tmux("set-environment", "-g", "-h", "PLAIN_HIDDEN", "s3cr3t-plain");
  // tmux resolves hidden variables as formats although show-environment -s leaves them out.
  assertEquals(await fx.display("%0", "#{PLAIN_HIDDEN}"), "s3cr3t-plain");
  await withServer(fx, async ({ client }) => {
    const names = ["MY_API_TOKEN", "DB_PASSWORD", "PLAIN_HIDDEN", "UNSET_API_KEY", "session_name"];
    for (const paneId of ["%0", undefined]) {
      const result = await ok<{ values: Record<string, string>; withheld: string[] }>(
        client,
        "get_tmux_variables",
        { names, ...(paneId ? { paneId } : {}) },
      );
      assertEquals(result.withheld.sort(), [
        "DB_PASSWORD",
        "MY_API_TOKEN",
        "PLAIN_HIDDEN",
        "UNSET_API_KEY",
      ]);
      assertEquals(Object.keys(result.values), ["session_name"]);
      assert(!JSON.stringify(result).includes("s3cr3t"), "no hidden value leaked");
    }
  });
});

Deno.test("get_tmux_variables: bare names only, resolved for the pane, unknown empty", async () => {
  await using fx = await TmuxFixture.start();
  await fx.tmux("split-window", "-d", "sleep 100000");
  const marker = `${fx.dir}/FILE`;
  await withServer(fx, async ({ client }) => {
    const result = await ok<{ paneId: string; values: Record<string, string> }>(
      client,
      "get_tmux_variables",
      { names: ["pane_id", "pane_pid", "window_layout", "no_such_variable"], paneId: "%1" },
    );
    assertEquals(result.paneId, "%1");
    assertEquals(result.values.pane_id, "%1");
    assertEquals(result.values.pane_pid, await fx.display("%1", "#{pane_pid}"));
    assertEquals(result.values.window_layout, await fx.display("%1", "#{window_layout}"));
    assertEquals(result.values.no_such_variable, "");
    for (
      const names of [
        [`#(touch ${marker})`],
        ["#{pane_id}"],
        ["pane_id}#{pane_pid"],
        ["s/a/b/:pane_id"],
        ["-F"],
        [],
        Array.from({ length: 33 }, (_, i) => `v${i}`),
      ]
    ) {
      const error = await fails(client, "get_tmux_variables", { names });
      assertEquals(error.code, "invalid_arguments", JSON.stringify(names).slice(0, 40));
    }
    assertEquals(await Deno.stat(marker).then(() => true, () => false), false);
    assertEquals(
      (await fails(client, "get_tmux_variables", { names: ["pane_id"], paneId: "%77" })).code,
      "target_not_found",
    );
  });
});

Deno.test("README-promised errors read as code: message plus a hint", async () => {
  await using fx = await TmuxFixture.start();
  await withServer(fx, async ({ client }) => {
    const error = await fails(client, "get_pane_info", { paneId: "%404" });
    assertMatch(error.text, /^target_not_found: no pane %404\nHint: /);
    assertEquals(error.retryable, false);
  });
});
