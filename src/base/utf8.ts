/**
 * UTF-8 sizes of text, shared by the funnel (what a capture pulled) and the results layer (how text
 * is bounded for agents, src/results.ts), so both count bytes the same way; and byte chunks joined
 * (a child's output, a PNG's parts). It imports nothing, so every layer may use it
 * (docs/design.md §2).
 */

const encoder = new TextEncoder();

/** The number of bytes `text` takes in UTF-8. */
export function byteLength(text: string): number {
  return encoder.encode(text).length;
}

/** Chunks of bytes as one array: the one chunk itself when there is one, else a copy of them all. */
export function concatBytes(chunks: readonly Uint8Array[]): Uint8Array {
  if (chunks.length === 1) return chunks[0];
  const all = new Uint8Array(chunks.reduce((n, c) => n + c.length, 0));
  let at = 0;
  for (const chunk of chunks) {
    all.set(chunk, at);
    at += chunk.length;
  }
  return all;
}
