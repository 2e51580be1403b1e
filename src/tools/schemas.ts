/** Argument schemas and checks shared by many tools. */
import { z } from "zod";
import { ToolError } from "../errors.ts";
import { tmuxId } from "../id_marks.ts";
import { TEXT_LIMITS } from "../results.ts";

/**
 * The one way a tool's schema declares a field that holds an id of one host (docs/design.md
 * §5.15): the edge routes by these marks, in arguments and results alike.
 */
export { nestedCall, tmuxId, tmuxVariables } from "../id_marks.ts";

// Three argument schemas below carry no description (their names say it; the server instructions
// say once how text is bounded): they appear in most tools, whose schemas the model reads every
// turn. A generation gets a few words, since an agent whose client drops the instructions must
// still know where it comes from (docs/design.md §4).

/** A session reference: `$N` or an exact name (never a prefix or pattern). */
export const sessionRefSchema = tmuxId("session", z.string().min(1).max(256));

/** A pane generation from list_panes, to refuse a pane that was replaced meanwhile. */
export const generationSchema = z.string().min(1).max(128).describe(
  "From list_panes; stale_target if the pane was replaced.",
);

/**
 * Schemas advertised without their descriptions: the read batch's nested arguments, which
 * repeat input schemas whose own tool entries (always listed beside the batch) already carry
 * the prose (docs/design.md §1.3). The catalog strips them when it renders JSON Schema.
 */
export const PROSE_FREE = z.registry<Record<string, never>>();

/** `maxLines`: keep at most this many of the newest lines (default `TEXT_LIMITS.lines`). */
export const maxLinesSchema = z.int().positive();

/** `maxBytes`: keep at most this many UTF-8 bytes of text, the newest (default `TEXT_LIMITS.bytes`). */
export const maxBytesSchema = z.int().min(1).max(TEXT_LIMITS.maxBytes);

/** The largest text one input call accepts (keys, text, command), in UTF-8 bytes. */
export const INPUT_MAX_BYTES = 1_048_576;

const encoder = new TextEncoder();

/**
 * The input tools' contract for the text they send, checked before the guard: no NUL (tmux cannot
 * carry it) and at most {@link INPUT_MAX_BYTES}. The schemas bound the length in characters; this
 * bounds the bytes.
 */
export function checkInputText(text: string, what: string): void {
  if (text.includes("\0")) {
    throw new ToolError("invalid_arguments", `${what} contains a NUL character`, {
      hint: "tmux cannot carry NUL in text; to press Ctrl-Space (which sends NUL) use " +
        'send_keys with {keys: "C-Space", enter: false}.',
    });
  }
  const bytes = encoder.encode(text).length;
  if (bytes > INPUT_MAX_BYTES) {
    throw new ToolError(
      "invalid_arguments",
      `${what} is ${bytes} bytes; at most ${INPUT_MAX_BYTES} are accepted`,
      { hint: "Split the text into several calls." },
    );
  }
}
