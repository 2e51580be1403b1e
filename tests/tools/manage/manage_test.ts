/**
 * The manage setters against real tmux: state read back from tmux, hostile names stored literally
 * with no shell job, typed refusals, layout strings checked before tmux sees them, and the view
 * guard with a real person's client attached (docs/design.md §6.8).
 */
import { assert, assertEquals, assertThrows } from "../../support/assert.ts";
import { call, connectInProcess, connectStdio, fails, ok } from "../../support/client.ts";
import { TmuxFixture } from "../../support/fixture.ts";
import { ToolError } from "../../../src/errors.ts";
import { checkLayout, layoutChecksum } from "../../../src/tmux/core/layout.ts";
import { SURFACE } from "../../../src/catalog.ts";

/** The twelve setters: the manage toolset without its channel tools. */
const MANAGE = SURFACE.manage.filter((name) => !name.endsWith("_channel"));

type Row = Record<string, unknown>;

async function exists(path: string): Promise<boolean> {
  return await Deno.stat(path).then(() => true, () => false);
}

/** Hostile strings: each runs a job or expands if tmux format-expands it, or ends with ";". */
function hostile(fx: TmuxFixture): string[] {
  // Session names may hold neither "." nor ":" (tmux would change them), so the path has none.
  assert(!/[.:]/.test(fx.dir), `fixture dir ${fx.dir} must hold no "." or ":"`);
  return [
    `#(touch ${fx.dir}/canary)`,
    `x#{pane_id}#{session_name}`,
    "ends with a semicolon;",
    `#(touch ${fx.dir}/canary2);`,
    "tilde ~ dollar $ 1 ; inside",
    "quotes ' \" `id` é😀",
  ];
}

/** No shell job ran: once a sentinel job of ours has run, look for the canaries. */
async function assertNoCanary(fx: TmuxFixture): Promise<void> {
  await fx.jobsRan();
  assert(!await exists(`${fx.dir}/canary`), "a #(…) job ran");
  assert(!await exists(`${fx.dir}/canary2`), "a #(…); job ran");
}

/** A window of `session` with two panes; returns its id and pane ids. */
async function twoPanes(fx: TmuxFixture, session: string): Promise<[string, string, string]> {
  const [windowId, first] = (await fx.tmux(
    "new-window",
    "-d",
    "-t",
    `=${session}:`,
    "-P",
    "-F",
    "#{window_id} #{pane_id}",
    "sleep 100000",
  )).trim().split(" ");
  const second = (await fx.tmux(
    "split-window",
    "-d",
    "-t",
    first,
    "-P",
    "-F",
    "#{pane_id}",
    "sleep 100000",
  )).trim();
  return [windowId, first, second];
}

Deno.test("rename_session and rename_window store hostile names literally, with no shell job", async () => {
  await using fx = await TmuxFixture.start({ session: "alpha" });
  await fx.tmux("new-session", "-d", "-s", "beta", "sleep 100000");
  const { client, close } = await connectInProcess(["-S", fx.socket]);
  try {
    for (const name of hostile(fx)) {
      const session = await ok<Row>(client, "rename_session", { session: "$0", name });
      assertEquals(session, { sessionId: "$0", sessionName: name });
      assertEquals(await fx.display("$0", "#{session_name}"), name);
      const window = await ok<Row>(client, "rename_window", { windowId: "@0", name });
      assertEquals(window, { windowId: "@0", windowName: name });
      assertEquals(await fx.display("@0", "#{window_name}"), name);
    }
    await assertNoCanary(fx);
    // By exact name; a prefix of a name is no name.
    assertEquals(
      await ok<Row>(client, "rename_session", { session: "beta", name: "gamma" }),
      { sessionId: "$1", sessionName: "gamma" },
    );
    assertEquals(
      (await fails(client, "rename_session", { session: "gam", name: "delta" })).code,
      "target_not_found",
    );
    const refusals: Array<[string, Row, string]> = [
      ["rename_session", { session: "gamma", name: "-t" }, "invalid_arguments"],
      ["rename_session", { session: "gamma", name: "a:b" }, "invalid_arguments"],
      ["rename_session", { session: "gamma", name: "a.b" }, "invalid_arguments"],
      ["rename_session", { session: "gamma", name: "$0" }, "invalid_arguments"],
      ["rename_session", { session: "gamma", name: "tab\there" }, "invalid_arguments"],
      ["rename_session", { session: "gamma", name: "" }, "invalid_arguments"],
      ["rename_session", { session: "gamma", name: hostile(fx)[5] }, "invalid_arguments"],
      ["rename_session", { session: "$9", name: "x" }, "target_not_found"],
      ["rename_window", { windowId: "@0", name: "-n" }, "invalid_arguments"],
      ["rename_window", { windowId: "@0", name: "back\\slash" }, "invalid_arguments"],
      ["rename_window", { windowId: "@0", name: "$HOME" }, "invalid_arguments"],
      ["rename_session", { session: "gamma", name: "a${b}" }, "invalid_arguments"],
      ["rename_window", { windowId: "@0", name: "line\nbreak" }, "invalid_arguments"],
      ["rename_window", { windowId: "@0", name: "x".repeat(257) }, "invalid_arguments"],
      ["rename_window", { windowId: "0", name: "x" }, "invalid_arguments"],
      ["rename_window", { windowId: "@99", name: "x" }, "target_not_found"],
    ];
    for (const [tool, args, code] of refusals) {
      const error = await fails(client, tool, args);
      assertEquals(error.code, code, `${tool} ${JSON.stringify(args)}: ${error.text}`);
      assertEquals(error.effects, "none");
    }
    // Nothing above changed a name.
    assertEquals(
      (await fx.tmux("list-sessions", "-F", "#{session_name}")).trim().split("\n").sort(),
      [hostile(fx)[5], "gamma"].sort(),
    );
    assertEquals(await fx.display("@0", "#{window_name}"), hostile(fx)[5]);
  } finally {
    await close();
  }
});

Deno.test("set_pane_title stores the title literally and leaves the active pane alone", async () => {
  await using fx = await TmuxFixture.start({ session: "t" });
  const [, first, second] = await twoPanes(fx, "t");
  const { client, close } = await connectInProcess(["-S", fx.socket]);
  try {
    // Titles keep what names cannot (tmux escapes "\\" and "$NAME" in names).
    for (const title of [...hostile(fx), "back\\slash \\;", "$HOME ${x}", "-T", "a:b.c"]) {
      assertEquals(await ok<Row>(client, "set_pane_title", { paneId: second, title }), {
        paneId: second,
        title,
      });
      assertEquals(await fx.display(second, "#{pane_title}"), title);
    }
    await assertNoCanary(fx);
    assertEquals(await fx.display(first, "#{pane_active}"), "1");
    assertEquals(
      (await fails(client, "set_pane_title", { paneId: "%99", title: "x" })).code,
      "target_not_found",
    );
    const control = await fails(client, "set_pane_title", { paneId: second, title: "a\x1b]0;b" });
    assertEquals(control.code, "invalid_arguments");
    assert(!control.message.includes("a\x1b]0;b"), "the rejected value is not echoed whole");
    assertEquals(await fx.display(second, "#{pane_title}"), "a:b.c");
  } finally {
    await close();
  }
});

Deno.test("select_window, select_pane, resize_window, resize_pane and swap_pane return the state tmux reads back", async () => {
  await using fx = await TmuxFixture.start({ session: "s" });
  const [windowId, first, second] = await twoPanes(fx, "s");
  const { client, close } = await connectInProcess(["-S", fx.socket]);
  try {
    const selected = await ok<Row>(client, "select_window", { windowId });
    assertEquals([selected.windowId, selected.sessionId, selected.active], [windowId, "$0", true]);
    assertEquals(await fx.display("$0", "#{window_id}"), windowId);

    const pane = await ok<Row>(client, "select_pane", { paneId: second });
    assertEquals([pane.paneId, pane.windowId, pane.active], [second, windowId, true]);
    assertEquals(await fx.display(windowId, "#{pane_id}"), second);

    const resized = await ok<Row>(client, "resize_window", { windowId, width: 100, height: 30 });
    assertEquals([resized.width, resized.height], [100, 30]);
    assertEquals(await fx.display(windowId, "#{window_width}x#{window_height}"), "100x30");
    const taller = await ok<Row>(client, "resize_window", { windowId, height: 40 });
    assertEquals([taller.width, taller.height], [100, 40]);

    // The split is stacked: height moves between the two panes, the width spans the window.
    const half = await ok<Row>(client, "resize_pane", { paneId: first, height: "25%" });
    assertEquals(half.height, Number(await fx.display(first, "#{pane_height}")));
    assertEquals([half.height, half.width], [10, 100]);
    const cells = await ok<Row>(client, "resize_pane", { paneId: first, height: 12 });
    assertEquals(cells.height, 12);
    const zoomed = await ok<Row>(client, "resize_pane", { paneId: first, zoom: true });
    assertEquals([zoomed.zoomed, zoomed.active], [true, true]);
    assertEquals(await fx.display(windowId, "#{window_zoomed_flag} #{pane_id}"), `1 ${first}`);
    // Zooming another pane of a zoomed window zooms that one (tmux's -Z alone would unzoom).
    const other = await ok<Row>(client, "resize_pane", { paneId: second, zoom: true });
    assertEquals([other.zoomed, other.active], [true, true]);
    assertEquals(await fx.display(windowId, "#{window_zoomed_flag} #{pane_id}"), `1 ${second}`);
    assertEquals(
      (await ok<Row>(client, "resize_pane", { paneId: second, zoom: true })).zoomed,
      true,
    );
    assertEquals(
      (await ok<Row>(client, "resize_pane", { paneId: second, zoom: false })).zoomed,
      false,
    );
    assertEquals(
      (await ok<Row>(client, "resize_pane", { paneId: second, zoom: false })).zoomed,
      false,
    );

    const before = await fx.tmux("list-panes", "-t", windowId, "-F", "#{pane_id}");
    const swapped = await ok<{ panes: Row[] }>(client, "swap_pane", {
      paneId: first,
      otherPaneId: second,
    });
    assertEquals(swapped.panes.map((p) => [p.paneId, p.paneIndex]), [[first, 1], [second, 0]]);
    const after = await fx.tmux("list-panes", "-t", windowId, "-F", "#{pane_id}");
    assertEquals(after.trim().split("\n"), before.trim().split("\n").reverse());
    // Across windows: the pane lands in the other window.
    const across = await ok<{ panes: Row[] }>(client, "swap_pane", {
      paneId: first,
      otherPaneId: "%0",
    });
    assertEquals(across.panes.map((p) => p.windowId), ["@0", windowId]);

    const refusals: Array<[string, Row, string]> = [
      ["select_window", { windowId: "@99" }, "target_not_found"],
      ["select_pane", { paneId: "%99" }, "target_not_found"],
      ["resize_window", { windowId }, "invalid_arguments"],
      ["resize_window", { windowId, width: 0 }, "invalid_arguments"],
      ["resize_window", { windowId, width: 10_001 }, "invalid_arguments"],
      ["resize_window", { windowId: "@99", width: 50 }, "target_not_found"],
      ["resize_pane", { paneId: first }, "invalid_arguments"],
      ["resize_pane", { paneId: first, width: "150%" }, "invalid_arguments"],
      ["resize_pane", { paneId: first, width: "-5" }, "invalid_arguments"],
      ["resize_pane", { paneId: "%99", zoom: true }, "target_not_found"],
      ["swap_pane", { paneId: first, otherPaneId: first }, "invalid_arguments"],
      ["swap_pane", { paneId: first, otherPaneId: "%99" }, "target_not_found"],
    ];
    for (const [tool, args, code] of refusals) {
      const error = await fails(client, tool, args);
      assertEquals(error.code, code, `${tool} ${JSON.stringify(args)}: ${error.text}`);
    }
  } finally {
    await close();
  }
});

Deno.test("select_layout: named layouts and a layout string as tmux prints it; malformed strings never reach tmux", async () => {
  await using fx = await TmuxFixture.start({ session: "l" });
  const [windowId, first] = await twoPanes(fx, "l");
  await fx.tmux("split-window", "-d", "-h", "-t", first, "sleep 100000");
  const { client, close } = await connectInProcess(["-S", fx.socket]);
  try {
    const original = await fx.display(windowId, "#{window_layout}");
    const tiled = await ok<Row>(client, "select_layout", { windowId, layout: "tiled" });
    assert(tiled.layout !== original, "tiled changed the layout");
    assertEquals(tiled.layout, await fx.display(windowId, "#{window_layout}"));
    for (const name of ["even-horizontal", "even-vertical", "main-horizontal", "main-vertical"]) {
      const laid = await ok<Row>(client, "select_layout", { windowId, layout: name });
      assertEquals(laid.layout, await fx.display(windowId, "#{window_layout}"));
    }
    // A layout string as tmux printed it restores the original arrangement exactly.
    const restored = await ok<Row>(client, "select_layout", { windowId, layout: original });
    assertEquals(restored.layout, original);

    const body = original.slice(5);
    const twoCells = "80x24,0,0{40x24,0,0,1,39x24,41,0,2}";
    const malformed = [
      "even", // tmux would take an unambiguous prefix of a name; only exact names here
      `0000,${body}`, // wrong checksum
      `${original}x`,
      body,
      `${
        layoutChecksum("80x24,0,0{40x24,0,0,1,38x24,41,0,2}")
      },80x24,0,0{40x24,0,0,1,38x24,41,0,2}`,
      `${layoutChecksum("99999x24,0,0,1")},99999x24,0,0,1`,
      `${layoutChecksum("80x24,0,0{40x24,0,0,1")},80x24,0,0{40x24,0,0,1`,
      `${layoutChecksum(twoCells)},${twoCells}`, // three panes, two cells: tmux refuses
      "-o",
    ];
    for (const layout of malformed) {
      const error = await fails(client, "select_layout", { windowId, layout });
      assertEquals(error.code, "invalid_arguments", `${layout}: ${error.text}`);
      assertEquals(error.effects, "none");
    }
    assertEquals(await fx.display(windowId, "#{window_layout}"), original);
    assertEquals(
      (await fails(client, "select_layout", { windowId: "@99", layout: "tiled" })).code,
      "target_not_found",
    );
  } finally {
    await close();
  }
});

Deno.test("checkLayout follows tmux's grammar, checksum and geometry", () => {
  const valid = "eb28,80x24,0,0[80x12,0,0{40x12,0,0,0,39x12,41,0,5},80x11,0,13,4]";
  assertEquals(layoutChecksum(valid.slice(5)), "eb28"); // as tmux 3.3a printed it
  checkLayout(valid);
  checkLayout(valid.toUpperCase().replace(/X/g, "x")); // tmux reads the checksum with %hx
  checkLayout(`${layoutChecksum("80x24,0,0")},80x24,0,0`); // pane ids are optional
  for (
    const bad of [
      "",
      "tile",
      "eb2,80x24,0,0,1",
      "eb28;80x24,0,0,1",
      "eb28,80x24,0,0[80x12,0,0{40x12,0,0,0,39x12,41,0,5},80x11,0,13,4]]",
      `${
        layoutChecksum("80x24,0,0[80x12,0,0,1,80x12,0,13,2]")
      },80x24,0,0[80x12,0,0,1,80x12,0,13,2]`,
      `${layoutChecksum("0x24,0,0,1")},0x24,0,0,1`,
      `${layoutChecksum("80x24,0,0()")},80x24,0,0()`,
      `abcd,${"1x1,0,0{".repeat(3000)}`, // over the length limit
      `abcd,${"1x1,0,0{".repeat(1000)}`, // deep but short: parsed, and refused as unclosed
    ]
  ) {
    assertThrows(() => checkLayout(bad), ToolError, "");
  }
});

Deno.test("move_window moves to a free or given index without selecting it; refuses a taken index and a session's last window", async () => {
  await using fx = await TmuxFixture.start({ session: "src" });
  await fx.tmux("new-session", "-d", "-s", "dst", "sleep 100000");
  const [windowId] = await twoPanes(fx, "src");
  const { client, close } = await connectInProcess(["-S", fx.socket]);
  try {
    const moved = await ok<Row>(client, "move_window", { windowId, session: "dst" });
    assertEquals(
      [moved.windowId, moved.sessionId, moved.sessionName, moved.windowIndex, moved.active],
      [windowId, "$1", "dst", 1, false],
    );
    assertEquals(await fx.display("$1", "#{window_id}"), "@1"); // dst still shows its window
    const indexed = await ok<Row>(client, "move_window", { windowId, session: "$1", index: 7 });
    assertEquals([indexed.sessionId, indexed.windowIndex], ["$1", 7]);
    assertEquals(
      (await fx.tmux("list-windows", "-t", "$1", "-F", "#{window_index}:#{window_id}")).trim(),
      `0:@1\n7:${windowId}`,
    );
    // Where it already is: nothing to move, the state is read back.
    const same = await ok<Row>(client, "move_window", { windowId, session: "dst", index: 7 });
    assertEquals([same.sessionId, same.windowIndex], ["$1", 7]);

    const taken = await fails(client, "move_window", { windowId, session: "dst", index: 0 });
    assertEquals(taken.code, "invalid_arguments");
    const last = await fails(client, "move_window", { windowId: "@0", session: "dst" });
    assertEquals([last.code, last.effects], ["target_denied", "none"]);
    assertEquals((await fx.tmux("list-sessions", "-F", "#{session_name}")).trim(), "dst\nsrc");
    const refusals: Array<[Row, string]> = [
      [{ windowId, session: "ds" }, "target_not_found"],
      [{ windowId: "@99", session: "dst" }, "target_not_found"],
      [{ windowId, session: "dst", index: -1 }, "invalid_arguments"],
    ];
    for (const [args, code] of refusals) {
      assertEquals((await fails(client, "move_window", args)).code, code, JSON.stringify(args));
    }
  } finally {
    await close();
  }
});

Deno.test("set_mouse_enabled and set_history_limit: global by default, one session when given", async () => {
  await using fx = await TmuxFixture.start({ session: "opt" });
  const { client, close } = await connectInProcess(["-S", fx.socket]);
  try {
    assertEquals(await ok<Row>(client, "set_mouse_enabled", { enabled: true }), {
      scope: "global",
      sessionId: null,
      enabled: true,
    });
    assertEquals((await fx.tmux("show-options", "-g", "-v", "mouse")).trim(), "on");
    assertEquals(
      await ok<Row>(client, "set_mouse_enabled", { enabled: false, session: "opt" }),
      { scope: "session", sessionId: "$0", enabled: false },
    );
    assertEquals((await fx.tmux("show-options", "-t", "$0", "-v", "mouse")).trim(), "off");
    assertEquals((await fx.tmux("show-options", "-g", "-v", "mouse")).trim(), "on");

    assertEquals(await ok<Row>(client, "set_history_limit", { lines: 50_000 }), {
      scope: "global",
      sessionId: null,
      lines: 50_000,
    });
    assertEquals(
      await ok<Row>(client, "set_history_limit", { lines: 0, session: "$0" }),
      { scope: "session", sessionId: "$0", lines: 0 },
    );
    // Panes created afterwards get the session's limit; the first pane keeps its own.
    await fx.tmux("new-window", "-d", "-t", "=opt:", "sleep 100000");
    assertEquals(
      (await fx.tmux("list-panes", "-s", "-t", "$0", "-F", "#{history_limit}")).trim(),
      "2000\n0",
    );
    const refusals: Array<[string, Row, string]> = [
      ["set_history_limit", { lines: 100_001 }, "invalid_arguments"],
      ["set_history_limit", { lines: -1 }, "invalid_arguments"],
      ["set_history_limit", { lines: 1.5 }, "invalid_arguments"],
      ["set_history_limit", { lines: 10, session: "op" }, "target_not_found"],
      ["set_mouse_enabled", { enabled: "yes" }, "invalid_arguments"],
      ["set_mouse_enabled", { enabled: true, session: "$7" }, "target_not_found"],
    ];
    for (const [tool, args, code] of refusals) {
      assertEquals((await fails(client, tool, args)).code, code, JSON.stringify(args));
    }
  } finally {
    await close();
  }
});

Deno.test("view-changing setters are refused on a window a person watches and allowed elsewhere; renames and titles are not refused", async () => {
  await using fx = await TmuxFixture.start({ session: "w" });
  await fx.tmux("new-session", "-d", "-s", "u", "sleep 100000");
  // @0 is w's current window (what the person sees); @2 is w's other window.
  await fx.tmux("split-window", "-d", "-t", "%0", "sleep 100000");
  const [hidden, hiddenFirst, hiddenSecond] = await twoPanes(fx, "w");
  const [watchedFirst, watchedSecond] =
    (await fx.tmux("list-panes", "-t", "@0", "-F", "#{pane_id}"))
      .trim().split("\n");
  const detach = await fx.attachPerson("w");
  const { client, close } = await connectInProcess(["-S", fx.socket]);
  try {
    const state = () =>
      fx.tmux(
        "list-windows",
        "-a",
        "-F",
        "#{session_id} #{window_id} #{window_active} #{window_layout} #{pane_id}",
      );
    const before = await state();
    const refused: Array<[string, Row]> = [
      ["select_window", { windowId: hidden }], // would replace @0 on the person's screen
      ["select_pane", { paneId: watchedSecond }],
      ["select_layout", { windowId: "@0", layout: "even-horizontal" }],
      ["resize_window", { windowId: "@0", width: 60 }],
      ["resize_pane", { paneId: watchedFirst, height: 5 }],
      ["resize_pane", { paneId: watchedSecond, zoom: true }],
      ["move_window", { windowId: "@0", session: "u" }],
      ["swap_pane", { paneId: watchedFirst, otherPaneId: watchedSecond }],
      ["swap_pane", { paneId: hiddenFirst, otherPaneId: watchedFirst }], // into a watched window
    ];
    for (const [tool, args] of refused) {
      const error = await fails(client, tool, args);
      assertEquals(
        [error.code, error.effects],
        ["target_denied", "none"],
        `${tool} ${JSON.stringify(args)}: ${error.text}`,
      );
      assert(error.text.includes("--allow-watched-panes"), error.text);
    }
    assertEquals(await state(), before, "nothing the person sees changed");

    // Selecting what is already selected changes nothing.
    assertEquals((await ok<Row>(client, "select_window", { windowId: "@0" })).active, true);
    assertEquals((await ok<Row>(client, "select_pane", { paneId: watchedFirst })).active, true);
    // Labels are not the view.
    await ok(client, "rename_window", { windowId: "@0", name: "renamed" });
    await ok(client, "rename_session", { session: "w", name: "w2" });
    await ok(client, "set_pane_title", { paneId: watchedFirst, title: "titled" });
    // The same setters on windows nobody watches.
    const allowed: Array<[string, Row]> = [
      ["select_pane", { paneId: hiddenSecond }],
      ["select_layout", { windowId: hidden, layout: "even-horizontal" }],
      ["resize_window", { windowId: hidden, width: 60 }],
      ["resize_pane", { paneId: hiddenFirst, height: 5 }],
      ["resize_pane", { paneId: hiddenFirst, zoom: true }],
      ["swap_pane", { paneId: hiddenFirst, otherPaneId: hiddenSecond }],
      ["move_window", { windowId: hidden, session: "u" }],
      ["select_window", { windowId: hidden }], // now in u, which nobody watches
    ];
    for (const [tool, args] of allowed) await ok(client, tool, args);
    assertEquals(await fx.display("$1", "#{window_id}"), hidden);
    assertEquals(await fx.display("$0", "#{window_id} #{pane_id}"), `@0 ${watchedFirst}`);
  } finally {
    await close();
    await detach();
  }
});

Deno.test("with --allow-watched-panes the person's window may be changed", async () => {
  await using fx = await TmuxFixture.start({ session: "w" });
  await fx.tmux("split-window", "-d", "-t", "%0", "sleep 100000");
  const detach = await fx.attachControlPerson("w");
  const strict = await connectInProcess(["-S", fx.socket]);
  const allowing = await connectInProcess(["-S", fx.socket, "--allow-watched-panes"]);
  try {
    // A foreign control client (iTerm2's -CC) shows every window of its session whole.
    assertEquals(
      (await fails(strict.client, "select_layout", { windowId: "@0", layout: "tiled" })).code,
      "target_denied",
    );
    const laid = await ok<Row>(allowing.client, "select_layout", {
      windowId: "@0",
      layout: "tiled",
    });
    assertEquals(laid.layout, await fx.display("@0", "#{window_layout}"));
    await ok(allowing.client, "select_pane", { paneId: "%1" });
    assertEquals(await fx.display("@0", "#{pane_id}"), "%1");
  } finally {
    await strict.close();
    await allowing.close();
    await detach();
  }
});

Deno.test("over stdio under the start permissions: twelve setters with their annotations, names stored literally", async () => {
  await using fx = await TmuxFixture.start({ session: "io" });
  await fx.tmux("split-window", "-d", "-t", "%0", "sleep 100000");
  const { client, close } = await connectStdio(["-S", fx.socket]);
  try {
    const tools = new Map((await client.listTools()).tools.map((t) => [t.name, t]));
    for (const name of MANAGE) {
      const tool = tools.get(name);
      assert(tool, `${name} is served`);
      const ordered = name === "move_window" || name === "swap_pane";
      assertEquals(
        [
          tool.annotations?.readOnlyHint,
          tool.annotations?.destructiveHint,
          tool.annotations?.idempotentHint,
        ],
        [false, false, !ordered],
        name,
      );
      assertEquals(
        (tool._meta?.["tmux-mcp/capability"] as Row)?.effects,
        "change",
        name,
      );
    }
    const name = `#(touch ${fx.dir}/canary);`;
    assertEquals(await ok<Row>(client, "rename_window", { windowId: "@0", name }), {
      windowId: "@0",
      windowName: name,
    });
    assertEquals(await fx.display("@0", "#{window_name}"), name);
    const laid = await ok<Row>(client, "select_layout", {
      windowId: "@0",
      layout: "even-horizontal",
    });
    assertEquals(laid.layout, await fx.display("@0", "#{window_layout}"));
    const bad = await call(client, "select_layout", { windowId: "@0", layout: "0000,80x24,0,0,1" });
    assert(bad.isError, "a wrong checksum is refused");
    assertEquals((bad.structuredContent as { error: Row }).error.code, "invalid_arguments");
    await assertNoCanary(fx);
  } finally {
    await close();
  }
});
