/**
 * Starting a stream's terminal from tmux's own rendering of the pane, and keeping its rows where
 * tmux keeps them after a resize (docs/design.md §7.2).
 */
import { ToolError } from "../../errors.ts";
import type { PaneStream } from "../../live/stream.ts";
import { captureSeed } from "./capture_seed.ts";
import type { TmuxReadContext } from "../core/context.ts";
import type { ControlClient } from "../control/client.ts";
import { int } from "../core/format.ts";
import { paneArg } from "../core/ids.ts";

/** Seeding captures taken while output keeps arriving, before the last one is used as it is. */
const SEED_ATTEMPTS = 3;

/**
 * Seed a stream's terminal from tmux's rendering of the pane (docs/design.md §7.2). The stream
 * already holds the output arriving meanwhile; a capture is used only if none arrived while it
 * was taken (output tmux produced before the capture has reached us once a command sent after
 * it is answered, since tmux keeps a control client's output and replies in order). Otherwise
 * it is taken again, and after the last attempt used as it is, disclosed as `seedRace`.
 */
export async function seedStream(
  ctx: TmuxReadContext,
  stream: PaneStream,
  client: ControlClient,
): Promise<void> {
  for (let attempt = 1; !stream.ended; attempt++) {
    const from = stream.changes;
    const seed = await captureSeed(ctx, stream.paneId);
    let seen = -1;
    await client.command(["display-message", "-p", ""], undefined, undefined, () => {
      seen = stream.changes;
    });
    const raced = seen !== from;
    if (!raced || attempt === SEED_ATTEMPTS) {
      stream.generation = seed.generation;
      stream.seed(seed, from, raced);
      return;
    }
  }
}

/** Wait for a seeding to end; `cancelled` when `signal` aborts first (the seeding goes on). */
export async function seedDone(seeding: Promise<void>, signal?: AbortSignal): Promise<void> {
  if (!signal) await seeding;
  else {
    await new Promise<void>((resolve, reject) => {
      const onAbort = () => reject(new ToolError("cancelled", "the call was cancelled"));
      if (signal.aborted) return onAbort();
      signal.addEventListener("abort", onAbort, { once: true });
      seeding.then(resolve, reject).finally(() => signal.removeEventListener("abort", onAbort));
    });
  }
}

/**
 * After a resize, put the terminal's rows where tmux put them: the two reflow wrapped lines
 * alike, but where xterm.js keeps blank rows below the cursor, tmux scrolls rows into its
 * history. tmux's cursor position, read as tmux runs the command (only numbers cross the
 * channel), says by how much.
 */
export function alignRows(client: ControlClient, stream: PaneStream): void {
  const format = "#{cursor_x},#{cursor_y},#{pane_width},#{pane_height}";
  client.command(
    ["display-message", "-p", "-t", paneArg(stream.paneId), format],
    undefined,
    undefined,
    (lines) => {
      const [x, y, width, height] = (lines[0] ?? "").split(",").map((n) => int(n, -1));
      if (Math.min(x, y, width, height) >= 0) stream.align(x, y, width, height);
    },
  ).catch(() => {});
}
