/**
 * The stdio transport's writes (docs/design.md §2.4): small answers are written synchronously when
 * no stream write is in flight, the rest through the stream, and whatever the path every message
 * arrives whole, once, in order.
 */
import { assertEquals } from "../tests/support/assert.ts";
import { StdioTransport } from "./stdio_transport.ts";
import type { JSONRPCMessage } from "./sdk.ts";

const decoder = new TextDecoder();
const message = (id: number, size = 10): JSONRPCMessage => ({
  jsonrpc: "2.0",
  id,
  result: { text: "x".repeat(size) },
});

/** A transport whose stream sink holds each write until released, and a scripted writeSync. */
function rig(writeSync: (bytes: Uint8Array) => number) {
  const out: string[] = [];
  const via: string[] = [];
  const held: Array<() => void> = [];
  const transport = new StdioTransport({
    input: new ReadableStream(), // never ends: the transport stays open
    output: new WritableStream({
      write: (chunk) =>
        new Promise<void>((resolve) =>
          held.push(() => {
            out.push(decoder.decode(chunk));
            via.push("stream");
            resolve();
          })
        ),
    }),
    writeSync: (bytes) => {
      const n = writeSync(bytes);
      out.push(decoder.decode(bytes.subarray(0, n)));
      via.push("sync");
      return n;
    },
  });
  return { transport, out, via, held };
}

/** Release held stream writes until `done` settles. */
async function drain(held: Array<() => void>, done: Promise<unknown>): Promise<void> {
  let finished = false;
  done.finally(() => finished = true);
  while (!finished) {
    held.shift()?.();
    await new Promise((r) => setTimeout(r, 0));
  }
}

Deno.test("stdio writes: a small answer is written at once, a large one through the stream", async () => {
  const { transport, out, via, held } = rig((bytes) => bytes.length);
  await transport.start();
  await transport.send(message(1));
  assertEquals(via, ["sync"]);
  const large = transport.send(message(2, 20_000));
  await drain(held, large);
  assertEquals(via, ["sync", "stream"]);
  assertEquals(out.join("").split("\n").slice(0, 2).map((l) => JSON.parse(l).id), [1, 2]);
  await transport.close();
});

Deno.test("stdio writes: what a non-blocking output would not take goes through the stream, in order", async () => {
  // The output takes 7 bytes, then says it would block (a client left the pipe full).
  let budget = 7;
  const { transport, out, via, held } = rig((bytes) => {
    if (budget === 0) throw new Deno.errors.WouldBlock("full");
    const n = Math.min(budget, bytes.length);
    budget -= n;
    return n;
  });
  await transport.start();
  const first = transport.send(message(1));
  // While the rest of the first is in the stream, the second must not overtake it.
  budget = 1_000_000;
  const second = transport.send(message(2));
  await drain(held, Promise.all([first, second]));
  assertEquals(via, ["sync", "stream", "stream"]);
  const lines = out.join("").split("\n");
  assertEquals(lines.slice(0, 2).map((l) => JSON.parse(l).id), [1, 2]);
  assertEquals(lines[2], "");
  await transport.close();
});
