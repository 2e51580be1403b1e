/**
 * The preview of a call's text in the question put to the person (docs/design.md §6.11): which
 * of its text is shown (a batch's rows by where their input goes) and how every character that
 * could hide or fake something is escaped. Pure: no tmux, no person.
 */
import { pressesKey } from "../tmux/execute/input.ts";

/**
 * The most characters of the call's text one question shows — about a dozen lines of a terminal,
 * still read rather than skimmed. A text (or the batch row being checked) longer than this is not
 * asked about at all, since "allow once" must never let through text the person did not see.
 */
export const QUESTION_TEXT_CHARS = 1_000;

/**
 * The panes input addressed to a pane reaches (itself, then its synchronized partners), as the
 * guard's listing shows them; the preview picks a batch's rows by it.
 */
export type Receivers = (paneId: string) => readonly string[];

/** Which rows of a batch a preview looks at. */
interface PreviewScope {
  /** The panes asked about. */
  asked: readonly string[];
  /** Where input addressed to a pane goes. */
  receivers: Receivers;
  /** The first row not yet sent (the row being checked). */
  fromRow: number;
}

/**
 * A call's preview: its lines, and each batch row shown with the asked panes it reaches; or, when
 * the text the question must show does not fit in {@link QUESTION_TEXT_CHARS}, its length and no
 * lines (the call is not to be asked about).
 */
type CallPreview =
  | { lines: string[]; rows: Map<number, string[]>; tooLong?: undefined }
  | { tooLong: number };

/**
 * Lines previewing the text a call would send: `keys` (one, or a sequence shown whole), `text`,
 * `command`, or the rows of `operations` (from `scope.fromRow` on) whose receivers include a pane
 * asked about — by where the input goes, not by the row's `paneId`, so a row typed into a
 * synchronized partner of a watched pane is shown. Every text is shown whole or not at all, at
 * most {@link QUESTION_TEXT_CHARS} characters in all; nothing the call does not itself carry.
 * Batch rows from the first that does not fit on are counted, not shown, and not in `rows`; when
 * the call's own text or the first row does not fit, the answer is `tooLong`.
 */
export function callPreview(args: unknown, scope: PreviewScope): CallPreview {
  const rows = new Map<number, string[]>();
  if (typeof args !== "object" || args === null) return { lines: [], rows };
  const a = args as Record<string, unknown>;
  // Keys (a call's or a batch row's) are followed by Enter unless told not; pasted text only when
  // asked (the `enter` of each tool's input schema).
  const then = (row: Record<string, unknown>) => row.enter !== false ? ", then Enter" : "";
  const whole = (label: string, text: string, after: string): CallPreview => {
    const chars = characters(text);
    return chars > QUESTION_TEXT_CHARS
      ? { tooLong: chars }
      : { lines: [`${label}: ${visible(text, chars)}${after}`], rows };
  };
  if (typeof a.keys === "string") {
    return whole("Keys", a.keys, (a.literal === true ? " (typed literally)" : "") + then(a));
  }
  if (Array.isArray(a.keys)) return sequencePreview(a.keys, a.literal === true, then(a), rows);
  if (typeof a.text === "string") {
    return whole("Text", a.text, a.enter === true ? ", then Enter" : "");
  }
  if (typeof a.command === "string") return whole("Command", a.command, "");
  if (!Array.isArray(a.operations)) return { lines: [], rows };
  const aimed = a.operations.flatMap((row: unknown, index) => {
    if (index < scope.fromRow || typeof row !== "object" || row === null) return [];
    const r = row as Record<string, unknown>;
    if (typeof r.paneId !== "string" || typeof r.keys !== "string") return [];
    const reached = scope.receivers(r.paneId).filter((id) => scope.asked.includes(id));
    return reached.length ? [{ row: r, paneId: r.paneId, keys: r.keys, index, reached }] : [];
  });
  const lines: string[] = [];
  let budget = QUESTION_TEXT_CHARS;
  for (const { row, paneId, keys, index, reached } of aimed) {
    const chars = characters(keys);
    if (chars > budget) {
      if (lines.length === 0) return { tooLong: chars };
      lines.push(
        `…and ${aimed.length - lines.length} more rows for these panes (not covered by ` +
          "this answer: asked about when they come)",
      );
      break;
    }
    const others = reached.filter((id) => id !== paneId);
    const via = others.length ? `, synchronized: also types into ${others.join(", ")}` : "";
    lines.push(`Row ${index} (pane ${paneId}${via}): ${visible(keys, chars)}${then(row)}`);
    rows.set(index, reached);
    budget -= chars;
  }
  return { lines, rows };
}

/**
 * A send_keys sequence, shown whole on one line in the order it is sent: each key pressed as
 * `key <name>`, each text quoted (so a typed "Escape" never reads as the key), at most
 * {@link QUESTION_TEXT_CHARS} characters of them in all.
 */
function sequencePreview(
  items: readonly unknown[],
  literal: boolean,
  after: string,
  rows: Map<number, string[]>,
): CallPreview {
  const texts = items.map((item) => typeof item === "string" ? item : String(item));
  const chars = texts.reduce((sum, item) => sum + characters(item), 0);
  if (chars > QUESTION_TEXT_CHARS) return { tooLong: chars };
  const shown = texts.map((item) => pressesKey(item, literal) ? `key ${item}` : visible(item));
  return {
    lines: [`Keys, in order: ${shown.join(", ")}${literal ? " (typed literally)" : ""}${after}`],
    rows,
  };
}

/** What a call's text is, for a message about it: told apart as {@link callPreview} does. */
export function textKind(args: unknown): "command" | "row's keys" | "text" {
  const a = (typeof args === "object" && args !== null ? args : {}) as Record<string, unknown>;
  if (typeof a.keys === "string" || Array.isArray(a.keys) || typeof a.text === "string") {
    return "text";
  }
  if (typeof a.command === "string") return "command";
  return Array.isArray(a.operations) ? "row's keys" : "text";
}

/** Characters (code points) of `text`, as the preview counts them. */
function characters(text: string): number {
  let n = 0;
  for (const _ of text) n++;
  return n;
}

/** The most combining marks shown on one base character; further ones are escaped. */
export const MARKS_PER_BASE = 2;

/**
 * `text` quoted, with at most `max` of its characters shown and every character that could hide
 * or fake something escaped as `\n`, `\x1b`, `\u{115f}`…: control and format characters, the
 * quote and the backslash, every default-ignorable code point (zero-width, direction marks,
 * variation selectors, tags, Hangul fillers…), whitespace other than the ASCII space,
 * blank-looking characters (braille blank), surrogates, private-use and unassigned code points,
 * and combining marks beyond {@link MARKS_PER_BASE} on one base character or with no shown base.
 */
export function visible(text: string, max = QUESTION_TEXT_CHARS): string {
  let out = "";
  let shown = 0;
  let total = 0;
  // Marks on the last character shown raw; -1 when there is none for a mark to sit on.
  let marks = -1;
  for (const ch of text) {
    total++;
    if (shown >= max) continue;
    shown++;
    let escaped = escapeChar(ch);
    if (escaped === ch && MARK.test(ch)) {
      if (marks < 0 || marks >= MARKS_PER_BASE) escaped = codePoint(ch);
      else marks++;
    } else {
      marks = escaped === ch ? 0 : -1;
    }
    out += escaped;
  }
  const rest = total - shown;
  return `"${out}"` + (rest > 0 ? ` …(${rest} more characters)` : "");
}

const NAMED: Readonly<Record<string, string>> = {
  "\n": "\\n",
  "\r": "\\r",
  "\t": "\\t",
  '"': '\\"',
  "\\": "\\\\",
};

/**
 * Characters shown escaped wherever they stand: controls (Cc), format characters (Cf),
 * surrogates, private use and unassigned code points, line and paragraph separators, every
 * default-ignorable code point and every whitespace but the ASCII space.
 */
const HIDING =
  /^(?:[\p{Cc}\p{Cf}\p{Cs}\p{Co}\p{Cn}\p{Zl}\p{Zp}\p{Default_Ignorable_Code_Point}]|(?! )\p{White_Space})$/u;

/** Characters that render as a blank without being whitespace or default-ignorable. */
const BLANK = new Set([
  0x2800, // braille pattern blank
  0x3164, // Hangul filler (also default-ignorable; listed for the reader)
  0x115f, // Hangul choseong filler
  0x1160, // Hangul jungseong filler
  0xffa0, // halfwidth Hangul filler
  0x16fe4, // Khitan small script filler
  0x1d159, // musical symbol null notehead
]);

const MARK = /^\p{M}$/u;

function codePoint(ch: string): string {
  return `\\u{${ch.codePointAt(0)!.toString(16)}}`;
}

function escapeChar(ch: string): string {
  const named = NAMED[ch];
  if (named) return named;
  const code = ch.codePointAt(0)!;
  if (code < 0x20 || code === 0x7f) return `\\x${code.toString(16).padStart(2, "0")}`;
  if (code < 0x7f) return ch;
  return HIDING.test(ch) || BLANK.has(code) ? codePoint(ch) : ch;
}
