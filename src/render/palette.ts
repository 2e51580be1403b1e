/**
 * Colours of a screenshot (docs/design.md §9): two themes, each a default foreground, background
 * and cursor plus the 16 ANSI colours, and xterm's fixed 256-colour table above them. Colours are
 * 0xRRGGBB numbers.
 */

/** The themes screenshot_pane offers. */
export const THEMES = ["dark", "light"] as const;

/** A theme's name. */
export type ThemeName = typeof THEMES[number];

/** A theme's colours. */
export interface Theme {
  foreground: number;
  background: number;
  cursor: number;
  /** ANSI colours 0–15: black, red, green, yellow, blue, magenta, cyan, white, then bright. */
  ansi: readonly number[];
}

/** The colours of VS Code's default dark and light terminals, which people know. */
export const THEME: Record<ThemeName, Theme> = {
  dark: {
    foreground: 0xd4d4d4,
    background: 0x1e1e1e,
    cursor: 0xaeafad,
    ansi: [
      0x000000,
      0xcd3131,
      0x0dbc79,
      0xe5e510,
      0x2472c8,
      0xbc3fbc,
      0x11a8cd,
      0xe5e5e5,
      0x666666,
      0xf14c4c,
      0x23d18b,
      0xf5f543,
      0x3b8eea,
      0xd670d6,
      0x29b8db,
      0xe5e5e5,
    ],
  },
  light: {
    foreground: 0x333333,
    background: 0xffffff,
    cursor: 0x000000,
    ansi: [
      0x000000,
      0xcd3131,
      0x00bc00,
      0x949800,
      0x0451a5,
      0xbc05bc,
      0x0598bc,
      0x555555,
      0x666666,
      0xcd3131,
      0x14ce14,
      0xb5ba00,
      0x0451a5,
      0xbc05bc,
      0x0598bc,
      0xa5a5a5,
    ],
  },
};

/** Colour `index` (16–255) of xterm's table: a 6×6×6 cube, then 24 greys. */
function xterm256(index: number): number {
  if (index >= 232) {
    const v = 8 + (index - 232) * 10;
    return (v << 16) | (v << 8) | v;
  }
  const i = index - 16;
  const level = (n: number) => (n === 0 ? 0 : 55 + n * 40);
  return (level(Math.floor(i / 36)) << 16) | (level(Math.floor(i / 6) % 6) << 8) |
    level(i % 6);
}

/** The colour of palette index `index` (0–255) in `theme`. */
export function paletteColor(theme: Theme, index: number): number {
  return index < 16 ? theme.ansi[index] : xterm256(index);
}

/** `a` moved `t` (0–1) of the way towards `b`, per channel. */
export function mix(a: number, b: number, t: number): number {
  let out = 0;
  for (const shift of [16, 8, 0]) {
    const x = (a >> shift) & 0xff, y = (b >> shift) & 0xff;
    out |= Math.round(x + (y - x) * t) << shift;
  }
  return out;
}
