/**
 * The row model: one zod schema per kind of tmux object, from which both the advertised output
 * schemas and the TypeScript types of the tmux layer are derived, so the two cannot drift.
 * The listing rows are the product's canonical shapes (docs/design.md §3); the `*Facts` schemas
 * add what the tmux layer also reads for guards and detail tools.
 */
import { z } from "zod";
import { tmuxId } from "./id_marks.ts";

/** Shorten a free-text field (a title a program set, a path) to `max` characters, marked by "…". */
export function clipText(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max - 1)}…`;
}

/** Limits of free-text fields in rows. */
export const FIELD_LIMITS = { title: 1024, name: 1024, path: 4096 } as const;

/** Pattern of a pane id, such as `%3`: the one spelling of it for schemas and the funnel. */
export const PANE_ID = /^%\d+$/;
/** Pattern of a window id, such as `@2`. */
export const WINDOW_ID = /^@\d+$/;

// No description on the two id schemas: the name and pattern say it, and they appear in most
// tools' input, which the model reads every turn (docs/design.md §4).
/** A pane id such as `%3`. */
export const paneIdSchema = tmuxId("pane", z.string().regex(PANE_ID));
/** A window id such as `@2`. */
export const windowIdSchema = tmuxId("window", z.string().regex(WINDOW_ID));

/** The host of a row of a listing across hosts (docs/design.md §5.15); absent for local rows. */
export const hostField = {
  host: z.string().optional().describe("The remote host (absent: this machine)."),
};

/** A session as list_sessions shows it. */
export const sessionRowSchema = z.object({
  sessionId: tmuxId("session"),
  sessionName: tmuxId("session"),
  windows: z.int(),
  attached: z.int().describe("Clients of people attached (this server's own clients excluded)."),
  created: z.string().describe("ISO 8601 creation time."),
  path: z.string(),
  ...hostField,
}).strict();

/** A session row plus its current window. */
const sessionFactsSchema = sessionRowSchema.extend({ activeWindowId: tmuxId("window") });

/** A window as list_windows shows it. */
export const windowRowSchema = z.object({
  windowId: windowIdSchema,
  windowIndex: z.int(),
  windowName: z.string(),
  sessionId: tmuxId("session"),
  sessionName: tmuxId("session"),
  active: z.boolean(),
  panes: z.int(),
  width: z.int(),
  height: z.int(),
  zoomed: z.boolean(),
  ...hostField,
}).strict();

/** A window row plus its layout. */
export const windowFactsSchema = windowRowSchema.extend({
  layout: z.string().describe("tmux layout string, usable with select_layout."),
});

/** A pane as list_panes shows it. */
export const paneRowSchema = z.object({
  paneId: paneIdSchema,
  generation: z.string().describe(
    "Opaque token; changes when the pane's process is replaced. Pass it back as `generation` " +
      "to get stale_target instead of acting on a replaced pane.",
  ),
  sessionId: tmuxId("session"),
  sessionName: tmuxId("session"),
  windowId: tmuxId("window"),
  windowIndex: z.int(),
  windowName: z.string(),
  paneIndex: z.int(),
  active: z.boolean().describe("The active pane of its window."),
  width: z.int(),
  height: z.int(),
  left: z.int().describe("Column of its left edge in the window."),
  top: z.int().describe("Row of its top edge in the window."),
  currentCommand: z.string(),
  currentPath: z.string(),
  pid: z.int(),
  dead: z.boolean().describe("Its program exited; the pane stays (remain-on-exit)."),
  inMode: z.boolean().describe("In a mode such as copy mode (input tools refuse it)."),
  title: z.string(),
  isCaller: z.boolean().describe(
    "The pane this server was started from (your own terminal): acting tools refuse it " +
      "unless force.",
  ),
  isAttended: z.boolean().describe(
    "A person's client shows this pane, or may type into it (input tools refuse it).",
  ),
  hostsTmuxClient: z.boolean().describe(
    "The pane runs a tmux client of this same server (input tools refuse it: keys would reach " +
      "the pane that client shows).",
  ),
  ...hostField,
}).strict();

/** What get_pane_info adds to the pane row. */
export const paneDetailsSchema = z.object({
  historyLines: z.int().describe("Lines currently in the scrollback."),
  historyLimit: z.int(),
  exitStatus: z.int().optional().describe("Exit status, for a dead pane."),
  alternateOn: z.boolean(),
});

/** A pane row plus everything the guard and the detail tools read. */
const paneFactsSchema = paneRowSchema.extend({
  ...paneDetailsSchema.shape,
  /** Effective `synchronize-panes` (a pane option since tmux 3.2, inherited from the window). */
  synchronized: z.boolean(),
  /** Input disabled by `select-pane -d`: tmux silently drops keys sent to it. */
  inputOff: z.boolean(),
});

/** A session row. */
export type SessionRow = z.infer<typeof sessionRowSchema>;
/** A session row plus its current window. */
export type SessionFacts = z.infer<typeof sessionFactsSchema>;
/** A window row. */
export type WindowRow = z.infer<typeof windowRowSchema>;
/** A window row plus its layout. */
export type WindowFacts = z.infer<typeof windowFactsSchema>;
/** A pane row. */
export type PaneRow = z.infer<typeof paneRowSchema>;
/** A pane row plus guard and detail facts. */
export type PaneFacts = z.infer<typeof paneFactsSchema>;

/** Fields whose text programs or people control, and how many characters of each are shown. */
const FREE_TEXT: Readonly<Record<string, number>> = {
  sessionName: FIELD_LIMITS.name,
  windowName: FIELD_LIMITS.name,
  currentCommand: FIELD_LIMITS.name,
  title: FIELD_LIMITS.title,
  path: FIELD_LIMITS.path,
  currentPath: FIELD_LIMITS.path,
};

/**
 * A row as an agent sees it: only the keys `schema` declares (tmux rows carry more facts than
 * some tools show), with free-text fields clipped (a title a program sets can be megabytes).
 */
export function pickShape<S extends z.ZodObject>(schema: S, row: object): z.infer<S> {
  const out: Record<string, unknown> = {};
  const source = row as Record<string, unknown>;
  for (const key of Object.keys(schema.shape)) {
    const value = source[key];
    if (value === undefined) continue;
    out[key] = typeof value === "string" && key in FREE_TEXT
      ? clipText(value, FREE_TEXT[key])
      : value;
  }
  return out as z.infer<S>;
}
