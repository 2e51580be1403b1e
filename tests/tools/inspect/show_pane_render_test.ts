/**
 * show_pane's view in a browser (docs/design.md §10.4): apt's headless Chromium driven by
 * puppeteer-core, a minimal spec host (tests/support/view_host.ts) whose MCP client is this
 * process's, and a real tmux pane. Skipped, saying so, where Chromium is missing.
 */
// deno-lint-ignore no-import-prefix -- dev tooling (deno.dev.lock): a start never fetches it
import type { Frame } from "npm:puppeteer-core@^25.16.0";
import { Client } from "@modelcontextprotocol/sdk/client";
import { assert, assertEquals, assertMatch } from "../../support/assert.ts";
import { connectInProcess } from "../../support/client.ts";
import { TmuxFixture } from "../../support/fixture.ts";
import { chromiumPath, startViewHost } from "../../support/view_host.ts";
import { UI_EXTENSION_ID, VIEW_MIME_TYPE } from "../../../src/view/resource.ts";

const chromium = chromiumPath();
if (!chromium) {
  console.warn(
    "show_pane_render_test: SKIPPED — Chromium not found (apt-get install chromium-headless-shell, " +
      "or set CHROMIUM to a headless Chromium)",
  );
}

/** Generous: the view is waited for by condition; this only keeps a broken run from hanging. */
const PATIENCE = { timeout: 120_000, polling: 50 };

/** The view's rows as text, as its DOM renderer shows them. */
function rowsOf(view: Frame): Promise<string[]> {
  return view.evaluate(() =>
    [...document.querySelectorAll(".xterm-rows > div")].map((row) =>
      (row.textContent ?? "").replace(/\u00a0/g, " ").trimEnd()
    )
  );
}

/** Wait until a row of the view holds `text`. */
async function shows(view: Frame, text: string): Promise<void> {
  await view.waitForFunction(
    (t) =>
      [...document.querySelectorAll(".xterm-rows > div")].some((row) =>
        (row.textContent ?? "").replace(/\u00a0/g, " ").includes(t)
      ),
    PATIENCE,
    text,
  );
}

Deno.test({
  name:
    "the view follows a real pane in Chromium: typed text twice, bold green, resize, no network, pane closed",
  ignore: !chromium,
  sanitizeResources: false,
  sanitizeOps: false,
  fn: async () => {
    await using fx = await TmuxFixture.start();
    const paneId = await fx.newWindow("printf '\\033[1;32mGREEN\\033[0m plain\\n'; exec cat");
    const hostClient = new Client({ name: "render-test-host", version: "1" }, {
      capabilities: { extensions: { [UI_EXTENSION_ID]: { mimeTypes: [VIEW_MIME_TYPE] } } },
    });
    const { client, close } = await connectInProcess(["-S", fx.socket], {}, undefined, hostClient);
    const host = await startViewHost(client, chromium!);
    try {
      const view = await host.show(paneId);
      await shows(view, "GREEN plain");

      // Output typed into the pane reaches the view, twice in a row.
      for (const canary of ["first-canary", "second-canary"]) {
        await fx.tmux("send-keys", "-t", paneId, "-l", canary);
        await shows(view, canary);
      }
      assertEquals((await rowsOf(view))[0], "GREEN plain");
      assertMatch((await rowsOf(view))[1], /^first-canarysecond-canary$/);
      // The cursor is drawn where tmux has it: right after the typed text.
      const cursorAt = await view.evaluate(() => {
        const rows = [...document.querySelectorAll(".xterm-rows > div")];
        const y = rows.findIndex((row) => row.querySelector(".xterm-cursor"));
        const before = [...(rows[y]?.childNodes ?? [])];
        const x = before.findIndex((n) => (n as Element).classList?.contains("xterm-cursor"));
        return { y, text: before.slice(0, x).map((n) => n.textContent).join("") };
      });
      assertEquals(cursorAt, { y: 1, text: "first-canarysecond-canary" });

      // Bold green stays bold green: the DOM renderer's classes and the computed style.
      const green = await view.evaluate(() => {
        const span = [...document.querySelectorAll(".xterm-rows span")]
          .find((s) => s.textContent === "GREEN") as HTMLElement | undefined;
        if (!span) return undefined;
        const style = getComputedStyle(span);
        return { classes: [...span.classList], color: style.color, weight: style.fontWeight };
      });
      assert(green, "no span holds GREEN alone");
      assert(green.classes.includes("xterm-bold"), green.classes.join(" "));
      assert(green.classes.includes("xterm-fg-2"), green.classes.join(" "));
      assertEquals(green.color, "rgb(13, 188, 121)");
      assertEquals(green.weight, "700");

      // The view resizes to the pane.
      await fx.tmux("resize-window", "-t", paneId, "-x", "100", "-y", "30");
      await view.waitForFunction(
        () => document.querySelectorAll(".xterm-rows > div").length === 30,
        PATIENCE,
      );

      // A fetch from the view is blocked; the host's own request afterwards is the sentinel.
      const fetched = await view.evaluate(async (origin) => {
        const violation = new Promise<string>((resolve) =>
          document.addEventListener("securitypolicyviolation", (e) => resolve(e.effectiveDirective))
        );
        const outcome = await globalThis.fetch(`${origin}/canary`).then(
          () => "loaded",
          () => "blocked",
        );
        return { outcome, directive: await violation };
      }, host.hostOrigin);
      assertEquals(fetched.outcome, "blocked");
      assertEquals(fetched.directive, "connect-src");
      await host.page.evaluate((origin) => fetch(`${origin}/sentinel`), host.hostOrigin);
      assertEquals(host.requests, ["/sentinel"]);

      // The pane closes: the view says so and stops following.
      await fx.tmux("kill-pane", "-t", paneId);
      await view.waitForFunction(
        () => document.getElementById("status")?.dataset.state === "gone",
        PATIENCE,
      );
      assertEquals(
        await view.evaluate(() => document.getElementById("status")?.textContent),
        `${paneId} was closed.`,
      );
      assertEquals(host.errors, []);
    } finally {
      await host.close();
      await close();
    }
  },
});

Deno.test({
  name: "the view says when the pane's program exited, then when the tmux server is gone",
  ignore: !chromium,
  sanitizeResources: false,
  sanitizeOps: false,
  fn: async () => {
    await using fx = await TmuxFixture.start();
    const paneId = await fx.newWindow("printf 'press enter\\n'; read x; exit 3");
    await fx.tmux("set-option", "-p", "-t", paneId, "remain-on-exit", "on");
    const hostClient = new Client({ name: "render-test-host", version: "1" }, {
      capabilities: { extensions: { [UI_EXTENSION_ID]: { mimeTypes: [VIEW_MIME_TYPE] } } },
    });
    const { client, close } = await connectInProcess(["-S", fx.socket], {}, undefined, hostClient);
    const host = await startViewHost(client, chromium!);
    const state = (view: Frame) =>
      view.evaluate(() => {
        const line = document.getElementById("status");
        return { state: line?.dataset.state, text: line?.textContent };
      });
    try {
      const view = await host.show(paneId);
      await shows(view, "press enter");
      assertEquals((await state(view)).state, "live");

      await fx.tmux("send-keys", "-t", paneId, "Enter");
      await view.waitForFunction(
        () => document.getElementById("status")?.dataset.state === "dead",
        PATIENCE,
      );
      // tmux can list the pane dead a moment before it has reaped the exit status; the view then
      // says "exited" without it. When it gives one, it is the program's.
      const { text } = await state(view);
      assertMatch(
        text ?? "",
        new RegExp(`^${paneId} · 80×24 · its program exited( \\(exit status 3\\))?$`),
      );

      await fx.tmux("kill-server");
      await view.waitForFunction(
        () => document.getElementById("status")?.dataset.state === "gone",
        PATIENCE,
      );
      assertEquals((await state(view)).text, "The tmux server is gone.");
      assertEquals(host.errors, []);
    } finally {
      await host.close();
      await close();
    }
  },
});
