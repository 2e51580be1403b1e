/**
 * The rules of the labels agents choose: session and window names (create_session, create_window
 * and the renames take the same rules) and pane titles. tmux would store some values altered
 * (docs/design.md §5.12): those are refused, never changed. Pure: no tmux, no I/O.
 */
import { preview, ToolError } from "../../errors.ts";
import { refuseFlagLike } from "../core/argv.ts";
import { SESSION_ID } from "../core/ids.ts";

/** Characters of a session or window name accepted (session references are at most 256). */
export const MAX_NAME_CHARS = 256;
/** Characters of a pane title accepted (titles are shown clipped at 1,024). */
export const MAX_TITLE_CHARS = 1024;

// deno-lint-ignore no-control-regex -- control characters are what this refuses
const CONTROL = /[\u0000-\u001f\u007f-\u009f]/;

/**
 * Refuse text tmux would not store or use as given: a control character (escaped in names,
 * silently ignored in titles) or a lone surrogate.
 */
export function checkPrintable(value: string, what: string): string {
  if (!value.isWellFormed() || CONTROL.test(value)) {
    throw new ToolError(
      "invalid_arguments",
      `${what} ${preview(value)} holds a control character or a lone surrogate`,
      { hint: `tmux would not store it as given; pass a ${what} of printable characters.` },
    );
  }
  return value;
}

/**
 * Refuse a name or title tmux would not store as given: empty, not printable
 * ({@link checkPrintable}), more than `max` characters, or — for values tmux reads positionally —
 * a leading `-`.
 */
function checkLabel(
  value: string,
  what: string,
  max: number,
  positional: boolean,
): string {
  if (value === "") {
    throw new ToolError("invalid_arguments", `${what} is empty`, { hint: `Pass a ${what}.` });
  }
  checkPrintable(value, what);
  if (value.length > max) {
    throw new ToolError("invalid_arguments", `${what} is longer than ${max} characters`, {
      hint: `Pass a shorter ${what}.`,
    });
  }
  return positional ? refuseFlagLike(value, what) : value;
}

/**
 * Refuse a session or window name tmux would not store as given: besides {@link checkLabel}'s
 * rules, tmux stores `\` as `\\` and `$` before a letter, `_` or `{` as `\$` in names. A leading
 * `-` is refused too: the renames pass names positionally, and a name one tool accepts every
 * tool accepts (`-n` at creation would store `\` and `$NAME` unchanged, but rename-window not).
 */
export function checkName(name: string, what: string): string {
  checkLabel(name, what, MAX_NAME_CHARS, true);
  if (/\\|\$[A-Za-z_{]/.test(name)) {
    throw new ToolError(
      "invalid_arguments",
      `${what} ${preview(name)} holds a backslash or "$" before a name`,
      {
        hint: 'tmux would store a backslash doubled and "$NAME" as "\\$NAME" in names; choose a ' +
          "name without them (pane titles keep them).",
      },
    );
  }
  return name;
}

/**
 * Refuse a session name tmux would alter or that would read as something else: besides
 * {@link checkName}'s rules, `:` and `.` (tmux stores them as `_`) and names like an id.
 */
export function checkSessionName(name: string, what = "session name"): string {
  checkName(name, what);
  if (/[:.]/.test(name)) {
    throw new ToolError("invalid_arguments", `${what} ${preview(name)} holds ":" or "."`, {
      hint: 'tmux would store them as "_" (they separate window and pane in its targets); ' +
        "choose a name without them.",
    });
  }
  if (SESSION_ID.test(name)) {
    throw new ToolError("invalid_arguments", `${what} ${preview(name)} looks like an id`, {
      hint: "A name like $N would make session references ambiguous; choose another name.",
    });
  }
  return name;
}

/** Refuse a pane title tmux would not store as given (a leading "-" is fine: -T takes a value). */
export function checkTitle(title: string): string {
  return checkLabel(title, "title", MAX_TITLE_CHARS, false);
}
