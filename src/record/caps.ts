/**
 * The bounds of a recording directory (docs/design.md §11.4), as plans: when a file gives way to
 * its next part, which files leave to bring the directory back under its cap, and what each part
 * is called. Pure: src/record/files.ts does what these decide.
 */

/** The two caps, in bytes. */
export interface RecordCaps {
  /** A file past this many bytes is closed and continues in its next part. */
  fileBytes: number;
  /** Past this many bytes in all, the oldest closed files are removed. */
  dirBytes: number;
}

/** The defaults: 64 MiB a file, 1 GiB in all. */
export const DEFAULT_CAPS: RecordCaps = { fileBytes: 64 << 20, dirBytes: 1 << 30 };

/**
 * Whether a file holding `written` bytes must give way to its next part before `next` more are
 * appended. A file always takes its first write (its header, or one event larger than the cap),
 * so no event is ever split or dropped for size.
 */
export function rotates(written: number, next: number, cap: number): boolean {
  return written > 0 && written + next > cap;
}

/** One file of the directory, as a prune sees it. */
export interface DirFile {
  /** Its path. */
  path: string;
  size: number;
  /** Last modification, ms since the epoch. */
  mtime: number;
  /** Still being written by this process (never removed). */
  open: boolean;
}

/** What a prune removes, and whether that is enough. */
export interface PrunePlan {
  /** Paths to remove, oldest first. */
  remove: string[];
  /** Bytes they hold. */
  freed: number;
  /** Still over the cap once they are gone: only files in use are left. */
  over: boolean;
}

/**
 * The oldest closed files to remove so the directory holds at most `cap` bytes. Ties in age go by
 * path, so the plan is the same whatever order the directory was listed in.
 */
export function planPrune(files: readonly DirFile[], cap: number): PrunePlan {
  let total = files.reduce((n, f) => n + f.size, 0);
  const remove: string[] = [];
  let freed = 0;
  const closed = files.filter((f) => !f.open)
    .sort((a, b) => a.mtime - b.mtime || (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  for (const file of closed) {
    if (total <= cap) break;
    remove.push(file.path);
    freed += file.size;
    total -= file.size;
  }
  return { remove, freed, over: total > cap };
}

/**
 * The name of part `part` (1, 2, …) of a file: the first keeps its name, later ones put the
 * number before the extension (`actions.jsonl`, `actions.2.jsonl`).
 */
export function partName(name: string, part: number): string {
  if (part <= 1) return name;
  const dot = name.indexOf(".");
  return dot < 0 ? `${name}.${part}` : `${name.slice(0, dot)}.${part}${name.slice(dot)}`;
}

/**
 * A file name for a pane's recording: host and pane number, safe in any file system whatever the
 * host's configured name holds (`local-p3.cast`, `box1-p12.cast`).
 */
export function paneFileName(host: string, paneId: string, take: number): string {
  const safeHost = host.replace(/[^A-Za-z0-9_-]/g, "_").slice(0, 64) || "host";
  const number = paneId.replace(/^%/, "").replace(/[^0-9]/g, "") || "0";
  return `${safeHost}-p${number}${take > 1 ? `-${take}` : ""}.cast`;
}
