/**
 * Where plain text may be counted instead of drawn (lazy emulation, docs/design.md §7.2): a pure
 * scan of one run of output, for {@link PaneEmulator.writeOutput} in src/live/emulator.ts, which
 * checks first that the terminal's state allows it.
 */

/**
 * The last line start (after a LF with the cursor in column 0) in the plain text (printable ASCII,
 * CR, LF) at the start of `chunks`, below which that text still advances the cursor `need` rows,
 * and the rows (line feeds and wraps) the text before it advances; undefined when there is none.
 * `x` is the cursor's column before the text, `cols` the terminal's width. Scanning stops at the
 * first other byte.
 */
export function plainCut(
  chunks: readonly Uint8Array[],
  x: number,
  cols: number,
  need: number,
): { offset: number; rows: number } | undefined {
  // Line starts (offset after the LF, rows advanced before it), in order.
  const starts: number[] = [];
  let rows = 0;
  let base = 0;
  scan: for (const bytes of chunks) {
    for (let i = 0; i < bytes.length; i++) {
      const b = bytes[i];
      if (b >= 0x20 && b < 0x7f) {
        if (x >= cols) {
          rows++;
          x = 0;
        }
        x++;
      } else if (b === 0x0d) {
        x = 0;
      } else if (b === 0x0a) {
        rows++;
        if (x >= cols) x = cols - 1;
        if (x === 0) starts.push(base + i + 1, rows);
      } else {
        break scan;
      }
    }
    base += bytes.length;
  }
  let cut: { offset: number; rows: number } | undefined;
  for (let k = 0; k < starts.length && rows - starts[k + 1] >= need; k += 2) {
    cut = { offset: starts[k], rows: starts[k + 1] };
  }
  return cut;
}
