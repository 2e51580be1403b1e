/**
 * node:http ↔ web Request/Response (docs/design.md §2.4): the server runs on node:http for its
 * connection deadlines and cap, the handler and the SDK's transport speak web-standard. A request's
 * signal aborts when its client goes away before the answer ended; a response body is written as
 * it arrives (SSE streams) and cancelled when the client goes away.
 */
import type { IncomingMessage, ServerResponse } from "node:http";

/**
 * The web Request for a node request. The URL is built from `origin` and the request's path only:
 * nothing the client sent in `Host` or an absolute-form target reaches it. Undefined when the
 * request line or a header cannot be carried (then the caller answers 400).
 */
export function toRequest(
  incoming: IncomingMessage,
  outgoing: ServerResponse,
  origin: string,
): Request | undefined {
  const target = incoming.url ?? "";
  if (!target.startsWith("/")) return undefined;
  const controller = new AbortController();
  outgoing.once("close", () => {
    if (!outgoing.writableFinished) controller.abort();
  });
  try {
    const headers = new Headers();
    const raw = incoming.rawHeaders;
    for (let i = 0; i + 1 < raw.length; i += 2) headers.append(raw[i], raw[i + 1]);
    const method = incoming.method ?? "GET";
    const body = method === "GET" || method === "HEAD" ? null : bodyOf(incoming);
    return new Request(new URL(target, origin), {
      method,
      headers,
      body,
      signal: controller.signal,
    });
  } catch {
    return undefined;
  }
}

const HOP_BY_HOP = new Set(["connection", "keep-alive", "transfer-encoding", "upgrade"]);

/**
 * A request body as a web stream, read as it is pulled. (`Readable.toWeb` in Deno 2.9.6 throws
 * an uncaught error when data arrives after a cancel, which would end the process.) The rest of a
 * cancelled body (too large) is discarded as it arrives, within the request deadline, so the
 * client reads the answer; a body cut off (client gone, deadline passed) errors the stream.
 */
function bodyOf(incoming: IncomingMessage): ReadableStream<Uint8Array> {
  let settled = false;
  return new ReadableStream<Uint8Array>({
    start(controller) {
      incoming.pause();
      incoming.on("data", (chunk: Uint8Array) => {
        if (settled) return;
        controller.enqueue(new Uint8Array(chunk));
        if ((controller.desiredSize ?? 0) <= 0) incoming.pause();
      });
      incoming.once("end", () => {
        if (settled) return;
        settled = true;
        controller.close();
      });
      incoming.once("close", () => {
        if (settled) return;
        settled = true;
        controller.error(new Error("the request was cut off before its body ended"));
      });
    },
    pull() {
      incoming.resume();
    },
    cancel() {
      settled = true;
      incoming.resume();
    },
  });
}

/** Write a web Response to a node response, streaming its body until it ends or the client goes. */
export async function sendResponse(response: Response, outgoing: ServerResponse): Promise<void> {
  const headers: Record<string, string> = {};
  response.headers.forEach((value, name) => {
    // node:http manages the connection: a transport's `connection: keep-alive` must not override
    // a client's `connection: close` (web servers drop these hop-by-hop headers too).
    if (!HOP_BY_HOP.has(name)) headers[name] = value;
  });
  outgoing.writeHead(response.status, headers);
  if (!response.body) {
    outgoing.end();
    return;
  }
  // An SSE stream's headers must reach the client before its first event.
  outgoing.flushHeaders();
  const reader = response.body.getReader();
  const gone = () => void reader.cancel().catch(() => {});
  outgoing.once("close", gone);
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done || outgoing.destroyed) break;
      if (!outgoing.write(value)) await drained(outgoing);
    }
    outgoing.end();
  } catch {
    outgoing.destroy();
  } finally {
    outgoing.off("close", gone);
  }
}

/** Until the response can take more, or the client went away. */
function drained(outgoing: ServerResponse): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      outgoing.off("drain", done);
      outgoing.off("close", done);
      resolve();
    };
    outgoing.once("drain", done);
    outgoing.once("close", done);
  });
}
