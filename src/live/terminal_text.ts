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

/** How far back an unfinished escape sequence is held; longer ones are let through. */
const ESCAPE_HOLD = 256;

/**
 * The length of the prefix of `bytes` that can be shown now: everything but a trailing UTF-8
 * character or escape sequence that is still being written (split across output chunks). The
 * cursor stops before it, so the next read starts with it whole.
 */
export function readableLength(bytes: Uint8Array): number {
  return Math.min(completeUtf8Length(bytes), completeEscapeLength(bytes));
}

/** Length up to an incomplete trailing UTF-8 sequence (only a valid lead byte is held). */
export function completeUtf8Length(bytes: Uint8Array): number {
  const n = bytes.length;
  for (let back = 1; back <= Math.min(3, n); back++) {
    const b = bytes[n - back];
    if ((b & 0xc0) === 0x80) continue; // a continuation byte: look further back for the lead
    const need = b >= 0xc2 && b <= 0xdf
      ? 2
      : b >= 0xe0 && b <= 0xef
      ? 3
      : b >= 0xf0 && b <= 0xf4
      ? 4
      : 1;
    return need > back ? n - back : n;
  }
  return n;
}

/** Length up to an unfinished trailing escape sequence (CSI, OSC, DCS… or a lone ESC). */
export function completeEscapeLength(bytes: Uint8Array): number {
  const n = bytes.length;
  const from = Math.max(0, n - ESCAPE_HOLD);
  const esc = bytes.lastIndexOf(0x1b, n - 1);
  if (esc < from) return n;
  if (esc === n - 1) return esc; // ESC alone
  const kind = bytes[esc + 1];
  const rest = bytes.subarray(esc + 2);
  if (kind === 0x5b) { // CSI: parameters and intermediates, then a final byte 0x40..0x7e
    return rest.some((b) => b >= 0x40 && b <= 0x7e) ? n : esc;
  }
  if (kind === 0x5d) return rest.includes(0x07) ? n : esc; // OSC ends with BEL (or ESC \, which is a later ESC)
  if (kind === 0x50 || kind === 0x58 || kind === 0x5e || kind === 0x5f) return esc; // ends with ESC \
  if (kind >= 0x20 && kind <= 0x2f) return rest.some((b) => b >= 0x30 && b <= 0x7e) ? n : esc;
  return n; // two-byte escape, complete
}
