/**
 * Control-mode syntax (docs/design.md §5.11, §5.14, §7.2), pure: how an argument is quoted so it
 * arrives literally, how `%output` data decodes to bytes, and what the lines tmux sends a control
 * client mean. The client process that speaks it is src/tmux/control/client.ts.
 */
import { ToolError } from "../../errors.ts";
import { layoutPanes, type PaneSize } from "../core/layout.ts";

/**
 * Quote one argument for the control channel so it arrives literally: double quotes, with `\`,
 * `"`, `$` and `~` escaped (tmux expands `$VAR` inside double quotes, and `~` right after the
 * opening quote) and every control character — newline included, which would end the command
 * line — written as an escape tmux decodes inside double quotes. A NUL or a lone surrogate cannot
 * be carried and is refused.
 */
export function quoteControlArgument(arg: string): string {
  if (arg.includes("\0") || !arg.isWellFormed()) {
    throw new ToolError(
      "invalid_arguments",
      "a value holds a NUL or a lone surrogate, which tmux cannot take",
    );
  }
  return `"${arg.replace(CONTROL_SPECIAL, escapeControl)}"`;
}

// deno-lint-ignore no-control-regex
const CONTROL_SPECIAL = /[\\"$~\x00-\x1f\x7f]/g;

function escapeControl(ch: string): string {
  if (ch === "\n") return "\\n";
  if (ch === "\r") return "\\r";
  if (ch === "\t") return "\\t";
  const code = ch.charCodeAt(0);
  return code < 0x20 || code === 0x7f ? `\\${code.toString(8).padStart(3, "0")}` : `\\${ch}`;
}

/** Decode `%output` data: `\ooo` octal escapes become bytes, everything else is already bytes. */
export function decodeOutput(data: Uint8Array): Uint8Array {
  const out = new Uint8Array(data.length);
  let n = 0;
  for (let i = 0; i < data.length; i++) {
    const b = data[i];
    if (
      b === 0x5c && i + 3 < data.length && isOctal(data[i + 1]) && isOctal(data[i + 2]) &&
      isOctal(data[i + 3])
    ) {
      out[n++] = ((data[i + 1] - 48) << 6) | ((data[i + 2] - 48) << 3) | (data[i + 3] - 48);
      i += 3;
    } else {
      out[n++] = b;
    }
  }
  return out.subarray(0, n);
}

function isOctal(b: number | undefined): boolean {
  return b !== undefined && b >= 48 && b <= 55;
}

/**
 * Reads one reply made of several blocks, line by line, and decides where it ends; the framing
 * argument of docs/design.md §5.14 lives in its implementation (src/tmux/control/route_reply.ts).
 */
export interface ReplyReader {
  /** The line is about to be written to tmux: from now on it may have been executed. */
  sent(): void;
  /**
   * One line of the reply, its first `%begin` included. Returns true once the reply is complete;
   * throws a {@link FramingError} when the line cannot belong to it.
   */
  line(text: string): boolean;
}

/**
 * Output on a strict connection that no honest tmux could have sent there: the connection is
 * dropped, since nothing read after it could be trusted.
 */
export class FramingError extends Error {}

/**
 * A `%begin T N F` line: the key its `%end`/`%error` repeats ("T N F"), and whether it answers a
 * command of this client's own (flag 1; the attach's block has flag 0).
 */
export function parseBegin(text: string): { key: string; ours: boolean } | undefined {
  const begin = /^%begin (\d+ \d+ (\d+))$/.exec(text);
  return begin ? { key: begin[1], ours: (Number(begin[2]) & 1) === 1 } : undefined;
}

const OUTPUT = "%output ";

/** Whether a line is a `%output %P data` notification (checked on bytes: data is not text). */
export function isOutput(line: Uint8Array): boolean {
  if (line.length < OUTPUT.length) return false;
  for (let i = 0; i < OUTPUT.length; i++) if (line[i] !== OUTPUT.charCodeAt(i)) return false;
  return true;
}

/** The pane and decoded bytes of a `%output` line; undefined when it names no pane. */
export function parseOutput(line: Uint8Array): { paneId: string; bytes: Uint8Array } | undefined {
  const rest = line.subarray(OUTPUT.length);
  const space = rest.indexOf(0x20);
  if (space <= 0) return undefined;
  return {
    paneId: new TextDecoder().decode(rest.subarray(0, space)),
    bytes: decodeOutput(rest.subarray(space + 1)),
  };
}

/** A notification outside reply blocks that a control client acts on. */
type Notification =
  /** A window's layout changed: the size of every pane it holds now. */
  | { kind: "layout"; windowId: string; panes: Map<string, PaneSize> }
  /** A window closed, or was unlinked from the session. */
  | { kind: "window-close"; windowId: string }
  /** A subscription's value changed for a pane. */
  | { kind: "subscription"; name: string; paneId: string }
  /** tmux ended the connection. */
  | { kind: "exit"; reason: string };

/** The notification a line is, or undefined for any other line. */
export function parseNotification(text: string): Notification | undefined {
  // `%layout-change @W layout visible-layout flags` (the last two since tmux 3.1).
  const layout = /^%layout-change (@\d+) (\S+)(?: (\S+))?/.exec(text);
  if (layout) {
    return { kind: "layout", windowId: layout[1], panes: layoutPanes(layout[2], layout[3] ?? "") };
  }
  const closed = /^%(?:unlinked-)?window-close (@\d+)$/.exec(text);
  if (closed) return { kind: "window-close", windowId: closed[1] };
  // `%subscription-changed name $S @W index %P … : value`
  const changed = /^%subscription-changed (\S+) \S+ \S+ \S+ (%\d+) /.exec(text);
  if (changed) return { kind: "subscription", name: changed[1], paneId: changed[2] };
  if (text.startsWith("%exit")) {
    return { kind: "exit", reason: text.slice(5).trim() || "tmux ended the connection" };
  }
  return undefined;
}

/** Splits a byte stream into lines (without their newline), across chunk boundaries. */
export class LineSplitter {
  #buffer = new Uint8Array(0);

  /** The lines `chunk` completes, in order; what follows the last newline waits for more. */
  push(chunk: Uint8Array): Uint8Array[] {
    const joined = new Uint8Array(this.#buffer.length + chunk.length);
    joined.set(this.#buffer);
    joined.set(chunk, this.#buffer.length);
    const lines: Uint8Array[] = [];
    let start = 0;
    // indexOf runs natively: a flood's lines are found without a JavaScript loop over each byte.
    for (let i = joined.indexOf(0x0a); i >= 0; i = joined.indexOf(0x0a, start)) {
      lines.push(joined.subarray(start, i));
      start = i + 1;
    }
    this.#buffer = joined.slice(start);
    return lines;
  }
}
