/**
 * One MCP session's recording (docs/design.md §11): its directory under the place, its action
 * log, the recordings of the panes its calls touched, and the audit of each call. Nothing here
 * ever fails a tool call: a failure stops recording (src/record/files.ts) and the call goes on.
 */
import type { LiveEngine } from "../tmux/live/engine.ts";
import type { PaneInput, TmuxContext } from "../tmux/core/context.ts";
import {
  type ConsentNote,
  guardDecision,
  outcomeOf,
  type PaneRef,
  panesNamed,
  stamp,
} from "./action_line.ts";
import type { AuditedTool, CallAudit, CallEnd } from "./audit.ts";
import { paneFileName } from "./caps.ts";
import { PartedFile, type PlaceListener, type RecordPlace } from "./files.ts";
import { jsonLine } from "./json_line.ts";
import { PaneRecording } from "./pane_recording.ts";

/** What a call's audit is told about where it runs. */
export interface CallPlace {
  /** The host's name (`local`, or a remote host's). */
  host: string;
  /** The host's live engine; undefined with `--no-live` (then output is not recorded). */
  live?: LiveEngine;
  /** The call's signal: starting a pane's recording stops waiting when it aborts. */
  signal: AbortSignal;
}

/** The recording of one MCP session. */
export class SessionRecorder implements PlaceListener {
  readonly #place: RecordPlace;
  readonly #dir: string | undefined;
  readonly #log: PartedFile | undefined;
  readonly #unlisten: () => void;
  /** Each touched pane's recording (or why it has none), by host and pane. */
  readonly #panes = new Map<string, Promise<PaneRecording | undefined>>();
  /** Panes already said to be unrecorded, so the log says it once per reason. */
  readonly #unrecorded = new Set<string>();
  /** Recordings each pane has had (see {@link #takes}). */
  readonly #taken = new Map<string, number>();
  #calls = 0;
  #closed = false;

  /** Start recording a session into `place`: its directory and the log's first line. */
  constructor(place: RecordPlace, version: string) {
    this.#place = place;
    this.#unlisten = place.listen(this);
    this.#dir = place.newSessionDir(Date.now());
    if (this.#dir === undefined) return;
    this.#log = new PartedFile(
      place,
      this.#dir,
      "actions.jsonl",
      (part, previous) =>
        part === 1 ? "" : jsonLine({
          kind: "continued",
          t: stamp(Date.now()),
          from: previous,
          why: `the log reached its cap of ${place.caps.fileBytes} bytes`,
        }),
    );
    this.note({
      kind: "session",
      version,
      pid: Deno.pid,
      dir: this.#dir,
      caps: { fileBytes: place.caps.fileBytes, dirBytes: place.caps.dirBytes },
    });
  }

  /** The audit of one call on one host (see {@link CallAudit}). */
  call(where: CallPlace): CallAudit {
    return new CallRecord(this, where);
  }

  /** Append one line to the action log, stamped with the time. */
  note(entry: Record<string, unknown>): void {
    if (this.#closed) return;
    this.#log?.write(jsonLine({ t: stamp(Date.now()), ...entry }));
  }

  /** The next call's number. */
  nextCall(): number {
    return ++this.#calls;
  }

  /** Whether the session directory is still there (a removed one stops recording). */
  present(): boolean {
    return !this.#closed && this.#dir !== undefined && this.#place.present(this.#dir);
  }

  /**
   * The recording of a pane, started on its first touch: its stream joined (live mode), observed
   * from now on. Undefined when its output cannot be recorded (said once in the log).
   */
  async pane(where: CallPlace, paneId: string): Promise<PaneRecording | undefined> {
    if (this.#closed || this.#dir === undefined || this.#place.stopped) return undefined;
    const key = `${where.host} ${paneId}`;
    // Chained on the pane's last start, so two calls touching it at once start it once.
    const previous = this.#panes.get(key);
    const next = (async () => {
      const known = await previous;
      return known?.live ? known : await this.#start(where, paneId, key);
    })();
    this.#panes.set(key, next);
    return await next;
  }

  async #start(
    where: CallPlace,
    paneId: string,
    key: string,
  ): Promise<PaneRecording | undefined> {
    const unrecorded = (why: string) => {
      if (!this.#unrecorded.has(`${key} ${why}`)) {
        this.#unrecorded.add(`${key} ${why}`);
        this.note({ kind: "recording", event: "not_recorded", host: where.host, paneId, why });
      }
      return undefined;
    };
    if (!where.live) {
      return unrecorded("--no-live: its output is not followed, so only the calls are logged");
    }
    let stream;
    try {
      const followed = await where.live.follow(paneId, where.signal);
      if ("polled" in followed) return unrecorded(followed.polled);
      stream = followed;
    } catch (error) {
      return unrecorded((error as Error)?.message ?? String(error));
    }
    if (this.#closed || this.#place.stopped) return undefined;
    try {
      const recording = new PaneRecording(stream, {
        place: this.#place,
        dir: this.#dir!,
        name: paneFileName(where.host, paneId, this.#takes(key)),
        host: where.host,
        note: (entry) => this.note(entry),
      });
      return recording.live ? recording : undefined;
    } catch (error) {
      return unrecorded(`recording could not start: ${(error as Error)?.message ?? error}`);
    }
  }

  /**
   * How many recordings a pane has had in this session, this one included: a pane recorded again
   * (its stream ended, or it was replaced) gets a new file, numbered after the earlier ones.
   */
  #takes(key: string): number {
    const count = (this.#taken.get(key) ?? 0) + 1;
    this.#taken.set(key, count);
    return count;
  }

  /** Files were pruned (see {@link PlaceListener}). */
  pruned(removed: readonly string[], bytes: number): void {
    this.note({
      kind: "pruned",
      removed,
      bytes,
      why: `the directory reached its cap of ${this.#place.caps.dirBytes} bytes; the oldest ` +
        "closed files were removed",
    });
  }

  /** Recording stopped for good (see {@link PlaceListener}): last lines, files closed. */
  stopped(reason: string): void {
    if (this.#closed) return;
    this.#closed = true;
    this.#log?.last(jsonLine({ t: stamp(Date.now()), kind: "stopped", why: reason }));
    this.#closePanes((recording) => recording.last(`recording stopped: ${reason}`));
  }

  /** End this session's recording: every file closed, every stream left to expire as usual. */
  close(): void {
    if (!this.#closed) {
      this.note({ kind: "closed" });
      this.#closed = true;
      this.#log?.close();
      this.#closePanes((recording) => recording.close());
    }
    this.#unlisten();
  }

  #closePanes(end: (recording: PaneRecording) => void): void {
    for (const pending of this.#panes.values()) {
      pending.then((recording) => recording && end(recording)).catch(() => {});
    }
  }
}

/** One call on one host, as the recorder sees it (see {@link CallAudit}). */
class CallRecord implements CallAudit {
  readonly #session: SessionRecorder;
  readonly #where: CallPlace;
  #id = 0;
  #tool: AuditedTool | undefined;
  #args: unknown;
  #started = 0;
  #acting = false;
  readonly #panes = new Map<string, string>();
  #checked = false;
  readonly #notes: ConsentNote[] = [];

  constructor(session: SessionRecorder, where: CallPlace) {
    this.#session = session;
    this.#where = where;
  }

  begin(tool: AuditedTool, args: unknown): void {
    safely(() => this.#begin(tool, args));
  }

  #begin(tool: AuditedTool, args: unknown): void {
    this.#tool = tool;
    this.#args = args;
    this.#started = performance.now();
    this.#id = this.#session.nextCall();
    this.#acting = tool.toolset !== "inspect" || tool.ui !== undefined;
    if (!this.#session.present() || !this.#acting) return;
    this.#session.note({
      kind: "call",
      call: this.#id,
      tool: tool.name,
      host: this.#where.host,
      args,
    });
  }

  resolved(panes: readonly PaneRef[]): void {
    this.#checked = true;
    for (const pane of panes) this.#panes.set(pane.paneId, pane.generation);
  }

  consent(note: ConsentNote): void {
    safely(() => this.#consent(note));
  }

  #consent(note: ConsentNote): void {
    this.#notes.push(note);
    if ("answer" in note) {
      this.#session.note({
        kind: "asked",
        call: this.#id,
        tool: this.#tool?.name,
        host: this.#where.host,
        answer: note.answer,
        about: note.about,
        panes: note.panes,
      });
    }
  }

  tmux(ctx: TmuxContext): TmuxContext {
    return { ...ctx, beforeInput: (paneIds, inputs) => this.#beforeInput(paneIds, inputs) };
  }

  end(ended: CallEnd): void {
    safely(() => this.#end(ended));
  }

  #end(ended: CallEnd): void {
    const tool = this.#tool;
    if (!tool || !this.#session.present()) return;
    const ms = Math.round(performance.now() - this.#started);
    const host = this.#where.host;
    const touched = this.#touched(tool, ended);
    if (touched) this.#panes.set(touched.paneId, touched.generation ?? "");
    if (!this.#acting) {
      const panes = panesNamed(this.#args);
      this.#session.note({
        kind: "read",
        call: this.#id,
        tool: tool.name,
        host,
        ...(panes ? { panes } : {}),
        ms,
        ...("data" in ended
          ? { bytes: new TextEncoder().encode(JSON.stringify(ended.data)).length }
          : { error: ended.error.code }),
      });
      return;
    }
    const guard = guardDecision(
      this.#checked,
      this.#notes,
      "error" in ended ? ended.error : undefined,
    );
    this.#session.note({
      kind: "done",
      call: this.#id,
      tool: tool.name,
      host,
      ms,
      panes: [...this.#panes].map(([paneId, generation]) => ({ paneId, generation })),
      ...(guard ? { guard } : {}),
      outcome: outcomeOf(ended),
    });
    if (touched) {
      // Recorded from now on; input that follows waits for this start (same pane, same map).
      this.#session.pane({ ...this.#where, signal: new AbortController().signal }, touched.paneId)
        .then((recording) => recording?.mark(this.#id, tool.name))
        .catch(() => {});
    }
  }

  /**
   * The pane a call created (a creation or respawn: its result names it) or showed (the pane
   * view), which is recorded from now on.
   */
  #touched(tool: AuditedTool, ended: CallEnd): { paneId: string; generation?: string } | undefined {
    if (!("data" in ended)) return undefined;
    const { paneId, generation } = ended.data;
    const made = tool.capability.reach === "configured-process";
    if ((!made && tool.ui === undefined) || typeof paneId !== "string") return undefined;
    return { paneId, ...(typeof generation === "string" ? { generation } : {}) };
  }

  async #beforeInput(paneIds: readonly string[], inputs: readonly PaneInput[]): Promise<void> {
    try {
      for (const paneId of paneIds) {
        const recording = await this.#session.pane(this.#where, paneId);
        recording?.mark(this.#id, this.#tool?.name ?? "?");
        recording?.input(inputs);
      }
    } catch {
      // Never a tool call's failure (docs/design.md §11.4).
    }
  }
}

/** Run a hook's work; a bug of the recorder's never reaches the call (docs/design.md §11.4). */
function safely(work: () => void): void {
  try {
    work();
  } catch {
    // The call goes on; what was not recorded is missing from the files.
  }
}
