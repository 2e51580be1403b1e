/**
 * Turning a pane's raw output stream into readable text: escape sequences removed, carriage
 * returns folded the way a terminal overwrites a line, other control characters dropped.
 */

// CSI (ESC [ … final), OSC (ESC ] … BEL or ST), DCS/SOS/PM/APC (ESC P|X|^|_ … ST), and
// two-character escapes (ESC + one byte), plus 8-bit CSI.
const ESCAPES =
  // deno-lint-ignore no-control-regex -- escape sequences are made of control characters
  /\x1b\[[0-?]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)?|\x1b[PX^_][^\x1b]*(?:\x1b\\)?|\x1b[ -/]*[0-~]|\x9b[0-?]*[ -/]*[@-~]/g;
// deno-lint-ignore no-control-regex -- what remains after escapes: controls other than \t and \n
const CONTROLS = /[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]/g;

/** Fold `\r` within a line: later text overwrites earlier text from the line's start. */
function foldLine(line: string): string {
  if (!line.includes("\r")) return line;
  return line.split("\r").reduce((shown, segment) => segment + shown.slice(segment.length), "");
}

/** Readable text of raw terminal output (already decoded from UTF-8). */
export function cleanTerminalText(raw: string): string {
  const stripped = raw.replace(ESCAPES, "").replace(/\r+\n/g, "\n");
  return stripped.split("\n").map(foldLine).join("\n").replace(CONTROLS, "");
}

/**
 * The length of the longest prefix of `bytes` that ends on a UTF-8 character boundary, so a
 * cursor never points into the middle of a character split across two output chunks.
 */
export function completeUtf8Length(bytes: Uint8Array): number {
  const n = bytes.length;
  // Look back at most 3 bytes for the lead byte of a possibly incomplete sequence.
  for (let back = 1; back <= Math.min(3, n); back++) {
    const b = bytes[n - back];
    if ((b & 0xc0) === 0x80) continue; // continuation byte: keep looking for the lead
    const need = b >= 0xf0 ? 4 : b >= 0xe0 ? 3 : b >= 0xc0 ? 2 : 1;
    return need > back ? n - back : n;
  }
  return n;
}
