/**
 * Reading a pane stream from a cursor's offset: what is complete after it, and, with a deadline,
 * a sleep on the stream until readable text arrives. Shared by every tool that follows a pane.
 */
import type { PaneStream } from "./stream.ts";
import { cleanTerminalText, readableLength } from "./terminal_text.ts";

/** What one {@link readFrom} found. */
export interface StreamRead {
  /** Readable text after the offset (escape sequences removed, carriage returns folded). */
  text: string;
  /** Offset of the first byte not consumed: the next read starts there. */
  next: number;
  /** Bytes between the offset and the oldest retained byte, lost to retention. */
  missedBytes: number;
  /** `output`: text was found; `idle`: none and no time to wait; `timeout`: waited, none came. */
  outcome: "output" | "idle" | "timeout";
}

const decoder = new TextDecoder();

/**
 * Read what is complete after `offset`; while nothing readable exists and `waitMs` has not
 * passed, sleep on the stream. A character or escape sequence still being written is held back
 * (`next` stays before it) and does not count as output. Rejects when the stream ends or `signal`
 * aborts.
 */
export async function readFrom(
  stream: PaneStream,
  offset: number,
  waitMs: number,
  signal: AbortSignal,
): Promise<StreamRead> {
  const deadline = Date.now() + waitMs;
  let missedBytes = 0;
  let from = offset;
  let text = "";
  for (;;) {
    missedBytes += Math.max(0, stream.start - from);
    const { bytes } = stream.read(from);
    const usable = readableLength(bytes);
    const start = Math.max(from, stream.start);
    text += cleanTerminalText(decoder.decode(bytes.subarray(0, usable)));
    from = start + usable;
    if (text !== "") return { text, next: from, missedBytes, outcome: "output" };
    const left = deadline - Date.now();
    if (left <= 0) {
      return { text, next: from, missedBytes, outcome: waitMs > 0 ? "timeout" : "idle" };
    }
    await stream.waitForOutput(stream.total, left, signal);
  }
}
