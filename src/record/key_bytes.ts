/**
 * The bytes tmux 3.3a writes to a pane for a key name (docs/design.md §11.2): what an `i` event
 * records for a key press. Pure; checked against tmux itself by tests/record/record_input_test.ts
 * (a pane that writes every byte it receives to a file).
 *
 * Facts (checked on tmux 3.3a, extended keys off):
 * - Arrows send `ESC [ A` normally and `ESC O A` once the program set application cursor keys
 *   (DECCKM, `ESC [ ? 1 h`); keypad keys send their character normally and `ESC O p`… once it set
 *   application keypad (DECKPAM, `ESC =`). Nothing else depends on the pane's modes.
 * - With modifiers (m = 1 + 1 shift + 2 meta + 4 ctrl): arrows, Home and End send `ESC [ 1 ; m X`
 *   (Home X = H, End X = F, though unmodified they send `ESC [ 1 ~` and `ESC [ 4 ~`), F1–F4
 *   `ESC [ 1 ; m P`…, the `~` keys `ESC [ n ; m ~`.
 * - C- on a letter (either case) sends its control code; `C-@`, `C-Space`, `C-[` … `C-_` and
 *   `C-?` theirs; M- puts ESC before what the rest sends.
 * - `S-` on a character or on Tab, and C- on a digit, Tab, Enter or BSpace, do something else
 *   (tmux types `S-a` as text; `C-Tab` sends nothing): such a key is recorded by name instead.
 */

/** The pane modes a key's bytes depend on. */
export interface KeyModes {
  /** Application cursor keys (DECCKM). */
  cursor: boolean;
  /** Application keypad (DECKPAM). */
  keypad: boolean;
}

const ESC = "\x1b";

/** Keys whose modified form is `ESC [ 1 ; m X`: their final letter, and their plain form. */
const LETTER_KEYS: Record<string, { final: string; plain?: string }> = {
  Up: { final: "A" },
  Down: { final: "B" },
  Right: { final: "C" },
  Left: { final: "D" },
  Home: { final: "H", plain: `${ESC}[1~` },
  End: { final: "F", plain: `${ESC}[4~` },
  F1: { final: "P", plain: `${ESC}OP` },
  F2: { final: "Q", plain: `${ESC}OQ` },
  F3: { final: "R", plain: `${ESC}OR` },
  F4: { final: "S", plain: `${ESC}OS` },
};

/** Keys sent as `ESC [ n ~` (with modifiers `ESC [ n ; m ~`), by tmux's names and aliases. */
const TILDE_KEYS: Record<string, number> = {
  IC: 2,
  Insert: 2,
  DC: 3,
  Delete: 3,
  PPage: 5,
  PageUp: 5,
  PgUp: 5,
  NPage: 6,
  PageDown: 6,
  PgDn: 6,
  F5: 15,
  F6: 17,
  F7: 18,
  F8: 19,
  F9: 20,
  F10: 21,
  F11: 23,
  F12: 24,
};

/** Keys with one fixed sequence and no modified form (only M- applies, as a leading ESC). */
const PLAIN_KEYS: Record<string, string> = {
  Tab: "\t",
  BTab: `${ESC}[Z`,
  Enter: "\r",
  Escape: ESC,
  Space: " ",
  BSpace: "\x7f",
};

/** Keypad keys: their character, and their application-keypad final letter. */
const KEYPAD: Record<string, [string, string]> = {
  "KP/": ["/", "o"],
  "KP*": ["*", "j"],
  "KP-": ["-", "m"],
  "KP+": ["+", "k"],
  "KP.": [".", "n"],
  KPEnter: ["\n", "M"],
  ...Object.fromEntries(
    [..."0123456789"].map((d) => [`KP${d}`, [d, "pqrstuvwxy"[Number(d)]]]),
  ),
};

/** Control codes of the punctuation C- accepts besides letters. */
const CONTROL_PUNCTUATION: Record<string, string> = {
  "@": "\x00",
  "[": "\x1b",
  "\\": "\x1c",
  "]": "\x1d",
  "^": "\x1e",
  "_": "\x1f",
  "?": "\x7f",
};

/**
 * What tmux writes to the pane for the key name `name` in `modes`, or undefined when this table
 * does not know (the key is then recorded by name).
 */
export function keyBytes(name: string, modes: KeyModes): string | undefined {
  const parsed = /^((?:[CMS]-)*)(.+)$/.exec(name);
  if (!parsed) return undefined;
  const prefix = parsed[1];
  const key = parsed[2];
  const ctrl = prefix.includes("C-");
  const meta = prefix.includes("M-");
  const shift = prefix.includes("S-");
  const modifier = 1 + (shift ? 1 : 0) + (meta ? 2 : 0) + (ctrl ? 4 : 0);

  const letter = LETTER_KEYS[key];
  if (letter) {
    if (modifier > 1) return `${ESC}[1;${modifier}${letter.final}`;
    if (letter.plain) return letter.plain;
    return `${ESC}${modes.cursor ? "O" : "["}${letter.final}`;
  }
  const tilde = TILDE_KEYS[key];
  if (tilde !== undefined) return `${ESC}[${tilde}${modifier > 1 ? `;${modifier}` : ""}~`;
  if (shift) return undefined;
  const lead = meta ? ESC : "";
  if (key === "Space" && ctrl) return `${lead}\x00`;
  const plain = PLAIN_KEYS[key];
  if (plain !== undefined) return ctrl ? undefined : `${lead}${plain}`;
  const keypad = KEYPAD[key];
  if (keypad) {
    return ctrl ? undefined : `${lead}${modes.keypad ? `${ESC}O${keypad[1]}` : keypad[0]}`;
  }
  if (key.length !== 1 || prefix === "") return undefined;
  if (!ctrl) return `${lead}${key}`;
  if (/^[a-zA-Z]$/.test(key)) {
    return `${lead}${String.fromCharCode(key.toLowerCase().charCodeAt(0) & 0x1f)}`;
  }
  const control = CONTROL_PUNCTUATION[key];
  return control === undefined ? undefined : `${lead}${control}`;
}
