/** Seeds for headless terminals in unit tests (no tmux). */
import type { EmulatorSeed } from "../../src/live/emulator.ts";

/** The seed of a blank `width`×`height` screen with the cursor at the top left. */
export function blankSeed(width: number, height: number): EmulatorSeed {
  return {
    width,
    height,
    cursorX: 0,
    cursorY: 0,
    screen: "",
    scrollUpper: 0,
    scrollLower: height - 1,
    insert: false,
    origin: false,
    wrap: true,
    tabs: [],
  };
}
