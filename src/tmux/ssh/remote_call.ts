/**
 * One remote tmux client's ssh process, on our side of the wrapper of src/tmux/ssh/remote_wrap.ts:
 * our stdin to it stays open as long as the call lasts (its end is what ends the remote client),
 * and nothing but the pid is written before the mark line has arrived.
 */
import { ToolError } from "../../errors.ts";
import { type Output, readAll, readsOrGiveUp } from "../core/process.ts";
import { concatBytes } from "../../base/utf8.ts";
import { MarkScanner } from "./remote_wrap.ts";

const encoder = new TextEncoder();

/** What a finished call printed: `stdout` from after the mark line, undefined without one. */
export interface WrappedOutput extends Omit<Output, "stdout"> {
  code: number;
  stdout: Uint8Array | undefined;
}

/**
 * Collect a started ssh (stdio piped) that runs the wrapper: once the mark line arrives, write
 * `input(pid)` (if any) without closing our stdin; with no input, write one empty line at once (a
 * start-up file that reads a line takes it instead of waiting). Resolves undefined when `signal`
 * fires: then the ssh is killed and our end of its stdin closed, so the remote side reads end of
 * file and kills the tmux client (the give-up is src/tmux/core/process.ts's {@link readsOrGiveUp}:
 * an ssh riding a master has handed our pipes to the master, so their readers are cancelled).
 */
export async function collectWrapped(
  child: Deno.ChildProcess,
  mark: string,
  input: ((pid: number) => Uint8Array) | undefined,
  signal: AbortSignal,
): Promise<WrappedOutput | undefined> {
  const writer = child.stdin.getWriter();
  const write = (bytes: Uint8Array) => void writer.write(bytes).catch(() => {});
  if (!input) write(encoder.encode("\n"));
  const out = child.stdout.getReader();
  const err = child.stderr.getReader();
  const scanner = new MarkScanner(mark);
  const chunks: Uint8Array[] = [];
  let found = false;
  const readOut = async () => {
    while (true) {
      const { done, value } = await out.read();
      if (done) return;
      if (found) {
        chunks.push(value);
        continue;
      }
      const seen = scanner.push(value);
      if (seen === undefined || seen === "noise") continue;
      found = true;
      chunks.push(seen.rest);
      if (input) write(input(seen.pid));
    }
  };
  const reads = Promise.all([readOut(), readAll(err), child.status]);
  try {
    const done = await readsOrGiveUp(child, [out, err], reads, signal);
    if (done === undefined) return undefined;
    const [, stderr, status] = done;
    return {
      success: status.success,
      code: status.code,
      stdout: found ? concatBytes(chunks) : undefined,
      stderr,
    };
  } finally {
    // Our end of its stdin: the remote watcher reads end of file (after a give-up, that ends tmux).
    writer.abort().catch(() => {});
  }
}

/**
 * Read a started control client's stdout up to the mark line: its pid and the stream of what
 * follows (tmux's first byte on). Rejects when the stream ends first (`server_gone`), or when
 * `signal` fires (`timeout`); the caller then ends the process.
 */
export async function untilMark(
  source: ReadableStream<Uint8Array>,
  mark: string,
  signal: AbortSignal,
): Promise<{ pid: number; stream: ReadableStream<Uint8Array> }> {
  const reader = source.getReader();
  const scanner = new MarkScanner(mark);
  const aborted = new Promise<never>((_, reject) => {
    const fail = () =>
      reject(new ToolError("timeout", "the remote tmux client did not start in time"));
    if (signal.aborted) fail();
    signal.addEventListener("abort", fail, { once: true });
  });
  aborted.catch(() => {});
  try {
    while (true) {
      const { done, value } = await Promise.race([reader.read(), aborted]);
      if (done) {
        throw new ToolError("server_gone", "the remote tmux client ended before it started");
      }
      const seen = scanner.push(value);
      if (seen === "noise") {
        throw new ToolError("tmux_failed", "the remote shell never started tmux");
      }
      if (seen === undefined) continue;
      const rest = seen.rest;
      const stream = new ReadableStream<Uint8Array>({
        start(controller) {
          if (rest.length > 0) controller.enqueue(rest.slice());
        },
        async pull(controller) {
          const { done, value } = await reader.read();
          if (done) controller.close();
          else controller.enqueue(value);
        },
        cancel: (reason) => reader.cancel(reason),
      });
      return { pid: seen.pid, stream };
    }
  } catch (error) {
    await reader.cancel().catch(() => {});
    throw error;
  }
}
