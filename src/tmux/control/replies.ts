/**
 * The replies of one control connection, matched to its commands in the order they were written
 * (docs/design.md §5.11, §5.14). Pure: the client (src/tmux/control/client.ts) hands it each line that is
 * not pane output, and it settles the commands waiting for a reply.
 *
 * A reply read by the block matcher ends at the `%end`/`%error` line that repeats its `%begin`'s
 * "T N F": enough for replies that hold only ids and numbers. A command given a
 * {@link ReplyReader} has its reply read by it instead, from its first `%begin` until the reader
 * says the reply is complete.
 */
import { classifyTmuxFailure, ToolError } from "../../errors.ts";
import { FramingError, parseBegin, type ReplyReader } from "./syntax.ts";

/** One command's place in the reply order. */
export interface Pending {
  resolve(lines: string[]): void;
  reject(error: Error): void;
  /** Reads the reply instead of the block matcher. */
  reader?: ReplyReader;
}

interface Block {
  /** "T N F" of the %begin line; the block ends only at `%end`/`%error` with the same triple. */
  key: string;
  ours: boolean;
  lines: string[];
}

/** The commands of one connection waiting for their replies, oldest first. */
export class ReplyQueue {
  readonly #pending: Pending[] = [];
  readonly #strict: boolean;
  readonly #onAttach: () => void;
  #block: Block | undefined;
  /** The pending whose reader is reading a reply right now. */
  #reading: Pending | undefined;
  /** Blocks that answered no command of ours; the first is the attach itself. */
  #foreignBlocks = 0;
  /** The last failure tmux reported for a command not ours (e.g. the attach itself). */
  foreignError = "";

  /**
   * `strict`: any block that is not a reply to our own commands, after the attach's, and any reply
   * nobody asked for is a {@link FramingError}. `onAttach`: the attach's own block has ended.
   */
  constructor(strict: boolean, onAttach: () => void) {
    this.#strict = strict;
    this.#onAttach = onAttach;
  }

  /** Whether a reply is being read: then every line belongs to it, whatever it looks like. */
  get inReply(): boolean {
    return this.#reading !== undefined || this.#block !== undefined;
  }

  /** Queue a command's slot: its reply is the next one not yet claimed. */
  push(pending: Pending): void {
    this.#pending.push(pending);
  }

  /**
   * Take one line: true when it belonged to a reply (or began one), false when it is something
   * else (a notification). Throws a {@link FramingError} when the output stopped making sense.
   */
  line(text: string): boolean {
    if (this.#reading) {
      this.#read(this.#reading, text);
      return true;
    }
    if (this.#block) {
      const end = /^%(end|error) (.*)$/.exec(text);
      if (end && end[2] === this.#block.key) {
        const block = this.#block;
        this.#block = undefined;
        if (!block.ours) this.#onAttach();
        if (block.ours) this.#finish(end[1] === "error", block.lines);
        else if (end[1] === "error") this.foreignError = block.lines.join("\n");
      } else {
        this.#block.lines.push(text);
      }
      return true;
    }
    const begin = parseBegin(text);
    if (!begin) return false;
    const { key, ours } = begin;
    if (!ours && ++this.#foreignBlocks > 1 && this.#strict) {
      throw new FramingError("output that is not a reply to our commands (a hook?)");
    }
    const head = this.#pending[0];
    // Replies come in the order the commands were written: this one is the oldest pending's.
    if (ours && head?.reader) {
      this.#reading = head;
      this.#read(head, text);
      return true;
    }
    if (ours && this.#strict && !head) throw new FramingError("a reply nobody asked for");
    this.#block = { key, ours, lines: [] };
    return true;
  }

  /** Every command still waiting, taken out of the queue (the connection ended). */
  drain(): Pending[] {
    this.#reading = undefined;
    return this.#pending.splice(0);
  }

  /** Hand a line to the reader of the reply in progress; it says when the reply is complete. */
  #read(pending: Pending, text: string): void {
    let done: boolean;
    try {
      done = pending.reader!.line(text);
    } catch (error) {
      throw new FramingError(error instanceof Error ? error.message : String(error));
    }
    if (!done) return;
    this.#reading = undefined;
    this.#pending.shift();
    pending.resolve([]);
  }

  #finish(failed: boolean, lines: string[]): void {
    const pending = this.#pending.shift();
    if (!pending) return;
    if (!failed) return pending.resolve(lines);
    const { code, message } = classifyTmuxFailure(lines.join("\n"));
    pending.reject(new ToolError(code, message));
  }
}
