/**
 * Input to panes: the only code that builds `send-keys`, `load-buffer`, `paste-buffer`,
 * `delete-buffer` and the `synchronize-panes` `set-option` argv (docs/design.md §5.6, §5.9, §5.12).
 *
 * Facts this relies on (checked on tmux 3.3a):
 * - `send-keys` reads a value starting with `-` as flags (`-la` → "unknown flag -a", `-H` is
 *   silently taken as the hex flag), so agent text always follows `--`.
 * - Without `-l`, one argument that names a key (`C-c`, `Up`, `F5`, `BTab`) presses it and any
 *   other string is typed — except that a string starting with `0x` is read as a hex key code and
 *   the rest dropped (`"0x41 hello"` types only `A`). Such strings are typed with `-l` here.
 * - `send-keys -l` delivers the UTF-8 bytes unchanged (LF stays LF, CR stays CR, ESC, tabs).
 * - One tmux command over ~16 KiB of arguments fails ("command too long"), so text above
 *   {@link ARGV_TEXT_BYTES} goes through a private buffer loaded from stdin. `paste-buffer -r`
 *   writes the buffer unchanged (the same bytes as `send-keys -l`); without `-r` each LF becomes
 *   CR, as a terminal's paste does; `-p` adds bracketed-paste markers only when the program asked
 *   for them (mode 2004).
 * - `paste-buffer` writes straight to the pane: unlike keys it is NOT copied to synchronized
 *   panes, so a paste is written to every receiver explicitly.
 * - `load-buffer` of empty input creates no buffer; a failed chain leaves its buffer behind, so
 *   every buffer path deletes its buffer on failure.
 */
import { preview, ToolError } from "../../errors.ts";
import type { TmuxCommand } from "../core/argv.ts";
import type { PaneInput, TmuxContext } from "../core/context.ts";
import { nonce } from "../core/format.ts";
import { WINDOW_ID } from "../../rows.ts";
import { paneArg } from "../core/ids.ts";

/** Text up to this many UTF-8 bytes goes as one `send-keys` argument; more goes via a buffer. */
const ARGV_TEXT_BYTES = 8192;
/** Prefix of our private paste buffers; the rest of the name is a per-call random nonce. */
export const BUFFER_PREFIX = "tmux-mcp-";

const encoder = new TextEncoder();

/**
 * Key names pressed as keys, spelled exactly as tmux documents them (tmux itself also accepts
 * "end", "^c" or "0x41", which would turn a word typed into a REPL into a keypress): named keys
 * with optional C-/M-/S- modifiers, or modifiers plus one printable character (`C-c`, `M-x`).
 */
const KEY_NAME = new RegExp(
  "^(?:[CMS]-)*(?:F(?:[1-9]|1[0-2])|IC|Insert|DC|Delete|Home|End|NPage|PageDown|PgDn|PPage|" +
    "PageUp|PgUp|Tab|BTab|Space|BSpace|Enter|Escape|Up|Down|Left|Right|KP(?:[/*+.0-9-]|Enter))$" +
    "|^(?:[CMS]-)+[!-~]$",
);

/**
 * Whether {@link sendKeys} presses `keys` as one key rather than typing it: a key name, spelled
 * exactly, sent without `literal`.
 */
export function pressesKey(keys: string, literal: boolean): boolean {
  return !literal && KEY_NAME.test(keys);
}

/** One `send_keys` delivery. */
interface KeysDelivery {
  /** The pane addressed; tmux itself copies keys to its synchronized partners. */
  paneId: string;
  /** Every pane the input reaches, `paneId` first (a large text is pasted into each). */
  receivers: readonly string[];
  /** One key or text, or a sequence of them sent in order. */
  keys: string | readonly string[];
  literal: boolean;
  enter: boolean;
}

/**
 * Type `keys` into a pane (pressing each item that names a key when `literal` is false), in
 * order, then Enter. Small text is one `send-keys` argument after `--`, and consecutive items go
 * in one tmux invocation while their text fits {@link ARGV_TEXT_BYTES}; a larger item is pasted
 * unchanged from a private buffer into every receiver, in its place, which is exactly what typing
 * it would have delivered.
 */
export async function sendKeys(
  ctx: TmuxContext,
  delivery: KeysDelivery,
  signal?: AbortSignal,
): Promise<void> {
  const paneId = paneArg(delivery.paneId);
  const items = typeof delivery.keys === "string" ? [delivery.keys] : delivery.keys;
  await ctx.beforeInput?.(delivery.receivers, [
    ...items.flatMap((keys) => keysInput(keys, delivery.literal)),
    ...(delivery.enter ? [{ key: "Enter" }] : []),
  ]);
  const enter: TmuxCommand[] = delivery.enter ? [["send-keys", "-t", paneId, "Enter"]] : [];
  let chain: TmuxCommand[] = [];
  let chained = 0;
  const flush = async (after: readonly TmuxCommand[] = []) => {
    const commands = [...chain, ...after];
    chain = [];
    chained = 0;
    if (commands.length > 0) await ctx.runner.run(commands, { effects: "possible", signal });
  };
  for (const [index, keys] of items.entries()) {
    // The tool checked the text (no NUL, at most its byte limit) before the guard.
    const bytes = encoder.encode(keys);
    if (bytes.length > ARGV_TEXT_BYTES) {
      await flush();
      // No key name is this long, so typing it and pasting it unchanged deliver the same bytes.
      const last = index === items.length - 1;
      await pasteThroughBuffer(ctx, delivery.receivers, bytes, { raw: true, bracketed: false }, {
        after: last ? enter : [],
        signal,
      });
      if (last) return;
      continue;
    }
    if (keys === "") continue;
    if (chained + bytes.length > ARGV_TEXT_BYTES) await flush();
    const typed = !pressesKey(keys, delivery.literal);
    chain.push(["send-keys", ...(typed ? ["-l"] : []), "-t", paneId, "--", keys]);
    chained += bytes.length;
  }
  await flush(enter);
}

/** What typing `keys` sends, as the recorder sees it: a key pressed, text typed, or nothing. */
function keysInput(keys: string, literal: boolean): PaneInput[] {
  if (keys === "") return [];
  return [pressesKey(keys, literal) ? { key: keys } : { text: keys }];
}

/** Press Enter in a pane (tmux copies it to synchronized partners). */
export async function pressEnter(
  ctx: TmuxContext,
  paneId: string,
  signal?: AbortSignal,
): Promise<void> {
  await ctx.beforeInput?.([paneId], [{ key: "Enter" }]);
  await ctx.runner.run(["send-keys", "-t", paneArg(paneId), "Enter"], {
    effects: "possible",
    signal,
  });
}

/**
 * Paste `text` into every receiver as a terminal paste: newlines as carriage returns, wrapped in
 * bracketed-paste markers when the program asked for them. Returns the UTF-8 byte count.
 */
export async function pasteText(
  ctx: TmuxContext,
  receivers: readonly string[],
  text: string,
  signal?: AbortSignal,
): Promise<number> {
  // Bracketed-paste markers inside the text would end the paste early and run the rest line by
  // line; a paste turns each LF into Enter, so CRLF would press Enter twice. Markers go first:
  // removing one can join a CR to an LF, while joining CRLF cannot assemble a marker.
  const normalized = stripPasteMarkers(text).replaceAll("\r\n", "\n");
  const bytes = encoder.encode(normalized);
  if (bytes.length === 0) {
    throw new ToolError("invalid_arguments", "text is empty", { hint: "Pass some text." });
  }
  await ctx.beforeInput?.(receivers, [{ paste: normalized }]);
  await pasteThroughBuffer(ctx, receivers, bytes, { raw: false, bracketed: true }, { signal });
  return bytes.length;
}

// deno-lint-ignore no-control-regex -- the markers begin with ESC
const PASTE_MARKER = /\x1b\[20[01]~/g;

/**
 * Remove every bracketed-paste marker (`ESC [200~`, `ESC [201~`) from `text`. One pass is not
 * enough: removing `ESC [201~` from `ESC [20ESC [201~1~` assembles a new one, which would end
 * the paste early and let the program run the rest line by line. Removal repeats until nothing
 * changes, so the result holds no marker whatever the nesting (each pass shortens the text).
 */
export function stripPasteMarkers(text: string): string {
  let previous;
  do {
    previous = text;
    text = text.replaceAll(PASTE_MARKER, "");
  } while (text !== previous);
  return text;
}

/** How a buffer is pasted. */
interface PasteMode {
  /** `-r`: write LF unchanged instead of as CR. */
  raw: boolean;
  /** `-p`: bracketed-paste markers when the program asked for them. */
  bracketed: boolean;
}

/**
 * Load `bytes` from stdin into a private, uniquely named buffer, paste it into each receiver,
 * delete it, then run `after` — all in one tmux invocation. If anything fails, the buffer is
 * deleted before the error is reported: no buffer of ours outlives the call.
 */
async function pasteThroughBuffer(
  ctx: TmuxContext,
  receivers: readonly string[],
  bytes: Uint8Array,
  mode: PasteMode,
  options: { after?: readonly TmuxCommand[]; signal?: AbortSignal },
): Promise<void> {
  if (receivers.length === 0) throw new Error("internal: a paste needs a receiver");
  const name = `${BUFFER_PREFIX}${nonce()}`;
  const flags = [...(mode.raw ? ["-r"] : []), ...(mode.bracketed ? ["-p"] : [])];
  const commands: TmuxCommand[] = [
    ["load-buffer", "-b", name, "-"],
    ...receivers.map((id) => ["paste-buffer", ...flags, "-b", name, "-t", paneArg(id)]),
    ["delete-buffer", "-b", name],
    ...(options.after ?? []),
  ];
  try {
    await ctx.runner.run(commands, { effects: "possible", stdin: bytes, signal: options.signal });
  } catch (error) {
    await deleteBuffer(ctx, name);
    throw error;
  }
}

/** Delete one of our buffers if it exists; never throws (it runs while another error unwinds). */
async function deleteBuffer(ctx: TmuxContext, name: string): Promise<void> {
  if (!name.startsWith(BUFFER_PREFIX)) throw new Error("internal: not one of our buffers");
  try {
    // Not tied to the call's signal: a cancelled call must still clean up.
    await ctx.runner.runPartial(["delete-buffer", "-b", name], { effects: "possible" });
  } catch {
    // The server is gone (and the buffer with it) or did not answer; nothing more to do.
  }
}

/**
 * Turn `synchronize-panes` on or off for a whole window: the window option is set and the pane
 * overrides of `panes` (tmux 3.2+ also has it as a pane option) are removed, so every pane of the
 * window follows the window's setting.
 */
export async function setSynchronizePanes(
  ctx: TmuxContext,
  windowId: string,
  enabled: boolean,
  panes: readonly string[],
  signal?: AbortSignal,
): Promise<void> {
  if (!WINDOW_ID.test(windowId)) {
    throw new ToolError("invalid_arguments", `not a window id: ${preview(windowId)}`);
  }
  await ctx.runner.run([
    ["set-option", "-w", "-t", windowId, "synchronize-panes", enabled ? "on" : "off"],
    ...panes.map((id) => ["set-option", "-p", "-u", "-t", paneArg(id), "synchronize-panes"]),
  ], { effects: "possible", signal });
}
