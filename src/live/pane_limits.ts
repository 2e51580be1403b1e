/**
 * The sizes a followed pane's terminal is held to (docs/design.md §7.2): the rows of history it
 * keeps, and the largest pane this server creates or follows.
 */
import { ToolError } from "../errors.ts";

/**
 * Rows of history a followed pane's terminal keeps above its screen (docs/design.md §7.2): as many
 * as a read returns by default (`TEXT_LIMITS.lines`), so a reader that keeps up, reading with the
 * default bounds, loses nothing. tmux keeps the pane's whole history: a read whose mark is older
 * than the rows kept reads the rows it needs back from tmux (src/live/read_back.ts). Each row of a
 * 160-column pane costs about 2.4 KB of cells and objects.
 */
export const HISTORY_ROWS = 200;

/**
 * The largest pane this server creates or follows (docs/design.md §7.2): a terminal's cells live
 * outside V8's heap limit, and a followed 10000x10000 pane cost 1.15–1.8 GB. 1000x500 with
 * {@link HISTORY_ROWS} rows of history is about 8 MB of cells.
 */
export const PANE_LIMITS = { columns: 1_000, rows: 500 } as const;

/**
 * The refusal for a pane (`paneId`, or "" when unknown here) larger than {@link PANE_LIMITS}, or
 * undefined when it fits.
 */
export function oversize(paneId: string, cols: number, rows: number): ToolError | undefined {
  if (cols <= PANE_LIMITS.columns && rows <= PANE_LIMITS.rows) return undefined;
  const max = `${PANE_LIMITS.columns}x${PANE_LIMITS.rows}`;
  return new ToolError(
    "unsupported",
    `${
      paneId ? `pane ${paneId}` : "the pane"
    } is ${cols}x${rows} cells; this server follows panes of at most ${max}`,
    {
      hint: `Read it with capture_pane (bounded), or make its window at most ${max} ` +
        `(resize_window) and call again.`,
    },
  );
}
