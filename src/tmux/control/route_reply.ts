/**
 * The reader of one routed reply (docs/design.md §5.14 rules 3 and 4), pure: tmux's reply lines
 * in, what the caller's commands printed out, or a {@link FramingError} for any line that cannot
 * belong where it came.
 */
import { FramingError, parseBegin, type ReplyReader } from "./syntax.ts";
import { captureRows, type RoutePlan, type Shape } from "./route_plan.ts";

/**
 * Reads one routed reply (docs/design.md §5.14 rule 3): blocks in the planned order, each ending
 * only where its shape allows; everything else is a {@link FramingError}.
 */
export class RoutedReply implements ReplyReader {
  /** Whether the line was (being) written: from then on tmux may have run it. */
  wasSent = false;
  /** What the caller's commands printed, as the spawn path would have. */
  readonly stdout: string[] = [];
  /** tmux's message, when one of the caller's commands failed (the chain stopped there). */
  failure: string | undefined;
  readonly #plan: RoutePlan;
  #index = 0;
  #key: string | undefined;
  #lines: string[] = [];
  /** Rows the next capture prints; null when its pane does not exist (it can only fail). */
  #rows: number | null | undefined;

  constructor(plan: RoutePlan) {
    this.#plan = plan;
  }

  sent(): void {
    this.wasSent = true;
  }

  line(text: string): boolean {
    const shape = this.#plan.shapes[this.#index];
    if (this.#key === undefined) {
      const begin = parseBegin(text);
      if (!begin) throw new FramingError("a line that is not a reply block where one was due");
      if (!begin.ours) {
        throw new FramingError("output that is not a reply to our commands (a hook?)");
      }
      this.#key = begin.key;
      this.#lines = [];
      return false;
    }
    const end = text.startsWith("%") ? /^%(end|error) (\d+ \d+ \d+)$/.exec(text) : null;
    if (end && end[2] === this.#key) {
      const failed = end[1] === "error";
      if (this.#ends(shape, failed)) return this.#finish(shape, failed);
    }
    if (shape.kind === "screen" && this.#rows !== null && this.#lines.length === this.#rows) {
      throw new FramingError("a capture went on past the rows its pane has");
    }
    this.#lines.push(text);
    return false;
  }

  /** Whether an `%end`/`%error` line with this block's key is tmux's own, here. */
  #ends(shape: Shape, failed: boolean): boolean {
    const lines = this.#lines;
    switch (shape.kind) {
      case "rows":
      case "header":
      case "sentinel":
        // A forged line sits inside a row: after its prefix, before its suffix.
        return failed
          ? lines.length === 0 || !lines[0].startsWith(this.#plan.open)
          : lines.length === 0 || lines[lines.length - 1].endsWith(this.#plan.close);
      case "screen":
        // A pane that does not exist prints no row; one that does cannot fail a capture.
        return this.#rows === null || (!failed && lines.length === this.#rows);
      case "silent":
        return failed || lines.length === 0;
    }
  }

  #finish(shape: Shape, failed: boolean): boolean {
    const lines = this.#lines;
    this.#key = undefined;
    this.#lines = [];
    if (failed) {
      if (shape.kind === "header" || shape.kind === "sentinel") {
        throw new FramingError("a command of ours that cannot fail failed");
      }
      this.failure = lines.join("\n");
      return true;
    }
    switch (shape.kind) {
      case "rows":
        this.stdout.push(this.#unwrap(lines));
        break;
      case "header": {
        const m = /^(%\d+) (\d+) (\d+)\n$/.exec(this.#unwrap(lines));
        const next = this.#plan.shapes[this.#index + 1];
        this.#rows = m && next?.kind === "screen"
          ? captureRows(next.start, next.end, Number(m[2]), Number(m[3]))
          : null;
        break;
      }
      case "screen":
        this.stdout.push(lines.map((l) => l + "\n").join(""));
        this.#rows = undefined;
        break;
      case "silent":
        break;
      case "sentinel":
        if (this.#unwrap(lines) !== "\n") throw new FramingError("the closing sentinel was wrong");
        break;
    }
    this.#index++;
    return this.#index === this.#plan.shapes.length;
  }

  /** A rows block's output without the call's prefix and suffix: exactly what tmux printed. */
  #unwrap(lines: string[]): string {
    if (lines.length === 0) return "";
    const { open, close } = this.#plan;
    const text = lines.join("\n");
    if (!text.startsWith(open) || !text.endsWith(close)) {
      throw new FramingError("a row without the call's prefix or suffix");
    }
    const rows = text.slice(open.length, text.length - close.length).split(`${close}\n${open}`);
    if (rows.some((r) => r.includes(open) || r.includes(close))) {
      throw new FramingError("a row holding the call's prefix or suffix");
    }
    return rows.map((r) => r + "\n").join("");
  }
}
