/**
 * Streamable HTTP (docs/design.md §2.4): SDK clients over real HTTP on a loopback port, each an MCP
 * session on one shared tmux host; the token, the Host/Origin guard, sessions, limits and
 * shutdown. Header tests send raw HTTP over Deno.connect (fetch would set its own Host).
 *
 * These tests need `--allow-net=127.0.0.1`, which `deno task test` grants. Run without it, this
 * file re-runs itself in a child `deno test` that has it, together with the leftover check, so its
 * fixtures are checked too.
 */
import { Client } from "@modelcontextprotocol/sdk/client";
// @ts-types="npm:@modelcontextprotocol/sdk@^1.32.2/client/streamableHttp"
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { assert, assertEquals, assertMatch } from "../support/assert.ts";
import { askingClient, call, fails, ok, startPermissions } from "../support/client.ts";
import { cleanEnv, eventually, rawReceiver, TmuxFixture } from "../support/fixture.ts";
import { initializeRequest, type Served, serveFixture } from "../support/http_serve.ts";
import { pastesArriveWhole } from "../support/pastes.ts";
import { CHOICES } from "../../src/guard/ask.ts";
import type { HttpLimits } from "../../src/http/server.ts";
import type { LiveOptions } from "../../src/tmux/live/options.ts";
import {
  type Baseline,
  type Outcome,
  outcomeOf,
  regressions,
  SUITE,
} from "../../scripts/conformance.ts";

const NET = (await Deno.permissions.query({ name: "net", host: "127.0.0.1" })).state === "granted";

/** A test that talks HTTP: ignored here when the child run (below) does it. */
function httpTest(name: string, fn: () => Promise<void>): void {
  Deno.test({ name, ignore: !NET, fn });
}

if (!NET) {
  Deno.test("HTTP tests: re-run in a child with --allow-net=127.0.0.1 (this run has no network)", async () => {
    const here = new URL(import.meta.url).pathname;
    const out = await new Deno.Command(Deno.execPath(), {
      args: [
        "test",
        "--no-check", // this run type-checked the same files
        "--allow-run",
        "--allow-read",
        "--allow-write",
        "--allow-env",
        "--allow-net=127.0.0.1",
        here,
      ],
      env: { NO_COLOR: "1" },
      stdout: "piped",
      stderr: "piped",
    }).output();
    const dec = new TextDecoder();
    const text = dec.decode(out.stdout) + dec.decode(out.stderr);
    assert(out.success, text.slice(-6000));
    assertMatch(text, /ok \| \d+ passed .*0 failed/);
  });
}

const TOKEN = "tok-0123456789abcdef-http-test";

/** An HTTP server on a free loopback port, on the fixture's tmux server. */
function serve(
  fx: TmuxFixture,
  args: string[] = [],
  limits?: Partial<HttpLimits>,
  liveOptions?: Partial<LiveOptions>,
): Promise<Served> {
  const toolsets = ["--toolsets", "inspect,manage,execute"];
  return serveFixture(fx, { token: TOKEN, args: [...toolsets, ...args], limits, liveOptions });
}

interface HttpClient {
  client: Client;
  transport: StreamableHTTPClientTransport;
  close(): Promise<void>;
}

/** An SDK client over Streamable HTTP with the token; tools listed once (output validation). */
async function connect(
  url: string,
  name = "http-test",
  client: Client = new Client({ name, version: "1" }),
): Promise<HttpClient> {
  const transport = new StreamableHTTPClientTransport(new URL(url), {
    requestInit: { headers: { Authorization: `Bearer ${TOKEN}` } },
  });
  await client.connect(transport);
  await client.listTools();
  return { client, transport, close: () => client.close() };
}

const INITIALIZE = initializeRequest("raw");

interface RawResponse {
  status: number;
  headers: Map<string, string>;
  body: string;
}

/**
 * One request over a fresh TCP connection, headers exactly as given (`Host` included), read until
 * the server closes it (Connection: close). Bounded: 1 MiB, 5 s.
 */
async function raw(
  port: number,
  headers: Record<string, string>,
  body = INITIALIZE,
  method = "POST",
): Promise<RawResponse> {
  const conn = await Deno.connect({ hostname: "127.0.0.1", port });
  const all = {
    host: `127.0.0.1:${port}`,
    "content-type": "application/json",
    accept: "application/json, text/event-stream",
    authorization: `Bearer ${TOKEN}`,
    connection: "close",
    "content-length": String(new TextEncoder().encode(body).length),
    ...headers,
  };
  const head = `${method} /mcp HTTP/1.1\r\n` +
    Object.entries(all).filter(([, v]) => v !== "").map(([k, v]) => `${k}: ${v}\r\n`).join("") +
    "\r\n";
  await conn.write(new TextEncoder().encode(head + body));
  const chunks: Uint8Array[] = [];
  let size = 0;
  const timer = setTimeout(() => conn.close(), 5000);
  try {
    const buffer = new Uint8Array(65536);
    while (size < 1 << 20) {
      const n = await conn.read(buffer).catch(() => null);
      if (n === null) break;
      chunks.push(buffer.slice(0, n));
      size += n;
    }
  } finally {
    clearTimeout(timer);
    try {
      conn.close();
    } catch {
      // closed by the timer
    }
  }
  const text = new TextDecoder().decode(
    chunks.reduce((a, b) => new Uint8Array([...a, ...b]), new Uint8Array()),
  );
  const [top, ...rest] = text.split("\r\n\r\n");
  const [statusLine, ...headerLines] = top.split("\r\n");
  return {
    status: Number(statusLine.split(" ")[1]),
    headers: new Map(headerLines.map((l) => {
      const at = l.indexOf(":");
      return [l.slice(0, at).toLowerCase(), l.slice(at + 1).trim()];
    })),
    body: rest.join("\r\n\r\n"),
  };
}

/** A POST with fetch (for bodies; fetch sets Host itself, which is what these tests want). */
function post(url: string, body: BodyInit, headers: Record<string, string> = {}) {
  return fetch(url, {
    method: "POST",
    body,
    headers: {
      "content-type": "application/json",
      accept: "application/json, text/event-stream",
      authorization: `Bearer ${TOKEN}`,
      ...headers,
    },
  });
}

interface Since {
  text: string;
  cursor?: string;
}

httpTest(
  "an SDK client over Streamable HTTP lists tools, calls several and reads the capabilities",
  async () => {
    await using fx = await TmuxFixture.start({ command: "cat" });
    const served = await serve(fx);
    const a = await connect(served.url);
    try {
      assert(a.transport.sessionId, "the server assigned an Mcp-Session-Id");
      const { tools } = await a.client.listTools();
      assert(tools.some((t) => t.name === "send_keys") && tools.length > 20, `${tools.length}`);
      const { sessions } = await ok<{ sessions: Array<{ sessionName: string }> }>(
        a.client,
        "list_sessions",
      );
      assertEquals(sessions.map((s) => s.sessionName), ["main"]);
      await ok(a.client, "send_keys", { paneId: "%0", keys: "over-http" });
      assert(
        await eventually(async () => {
          const c = await ok<{ text: string }>(a.client, "capture_pane", { paneId: "%0" });
          return c.text.includes("over-http\nover-http");
        }),
        "typed and echoed by cat",
      );
      const info = await ok<{ pid: number }>(a.client, "get_server_info");
      assertEquals(info.pid, await fx.serverPid());
      const resource = await a.client.readResource({ uri: "tmux://capabilities" });
      assertMatch(JSON.stringify(resource.contents[0]), /toolsets/);
      assertEquals(served.server.sessions, 1);
    } finally {
      await a.close();
      await served.close();
    }
  },
);

httpTest(
  "no token or a wrong token is 401 with WWW-Authenticate: Bearer, and no token is ever logged",
  async () => {
    await using fx = await TmuxFixture.start();
    const served = await serve(fx);
    try {
      const missing = await raw(served.server.port, { authorization: "" });
      assertEquals(missing.status, 401);
      assertMatch(missing.headers.get("www-authenticate") ?? "", /^Bearer realm="tmux-mcp"$/);
      const wrong = TOKEN.slice(0, -1) + "X"; // same length, last character differs
      for (const value of [`Bearer ${wrong}`, `Basic ${btoa(`u:${TOKEN}`)}`, TOKEN, "Bearer "]) {
        const refused = await raw(served.server.port, { authorization: value });
        assertEquals(refused.status, 401, value);
        assertMatch(refused.headers.get("www-authenticate") ?? "", /^Bearer /);
        assert(!refused.body.includes(TOKEN) && !refused.body.includes(wrong), refused.body);
      }
      assertEquals(served.server.sessions, 0, "nothing reached MCP");
      const right = await raw(served.server.port, {});
      assertEquals(right.status, 200);
      const logs = served.logs.join("\n");
      assertMatch(logs, /refused a request from 127\.0\.0\.1: no token/);
      assert(!logs.includes(TOKEN) && !logs.includes(wrong), logs);
    } finally {
      await served.close();
    }
  },
);

httpTest(
  "a foreign Host or Origin is 403 even with the token; loopback names and configured extras are served",
  async () => {
    await using fx = await TmuxFixture.start();
    const served = await serve(fx, [
      "--http-allowed-hosts",
      "tmux.example.test,proxy.example.test:8443",
      "--http-allowed-origins",
      "https://ide.example.test",
    ]);
    const port = served.server.port;
    try {
      for (
        const host of [
          "evil.example",
          `evil.example:${port}`,
          "127.0.0.1.evil.example",
          "proxy.example.test:9",
        ]
      ) {
        const refused = await raw(port, { host });
        assertEquals(refused.status, 403, host);
        assertMatch(refused.body, /Host is not served/);
      }
      assertEquals((await raw(port, { host: "" })).status, 403, "no Host at all");
      for (
        const origin of [
          "http://evil.example",
          `http://evil.example:${port}`,
          "null",
          "http://localhost:1",
        ]
      ) {
        const refused = await raw(port, { host: `127.0.0.1:${port}`, origin });
        assertEquals(refused.status, 403, origin);
        assertMatch(refused.body, /Origin is not allowed/);
      }
      assertEquals(served.server.sessions, 0, "nothing reached MCP");
      for (
        const [host, origin] of [
          [`127.0.0.1:${port}`, ""],
          [`localhost:${port}`, `http://localhost:${port}`],
          [`[::1]:${port}`, `http://[::1]:${port}`],
          ["tmux.example.test", "https://ide.example.test"],
          ["proxy.example.test:8443", ""],
        ]
      ) {
        const served200 = await raw(port, { host, origin });
        assertEquals(served200.status, 200, `${host} ${origin}`);
        assertMatch(served200.body, /"serverInfo"/);
      }
      assertEquals(served.server.sessions, 5);
    } finally {
      await served.close();
    }
  },
);

httpTest(
  "two HTTP sessions on one host: their pastes into one pane never interleave, and neither takes the other's control client for a person",
  async () => {
    await using fx = await TmuxFixture.start({ command: "cat" });
    const rx = await rawReceiver(fx);
    const served = await serve(fx);
    const a = await connect(served.url, "a");
    const b = await connect(served.url, "b");
    try {
      assert(a.transport.sessionId !== b.transport.sessionId, "two sessions");
      await pastesArriveWhole(rx, a.client, b.client);

      // A follows %0: its control client attaches to session main. B still sees nobody there.
      const first = await ok<Since>(a.client, "capture_since", { paneId: "%0" });
      assertEquals(served.host.live!.stats().connections, 1);
      assert((await fx.tmux("list-clients")).trim() !== "", "a control client is attached");
      const { panes } = await ok<{ panes: Array<{ paneId: string; isAttended: boolean }> }>(
        b.client,
        "list_panes",
      );
      assertEquals(panes.filter((p) => p.isAttended), []);
      await ok(b.client, "send_keys", { paneId: "%0", keys: "from-b" });
      const read = await ok<Since>(a.client, "capture_since", {
        paneId: "%0",
        cursor: first.cursor,
        waitMs: 20_000,
      });
      assert(read.text.includes("from-b"), read.text);
    } finally {
      await a.close();
      await b.close();
      await served.close();
    }
  },
);

httpTest(
  "asking the person works over HTTP: the question goes out on the call's SSE stream, the answer comes back by POST",
  async () => {
    // Raw mode: the ^D that `script` sends when its stdin ends is a byte to cat, not end of input.
    await using fx = await TmuxFixture.start({ command: "stty raw -echo; exec cat" });
    const detach = await fx.attachPerson("main");
    const served = await serve(fx);
    const answers = [CHOICES.once, CHOICES.deny];
    const questions: string[] = [];
    const a = await connect(
      served.url,
      "asking",
      askingClient("asking", (question) => {
        questions.push(question.message);
        return { action: "accept", content: { decision: answers.shift()! } };
      }),
    );
    try {
      await ok(a.client, "send_keys", { paneId: "%0", keys: "allowed-once" });
      assert(
        await eventually(async () =>
          (await fx.tmux("capture-pane", "-p")).includes("allowed-once")
        ),
        "typed after the person allowed it",
      );
      assertEquals(
        (await fails(a.client, "send_keys", { paneId: "%0", keys: "denied" })).code,
        "target_denied",
      );
      assertEquals(questions.length, 2);
      assertMatch(questions[0], /a person is watching it/);
    } finally {
      await a.close();
      await served.close();
      await detach();
    }
  },
);

httpTest(
  "DELETE ends a session: its wait ends at once, its id answers 404, the other session goes on",
  async () => {
    await using fx = await TmuxFixture.start({ command: "cat" });
    // A wait of 10 minutes: whatever ends it within the liveness bound below is the DELETE.
    const served = await serve(fx, ["--wait-max-ms", "600000"]);
    const a = await connect(served.url, "a");
    const b = await connect(served.url, "b");
    const cancel = new AbortController();
    try {
      const first = await ok<Since>(a.client, "capture_since", { paneId: "%0" });
      const pending = a.client.callTool(
        {
          name: "capture_since",
          arguments: { paneId: "%0", cursor: first.cursor, waitMs: 600_000 },
        },
        undefined,
        { signal: cancel.signal },
      ).catch((error) => error);
      assert(await eventually(() => served.host.live!.stats().waiters === 1), "A is waiting");
      const id = a.transport.sessionId!;
      const deleted = await fetch(served.url, {
        method: "DELETE",
        headers: { authorization: `Bearer ${TOKEN}`, "mcp-session-id": id },
      });
      await deleted.body?.cancel();
      assertEquals(deleted.status, 200);
      assert(await eventually(() => served.host.live!.stats().waiters === 0), "wait ended");
      assertEquals(served.server.sessions, 1);
      const gone = await post(
        served.url,
        JSON.stringify({ jsonrpc: "2.0", id: 9, method: "ping" }),
        {
          "mcp-session-id": id,
        },
      );
      assertEquals(gone.status, 404);
      assertEquals((await gone.json()).error.code, -32001);
      // The stream A waited on is the host's: B reads it, and it still follows the pane.
      await fx.tmux("send-keys", "-t", "%0", "-l", "after-delete");
      const readB = await ok<Since>(b.client, "capture_since", { paneId: "%0" });
      assert(readB.text.includes("after-delete"), readB.text);
      cancel.abort();
      await pending;
    } finally {
      cancel.abort();
      await a.close().catch(() => {});
      await b.close();
      await served.close();
    }
  },
);

httpTest("a client's cancellation over HTTP ends its wait; its session goes on", async () => {
  await using fx = await TmuxFixture.start({ command: "cat" });
  const served = await serve(fx);
  const a = await connect(served.url);
  try {
    const first = await ok<Since>(a.client, "capture_since", { paneId: "%0" });
    const cancel = new AbortController();
    const pending = a.client.callTool(
      { name: "capture_since", arguments: { paneId: "%0", cursor: first.cursor, waitMs: 20_000 } },
      undefined,
      { signal: cancel.signal },
    ).then(() => "answered", (error) => String(error));
    assert(await eventually(() => served.host.live!.stats().waiters === 1), "waiting");
    cancel.abort("no longer needed");
    assertMatch(await pending, /no longer needed|abort/i);
    assert(await eventually(() => served.host.live!.stats().waiters === 0), "wait ended");
    assertEquals((await call(a.client, "list_sessions")).isError, undefined);
  } finally {
    await a.close();
    await served.close();
  }
});

httpTest(
  "an unused session expires; one with a request or an SSE stream open does not, until its client goes away",
  async () => {
    await using fx = await TmuxFixture.start({ command: "cat" });
    const served = await serve(fx, [], { idleMs: 400, keepAliveMs: 200 });
    const port = served.server.port;
    try {
      // A raw session: initialize answered, nothing held open.
      const idle = (await raw(port, {})).headers.get("mcp-session-id")!;
      // Another, whose client holds the SSE stream for server messages (GET).
      const held = (await raw(port, {})).headers.get("mcp-session-id")!;
      assert(idle && held, "session ids");
      const stream = await Deno.connect({ hostname: "127.0.0.1", port });
      await stream.write(new TextEncoder().encode(
        `GET /mcp HTTP/1.1\r\nhost: 127.0.0.1:${port}\r\nauthorization: Bearer ${TOKEN}\r\n` +
          `mcp-session-id: ${held}\r\naccept: text/event-stream\r\n\r\n`,
      ));
      const head = new Uint8Array(4096);
      const n = await stream.read(head);
      assertMatch(new TextDecoder().decode(head.subarray(0, n ?? 0)), /^HTTP\/1\.1 200/);
      // An SDK client waits 1.5 s on a pane: its request is open longer than the idle time.
      const a = await connect(served.url);
      const first = await ok<Since>(a.client, "capture_since", { paneId: "%0" });
      const waited = await ok<Since & { outcome: string }>(a.client, "capture_since", {
        paneId: "%0",
        cursor: first.cursor,
        waitMs: 1500,
      });
      assertEquals(waited.outcome, "timeout");
      assertEquals(served.server.sessions, 2, "only the unused session expired");
      const gone = await post(
        served.url,
        JSON.stringify({ jsonrpc: "2.0", id: 2, method: "ping" }),
        {
          "mcp-session-id": idle,
        },
      );
      assertEquals(gone.status, 404);
      await gone.body?.cancel();
      assertMatch(served.logs.join("\n"), /ended \(unused for 0\.4 s\)/);
      // The client holding the stream goes away without DELETE: noticed at the next keep-alive
      // write, then its session idles out too.
      stream.close();
      assert(await eventually(() => served.server.sessions === 1), "expired after it left");
      await a.close();
    } finally {
      await served.close();
    }
  },
);

httpTest(
  "one session more than the cap is 503 with a clear message; DELETE makes room",
  async () => {
    await using fx = await TmuxFixture.start();
    const served = await serve(fx, ["--http-max-sessions", "2"]);
    const port = served.server.port;
    try {
      const one = await raw(port, {});
      const two = await raw(port, {});
      assertEquals([one.status, two.status], [200, 200]);
      const three = await raw(port, {});
      assertEquals(three.status, 503);
      assertMatch(three.body, /at most 2 sessions/);
      assertMatch(three.body, /DELETE/);
      const deleted = await raw(
        port,
        { "mcp-session-id": one.headers.get("mcp-session-id")! },
        "",
        "DELETE",
      );
      assertEquals(deleted.status, 200);
      assertEquals((await raw(port, {})).status, 200);
      assertEquals(served.server.sessions, 2);
    } finally {
      await served.close();
    }
  },
);

httpTest(
  "a body over 4 MiB is 413 (declared or streamed); malformed messages get stdio's JSON-RPC answers",
  async () => {
    await using fx = await TmuxFixture.start();
    const served = await serve(fx);
    const a = await connect(served.url);
    try {
      const big = "x".repeat(4 * 1024 * 1024 + 1);
      const declared = await post(served.url, big);
      assertEquals(declared.status, 413);
      assertMatch((await declared.json()).error.message, /must not exceed 4194304 bytes/);
      const chunk = new TextEncoder().encode("y".repeat(65536));
      let sent = 0;
      const stream = new ReadableStream<Uint8Array>({
        pull(controller) {
          if (sent > 5 * 1024 * 1024) return controller.close();
          sent += chunk.length;
          controller.enqueue(chunk);
        },
      });
      const streamed = await post(served.url, stream).catch((error) => error as Error);
      if (streamed instanceof Response) {
        assertEquals(streamed.status, 413);
        await streamed.body?.cancel();
      } else {
        // The server may close the connection while the client is still sending.
        assertMatch(`${streamed} ${streamed.cause}`, /connection|reset|broken|closed/i);
      }

      const id = a.transport.sessionId!;
      const session = { "mcp-session-id": id, "mcp-protocol-version": "2025-06-18" };
      const parse = await post(served.url, "{", session);
      assertEquals(parse.status, 400);
      assertEquals((await parse.json()).error.code, -32700);
      const batch = await post(served.url, "[]", session);
      assertEquals(batch.status, 400);
      assertEquals((await batch.json()).error.code, -32600);
      const params = await post(
        served.url,
        JSON.stringify({ jsonrpc: "2.0", id: 7, method: "tools/call", params: "list_panes" }),
        session,
      );
      assertEquals(params.status, 200);
      const reply = await params.json();
      assertEquals([reply.id, reply.error.code], [7, -32602]);
      assertMatch(reply.error.message, /params must be an object/);
      const noSession = await post(
        served.url,
        JSON.stringify({ jsonrpc: "2.0", id: 8, method: "tools/list" }),
      );
      assertEquals(noSession.status, 400);
      assertMatch((await noSession.json()).error.message, /Mcp-Session-Id header is required/);
      // The session survived all of it.
      assertEquals((await call(a.client, "list_sessions")).isError, undefined);
    } finally {
      await a.close();
      await served.close();
    }
  },
);

httpTest(
  "main.ts --http: a generated token printed once; SIGTERM exits 0 within 2 s leaving no tmux client of ours",
  async () => {
    await using fx = await TmuxFixture.start({ command: "cat" });
    const probe = Deno.listen({ hostname: "127.0.0.1", port: 0 });
    const port = (probe.addr as Deno.NetAddr).port;
    probe.close();
    const child = new Deno.Command(Deno.execPath(), {
      args: [
        "run",
        ...await startPermissions(),
        `--allow-net=127.0.0.1:${port}`,
        new URL("../../main.ts", import.meta.url).pathname,
        "-S",
        fx.socket,
        "--http",
        `127.0.0.1:${port}`,
        "--toolsets",
        "inspect,manage,execute",
        // A wait of 10 minutes: whatever ends the process within the liveness bound is SIGTERM.
        "--wait-max-ms",
        "600000",
      ],
      clearEnv: true,
      env: cleanEnv({ NO_COLOR: "1" }),
      stdin: "null",
      stdout: "piped",
      stderr: "piped",
    }).spawn();
    let stderr = "";
    const reading = child.stderr.pipeThrough(new TextDecoderStream()).pipeTo(
      new WritableStream({ write: (text) => void (stderr += text) }),
    );
    const stdout = new Response(child.stdout).text();
    let exited = false;
    const status = child.status.then((s) => {
      exited = true;
      return s;
    });
    try {
      assert(
        await eventually(() => /Bearer <token>"\): \S+/.test(stderr) || exited, 15_000),
        stderr,
      );
      const token = /Bearer <token>"\): (\S+)/.exec(stderr)![1];
      assertEquals(stderr.split(token).length, 2, "printed once");
      assertMatch(
        stderr,
        new RegExp(`serving Streamable HTTP at http://127\\.0\\.0\\.1:${port}/mcp`),
      );
      const url = `http://127.0.0.1:${port}/mcp`;
      assertEquals(
        await post(url, INITIALIZE, { authorization: "" }).then(async (r) => {
          await r.body?.cancel();
          return r.status;
        }),
        401,
      );
      const transport = new StreamableHTTPClientTransport(new URL(url), {
        requestInit: { headers: { Authorization: `Bearer ${token}` } },
      });
      const client = new Client({ name: "sigterm", version: "1" });
      await client.connect(transport);
      const first = await ok<Since>(client, "capture_since", { paneId: "%0" });
      // A wait in progress and a control client attached when the signal comes.
      const pending = client.callTool({
        name: "capture_since",
        arguments: { paneId: "%0", cursor: first.cursor, waitMs: 600_000 },
      }).catch((error) => error);
      assert(
        await eventually(async () => (await fx.tmux("list-clients")).trim() !== ""),
        "attached",
      );
      // Sentinel: a later call of the same client answered, so the wait has begun.
      await ok(client, "list_sessions");
      child.kill("SIGTERM");
      // Not at the wait's 10 min timeout (well under a second when idle).
      assert(await eventually(() => exited), `still running after SIGTERM: ${stderr}`);
      const { code } = await status;
      assertEquals(code, 0, stderr);
      assertEquals((await fx.tmux("list-clients")).trim(), "", "no client of ours is left");
      assertMatch(stderr, /shutting down: SIGTERM/);
      assertEquals(await stdout, "", "stdout carries nothing");
      await client.close().catch(() => {}); // ends the pending call: the server is gone
      await pending;
    } finally {
      if (!exited) child.kill("SIGKILL");
      await status;
      await reading.catch(() => {});
    }
  },
);

Deno.test("start:http is the start task plus one loopback --allow-net and --http on the same address", async () => {
  const manifest = JSON.parse(await Deno.readTextFile(new URL("../../deno.json", import.meta.url)));
  const start: string = manifest.tasks.start;
  const http: string = manifest.tasks["start:http"];
  const address = /--http (127\.0\.0\.1:\d+)$/.exec(http)?.[1];
  assert(address, http);
  assertEquals(
    http,
    start.replace(" main.ts", ` --allow-net=${address} main.ts --http ${address}`),
  );
  assert(!start.includes("--allow-net"), "stdio has no network permission");
});

Deno.test("the conformance script fails when a scenario that passed in the baseline fails", async () => {
  const baseline: Baseline = JSON.parse(
    await Deno.readTextFile(new URL("../fixtures/conformance_baseline.json", import.meta.url)),
  );
  assertEquals(baseline.suite, SUITE);
  const passing = Object.entries(baseline.scenarios)
    .filter(([, e]) => e.applies && e.result === "pass").map(([n]) => n);
  for (const name of ["server-initialize", "tools-list", "dns-rebinding-protection"]) {
    assert(passing.includes(name), name);
  }
  const pass: Outcome = { result: "pass", checks: { SUCCESS: 1 }, failures: [] };
  const all = new Map(passing.map((n) => [n, pass]));
  assertEquals(regressions(baseline, all), []);
  const broken = new Map(all);
  broken.set("tools-list", outcomeOf([{ status: "FAILURE", name: "ToolsList" }]));
  broken.delete("ping"); // did not run at all
  assertEquals(regressions(baseline, broken).sort(), ["ping", "tools-list"]);
  assertEquals(outcomeOf([{ status: "SUCCESS" }, { status: "WARNING" }]).result, "fail");
  assertEquals(outcomeOf([{ status: "SUCCESS" }, { status: "INFO" }]).result, "pass");
});
