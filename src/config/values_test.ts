/**
 * The single-value validators on their own (docs/design.md §4): what each accepts, how it
 * normalises, and the one-line error each refusal gives. Table-driven; no parsing of argv.
 */
import { assertEquals, assertThrows } from "../../tests/support/assert.ts";
import { ConfigError } from "./types.ts";
import {
  bounded,
  checked,
  hostList,
  httpAddress,
  httpToken,
  isLoopbackHost,
  nonEmpty,
  originList,
  socketName,
  socketPath,
  switchValue,
  toolList,
  toolsetList,
} from "./values.ts";

const at = (value: string | undefined) => ({ source: "--x", value });

/** `fn()` throws a ConfigError whose message matches `pattern` and stays on one line. */
function refusal(fn: () => unknown, pattern: RegExp): void {
  const error = assertThrows(fn, ConfigError);
  assertEquals(pattern.test(error.message), true, error.message);
  assertEquals(error.message.includes("\n"), false, "one line");
}

Deno.test("checked and nonEmpty: control characters and empty values are refused", () => {
  for (const good of ["", "plain", "tab-free ünïcode 😀", "~!@#$%^&*()"]) {
    assertEquals(checked("NAME", good), good);
  }
  for (const bad of ["a\nb", "a\rb", "\x00", "\x1b[31m", "del\x7f", "\t"]) {
    refusal(() => checked("NAME", bad), /^NAME contains a control character/);
  }
  assertEquals(nonEmpty(at("/tmp/x")), "/tmp/x");
  refusal(() => nonEmpty(at("")), /^--x must not be empty$/);
});

Deno.test("toolsetList: known names in display order, the fallback when unset", () => {
  const cases: [string | undefined, string[]][] = [
    [undefined, ["manage"]],
    ["", []],
    ["execute,inspect", ["inspect", "execute"]],
    [" teardown , core ,, inspect,inspect", ["core", "inspect", "teardown"]],
    ["core,inspect,manage,execute,teardown", ["core", "inspect", "manage", "execute", "teardown"]],
  ];
  for (const [value, expected] of cases) {
    assertEquals([...toolsetList(at(value), ["manage"])], expected, String(value));
  }
  refusal(() => toolsetList(at("inspect,Inspect"), []), /unknown toolset "Inspect"; valid/);
  refusal(() => toolsetList(at("x".repeat(100)), []), /unknown toolset "x{40}"; valid/);
});

Deno.test("toolList: each name known, repeats dropped, order kept", () => {
  const known = new Set(["list_sessions", "send_keys", "kill_pane"]);
  const cases: [string | undefined, string[]][] = [
    [undefined, []],
    ["", []],
    ["send_keys, list_sessions,send_keys", ["send_keys", "list_sessions"]],
  ];
  for (const [value, expected] of cases) assertEquals(toolList(at(value), known), expected);
  refusal(
    () => toolList(at("send_keys,rm_rf"), known),
    /^--x: unknown tool "rm_rf"; valid tools: list_sessions, send_keys, kill_pane$/,
  );
});

Deno.test("bounded: decimal integers within the bounds, the default when unset", () => {
  const bounds = { default: 30, min: 10, max: 600 };
  const accepted: [string | undefined, number][] = [
    [undefined, 30],
    ["10", 10],
    ["600", 600],
    ["0042", 42],
  ];
  for (const [value, expected] of accepted) assertEquals(bounded(at(value), bounds, "s"), expected);
  for (const value of ["9", "601", "", "-20", "+20", "2e1", "20.0", " 20", "0x14", "NaN"]) {
    refusal(
      () => bounded(at(value), bounds, "seconds"),
      /^--x must be an integer from 10 to 600 \(seconds\)$/,
    );
  }
});

Deno.test("switchValue: the four spellings of each side, any case; the fallback when unset or empty", () => {
  for (const on of ["1", "true", "YES", "On"]) assertEquals(switchValue("V", on, false), true, on);
  for (const off of ["0", "False", "no", "OFF"]) {
    assertEquals(switchValue("V", off, true), false, off);
  }
  assertEquals([switchValue("V", undefined, true), switchValue("V", "", false)], [true, false]);
  for (const bad of ["2", "y", "enabled", " 1"]) {
    refusal(() => switchValue("V", bad, false), /^V must be 1 or 0/);
  }
});

Deno.test("socketName and socketPath: non-empty; a name holds no slash", () => {
  assertEquals([socketName("work"), socketPath("/tmp/s")], ["work", "/tmp/s"]);
  refusal(() => socketName(""), /use --socket-path for a path/);
  refusal(() => socketName("a/b"), /use --socket-path for a path/);
  refusal(() => socketPath(""), /^socket path must not be empty$/);
});

Deno.test("httpAddress: HOST:PORT or a bare port, which binds to loopback", () => {
  const cases: [string | undefined, { host: string; port: number } | undefined][] = [
    [undefined, undefined],
    ["8765", { host: "127.0.0.1", port: 8765 }],
    ["1", { host: "127.0.0.1", port: 1 }],
    ["LocalHost:65535", { host: "localhost", port: 65535 }],
    ["[::1]:80", { host: "[::1]", port: 80 }],
    ["[FD00::1]:80", { host: "[fd00::1]", port: 80 }],
    ["0.0.0.0:8765", { host: "0.0.0.0", port: 8765 }],
  ];
  for (const [value, expected] of cases) assertEquals(httpAddress(value), expected, String(value));
  for (const bad of ["0", "65536", "", "host:", ":80", "::1:80", "a b:80", "h:80:80", "123456"]) {
    refusal(() => httpAddress(bad), /^--http must be HOST:PORT or PORT/);
  }
});

Deno.test("isLoopbackHost: 127.0.0.0/8, [::1] and localhost only", () => {
  const cases: [string, boolean][] = [
    ["127.0.0.1", true],
    ["127.1.2.3", true],
    ["localhost", true],
    ["[::1]", true],
    ["0.0.0.0", false],
    ["128.0.0.1", false],
    ["127.0.0.1.example.com", false],
    ["localhost.example.com", false],
    ["[::]", false],
  ];
  for (const [host, expected] of cases) assertEquals(isLoopbackHost(host), expected, host);
});

Deno.test("httpToken: printable, long enough, and required off loopback", () => {
  assertEquals(httpToken(at(undefined), "127.0.0.1", 16), undefined);
  assertEquals(httpToken(at("x".repeat(16)), "0.0.0.0", 16), "x".repeat(16));
  refusal(
    () => httpToken(at("x".repeat(15)), "127.0.0.1", 16),
    /^--x must be at least 16 characters$/,
  );
  refusal(
    () => httpToken(at("has space-123456"), "127.0.0.1", 4),
    /printable ASCII without spaces/,
  );
  refusal(
    () => httpToken(at("tøken-1234567890"), "127.0.0.1", 4),
    /printable ASCII without spaces/,
  );
  refusal(() => httpToken(at(""), "127.0.0.1", 0), /printable ASCII without spaces/);
  refusal(() => httpToken(at(undefined), "0.0.0.0", 16), /^--http 0\.0\.0\.0 is not a loopback/);
});

Deno.test("hostList: NAME or NAME:PORT, lower-cased, repeats dropped", () => {
  assertEquals(hostList(at(undefined)), []);
  assertEquals(
    hostList(at("MCP.example.com, host.docker.internal:8765,mcp.example.com,[FD00::1]")),
    ["mcp.example.com", "host.docker.internal:8765", "[fd00::1]"],
  );
  for (const bad of ["http://x", "a b", "x:", "x:123456", "x/y", "user@x"]) {
    refusal(() => hostList(at(bad)), /is not a host name; give NAME or NAME:PORT/);
  }
});

Deno.test("originList: exactly scheme://host[:port], lower-cased, repeats dropped", () => {
  assertEquals(originList(at(undefined)), []);
  assertEquals(
    originList(at("https://IDE.example.com,http://localhost:3000,https://ide.example.com")),
    ["https://ide.example.com", "http://localhost:3000"],
  );
  for (
    const bad of [
      "ide.example.com",
      "https://ide.example.com/",
      "https://ide.example.com/path",
      "https://ide.example.com:443",
      "ftp://ide.example.com",
      "https://user@ide.example.com",
      "https://ide.example.com?q",
    ]
  ) {
    refusal(() => originList(at(bad)), /is not an origin; give scheme:\/\/host\[:port\]/);
  }
});
