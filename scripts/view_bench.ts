/**
 * show_pane's view, measured in headless Chromium (`deno task bench:view`): the page's size, the
 * time from calling show_pane to the view's first rendered row, and the latency from a pane's
 * output to the view (p50, p90). With `--png FILE`, also a picture of the view for the README.
 * Uses the render test's spec host (tests/support/view_host.ts) and a private tmux server.
 *
 *   deno task bench:view [--runs 40] [--png docs/show_pane.png]
 */
import { Client } from "@modelcontextprotocol/sdk/client";
import { connectInProcess } from "../tests/support/client.ts";
import { TmuxFixture } from "../tests/support/fixture.ts";
import { chromiumPath, startViewHost } from "../tests/support/view_host.ts";
import { PANE_VIEW_HTML } from "../src/generated/page_html.ts";
import { UI_EXTENSION_ID, VIEW_MIME_TYPE } from "../src/view/resource.ts";

const arg = (name: string) => {
  const i = Deno.args.indexOf(name);
  return i < 0 ? undefined : Deno.args[i + 1];
};
const runs = Number(arg("--runs") ?? 40);
const png = arg("--png");

/** A short, colourful session for the picture; `cat` then echoes what is typed. */
const DEMO = [
  "printf '\\033[1m$ deno task test tests/tools/inspect/show_pane_test.ts\\033[0m\\n'",
  "printf 'running 4 tests from ./tests/show_pane_test.ts\\n'",
  "printf 'tools/list: show_pane names its view ... \\033[32mok\\033[0m \\033[90m(4s)\\033[0m\\n'",
  "printf 'the view resource: MIME type and CSP ... \\033[32mok\\033[0m \\033[90m(584ms)\\033[0m\\n'",
  "printf 'the view is self-contained ... \\033[32mok\\033[0m \\033[90m(12ms)\\033[0m\\n'",
  "printf 'frame rows go plain past 1 MiB ... \\033[1;31mFAILED\\033[0m \\033[90m(628ms)\\033[0m\\n\\n'",
  "printf '\\033[1;32mok\\033[0m | 3 passed | \\033[1;31m1 failed\\033[0m \\033[90m(8s)\\033[0m\\n'",
  "printf '\\033[7m NORMAL \\033[0m \\033[44;97m tmux-mcp \\033[0m \\033[33m~/src/tmux-mcp\\033[0m \\033[36m(main)\\033[0m\\n'",
  "exec cat",
].join("; ");

const chromium = chromiumPath();
if (!chromium) {
  console.error("Chromium not found: apt-get install chromium-headless-shell (or set CHROMIUM)");
  Deno.exit(1);
}

await using fx = await TmuxFixture.start({ width: 72, height: 12 });
const paneId = (await fx.tmux("new-window", "-d", "-P", "-F", "#{pane_id}", DEMO)).trim();
await fx.tmux("resize-window", "-t", paneId, "-x", "72", "-y", "12");
const hostClient = new Client({ name: "bench-host", version: "1" }, {
  capabilities: { extensions: { [UI_EXTENSION_ID]: { mimeTypes: [VIEW_MIME_TYPE] } } },
});
const { client, close } = await connectInProcess(["-S", fx.socket], {}, undefined, hostClient);
const host = await startViewHost(client, chromium);
try {
  const rowHolds = (text: string) =>
    view.waitForFunction(
      (t) =>
        [...document.querySelectorAll(".xterm-rows > div")].some((row) =>
          (row.textContent ?? "").replace(/\u00a0/g, " ").includes(t)
        ),
      { timeout: 60_000, polling: "mutation" },
      text,
    );
  const started = performance.now();
  const view = await host.show(paneId);
  const mounted = performance.now() - started;
  await rowHolds("NORMAL");
  const firstRow = performance.now() - started;
  const firstFrame = host.calls[0]?.ms ?? NaN;

  const latencies: number[] = [];
  for (let i = 0; i < runs; i++) {
    const mark = `m${i}x`;
    const t0 = performance.now();
    await fx.tmux("send-keys", "-t", paneId, "-l", mark);
    await rowHolds(mark);
    // Each mark on its own line, so none is split where a row wraps.
    await fx.tmux("send-keys", "-t", paneId, "C-u");
    latencies.push(performance.now() - t0);
  }
  latencies.sort((a, b) => a - b);
  const at = (q: number) =>
    latencies[Math.min(latencies.length - 1, Math.floor(q * latencies.length))];
  const bytes = new TextEncoder().encode(PANE_VIEW_HTML).length;
  console.log(`view: ${bytes} bytes (${(bytes / 1024).toFixed(0)} KiB)`);
  console.log(
    `show_pane to first rendered row: ${firstRow.toFixed(0)} ms (view loaded and initialized: ` +
      `${mounted.toFixed(0)} ms; first pane_view_frame call: ${firstFrame.toFixed(0)} ms)`,
  );
  console.log(
    `pane output to view (${runs} runs, send-keys included): p50 ${at(0.5).toFixed(1)} ms, ` +
      `p90 ${at(0.9).toFixed(1)} ms`,
  );
  if (png) {
    await fx.tmux("send-keys", "-t", paneId, "-l", "typed by the agent, shown live");
    await rowHolds("shown live");
    const frame = await host.page.$("iframe");
    await frame!.screenshot({ path: png });
    console.log(`picture: ${png}`);
  }
} finally {
  await host.close();
  await close();
}
