/**
 * Asking the person instead of refusing (docs/design.md §6.11): the question an MCP elicitation
 * carries, its bounded preview of the call's text, and the grants a person's answer leaves. The
 * guard (src/guard/access.ts) decides when a refusal may be asked about; this module asks and
 * remembers; src/guard/preview.ts shows the call's text.
 *
 * Rules, in the order they apply:
 * - a person is asked only when the client declared the `elicitation` capability (form mode) and
 *   the server runs without `--no-ask`; otherwise the refusal stands as it is;
 * - once a call met a decline, a dismissed question, a timeout or a client that could not ask, it
 *   asks nothing more (a 64-row batch never asks 64 times into the void): later refusals in that
 *   call say what the first answer was;
 * - "allow once" lets the panes asked about through for the rest of this call, each only at the
 *   generation it had when asked (a pane replaced meanwhile is not covered); in a batch, only for
 *   the rows the question showed reaching that pane (a row not shown is asked about when it comes);
 * - a grant ("allow for this pane for N minutes") belongs to the MCP session that asked, names one
 *   pane and its generation, and ends at its expiry or as soon as the pane is listed with another
 *   generation (respawned, or a new server reusing the id) or not listed at all;
 * - the question shows the text the call itself would send (a batch's rows whose receivers,
 *   synchronized partners included, reach a pane asked about), each text whole, at most 1,000
 *   characters in all (src/guard/preview.ts), with every character that could hide something
 *   escaped, and the pane's session, window and command;
 * - a call whose text (or whose batch row being checked) is longer than that is refused without
 *   asking, with a hint to send it in pieces: "allow once" never covers text the person did not see.
 */
import { callPreview, QUESTION_TEXT_CHARS, type Receivers, textKind, visible } from "./preview.ts";
import { ToolError } from "../errors.ts";
import type { PaneRow } from "../rows.ts";
import type { Answer, ConsentNote } from "../record/action_line.ts";

/** How long a grant lasts. */
export const GRANT_MINUTES = 10;

/** The three answers, as the person reads them. */
export const CHOICES = {
  once: "allow once",
  grant: `allow for this pane for ${GRANT_MINUTES} minutes`,
  deny: "deny",
} as const;

/** The form the person fills in: one choice, "deny" preselected where a client preselects. */
const ANSWER_SCHEMA = {
  type: "object" as const,
  properties: {
    decision: {
      type: "string" as const,
      title: "Your answer",
      description: `"${CHOICES.once}": this call only. "${CHOICES.grant}": this agent session ` +
        "may act on the pane(s) named above without asking again until then, or until a pane " +
        `is replaced. "${CHOICES.deny}": refuse.`,
      enum: [CHOICES.once, CHOICES.grant, CHOICES.deny],
      default: CHOICES.deny,
    },
  },
  required: ["decision"],
};

/** How a question ended, as the session's elicitation call reports it. */
export type Reply =
  | { action: "accept"; content: Record<string, unknown> }
  | { action: "decline" | "cancel" | "timeout" }
  | { action: "failed"; reason: string };

/**
 * Sends one question to the client and waits for the answer; provided by the MCP session
 * (src/server.ts). Throws `cancelled` when the call is cancelled meanwhile.
 */
export type Elicit = (message: string, schema: typeof ANSWER_SCHEMA) => Promise<Reply>;

/** What a question names about a pane. */
export type AskedPane = Pick<
  PaneRow,
  | "paneId"
  | "generation"
  | "sessionName"
  | "windowIndex"
  | "windowName"
  | "currentCommand"
  | "isAttended"
  | "isCaller"
>;

/** A grant as `tmux://capabilities` lists it. */
interface GrantRow {
  paneId: string;
  generation: string;
  /** ISO 8601 time the grant ends, unless the pane is replaced first. */
  expiresAt: string;
}

/** The time-limited grants of one MCP session (never shared with another session). */
export class GrantBook {
  readonly #grants = new Map<string, { generation: string; expiresAt: number }>();
  readonly #now: () => number;

  /** `now` is the clock grants expire by (tests move it). */
  constructor(now: () => number = Date.now) {
    this.#now = now;
  }

  /** Grant `pane` at its current generation for {@link GRANT_MINUTES}. */
  add(pane: Pick<PaneRow, "paneId" | "generation">): void {
    this.#grants.set(pane.paneId, {
      generation: pane.generation,
      expiresAt: this.#now() + GRANT_MINUTES * 60_000,
    });
  }

  /** Whether a live grant covers `pane`; an expired grant, or one for another generation, ends. */
  covers(pane: Pick<PaneRow, "paneId" | "generation">): boolean {
    const grant = this.#grants.get(pane.paneId);
    if (!grant) return false;
    if (grant.generation !== pane.generation || grant.expiresAt <= this.#now()) {
      this.#grants.delete(pane.paneId);
      return false;
    }
    return true;
  }

  /** End the grants whose pane is not in `panes` (a fresh listing of every pane) or was replaced. */
  prune(panes: Iterable<Pick<PaneRow, "paneId" | "generation">>): void {
    const current = new Map<string, string>();
    for (const pane of panes) current.set(pane.paneId, pane.generation);
    for (const [paneId, grant] of this.#grants) {
      if (current.get(paneId) !== grant.generation) this.#grants.delete(paneId);
    }
  }

  /** The grants still in force, by pane id. */
  list(): GrantRow[] {
    const now = this.#now();
    const rows: GrantRow[] = [];
    for (const [paneId, grant] of this.#grants) {
      if (grant.expiresAt <= now) {
        this.#grants.delete(paneId);
        continue;
      }
      rows.push({
        paneId,
        generation: grant.generation,
        expiresAt: new Date(grant.expiresAt).toISOString(),
      });
    }
    return rows.sort((a, b) => Number(a.paneId.slice(1)) - Number(b.paneId.slice(1)));
  }
}

/** Options of a {@link CallConsent}. */
interface CallConsentOptions {
  /** The tool called, for the question. */
  tool: string;
  /** The call's validated-or-not arguments; only their text fields are previewed. */
  args: unknown;
  /** The session's grants. */
  grants: GrantBook;
  /** Asks the person; absent when nobody can be asked (no elicitation, or `--no-ask`). */
  elicit?: Elicit;
  /** The ask timeout, for hints. */
  timeoutMs: number;
  /** Told each answer and each grant that lets a pane through: the recorder (docs/design.md §11.5). */
  observe?: (note: ConsentNote) => void;
}

/** Why a call stopped asking: the hint every later refusal in the call carries. */
type Unanswered = { hint: string; said: string };

/** What one tool call may do without asking, and how it asks (one per call). */
export class CallConsent {
  readonly #options: CallConsentOptions;
  /** `paneId generation row` triples the person allowed for this call (row "call" outside a batch). */
  readonly #once = new Set<string>();
  #stopped?: Unanswered;
  /** The batch row being checked; undefined outside a batch. */
  #row?: number;

  /** Consent for one call; see {@link CallConsentOptions}. */
  constructor(options: CallConsentOptions) {
    this.#options = options;
  }

  /** Whether a refusal may be put to the person (the client can answer and --no-ask is off). */
  get canAsk(): boolean {
    return this.#options.elicit !== undefined;
  }

  /**
   * Mark the batch row checked from now on: "allow once" covers a row only when the question
   * showed it (docs/design.md §6.11).
   */
  enterRow(index: number): void {
    this.#row = index;
  }

  /**
   * Whether the person allowed `pane`, at this generation, for this call (in a batch: for the
   * current row) or by a grant.
   */
  permits(pane: Pick<PaneRow, "paneId" | "generation">): boolean {
    if (this.#once.has(onceKey(pane, this.#row ?? "call"))) return true;
    if (!this.#options.grants.covers(pane)) return false;
    this.#options.observe?.({ grant: { paneId: pane.paneId, generation: pane.generation } });
    return true;
  }

  /** End the session's grants for panes a fresh listing no longer shows at their generation. */
  seen(panes: Iterable<Pick<PaneRow, "paneId" | "generation">>): void {
    this.#options.grants.prune(panes);
  }

  /**
   * Ask the person to lift `refusal` for `panes`, input to which reaches `receivers`. Resolves
   * once they allowed it (recorded for this call — in a batch for the rows shown — or as a
   * grant); otherwise throws `refusal`'s `target_denied` with a hint saying that the person
   * declined or did not answer.
   */
  async ask(
    refusal: ToolError,
    action: string,
    panes: readonly AskedPane[],
    receivers: Receivers = (id) => [id],
  ): Promise<void> {
    const { elicit, grants, timeoutMs } = this.#options;
    if (!elicit) throw refusal;
    if (this.#stopped) throw this.#denied(refusal, this.#stopped, true);
    const preview = callPreview(this.#options.args, {
      asked: panes.map((p) => p.paneId),
      receivers,
      fromRow: this.#row ?? 0,
    });
    if (preview.tooLong !== undefined) {
      throw tooLongToAsk(refusal, textKind(this.#options.args), preview.tooLong);
    }
    const shown = preview.rows;
    const reply = await elicit(this.#question(action, panes, preview.lines), ANSWER_SCHEMA);
    const decision = reply.action === "accept" ? reply.content.decision : undefined;
    this.#options.observe?.({
      answer: answerOf(reply, decision),
      about: refusal.message,
      panes: panes.map((p) => ({ paneId: p.paneId, generation: p.generation })),
    });
    if (decision === CHOICES.once || decision === CHOICES.grant) {
      for (const pane of panes) {
        if (this.#row === undefined) this.#once.add(onceKey(pane, "call"));
        for (const [row, reached] of shown) {
          if (reached.includes(pane.paneId)) this.#once.add(onceKey(pane, row));
        }
        if (decision === CHOICES.grant) grants.add(pane);
      }
      return;
    }
    const seconds = Math.round(timeoutMs / 1000);
    this.#stopped = reply.action === "timeout"
      ? {
        said: `did not answer within ${seconds} s`,
        hint: `The person was asked but did not answer within ${seconds} s (they may be away). ` +
          "Tell them in your conversation what you want to do and why, or pick another pane.",
      }
      : reply.action === "cancel"
      ? {
        said: "dismissed the question",
        hint: "The person was asked and dismissed the question. Do not retry it unasked; " +
          "explain in your conversation why you need this pane, or pick another pane.",
      }
      : reply.action === "failed"
      ? {
        said: "could not be asked",
        hint: `The client failed to ask the person (${reply.reason}). Pick another pane, or ` +
          "ask the person in your conversation.",
      }
      : {
        said: "declined",
        hint: "The person was asked and declined. Respect it: do not retry this call; pick " +
          "another pane, or create your own with create_session / create_window.",
      };
    throw this.#denied(refusal, this.#stopped, false);
  }

  /** The question for `panes`: who asks, what for, where, and the text shown (`preview`). */
  #question(action: string, panes: readonly AskedPane[], preview: readonly string[]): string {
    const shown = panes.slice(0, 8);
    const lines = [
      "An AI agent, through tmux-mcp, asks for your permission.",
      "",
      `Tool: ${this.#options.tool}`,
      `Action: ${visible(action, 120)}`,
      ...shown.map(describePane),
      ...(panes.length > shown.length ? [`…and ${panes.length - shown.length} more panes`] : []),
      ...preview,
      "",
      `"${CHOICES.once}" lets this call through. "${CHOICES.grant}" lets this agent session ` +
      "type into, paste into, respawn, close or rearrange " +
      (panes.length > 1 ? "these panes" : "this pane") +
      " without asking again until then, or until it is replaced. Anything else refuses.",
    ];
    return lines.join("\n");
  }

  #denied(refusal: ToolError, why: Unanswered, earlier: boolean): ToolError {
    return new ToolError(refusal.code, refusal.message, {
      effects: "none",
      hint: earlier
        ? `Not asked again: earlier in this call the person ${why.said}. ${why.hint}`
        : why.hint,
    });
  }
}

/**
 * The refusal of a call whose text the question cannot show whole: the person is not asked, and
 * the hint says how to get the text asked about (docs/design.md §6.11).
 */
function tooLongToAsk(
  refusal: ToolError,
  what: ReturnType<typeof textKind>,
  chars: number,
): ToolError {
  const limit = thousands(QUESTION_TEXT_CHARS);
  const next = what === "command"
    ? `Run it as several commands of at most ${limit} characters each (each is asked about)`
    : `Send it in pieces of at most ${limit} characters each, in order (each is asked about; ` +
      "with send_keys or batch rows pass `enter: false` on all but the last)";
  return new ToolError(
    refusal.code,
    `${refusal.message}; the person was not asked: the ${what} (${thousands(chars)} ` +
      `characters) is longer than the ${limit} a question shows`,
    {
      effects: "none",
      hint: `This pane needs the person's consent, and "${CHOICES.once}" covers only text they ` +
        `were shown; a question shows at most ${limit} characters. ${next}. When asked about ` +
        `the first piece the person may allow the pane for ${GRANT_MINUTES} minutes. Or pick ` +
        "another pane.",
    },
  );
}

/** How the person answered, in the action log's words (docs/design.md §11.1). */
function answerOf(reply: Reply, decision: unknown): Answer {
  if (decision === CHOICES.once) return "allowed once";
  if (decision === CHOICES.grant) return `allowed for ${GRANT_MINUTES} minutes`;
  if (reply.action === "cancel") return "dismissed";
  if (reply.action === "timeout") return "no answer";
  if (reply.action === "failed") return "could not ask";
  return "denied";
}

/** `n` with thousands separators, as the hints print numbers. */
function thousands(n: number): string {
  return String(n).replace(/\B(?=(\d{3})+(?!\d))/g, ",");
}

function onceKey(pane: Pick<PaneRow, "paneId" | "generation">, row: number | "call"): string {
  return `${pane.paneId} ${pane.generation} ${row}`;
}

/** One line naming a pane: where it is, what runs there, why it is protected. */
function describePane(pane: AskedPane): string {
  const why = [
    pane.isAttended ? "a person is watching it" : "",
    pane.isCaller ? "it is the terminal this MCP server was started from" : "",
  ].filter((s) => s !== "").join("; ");
  return `Pane ${pane.paneId}: session ${visible(pane.sessionName, 64)}, window ` +
    `${pane.windowIndex} ${visible(pane.windowName, 64)}, running ` +
    `${visible(pane.currentCommand, 64)}${why ? ` (${why})` : ""}`;
}
