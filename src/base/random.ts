/**
 * Random tokens that output cannot predict: format separators, frame nonces, stream ids. It
 * imports nothing, so every layer may use it (docs/design.md §2).
 */

/** `bytes` random bytes as lowercase hex (two digits each). */
export function randomHex(bytes: number): string {
  const random = crypto.getRandomValues(new Uint8Array(bytes));
  return Array.from(random, (b) => b.toString(16).padStart(2, "0")).join("");
}
