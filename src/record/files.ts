/**
 * The recording directory on disk (docs/design.md §11.4): created 0700, files 0600 created anew
 * (never reopened, never followed through a link), each event appended with one write as it
 * happens (no fsync: a SIGKILL loses at most the write in flight), files continued in parts past
 * the file cap, and the oldest closed files of earlier parts and sessions removed past the
 * directory cap. Any failure — a full disk, a read-only or removed directory — stops recording
 * for the whole process, said once; it never reaches a tool call.
 */
import { type DirFile, partName, planPrune, type RecordCaps, rotates } from "./caps.ts";
import { randomHex } from "../base/random.ts";

/** What the sessions recording into a place are told. */
export interface PlaceListener {
  /** Files were removed to bring the directory under its cap. */
  pruned(removed: readonly string[], bytes: number): void;
  /** Recording stopped for good; the listener writes its last line and closes its files. */
  stopped(reason: string): void;
}

/** A session directory's name: its start (UTC) and a random suffix. */
const SESSION_DIR = /^\d{4}-\d{2}-\d{2}T\d{6}Z-[0-9a-f]{6}$/;
/** The files of ours a prune may remove. */
const OUR_FILE = /\.(?:jsonl|cast)$/;

const encoder = new TextEncoder();

/** The recording directory of one process, shared by its MCP sessions. */
export class RecordPlace {
  /** The directory, as configured. */
  readonly path: string;
  readonly caps: RecordCaps;
  readonly #log: (message: string) => void;
  readonly #listeners = new Set<PlaceListener>();
  /** Files being written, by path: never removed by a prune. */
  readonly #open = new Set<string>();
  /** Bytes in our files of the directory: counted once, then kept up to date by each write. */
  #total: number | undefined;
  #stopped: string | undefined;

  /** A place at `path` (nothing is touched until a session starts); `log` is stderr. */
  constructor(path: string, caps: RecordCaps, log: (message: string) => void) {
    this.path = path.replace(/\/+$/, "") || "/";
    this.caps = caps;
    this.#log = log;
  }

  /** Why recording stopped, once it has. */
  get stopped(): string | undefined {
    return this.#stopped;
  }

  /** Tell `listener` of prunes and of the stop; returns the way to stop telling it. */
  listen(listener: PlaceListener): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  /**
   * A new session directory (0700) inside the place, which is created (0700) when missing; its
   * path, or undefined once recording stopped (this failure stops it).
   */
  newSessionDir(now: number): string | undefined {
    if (this.#stopped) return undefined;
    try {
      Deno.mkdirSync(this.path, { recursive: true, mode: 0o700 });
      const iso = new Date(now).toISOString();
      const name = `${iso.slice(0, 10)}T${iso.slice(11, 19).replaceAll(":", "")}Z-${randomHex(3)}`;
      const dir = `${this.path}/${name}`;
      Deno.mkdirSync(dir, { mode: 0o700 });
      this.#total ??= this.#count();
      return dir;
    } catch (error) {
      this.stop(`cannot create a session directory in ${this.path}: ${describe(error)}`);
      return undefined;
    }
  }

  /** Create `dir/name` anew (0600); undefined once recording stopped (a failure stops it). */
  create(dir: string, name: string): RecordFile | undefined {
    if (this.#stopped) return undefined;
    const path = `${dir}/${name}`;
    try {
      const file = Deno.openSync(path, { write: true, append: true, createNew: true, mode: 0o600 });
      this.#open.add(path);
      return new RecordFile(this, path, file);
    } catch (error) {
      this.stop(`cannot create ${path}: ${describe(error)}`);
      return undefined;
    }
  }

  /** Whether `dir` (a session directory) is still there; a removed one stops recording. */
  present(dir: string): boolean {
    if (this.#stopped) return false;
    try {
      if (Deno.statSync(dir).isDirectory) return true;
    } catch {
      // fall through
    }
    this.stop(`${dir} was removed`);
    return false;
  }

  /**
   * Stop recording for good, once: stderr says why, and every session writes a last line and
   * closes its files. Tool calls go on as before.
   */
  stop(reason: string): void {
    if (this.#stopped) return;
    this.#stopped = reason;
    this.#log(`recording stopped: ${reason}; tool calls go on, unrecorded`);
    for (const listener of [...this.#listeners]) listener.stopped(reason);
  }

  /** A file was closed: a prune may remove it now. */
  closed(path: string): void {
    this.#open.delete(path);
  }

  /** `bytes` more were written; past the directory cap, prune. */
  grew(bytes: number): void {
    if (this.#total === undefined) return;
    this.#total += bytes;
    if (this.#total > this.caps.dirBytes) this.#prune();
  }

  /** Remove the oldest closed files until the directory fits; stop if only open files are left. */
  #prune(): void {
    let files: DirFile[];
    try {
      files = this.#files();
    } catch (error) {
      this.stop(`cannot list ${this.path}: ${describe(error)}`);
      return;
    }
    const plan = planPrune(files, this.caps.dirBytes);
    const removed: string[] = [];
    let freed = 0;
    for (const path of plan.remove) {
      try {
        Deno.removeSync(path);
        removed.push(path);
        freed += files.find((f) => f.path === path)?.size ?? 0;
      } catch {
        // Gone already, or not ours to remove: it is counted again next time.
      }
    }
    for (const dir of new Set(removed.map((p) => p.slice(0, p.lastIndexOf("/"))))) {
      try {
        Deno.removeSync(dir); // only when empty
      } catch {
        // still holds files
      }
    }
    this.#total = files.reduce((n, f) => n + f.size, 0) - freed;
    if (removed.length > 0) {
      for (const listener of [...this.#listeners]) listener.pruned(removed, freed);
    }
    if (plan.over) {
      this.stop(
        `${this.path} holds more than its cap of ${this.caps.dirBytes} bytes in files still ` +
          "being written",
      );
    } else if (this.#total > this.caps.dirBytes) {
      // Nothing could be removed: stop rather than list the directory again at every write.
      this.stop(
        `${this.path} is over its cap of ${this.caps.dirBytes} bytes and its oldest files ` +
          "could not be removed",
      );
    }
  }

  /** Bytes our files hold in the directory now. */
  #count(): number {
    return this.#files().reduce((n, f) => n + f.size, 0);
  }

  /** Our files: the `.jsonl` and `.cast` files of session directories of the place. */
  #files(): DirFile[] {
    const files: DirFile[] = [];
    for (const session of Deno.readDirSync(this.path)) {
      if (!session.isDirectory || !SESSION_DIR.test(session.name)) continue;
      const dir = `${this.path}/${session.name}`;
      for (const entry of Deno.readDirSync(dir)) {
        if (!entry.isFile || !OUR_FILE.test(entry.name)) continue;
        const path = `${dir}/${entry.name}`;
        try {
          const info = Deno.statSync(path);
          files.push({
            path,
            size: info.size,
            mtime: info.mtime?.getTime() ?? 0,
            open: this.#open.has(path),
          });
        } catch {
          // removed meanwhile
        }
      }
    }
    return files;
  }
}

/** One file being written: whole writes, appended, counted. */
export class RecordFile {
  /** Where it is. */
  readonly path: string;
  /** Bytes written to it. */
  size = 0;
  readonly #place: RecordPlace;
  #file: Deno.FsFile | undefined;

  constructor(place: RecordPlace, path: string, file: Deno.FsFile) {
    this.#place = place;
    this.path = path;
    this.#file = file;
  }

  /**
   * Append `text` in one write (looping only if the system takes part of it); false when it was
   * not written. A failure stops recording; `last` tries even once stopped, and never stops it.
   */
  write(text: string | Uint8Array, last = false): boolean {
    if (!this.#file || (this.#place.stopped && !last)) return false;
    const bytes = typeof text === "string" ? encoder.encode(text) : text;
    try {
      let done = 0;
      while (done < bytes.length) done += this.#file.writeSync(bytes.subarray(done));
    } catch (error) {
      if (!last) this.#place.stop(`cannot write ${this.path}: ${describe(error)}`);
      return false;
    }
    this.size += bytes.length;
    if (!last) this.#place.grew(bytes.length);
    return true;
  }

  /** Close it (idempotent). */
  close(): void {
    const file = this.#file;
    this.#file = undefined;
    if (!file) return;
    try {
      file.close();
    } catch {
      // already closed
    }
    this.#place.closed(this.path);
  }
}

/**
 * A file continued in parts (`actions.jsonl`, `actions.2.jsonl`, …): a write that would take the
 * current part past the file cap goes to a new part, which `begin` opens with its own first
 * lines (a header, a note naming the part before).
 */
export class PartedFile {
  readonly #place: RecordPlace;
  readonly #dir: string;
  readonly #name: string;
  readonly #begin: (part: number, previous: string | undefined) => string;
  #part = 0;
  #file: RecordFile | undefined;
  /** Writes in the current part after its first lines: a part with none never gives way. */
  #writes = 0;

  /** Parts of `dir/name`; nothing is created before the first write. */
  constructor(
    place: RecordPlace,
    dir: string,
    name: string,
    begin: (part: number, previous: string | undefined) => string,
  ) {
    this.#place = place;
    this.#dir = dir;
    this.#name = name;
    this.#begin = begin;
  }

  /** The current part's name (relative to its directory), once one exists. */
  get current(): string | undefined {
    return this.#file && this.#file.path.slice(this.#dir.length + 1);
  }

  /** Append `text`, in a new part when the current one is full; false when nothing was written. */
  write(text: string): boolean {
    const bytes = encoder.encode(text);
    const full = this.#writes > 0 &&
      rotates(this.#file!.size, bytes.length, this.#place.caps.fileBytes);
    if (!this.#file || full) {
      if (!this.#next()) return false;
    }
    this.#writes++;
    return this.#file!.write(bytes);
  }

  /** Write a last line even though recording stopped (best effort), and close. */
  last(text: string): void {
    this.#file?.write(text, true);
    this.close();
  }

  /** Close the current part. */
  close(): void {
    this.#file?.close();
    this.#file = undefined;
  }

  #next(): boolean {
    const previous = this.current;
    this.#file?.close();
    this.#part++;
    this.#file = this.#place.create(this.#dir, partName(this.#name, this.#part));
    this.#writes = 0;
    if (!this.#file) return false;
    return this.#file.write(this.#begin(this.#part, previous));
  }
}

function describe(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
