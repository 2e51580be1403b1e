/**
 * The HTTP server's own answers and body handling (docs/design.md §2.4): refusals carry a JSON-RPC
 * error body (id null) as the SDK's transport writes them; bodies are read up to a size; a
 * response reports when its body ended so a session's idle clock can start.
 */

/** A JSON-RPC error object with id null. */
export function rpcError(code: number, message: string) {
  return { jsonrpc: "2.0", id: null, error: { code, message } };
}

/** A JSON response. */
export function json(
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
): Response {
  return new Response(JSON.stringify(body), {
    status,
    headers: { "content-type": "application/json", ...headers },
  });
}

/** An HTTP-level refusal, with a JSON-RPC error body (id null) as the SDK's transport writes. */
export function failure(
  status: number,
  message: string,
  headers: Record<string, string> = {},
): Response {
  return json(status, rpcError(-32000, message), headers);
}

/** The answer for an unknown, ended or expired session. */
export function sessionNotFound(): Response {
  // -32001 is what the SDK's transport answers for an unknown session; clients then start anew.
  return json(
    404,
    rpcError(-32001, "Session not found: it ended or expired; start a new one with initialize"),
  );
}

/** Read a body up to `max` bytes; undefined when it is larger (declared or as it arrives). */
export async function readBody(request: Request, max: number): Promise<string | undefined> {
  if (Number(request.headers.get("content-length")) > max) return undefined;
  if (!request.body) return "";
  const reader = request.body.getReader();
  const parts: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > max) {
      await reader.cancel().catch(() => {});
      return undefined;
    }
    parts.push(value);
  }
  const bytes = new Uint8Array(size);
  let at = 0;
  for (const part of parts) {
    bytes.set(part, at);
    at += part.byteLength;
  }
  return new TextDecoder().decode(bytes);
}

/** The same response, calling `done` once its body ended or the client went away. */
export function whenDone(response: Response, done: () => void): Response {
  if (!response.body) {
    done();
    return response;
  }
  let finished = false;
  const finish = () => {
    if (!finished) {
      finished = true;
      done();
    }
  };
  const reader = response.body.getReader();
  const body = new ReadableStream<Uint8Array>({
    async pull(controller) {
      try {
        const { done: end, value } = await reader.read();
        if (end) {
          controller.close();
          finish();
        } else {
          controller.enqueue(value);
        }
      } catch (error) {
        controller.error(error);
        finish();
      }
    },
    async cancel(reason) {
      finish();
      await reader.cancel(reason).catch(() => {});
    },
  });
  return new Response(body, { status: response.status, headers: response.headers });
}
