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

/**
 * The newest release known to crash when a notification reaches a control client that is still
 * identifying (3.3a here; the same class was reported on 3.5a in 2026). Newer releases are assumed
 * affected too until one is known fixed (docs/design.md §7.4).
 */
export const LAST_KNOWN_CRASHING = "3.5a";

/**
 * The one stderr line at start when live mode attaches control clients to a server a person works
 * in (the server of `$TMUX`, or tmux's default one): what a person's own commands can still meet,
 * and the safe setups. Undefined for the agent's own server (`-L`/`-S` chosen) or `--no-live`.
 */
export function liveRiskNotice(
  version: string,
  live: boolean,
  socketSource: "flag" | "env" | "tmux-env" | "default",
): string | undefined {
  if (!live || socketSource === "flag" || socketSource === "env") return undefined;
  const release = parseTmuxVersion(version);
  const named = release ? version.trim() : `this tmux (${version.trim() || "unknown version"})`;
  return `live mode attaches control clients to the tmux server you work in; ${named}, like ` +
    `every release up to at least ${LAST_KNOWN_CRASHING}, can crash when one of your own ` +
    "commands (a session made, renamed or closed) lands while such a client attaches. This " +
    "server attaches once per followed session and stays attached; for no risk at all give the " +
    "agent its own server (--socket-name NAME) or use --no-live";
}
