/** A check two tests share: two MCP sessions writing into one pane at once. */
import type { Client } from "@modelcontextprotocol/sdk/client";
import { assert, assertEquals } from "./assert.ts";
import { ok } from "./client.ts";
import { eventually } from "./fixture.ts";

/**
 * `a` and `b` each paste 3,000 bytes with Enter and type a word, all at once, into a pane that
 * writes what it receives to `file` (tests/support/fixture.ts's rawReceiver): each paste holds the
 * pane through its pause and its Enter, so every piece arrives whole.
 */
export async function pastesArriveWhole(
  receiver: { paneId: string; file: string },
  a: Client,
  b: Client,
): Promise<void> {
  const { paneId, file } = receiver;
  const A = "A".repeat(3000);
  const B = "B".repeat(3000);
  await Promise.all([
    ok(a, "paste_text", { paneId, text: A, enter: true }),
    ok(b, "paste_text", { paneId, text: B, enter: true }),
    ok(a, "send_keys", { paneId, keys: "a-done" }),
    ok(b, "send_keys", { paneId, keys: "b-done" }),
  ]);
  const expected = 6000 + 2 + "a-done\r".length + "b-done\r".length;
  assert(
    await eventually(async () => (await Deno.stat(file)).size >= expected),
    "all input arrived",
  );
  const parts = (await Deno.readTextFile(file)).split("\r").filter((p) => p !== "");
  assertEquals(parts.sort(), [A, B, "a-done", "b-done"].sort());
}
