// deno-lint-ignore-file no-explicit-any -- tests read untyped results
/**
 * show_pane and its view (docs/design.md §10): the tools/list metadata with and without the MCP
 * Apps extension, the app-only frame tool's guards and bounds for a client that calls it anyway,
 * the view resource (MIME type, CSP metadata, size, self-containment, rebuilt from source), and
 * the frame encoding. The view in a browser is tests/tools/inspect/show_pane_render_test.ts.
 */
import { Client } from "@modelcontextprotocol/sdk/client";
import { assert, assertEquals, assertMatch } from "../../support/assert.ts";
import { call, connectInProcess, fails, ok } from "../../support/client.ts";
import { eventually, TmuxFixture } from "../../support/fixture.ts";
import { catalogSizes } from "../../../scripts/catalog.ts";
import { buildPage, pageModule } from "../../../scripts/view_page.ts";
import { DEFAULT_TOOLSETS } from "../../../src/config.ts";
import { PANE_VIEW_HTML } from "../../../src/generated/page_html.ts";
import { PANE_VIEW_URI, UI_EXTENSION_ID, VIEW_MIME_TYPE } from "../../../src/view/resource.ts";

/** A client that renders MCP Apps views, as a host such as Claude or VS Code announces itself. */
function viewClient(): Client {
  return new Client({ name: "view-host", version: "1" }, {
    capabilities: { extensions: { [UI_EXTENSION_ID]: { mimeTypes: [VIEW_MIME_TYPE] } } },
  });
}

type Listed = { name: string; _meta?: Record<string, unknown> };

const GREEN = "printf '\\033[1;32mGREEN\\033[0m plain\\n'; exec sleep 100000";

async function window(fx: TmuxFixture, command: string): Promise<string> {
  return await fx.newWindow(command);
}

Deno.test("tools/list: show_pane names its view; pane_view_frame is listed only to a client that renders views", async () => {
  await using fx = await TmuxFixture.start();
  const plain = await connectInProcess(["-S", fx.deadSocket]);
  const views = await connectInProcess(["-S", fx.deadSocket], {}, undefined, viewClient());
  try {
    const without = (await plain.client.listTools()).tools as Listed[];
    const show = without.find((t) => t.name === "show_pane")!;
    assertEquals((show._meta!.ui as Record<string, unknown>).resourceUri, PANE_VIEW_URI);
    assertEquals(show._meta!["ui/resourceUri"], PANE_VIEW_URI);
    assertEquals((show._meta!.ui as Record<string, unknown>).visibility, undefined);
    assert(
      !without.some((t) => t.name === "pane_view_frame"),
      "app-only tool listed to a plain client",
    );

    const withViews = (await views.client.listTools()).tools as Listed[];
    assertEquals(withViews.length, without.length + 1);
    const frame = withViews.find((t) => t.name === "pane_view_frame")!;
    assertEquals(frame._meta!.ui, { resourceUri: PANE_VIEW_URI, visibility: ["app"] });
    // Only the app-only tool is added: everything the model sees is the same.
    assertEquals(withViews.filter((t) => t.name !== "pane_view_frame"), without);

    // A client of the extension that renders no HTML views is not offered the frame tool.
    const other = await connectInProcess(
      ["-S", fx.deadSocket],
      {},
      undefined,
      new Client({ name: "other-views", version: "1" }, {
        capabilities: { extensions: { [UI_EXTENSION_ID]: { mimeTypes: ["text/x-other"] } } },
      }),
    );
    try {
      const listed = (await other.client.listTools()).tools as Listed[];
      assert(!listed.some((t) => t.name === "pane_view_frame"), "listed without HTML views");
    } finally {
      await other.close();
    }
  } finally {
    await plain.close();
    await views.close();
  }
});

Deno.test("show_pane adds at most 600 bytes to the model-visible catalog", () => {
  const sizes = catalogSizes([...DEFAULT_TOOLSETS]);
  const show = sizes.tools.find((t) => t.name === "show_pane")!;
  assert(show.visible <= 600, `show_pane: ${show.visible} bytes`);
  assert(!sizes.tools.some((t) => t.name === "pane_view_frame"), "app-only tool sized as visible");
});

Deno.test("the view resource: listed and read with the MCP Apps MIME type and a CSP with no network", async () => {
  await using fx = await TmuxFixture.start();
  const { client, close } = await connectInProcess(["-S", fx.deadSocket]);
  try {
    const { resources } = await client.listResources();
    const view = resources.find((r) => r.uri === PANE_VIEW_URI)!;
    assertEquals(view.mimeType, "text/html;profile=mcp-app");
    const { contents } = await client.readResource({ uri: PANE_VIEW_URI });
    assertEquals(contents.length, 1);
    const [content] = contents as Array<{ mimeType: string; text: string; _meta: any }>;
    assertEquals(content.mimeType, "text/html;profile=mcp-app");
    assertEquals(content.text, PANE_VIEW_HTML);
    const caps = await client.readResource({ uri: "tmux://capabilities" });
    const document = JSON.parse((caps.contents[0] as { text: string }).text);
    assertEquals(document.appTools.map((t: any) => [t.name, t.effects, t.visibility]), [
      ["pane_view_frame", "observe", ["app"]],
    ]);
    const csp = content._meta.ui.csp;
    for (const key of ["connectDomains", "resourceDomains", "frameDomains", "baseUriDomains"]) {
      assertEquals(csp[key], [], key);
    }
  } finally {
    await close();
  }
});

Deno.test("the view is one self-contained document of at most 450 KB", () => {
  const html = PANE_VIEW_HTML;
  const bytes = new TextEncoder().encode(html).length;
  assert(bytes <= 450 * 1024, `${bytes} bytes`);
  assertMatch(html, /^<!doctype html>/i);
  // No element loads anything: no src or href attribute, no stylesheet import, no remote url().
  assertEquals(html.match(/<[a-z]+[^>]*\s(?:src|href|srcset|action|data)\s*=/gi), null);
  assertEquals(html.match(/@import|url\(\s*['"]?(?!data:)[a-z]+:/gi), null);
  // Nor does its script reach the network.
  for (
    const api of ["fetch(", "XMLHttpRequest", "WebSocket", "EventSource", "sendBeacon", "import("]
  ) {
    assert(!html.includes(api), api);
  }
  // Its own CSP forbids it besides whatever the host sets.
  assertMatch(
    html,
    /http-equiv="Content-Security-Policy"[^>]*default-src 'none';[^>]*connect-src 'none'/,
  );
  assertEquals(html.match(/<script/g)?.length, 1);
});

Deno.test("the committed view is what `deno task view` builds from src/view/page/", async () => {
  const committed = await Deno.readTextFile(
    new URL("../../../src/generated/page_html.ts", import.meta.url),
  );
  assertEquals(committed, pageModule(await buildPage()));
});

Deno.test("show_pane returns the pane's id, size, command and screen as text; errors as capture_pane's", async () => {
  await using fx = await TmuxFixture.start();
  const paneId = await window(fx, GREEN);
  const { client, close } = await connectInProcess(["-S", fx.socket]);
  try {
    let shown: Record<string, any> = {};
    await eventually(async () => {
      shown = await ok(client, "show_pane", { paneId });
      return shown.text.includes("GREEN plain");
    });
    assertEquals(shown.paneId, paneId);
    assertEquals([shown.width, shown.height], [80, 24]);
    assertEquals(shown.currentCommand, "sleep");
    assertEquals(shown.dead, false);
    assertEquals(shown.terminalContent, "data");
    const result = await call(client, "show_pane", { paneId });
    const text = (result.content[0] as { text: string }).text;
    assertMatch(text, new RegExp(`^${paneId} \\(80x24, running sleep\\)`));
    assert(text.includes("GREEN plain"));

    const missing = await fails(client, "show_pane", { paneId: "%99999" });
    const captured = await fails(client, "capture_pane", { paneId: "%99999" });
    assertEquals([missing.code, missing.message], [captured.code, captured.message]);
    assertEquals((await fails(client, "show_pane", { paneId: "main" })).code, "invalid_arguments");
  } finally {
    await close();
  }
});

Deno.test("pane_view_frame, called by a client that does not render views: rows with attributes, waits on its cursor, same guards", async () => {
  await using fx = await TmuxFixture.start();
  const paneId = await window(fx, `${GREEN.replace("; exec sleep 100000", "")}; exec cat`);
  const { client, close } = await connectInProcess(["-S", fx.socket]);
  try {
    let frame: Record<string, any> = {};
    await eventually(async () => {
      frame = await ok(client, "pane_view_frame", { paneId });
      return frame.lines[0].includes("GREEN");
    });
    assertEquals(frame.lines[0], "\x1b[0;1;32mGREEN\x1b[0m plain");
    assertEquals([frame.columns, frame.rows, frame.lines.length], [80, 24, 24]);
    assertEquals(frame.dead, false);
    assertEquals(frame.cursorVisible, true);
    assertMatch(frame.cursor, /^ltxc1\./);

    // Typed text arrives in a frame the cursor waited for (a frame per change until it shows).
    await fx.tmux("send-keys", "-t", paneId, "-l", "typed-canary");
    let cursor = frame.cursor;
    for (let i = 0; i < 50 && !frame.lines.join("\n").includes("typed-canary"); i++) {
      frame = await ok(client, "pane_view_frame", { paneId, cursor, waitMs: 30_000 });
      cursor = frame.cursor;
    }
    assert(frame.lines.join("\n").includes("typed-canary"), frame.lines.join("\n"));

    const missing = await fails(client, "pane_view_frame", { paneId: "%99999" });
    assertEquals(missing.code, (await fails(client, "capture_pane", { paneId: "%99999" })).code);
    assertEquals(
      (await fails(client, "pane_view_frame", { paneId, cursor: "x" })).code,
      "invalid_arguments",
    );
    // A cursor the program hid before the stream began stays hidden (tmux's flag, not the seed's).
    const other = await window(fx, "printf 'hidden\\033[?25l'; exec sleep 100000");
    let hidden: Record<string, any> = {};
    await eventually(async () => {
      hidden = await ok(client, "pane_view_frame", { paneId: other });
      return hidden.lines[0] === "hidden";
    });
    assertEquals(hidden.cursorVisible, false);
    assertEquals(
      (await fails(client, "pane_view_frame", { paneId: other, cursor })).code,
      "stale_cursor",
    );
  } finally {
    await close();
  }
});

Deno.test("pane_view_frame without live mode is one capture, and is denied with show_pane", async () => {
  await using fx = await TmuxFixture.start();
  const paneId = await window(fx, GREEN);
  const noLive = await connectInProcess(["-S", fx.socket, "--no-live"]);
  const excluded = await connectInProcess(["-S", fx.socket, "--exclude-tools", "show_pane"]);
  try {
    let frame: Record<string, any> = {};
    await eventually(async () => {
      frame = await ok(noLive.client, "pane_view_frame", { paneId });
      return frame.lines[0].includes("GREEN");
    });
    assertEquals(frame.lines[0], "\x1b[0;1;32mGREEN\x1b[0m plain");
    assertEquals(frame.cursor, undefined);

    const denied = await fails(excluded.client, "pane_view_frame", { paneId });
    assertEquals(denied.code, "tool_denied");
    assertMatch(denied.text, /serves show_pane's view/);
    const { resources } = await excluded.client.listResources();
    assert(!resources.some((r) => r.uri === PANE_VIEW_URI));
  } finally {
    await noLive.close();
    await excluded.close();
  }
});
