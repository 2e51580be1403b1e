/** The state a followed pane's terminal starts from (src/live/emulator.ts seeds it). */

/** tmux's rendering of a pane when its stream began, from the seeding capture. */
export interface EmulatorSeed {
  width: number;
  height: number;
  /** Cursor position; `cursorX` equals `width` when the next character wraps. */
  cursorX: number;
  cursorY: number;
  /** The screen shown, with attributes and wrapped lines joined (`capture-pane -e -J -p`). */
  screen: string;
  /** While the alternate screen is shown: the normal screen under it and its saved cursor. */
  normal?: { screen: string; cursorX: number; cursorY: number };
  scrollUpper: number;
  scrollLower: number;
  insert: boolean;
  origin: boolean;
  wrap: boolean;
  /** Application cursor keys (DECCKM) and keypad (DECKPAM): what a key press sends depends on them. */
  cursorKeys?: boolean;
  keypad?: boolean;
  /** Tab stops (columns). */
  tabs: number[];
}
