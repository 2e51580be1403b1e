/**
 * Which tmux versions this server runs against. 3.2 is the minimum: pane-level
 * `synchronize-panes` (the guard's cohort), `attach -f active-pane` (watched windows) and the
 * control-mode reply flags the live engine matches on all arrived in 3.2. 3.3a is what the suite
 * runs on.
 */

/** The oldest tmux this server accepts. */
export const MIN_TMUX = { major: 3, minor: 2 } as const;

/** A tmux release number. */
interface TmuxRelease {
  major: number;
  minor: number;
}

/**
 * Read `tmux -V` ("tmux 3.3a", "tmux 3.2-rc2", "tmux next-3.5", "tmux openbsd-7.5"): the release
 * number, or undefined for builds that name no release (`master`, OpenBSD's own numbering).
 */
export function parseTmuxVersion(text: string): TmuxRelease | undefined {
  const m = /^tmux (?:next-)?(\d+)\.(\d+)/.exec(text.trim());
  return m ? { major: Number(m[1]), minor: Number(m[2]) } : undefined;
}

/** Whether a release is at least {@link MIN_TMUX}. */
export function isSupported(release: TmuxRelease): boolean {
  return release.major > MIN_TMUX.major ||
    (release.major === MIN_TMUX.major && release.minor >= MIN_TMUX.minor);
}
