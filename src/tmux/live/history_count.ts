/**
 * tmux's arithmetic of a pane's history, pure (docs/design.md §7.3): how its size moves as rows
 * scroll in, how `capture-pane` clamps a range, and which captured rows continue on the next one.
 * src/tmux/live/history_rows.ts uses it to number the rows it reads back as the pane's terminal does.
 */

/** The most rows that may have scrolled between two looks for their count to be worked out. */
const MAX_SCROLLED = 1_000_000;

/**
 * The history after one more row scrolled in (tmux 3.3a `grid_collect_history`, then the row):
 * a full history first drops its oldest tenth of the limit (at least one row). `limit` 0 keeps no
 * history at all.
 */
export function scrollOnce(
  size: number,
  limit: number,
): { size: number; dropped: number } {
  if (limit === 0) return { size: 0, dropped: 1 };
  let dropped = 0;
  if (size > 0 && size >= limit) {
    dropped = Math.min(Math.max(1, Math.floor(limit / 10)), size);
    size -= dropped;
  }
  return { size: size + 1, dropped };
}

/**
 * Of the `total` rows that scrolled into a history of `before` rows between two looks (the second
 * found `after`), how many had scrolled in when a capture in between found `mid`, and how many old
 * rows tmux had dropped by then. Undefined when no count, or more than one, leads from `before` to
 * `mid` and on to `after`: the history was cleared or reflowed, or a full one turned over so often
 * that sizes repeat.
 */
export function scrolledBy(
  sizes: { before: number; mid: number; after: number },
  limit: number,
  total: number,
): { scrolled: number; dropped: number } | undefined {
  if (total < 0 || total > MAX_SCROLLED) return undefined;
  let size = sizes.before;
  let dropped = 0;
  let found: { scrolled: number; dropped: number } | undefined;
  for (let scrolled = 0;; scrolled++) {
    if (size === sizes.mid) {
      if (found) return undefined;
      found = { scrolled, dropped };
    }
    if (scrolled === total) break;
    const next = scrollOnce(size, limit);
    size = next.size;
    dropped += next.dropped;
  }
  return size === sizes.after ? found : undefined;
}

/**
 * The lines `capture-pane -S start -E end` prints, as indices from the oldest history line (0)
 * down to the screen's last row (`history + height - 1`), clamped as tmux 3.3a clamps them.
 */
export function capturedLines(
  history: number,
  height: number,
  start: number,
  end: number,
): { top: number; bottom: number } {
  const index = (n: number) =>
    Math.min(n < 0 && -n > history ? 0 : history + n, history + height - 1);
  const top = index(start);
  const bottom = index(end);
  return top <= bottom ? { top, bottom } : { top: bottom, bottom: top };
}

/**
 * Which of `rows` (one capture's rows, trailing blanks kept: `-N`) continue on the next row, read
 * off the same rows captured joined (`-J`), which ends a row with a newline only where its line
 * ends. The last row's answer is a guess (`-p` ends the output with a newline either way): ask
 * for one row more than you use. Undefined when the two captures do not hold the same rows.
 */
export function wrapFlags(rows: readonly string[], joined: string): boolean[] | undefined {
  const wrapped: boolean[] = [];
  let at = 0;
  for (const row of rows) {
    if (!joined.startsWith(row, at)) return undefined;
    at += row.length;
    // A cell never holds a newline, so one here ends the row's line (an empty row that a wrapped
    // row continues into reads the same as an empty line of its own: the text is the same).
    const ends = joined[at] === "\n";
    wrapped.push(!ends);
    if (ends) at++;
  }
  return at === joined.length || at === joined.length - 1 ? wrapped : undefined;
}
