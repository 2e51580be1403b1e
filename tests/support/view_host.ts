// deno-lint-ignore-file no-explicit-any -- JSON-RPC params from the page are untyped
/**
 * A minimal MCP Apps host for show_pane's view (docs/design.md §10.4), as the extension's spec has
 * web hosts do it: a host page on one origin, a sandbox proxy on another (127.0.0.1, another port)
 * served with the strict CSP the view's metadata asks for, and the view in the proxy's inner
 * `srcdoc` iframe. The host's MCP client runs in the calling process: the page hands it the
 * view's `tools/call` requests, for tools whose visibility includes "app" only. Used by
 * tests/tools/inspect/show_pane_render_test.ts and scripts/view_bench.ts; needs Chromium.
 */
import type { Client } from "@modelcontextprotocol/sdk/client";
// deno-lint-ignore no-import-prefix -- dev tooling (deno.dev.lock): a start never fetches it
import puppeteer, { type Browser, type Frame, type Page } from "npm:puppeteer-core@^25.16.0";
import { PANE_VIEW_URI } from "../../src/view/resource.ts";

/** Where apt's headless Chromium is, if it is installed (or `CHROMIUM` names another). */
export function chromiumPath(): string | undefined {
  const candidates = [Deno.env.get("CHROMIUM"), "/usr/bin/chromium-headless-shell"];
  for (const path of candidates) {
    if (!path) continue;
    try {
      if (Deno.statSync(path).isFile) return path;
    } catch {
      // not there
    }
  }
  return undefined;
}

/** The spec's sandbox CSP for a view that declared no origin at all. */
const SANDBOX_CSP = "default-src 'none'; script-src 'self' 'unsafe-inline'; " +
  "style-src 'self' 'unsafe-inline'; img-src 'self' data:; media-src 'self' data:; " +
  "font-src 'self' data:; connect-src 'none'; frame-src 'none'; base-uri 'self'; " +
  "object-src 'none'";

const SANDBOX_PAGE = `<!doctype html><html><head><meta charset="utf-8">
<style>html,body{margin:0;overflow:hidden}iframe{border:0;width:100%;height:100vh;display:block}</style>
</head><body><script>
const inner = document.createElement("iframe");
const reserved = (m) => typeof m?.method === "string" && m.method.startsWith("ui/notifications/sandbox-");
addEventListener("message", (event) => {
  const m = event.data;
  if (event.source === parent) {
    if (m?.method === "ui/notifications/sandbox-resource-ready") {
      inner.setAttribute("sandbox", "allow-scripts allow-same-origin");
      inner.srcdoc = m.params.html;
      document.body.append(inner);
    } else if (!reserved(m)) inner.contentWindow?.postMessage(m, "*");
  } else if (event.source === inner.contentWindow && !reserved(m)) parent.postMessage(m, "*");
});
parent.postMessage({ jsonrpc: "2.0", method: "ui/notifications/sandbox-proxy-ready", params: {} }, "*");
</script></body></html>`;

const HOST_PAGE = `<!doctype html><html><head><meta charset="utf-8">
<style>body{margin:0;background:#fff}iframe{border:0;display:block;width:900px;height:480px}</style>
</head><body><script>
globalThis.mountView = (sandboxUrl, html, csp, toolInput, toolResult) => new Promise((mounted) => {
  const frame = document.createElement("iframe");
  frame.setAttribute("sandbox", "allow-scripts allow-same-origin");
  frame.src = sandboxUrl;
  document.body.append(frame);
  addEventListener("message", async (event) => {
    if (event.source !== frame.contentWindow) return;
    const m = event.data;
    if (m?.jsonrpc !== "2.0") return;
    const send = (x) => frame.contentWindow.postMessage({ jsonrpc: "2.0", ...x }, "*");
    switch (m.method) {
      case "ui/notifications/sandbox-proxy-ready":
        return send({ method: "ui/notifications/sandbox-resource-ready", params: { html, csp } });
      case "ui/initialize":
        return send({ id: m.id, result: {
          protocolVersion: "2026-01-26",
          hostInfo: { name: "tmux-mcp test host", version: "1" },
          hostCapabilities: { serverTools: {} },
          hostContext: { theme: "dark", displayMode: "inline" },
        } });
      case "ui/notifications/initialized":
        send({ method: "ui/notifications/tool-input", params: { arguments: toolInput } });
        send({ method: "ui/notifications/tool-result", params: toolResult });
        return mounted();
      case "ui/notifications/size-changed":
        frame.style.width = m.params.width + "px";
        frame.style.height = m.params.height + "px";
        return;
    }
    if (m.id === undefined || typeof m.method !== "string" || m.method.startsWith("ui/")) return;
    try {
      send({ id: m.id, result: await globalThis.mcpRequest(m.method, m.params) });
    } catch (error) {
      send({ id: m.id, error: { code: -32603, message: String(error?.message ?? error) } });
    }
  });
});
</script></body></html>`;

/** A running host: the browser, its pages, and what it saw. */
export interface ViewHost {
  /** The host page. */
  page: Page;
  /** Errors thrown in any of the pages. */
  errors: string[];
  /** Paths requested from the host's origin other than the page itself. */
  requests: string[];
  /** How long each proxied tools/call took (ms), in order. */
  calls: Array<{ name: string; ms: number }>;
  /** The host origin's URL (a fetch from the view to it must be blocked). */
  hostOrigin: string;
  /** Call show_pane with the host's client and mount the view with its result. */
  show(paneId: string): Promise<Frame>;
  /** Close the browser and both servers. */
  close(): Promise<void>;
}

/** Start the browser and the two origins; `client` is the host's MCP client. */
export async function startViewHost(client: Client, chromium: string): Promise<ViewHost> {
  const requests: string[] = [];
  const errors: string[] = [];
  const calls: Array<{ name: string; ms: number }> = [];
  const listen = (handler: (request: Request) => Response) =>
    Deno.serve({ hostname: "127.0.0.1", port: 0, onListen: () => {} }, handler);
  const host = listen((request) => {
    const path = new URL(request.url).pathname;
    if (path === "/") return new Response(HOST_PAGE, { headers: { "content-type": "text/html" } });
    requests.push(path);
    return new Response("reached", { headers: { "access-control-allow-origin": "*" } });
  });
  const sandbox = listen(() =>
    new Response(SANDBOX_PAGE, {
      headers: { "content-type": "text/html", "content-security-policy": SANDBOX_CSP },
    })
  );
  const hostOrigin = `http://127.0.0.1:${host.addr.port}`;
  const sandboxUrl = `http://127.0.0.1:${sandbox.addr.port}/sandbox`;
  const profile = await Deno.makeTempDir({ prefix: "tmux-mcp-chromium-" });
  let browser: Browser | undefined;
  const close = async () => {
    await browser?.close().catch(() => {});
    await Promise.all([host.shutdown(), sandbox.shutdown()]);
    await Deno.remove(profile, { recursive: true }).catch(() => {});
  };
  try {
    browser = await puppeteer.launch({
      executablePath: chromium,
      headless: "shell",
      userDataDir: profile,
      args: [
        "--headless",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-quic",
        "--no-first-run",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
      ],
    });
    const page = await browser.newPage();
    page.on("pageerror", (error) => errors.push(String((error as Error)?.message ?? error)));
    // The host forwards only tools/call of tools the view may call (visibility includes "app").
    const tools = (await client.listTools()).tools;
    await page.exposeFunction("mcpRequest", async (method: string, params: any) => {
      if (method !== "tools/call") throw new Error(`${method} is not forwarded by this host`);
      const tool = tools.find((t) => t.name === params?.name);
      const visibility = (tool?._meta?.ui as { visibility?: string[] })?.visibility;
      if (!tool || (visibility && !visibility.includes("app"))) {
        throw new Error(`${params?.name} may not be called by the view`);
      }
      const started = performance.now();
      const result = await client.callTool({ name: params.name, arguments: params.arguments });
      calls.push({ name: params.name, ms: performance.now() - started });
      return result;
    });
    await page.goto(`${hostOrigin}/`);
    const show = async (paneId: string) => {
      const { contents } = await client.readResource({ uri: PANE_VIEW_URI });
      const { text, _meta } = contents[0] as { text: string; _meta?: { ui?: { csp?: unknown } } };
      const result = await client.callTool({ name: "show_pane", arguments: { paneId } });
      await page.evaluate(
        (url, html, csp, input, output) =>
          (globalThis as unknown as { mountView: (...a: unknown[]) => Promise<void> })
            .mountView(url, html, csp, input, output),
        sandboxUrl,
        text,
        _meta?.ui?.csp ?? {},
        { paneId },
        result,
      );
      const view = page.frames().find((f) => f.url() === "about:srcdoc");
      if (!view) throw new Error("the view's frame is missing");
      return view;
    };
    return { page, errors, requests, calls, hostOrigin, show, close };
  } catch (error) {
    await close();
    throw error;
  }
}
