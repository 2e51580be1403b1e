/**
 * What a polled wait (no live mode, or past the connection cap; docs/design.md §7.6) tells from
 * two captures of a pane's screen, each as its lines with trailing blank ones removed. Pure.
 */

/**
 * Lines of `next` that are new since `prev` (wait_for_text, §7.7 rule 8): the screen scrolled by
 * some rows (the longest overlap wins; the last row of `prev` counts as new when it changed, it
 * was still being written), or rows changed in place.
 */
export function newScreenLines(prev: readonly string[], next: readonly string[]): string[] {
  // A row past the end of `next` is undefined, so an overlap longer than `next` fails.
  const overlaps = (shift: number, upTo: number) => {
    for (let i = shift; i < upTo; i++) if (prev[i] !== next[i - shift]) return false;
    return true;
  };
  for (let shift = 0; shift < prev.length; shift++) {
    // The whole rest of prev is on the new screen: what follows it is new.
    if (overlaps(shift, prev.length)) return next.slice(prev.length - shift);
    // All but its last row: that row was completed (or rewritten) since.
    if (prev.length - shift > 1 && overlaps(shift, prev.length - 1)) {
      return next.slice(prev.length - 1 - shift);
    }
  }
  return next.filter((line, i) => prev[i] !== line);
}

/** Lines of `next` that were not on the screen before the input (`waitFor`, §7.10 rule 7). */
export function linesNotIn(before: ReadonlySet<string>, next: readonly string[]): string[] {
  return next.filter((line) => !before.has(line));
}

/**
 * Whether `next` shows output beyond the input's line, which was the last of `before` (what
 * starts `waitFor`'s quiet timer without live mode, §7.10 rule 7): more lines, or a changed line
 * other than that last one.
 */
export function beyondInput(before: readonly string[], next: readonly string[]): boolean {
  return next.length > before.length || next.slice(0, -1).some((line, i) => line !== before[i]);
}
