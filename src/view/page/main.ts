/// <reference lib="dom" />
/**
 * The pane view (docs/design.md §10.3), run in a host's sandboxed iframe: a hand-written MCP Apps
 * client (JSON-RPC over postMessage, protocol 2026-01-26) and an xterm.js terminal with its DOM
 * renderer. It learns its pane from show_pane's call, then follows it with pane_view_frame calls
 * the host proxies, each waiting for the next change. It never sends input: nothing listens to
 * the terminal's keyboard, and the only tool it calls is pane_view_frame.
 *
 * Built into src/generated/page_html.ts by `deno task view`.
 */
// deno-lint-ignore no-import-prefix -- dev tooling (deno.dev.lock): a start never fetches it
import { Terminal } from "npm:@xterm/xterm@6.0.0";
import { Unicode11Addon } from "@xterm/addon-unicode11";
import { THEME, type ThemeName } from "../../render/palette.ts";

const PROTOCOL_VERSION = "2026-01-26";
/** How long one frame call waits for a change (the server clamps it to its own ceiling). */
const WAIT_MS = 5_000;
/** Without live mode the server cannot wait: the view asks again after this long. */
const POLL_MS = 1_000;
/** At most about 30 frames a second: a busy pane costs the host no more calls than that. */
const MIN_FRAME_MS = 33;
const FRAME_TOOL = "pane_view_frame";
/** A pane id, local (`%3`) or of a remote host (`box1:%3`, docs/design.md §5.15). */
const PANE_ID = /^(?:[a-z][a-z0-9-]{0,31}:)?%\d+$/;

type Json = Record<string, unknown>;
interface Frame {
  paneId: string;
  columns: number;
  rows: number;
  lines: string[];
  cursorX: number;
  cursorY: number;
  cursorVisible?: boolean;
  cursor?: string;
  changed?: boolean;
  dead?: boolean;
  exitStatus?: number;
}

const statusLine = document.getElementById("status")!;
const screen = document.getElementById("screen")!;

function status(text: string, state: "live" | "wait" | "dead" | "gone"): void {
  statusLine.textContent = text;
  statusLine.dataset.state = state;
}

// --- JSON-RPC over postMessage to the host (through its sandbox proxy) ---

let nextId = 1;
const pending = new Map<number, { resolve: (v: Json) => void; reject: (e: Error) => void }>();
let onNotification: (method: string, params: Json) => void = () => {};

function post(message: Json): void {
  globalThis.parent.postMessage({ jsonrpc: "2.0", ...message }, "*");
}

function request(method: string, params: Json): Promise<Json> {
  const id = nextId++;
  post({ id, method, params });
  return new Promise((resolve, reject) => pending.set(id, { resolve, reject }));
}

globalThis.addEventListener("message", (event: MessageEvent) => {
  if (event.source !== globalThis.parent) return;
  const message = event.data as Json | null;
  if (!message || message.jsonrpc !== "2.0") return;
  const { id, method } = message;
  if (typeof method === "string") {
    if (id !== undefined) {
      // Requests of the host: a ping, or the teardown before the iframe goes.
      if (method === "ui/resource-teardown") stopped = true;
      post({ id, result: {} });
      return;
    }
    onNotification(method, (message.params ?? {}) as Json);
    return;
  }
  const waiter = typeof id === "number" ? pending.get(id) : undefined;
  if (!waiter) return;
  pending.delete(id as number);
  if (message.error) {
    const error = message.error as { message?: string };
    waiter.reject(new Error(String(error.message ?? "request failed")));
  } else waiter.resolve((message.result ?? {}) as Json);
});

// --- the terminal ---

function themeOf(name: ThemeName) {
  const hex = (n: number) => `#${n.toString(16).padStart(6, "0")}`;
  const t = THEME[name];
  const names = ["black", "red", "green", "yellow", "blue", "magenta", "cyan", "white"];
  const colours: Record<string, string> = {
    foreground: hex(t.foreground),
    background: hex(t.background),
    cursor: hex(t.cursor),
  };
  names.forEach((n, i) => {
    colours[n] = hex(t.ansi[i]);
    colours[`bright${n[0].toUpperCase()}${n.slice(1)}`] = hex(t.ansi[i + 8]);
  });
  return colours;
}

const term = new Terminal({
  cols: 80,
  rows: 24,
  scrollback: 0,
  disableStdin: true,
  cursorBlink: false,
  // Drawn as tmux draws it, though the view never has the keyboard's focus.
  cursorInactiveStyle: "block",
  drawBoldTextInBrightColors: false,
  allowProposedApi: true,
  fontSize: 13,
  fontFamily: 'ui-monospace, "DejaVu Sans Mono", Menlo, Consolas, monospace',
  theme: themeOf("dark"),
});

/** The host's light or dark theme, for the terminal and the page around it. */
function applyTheme(name: ThemeName): void {
  const theme = themeOf(name);
  term.options.theme = theme;
  document.documentElement.style.background = theme.background;
  document.documentElement.style.color = theme.foreground;
}
term.loadAddon(new Unicode11Addon());
term.unicode.activeVersion = "11";
term.open(screen);
// No autowrap (rows are placed one by one). Leaving the alternate screen, which it is not on,
// makes xterm.js draw the cursor before the terminal ever had the keyboard's focus.
term.write("\x1b[?7l\x1b[?1047l");

function reportSize(): void {
  const box = document.body.getBoundingClientRect();
  post({
    method: "ui/notifications/size-changed",
    params: { width: Math.ceil(box.width), height: Math.ceil(box.height) },
  });
}
new ResizeObserver(reportSize).observe(document.body);

/** Anything in a row but text and SGR sequences is dropped (the server sends nothing else). */
function safe(line: string): string {
  // deno-lint-ignore no-control-regex -- controls are what is removed
  return line.replace(/\x1b(?!\[[0-9;]*m)|[\x00-\x1a\x1c-\x1f\x7f-\x9f]/g, "");
}

function draw(frame: Frame): Promise<void> {
  const cols = Math.max(1, Math.min(frame.columns, 400));
  const rows = Math.max(1, Math.min(frame.rows, 200));
  if (cols !== term.cols || rows !== term.rows) term.resize(cols, rows);
  let out = "\x1b[0m\x1b[H\x1b[2J";
  frame.lines.slice(0, rows).forEach((line, y) => out += `\x1b[${y + 1};1H${safe(line)}`);
  out += `\x1b[0m\x1b[${frame.cursorY + 1};${frame.cursorX + 1}H`;
  out += frame.cursorVisible === false ? "\x1b[?25l" : "\x1b[?25h";
  return new Promise((resolve) => term.write(out, resolve));
}

// --- following the pane ---

function sleep(ms: number): Promise<void> {
  return ms > 0 ? new Promise((resolve) => setTimeout(resolve, ms)) : Promise.resolve();
}

let stopped = false;
let following: string | undefined;

function describeFailure(code: unknown, paneId: string, message: string): string {
  if (code === "target_not_found") return `${paneId} was closed.`;
  if (code === "server_not_running" || code === "server_gone") return "The tmux server is gone.";
  return `Stopped following ${paneId}: ${message}`;
}

async function follow(paneId: string): Promise<void> {
  let cursor: string | undefined;
  let restarts = 0;
  /** The exit status once the program exited (-1: unknown), as the last check said. */
  let dead: number | undefined;
  while (!stopped) {
    const args: Json = cursor === undefined ? { paneId } : { paneId, cursor, waitMs: WAIT_MS };
    let result: Json;
    const asked = performance.now();
    try {
      result = await request("tools/call", { name: FRAME_TOOL, arguments: args });
    } catch (error) {
      status(`The MCP server is gone (${(error as Error).message}).`, "gone");
      return;
    }
    const data = (result.structuredContent ?? {}) as Json;
    if (result.isError) {
      const failure = (data.error ?? {}) as { code?: string; message?: string };
      // A stream that ended or was replaced: start again from the screen, once in a row.
      if (failure.code === "stale_cursor" && cursor !== undefined && restarts++ < 1) {
        cursor = undefined;
        continue;
      }
      status(describeFailure(failure.code, paneId, failure.message ?? "error"), "gone");
      return;
    }
    restarts = 0;
    const frame = data as unknown as Frame;
    if (frame.changed !== false) await draw(frame);
    if (frame.dead !== undefined) dead = frame.dead ? frame.exitStatus ?? -1 : undefined;
    const size = `${frame.columns}×${frame.rows}`;
    if (dead === undefined) status(`${paneId} · ${size} · live`, "live");
    else {
      const exit = dead === -1 ? "" : ` (exit status ${dead})`;
      status(`${paneId} · ${size} · its program exited${exit}`, "dead");
    }
    cursor = frame.cursor;
    await sleep(cursor === undefined ? POLL_MS : MIN_FRAME_MS - (performance.now() - asked));
  }
}

function start(paneId: unknown): void {
  if (following !== undefined || typeof paneId !== "string" || !PANE_ID.test(paneId)) return;
  following = paneId;
  status(`${paneId} · connecting`, "wait");
  follow(paneId).catch((error) => status(`The view failed: ${error}`, "gone"));
}

onNotification = (method, params) => {
  if (method === "ui/notifications/tool-input") {
    start((params.arguments as Json | undefined)?.paneId);
  } else if (method === "ui/notifications/tool-result") {
    start((params.structuredContent as Json | undefined)?.paneId);
  } else if (method === "ui/notifications/host-context-changed" && params.theme) {
    applyTheme(params.theme === "light" ? "light" : "dark");
  }
};

status("waiting for the host", "wait");
request("ui/initialize", {
  protocolVersion: PROTOCOL_VERSION,
  appInfo: { name: "tmux-mcp pane view", version: "1" },
  appCapabilities: {},
}).then((result) => {
  const context = (result.hostContext ?? {}) as Json;
  if (context.theme === "light") applyTheme("light");
  post({ method: "ui/notifications/initialized", params: {} });
  status("waiting for show_pane's pane", "wait");
}).catch((error) => status(`The host did not answer: ${error.message}`, "gone"));
