/**
 * UTF-8 sizes of text, shared by the funnel (what a capture pulled) and the results layer (how text
 * is bounded for agents, src/results.ts), so both count bytes the same way. It imports nothing, so
 * every layer may use it (docs/design.md §2).
 */

const encoder = new TextEncoder();

/** The number of bytes `text` takes in UTF-8. */
export function byteLength(text: string): number {
  return encoder.encode(text).length;
}
