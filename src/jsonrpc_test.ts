/** JSON-RPC boundary checks: each malformed input gets the code JSON-RPC 2.0 prescribes. */
import { assert, assertEquals } from "../tests/support/assert.ts";
import { type Checked, checkText, checkValue, errorReply, oversizeReply } from "./jsonrpc.ts";

function replyOf(checked: Checked): { id: unknown; code: number; message: string } {
  assert(checked.kind === "refused", `expected a refusal, got ${JSON.stringify(checked)}`);
  assert(checked.reply, `expected a reply for: ${checked.reason}`);
  return { id: checked.reply.id, ...checked.reply.error };
}

const call = (params: unknown, id: unknown = 1) =>
  JSON.stringify({ jsonrpc: "2.0", id, method: "tools/call", params });

Deno.test("valid requests, notifications and responses pass through unchanged", () => {
  const inputs = [
    { jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: "list_panes", arguments: {} } },
    { jsonrpc: "2.0", id: "a", method: "ping" },
    { jsonrpc: "2.0", id: 2, method: "tools/list", params: { cursor: "x" } },
    { jsonrpc: "2.0", id: 3, method: "resources/read", params: { uri: "tmux://capabilities" } },
    { jsonrpc: "2.0", id: 4, method: "no/such/method", params: { anything: [1] } },
    { jsonrpc: "2.0", method: "notifications/initialized" },
    { jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: 1 } },
    { jsonrpc: "2.0", id: 5, result: {} },
    { jsonrpc: "2.0", id: 6, error: { code: -1, message: "no" } },
  ];
  for (const input of inputs) {
    const checked = checkText(JSON.stringify(input));
    assert(checked.kind === "message", JSON.stringify(checked));
    assertEquals(checked.message as unknown, input);
  }
});

Deno.test("text that is not JSON is a parse error (-32700) with id null", () => {
  for (const text of ['{"jsonrpc":"2.0","id":1', "nope", "", '{"a":1}}']) {
    assertEquals(replyOf(checkText(text)), {
      id: null,
      code: -32700,
      message: "Parse error: the message is not valid JSON",
    });
  }
});

Deno.test("JSON that is not a request object is an invalid request (-32600)", () => {
  const cases: Array<[unknown, unknown]> = [
    [[{ jsonrpc: "2.0", id: 1, method: "ping" }], null], // batches are gone from MCP
    [42, null],
    [null, null],
    [{ jsonrpc: "2.0", id: { x: 1 }, method: "ping" }, null],
    [{ jsonrpc: "2.0", id: 1.5, method: "ping" }, null],
    [{ jsonrpc: "1.0", id: 7, method: "ping" }, 7],
    [{ jsonrpc: "2.0", id: 8, method: 5 }, 8],
    [{ jsonrpc: "2.0", id: 9, method: "ping", extra: true }, 9],
  ];
  for (const [value, id] of cases) {
    const reply = replyOf(checkValue(value));
    assertEquals([reply.id, reply.code], [id, -32600], JSON.stringify(value));
  }
});

Deno.test("params that are not an object are invalid params (-32602), keeping the id", () => {
  for (const params of [[1, 2], "x", 3, null]) {
    const reply = replyOf(checkText(call(params, 11)));
    assertEquals([reply.id, reply.code], [11, -32602]);
    assertEquals(reply.message, "Invalid params for tools/call: params must be an object");
  }
  // An unknown method with array params too: the shape is JSON-RPC's, not the method's.
  assertEquals(
    replyOf(checkValue({ jsonrpc: "2.0", id: 1, method: "x/y", params: [] })).code,
    -32602,
  );
});

Deno.test("wrong-typed params of a served method are invalid params with a short message", () => {
  const cases: Array<[string, unknown, RegExp]> = [
    ["tools/call", { name: 5 }, /^Invalid params for tools\/call: name: .*expected string/],
    ["tools/call", {}, /^Invalid params for tools\/call: name: /],
    ["tools/call", { name: "x", arguments: "no" }, /arguments: /],
    ["resources/read", { uri: 3 }, /^Invalid params for resources\/read: uri: /],
    ["tools/list", { cursor: 1 }, /cursor: /],
    ["initialize", { protocolVersion: 1 }, /^Invalid params for initialize: /],
  ];
  for (const [method, params, pattern] of cases) {
    const reply = replyOf(checkValue({ jsonrpc: "2.0", id: "r", method, params }));
    assertEquals([reply.id, reply.code], ["r", -32602]);
    assert(pattern.test(reply.message), reply.message);
    assert(reply.message.length <= 160, reply.message);
  }
});

Deno.test("a malformed notification is refused without a reply, and responses are never answered", () => {
  for (
    const value of [
      { jsonrpc: "2.0", method: "notifications/cancelled", params: [] },
      { jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: {} } },
      { jsonrpc: "1.0", method: "notifications/initialized" },
      { jsonrpc: "2.0", id: 1, result: "not an object" },
    ]
  ) {
    const checked = checkValue(value);
    assertEquals(checked.kind, "refused", JSON.stringify(value));
    assertEquals((checked as { reply?: unknown }).reply, undefined);
  }
});

Deno.test("a rejected value is never echoed, and every message stays short", () => {
  const secret = "s3cr3t-".repeat(1000);
  for (
    const text of [
      `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"${secret}"`,
      call({ name: 5, arguments: { token: secret } }),
      JSON.stringify({ jsonrpc: "2.0", id: 1, method: secret, params: [] }),
    ]
  ) {
    const { message } = replyOf(checkText(text));
    assert(!message.includes("s3cr3t-s3cr3t"), message);
    assert(message.length <= 160, message);
  }
  assertEquals(errorReply(1, -32603, "x".repeat(500)).error.message.length, 160);
});

Deno.test("an oversize message is answered as an invalid request with id null", () => {
  assertEquals(oversizeReply(10), {
    jsonrpc: "2.0",
    id: null,
    error: { code: -32600, message: "Invalid Request: a message over 10 bytes was skipped unread" },
  });
});
