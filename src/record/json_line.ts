/**
 * One value as one line of JSON (docs/design.md §11.3): what the action log and the asciicast
 * recordings are made of. Every string a pane printed or an agent sent is data inside a JSON
 * string, so no byte of it can end the line or start another one.
 */

/**
 * Characters that JSON leaves unescaped but some line readers still split on: NEL (U+0085) and the
 * Unicode line and paragraph separators (Python's `str.splitlines`, some editors). JSON.stringify
 * escapes every other control character and every lone surrogate itself.
 */
const LINE_BREAKING = /[\u0085\u2028\u2029]/g;

/** `value` as JSON on one line, ended by "\n"; nothing inside it breaks a line for any reader. */
export function jsonLine(value: unknown): string {
  const json = JSON.stringify(value);
  // A flood's chunks rarely hold one: `includes` finds out far faster than a regular expression.
  const breaks = json.includes("\u0085") || json.includes("\u2028") || json.includes("\u2029");
  if (!breaks) return json + "\n";
  return json.replace(LINE_BREAKING, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`) +
    "\n";
}
