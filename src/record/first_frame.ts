/**
 * The first frame of a recording (docs/design.md §11.2): the pane's screen as its terminal shows
 * it when recording begins, as output that draws it — colours and attributes, each row from the
 * left edge, then the cursor — so a replay starts from what the pane showed, and the output
 * recorded after it continues that screen. Read from the stream's terminal in the same
 * synchronous step that starts observing it, so no output falls between the two.
 *
 * Cells carry only printable text (src/view/styled_rows.ts replaces any control character), so a
 * pane cannot put a sequence of its choosing into the frame.
 */
import { gridFromBuffer } from "../render/cells.ts";
import { encodeRows } from "../view/styled_rows.ts";
import type { PaneEmulator } from "../live/emulator.ts";

/** The screen `emulator` shows, as output that draws it on a blank terminal of its size. */
export function firstFrame(emulator: PaneEmulator): string {
  const buffer = emulator.buffer;
  const grid = gridFromBuffer(buffer, buffer.baseY, emulator.rows, emulator.cols);
  const { lines } = encodeRows(grid);
  const { x, y } = emulator.cursor;
  // A full-screen program's screen is drawn on the alternate screen, so its exit restores a
  // (blank) normal one, as it would in the pane.
  let frame = emulator.alternate ? "\x1b[?1049h" : "";
  frame += "\x1b[0m\x1b[H\x1b[2J";
  lines.forEach((line, row) => {
    if (line !== "") frame += `\x1b[${row + 1};1H${line}`;
  });
  return `${frame}\x1b[0m\x1b[${y + 1};${Math.min(x, emulator.cols - 1) + 1}H`;
}
