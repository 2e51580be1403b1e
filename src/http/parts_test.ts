/**
 * The pure parts of the HTTP transport (docs/design.md §2.4), without a server: the limits in
 * force, node:http's checking interval, Host parsing at the port's edge, the refusal log's rate.
 */
import { assertEquals } from "../../tests/support/assert.ts";
import { hostAllowed, splitHost } from "./access.ts";
import { refusalLog } from "./handler.ts";
import { checkingIntervalMs, HTTP_LIMITS, resolveLimits } from "./limits.ts";

Deno.test("limits: defaults, then the configuration, then overrides; headers never outlast the request", () => {
  const cases: [Parameters<typeof resolveLimits>, Partial<typeof HTTP_LIMITS>][] = [
    [[{}], HTTP_LIMITS],
    [[{ httpIdleMs: 20_000, httpMaxSessions: 3 }], { idleMs: 20_000, maxSessions: 3 }],
    [[{ httpIdleMs: 20_000 }, { idleMs: 400 }], { idleMs: 400 }],
    [[{}, { headersTimeoutMs: 300, requestTimeoutMs: 600 }], {
      headersTimeoutMs: 300,
      requestTimeoutMs: 600,
    }],
    [[{}, { headersTimeoutMs: 50_000 }], { headersTimeoutMs: 50_000, requestTimeoutMs: 50_000 }],
    [[{}, { maxConnections: 4 }], { maxConnections: 4 }],
  ];
  for (const [args, expected] of cases) {
    assertEquals(resolveLimits(...args), { ...HTTP_LIMITS, ...expected }, JSON.stringify(args));
  }
});

Deno.test("limits: node:http looks for late connections a quarter of the header deadline apart, 50 ms to 1 s", () => {
  const cases: [number, number][] = [[10_000, 1_000], [4_000, 1_000], [2_000, 500], [300, 75], [
    100,
    50,
  ], [0, 50]];
  for (const [headersTimeoutMs, expected] of cases) {
    assertEquals(checkingIntervalMs({ headersTimeoutMs }), expected, String(headersTimeoutMs));
  }
});

Deno.test("Host: a port past 65535 is malformed, so refused; the edge ports are kept", () => {
  const cases: [string, { name: string; port?: number } | undefined][] = [
    ["localhost:99999", undefined],
    ["localhost:65536", undefined],
    ["[::1]:70000", undefined],
    ["localhost:65535", { name: "localhost", port: 65535 }],
    ["LocalHost:0", { name: "localhost", port: 0 }],
    ["127.0.0.1", { name: "127.0.0.1", port: undefined }],
    ["localhost:123456", undefined],
  ];
  for (const [header, expected] of cases) assertEquals(splitHost(header), expected, header);
  assertEquals(hostAllowed("localhost:99999", ["localhost"]), false);
  assertEquals(hostAllowed("localhost:8765", ["localhost"]), true);
});

Deno.test("refusals are logged once a minute per kind, with the count since", () => {
  const lines: string[] = [];
  let now = 0;
  const note = refusalLog((line) => lines.push(line), () => now);
  const peer = { remoteAddr: { transport: "tcp" as const, hostname: "127.0.0.1", port: 1 } };
  note("no token", peer);
  note("no token", peer);
  note("wrong token");
  now = 59_999;
  note("no token");
  now = 60_000;
  note("no token");
  assertEquals(lines, [
    "http: refused a request from 127.0.0.1: no token",
    "http: refused a request: wrong token",
    "http: refused a request: no token (2 more since the last note)",
  ]);
});
