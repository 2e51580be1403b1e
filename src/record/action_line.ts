/**
 * The action log's lines (docs/design.md §11.1): one JSON object a line, built from a call's own
 * state — the tool, its arguments as given, the panes the guard resolved with their generations,
 * the person's answers, how it ended — never from the result the agent gets (which leaves
 * defaults out). Pure: src/record/recorder.ts writes them.
 */

/** A pane as the guard saw it. */
export interface PaneRef {
  paneId: string;
  generation: string;
}

/** What the person answered, or why they were not heard (docs/design.md §6.11). */
export type Answer =
  | "allowed once"
  | "allowed for 10 minutes"
  | "denied"
  | "dismissed"
  | "no answer"
  | "could not ask";

/** One thing the call's consent saw: an answer to a question, or an earlier grant that covered a pane. */
export type ConsentNote =
  | { answer: Answer; panes: readonly PaneRef[]; about: string }
  | { grant: PaneRef };

/** The guard's decision on one call, as the log states it. */
export type GuardDecision =
  | { decision: "allowed"; by?: "a grant from an earlier answer" }
  | { decision: "refused"; why: string }
  | { decision: "asked"; answer: Answer; about: string; panes: readonly PaneRef[] };

/** How a call ended. */
export type Outcome =
  | { error: string; message: string; effects?: string }
  | { ok: true; exitStatus?: number; outcome?: string; completed?: number; failures?: number };

/** The refusal code of the guard's rules (docs/design.md §3.3). */
const REFUSED = "target_denied";

/**
 * The guard's decision from what the call saw: the person's last answer when they were asked; a
 * refusal when the call was denied unasked; "allowed" when the guard checked panes and let them
 * through. Undefined when the guard never decided (the call failed before, or needs no guard).
 */
export function guardDecision(
  checked: boolean,
  notes: readonly ConsentNote[],
  error?: { code: string; message: string },
): GuardDecision | undefined {
  const answers = notes.filter((n) => "answer" in n);
  const last = answers.at(-1);
  if (last && "answer" in last) {
    return { decision: "asked", answer: last.answer, about: last.about, panes: last.panes };
  }
  if (error?.code === REFUSED) return { decision: "refused", why: error.message };
  if (!checked) return undefined;
  return notes.some((n) => "grant" in n)
    ? { decision: "allowed", by: "a grant from an earlier answer" }
    : { decision: "allowed" };
}

/** The outcome of a call from its data or its error: the facts a person looks for. */
export function outcomeOf(
  ended: { data: Record<string, unknown> } | {
    error: { code: string; message: string; effects?: string };
  },
): Outcome {
  if ("error" in ended) {
    const { code, message, effects } = ended.error;
    return { error: code, message, ...(effects ? { effects } : {}) };
  }
  const data = ended.data;
  const number = (v: unknown) => (typeof v === "number" ? v : undefined);
  const failures = Array.isArray(data.failures) ? data.failures.length : undefined;
  return {
    ok: true,
    ...defined("exitStatus", number(data.exitStatus)),
    ...defined("outcome", typeof data.outcome === "string" ? data.outcome : undefined),
    ...defined("completed", number(data.completed)),
    ...defined("failures", failures),
  };
}

function defined<K extends string, V>(key: K, value: V | undefined): { [P in K]?: V } {
  return (value === undefined ? {} : { [key]: value }) as { [P in K]?: V };
}

/** The pane ids a read names in its arguments (`paneId`, or each `paneIds`), for its light line. */
export function panesNamed(args: unknown): string[] | undefined {
  if (typeof args !== "object" || args === null) return undefined;
  const { paneId, paneIds } = args as { paneId?: unknown; paneIds?: unknown };
  if (typeof paneId === "string") return [paneId];
  if (Array.isArray(paneIds)) return paneIds.filter((p): p is string => typeof p === "string");
  return undefined;
}

/** A time as the log writes it: ISO 8601, UTC, milliseconds. */
export function stamp(ms: number): string {
  return new Date(ms).toISOString();
}
