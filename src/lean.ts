/**
 * Lean results (docs/design.md §3.1): a result says what happened and nothing that only restates
 * a default. Handlers return their full data; {@link leanData} leaves out each field whose value
 * says "nothing to report" (not truncated, not clamped, the default limits and encoding, …) on
 * the way out, and {@link leanJsonSchema} marks the same fields optional in the advertised output
 * schema, saying when they appear. One table drives both, so the data and its schema cannot drift.
 *
 * Only a result's top-level fields are looked at (rows of listings and the read batch's nested
 * results are each their own tool's business). The rules go by field name, each name meaning one
 * thing across the tools; a tool keeps whatever its manifest entry lists in `keeps` (what a seed
 * contract requires: capture_pane's bounding keys, the read batch's own accounting).
 */

/** A result's full data, as a handler returned it. */
type Data = Record<string, unknown>;

/** One field that may say nothing. */
interface LeanRule {
  /** The field's key. */
  readonly key: string;
  /** Whether its value says nothing to report; read against the full data. */
  readonly idle: (value: unknown, data: Data) => boolean;
  /**
   * When it appears, for its advertised description; absent for a field that never carries
   * news, which the advertised schema leaves out.
   */
  readonly when?: string;
}

/** Nothing was cut (`truncated` is not true): the counts and limits say nothing. */
const uncut = (_: unknown, data: Data) => data.truncated !== true;
const isFalse = (value: unknown) => value === false;
const isZero = (value: unknown) => value === 0;
const CUT = "Present only when something was cut.";
const TRUE = "Present only when true.";
const NONZERO = "Present only when not 0.";
const LIMIT = "Present only when something was cut: the limit that applied.";

/** Rules for flags that carry news only when true. */
function onlyTrue(...keys: string[]): LeanRule[] {
  return keys.map((key) => ({ key, idle: isFalse, when: TRUE }));
}

/** The lean rules, one per field name; each reads the full data, never another rule's outcome. */
export const LEAN_RULES: readonly LeanRule[] = [
  // Bounded text (docs/design.md §1.5): what was cut, and the limits that cut it.
  { key: "truncated", idle: isFalse, when: "Present (true) only when something was cut." },
  { key: "truncatedLines", idle: uncut, when: CUT },
  { key: "truncatedBytes", idle: uncut, when: CUT },
  { key: "lineLimit", idle: uncut, when: LIMIT },
  { key: "byteLimit", idle: uncut, when: LIMIT },
  { key: "encoding", idle: (value) => value === "utf-8" },
  // Input: the receivers, when more than the pane named (synchronized partners); send_keys's
  // constant `sent: true`.
  {
    key: "resolvedPaneIds",
    idle: (value, data) => Array.isArray(value) && value.length === 1 && value[0] === data.paneId,
    when: "Present only when more panes than paneId received it (synchronized panes).",
  },
  { key: "sent", idle: (value) => value === true },
  // Streams (docs/design.md §7).
  { key: "streaming", idle: (value) => value === true, when: "Present only when false (polled)." },
  ...onlyTrue("alternateScreen"),
  { key: "missedRows", idle: isZero, when: NONZERO },
  { key: "missedBytes", idle: isZero },
  ...onlyTrue("seedRace"),
  // Waits (docs/design.md §4): the ceiling's clamp, and how long a call that waited took.
  {
    key: "timeoutClamped",
    idle: isFalse,
    when: "Present (true) only when the timeout asked for was above the wait ceiling.",
  },
  {
    key: "timeoutMs",
    idle: (_, data) => data.timeoutClamped !== true,
    when: "Present only when clamped: the timeout that applied.",
  },
  {
    key: "elapsedMs",
    idle: (_, data) => data.timeoutMs === 0,
    when: "Left out when the call did not wait.",
  },
  // wait_for_text: what matched, when something did.
  ...["matchedLine", "patternIndex"].map((key): LeanRule => ({
    key,
    idle: (value) => value === null,
    when: "Present only when a line matched (matched or stopped).",
  })),
  ...onlyTrue("matchedAtEntry"),
  // Names withheld (the environment, tmux variables), search_panes's failures and limits (and
  // capture_pane's clamp), what create_session started and what a kill took with it.
  {
    key: "withheld",
    idle: (value) => Array.isArray(value) && value.length === 0,
    when: "Present only when not empty.",
  },
  { key: "panesFailed", idle: isZero, when: NONZERO },
  ...onlyTrue("paneLimitClamped", "lineLimitClamped", "byteLimitClamped", "timeLimitClamped"),
  ...onlyTrue("serverStarted", "windowEnded", "sessionEnded", "serverExited"),
];

/** The rules that apply to a result whose tool keeps `keeps` whatever their value. */
function rulesFor(keeps: readonly string[]): readonly LeanRule[] {
  return keeps.length === 0 ? LEAN_RULES : LEAN_RULES.filter((rule) => !keeps.includes(rule.key));
}

/**
 * `data` without the fields that say nothing, in its order; other keys (symbol keys too: content
 * blocks attached to the data) are kept as they are. Pure: `data` is not changed.
 */
export function leanData<T extends Data>(data: T, keeps: readonly string[] = []): T {
  const idle = rulesFor(keeps).filter((rule) =>
    Object.hasOwn(data, rule.key) && rule.idle(data[rule.key], data)
  );
  if (idle.length === 0) return data;
  const out: Data = { ...data };
  for (const rule of idle) delete out[rule.key];
  return out as T;
}

/**
 * A tool's advertised success schema (draft-07 JSON Schema of an object) with its lean fields
 * optional and described by when they appear; a field that never carries news is left out.
 * Returns a new schema.
 */
export function leanJsonSchema(
  schema: Record<string, unknown>,
  keeps: readonly string[] = [],
): Record<string, unknown> {
  const properties = schema.properties as Record<string, Record<string, unknown>> | undefined;
  if (properties === undefined) return schema;
  const rules = rulesFor(keeps).filter((rule) => Object.hasOwn(properties, rule.key));
  if (rules.length === 0) return schema;
  const props = { ...properties };
  for (const { key, when } of rules) {
    if (when === undefined) {
      delete props[key];
      continue;
    }
    const said = props[key].description;
    props[key] = { ...props[key], description: said ? `${said} ${when}` : when };
  }
  const leaned = new Set(rules.map((rule) => rule.key));
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(schema)) {
    if (key === "properties") out.properties = props;
    else if (key !== "required") out[key] = value;
    else {
      const required = (value as string[]).filter((name) => !leaned.has(name));
      if (required.length > 0) out.required = required;
    }
  }
  return out;
}
