/**
 * Lean results (docs/design.md §3.1): a result says what happened and nothing that only restates
 * a default. Handlers return their full data; {@link leanData} leaves out each field whose value
 * says "nothing to report" (not truncated, not clamped, the default limits and encoding, …) on
 * the way out, and {@link leanJsonSchema} marks the same fields optional in the advertised output
 * schema, saying when they appear. One table drives both, so the data and its schema cannot drift.
 *
 * Only a result's top-level fields are looked at (rows of listings and the read batch's nested
 * results are each their own tool's business). Fields a seed contract requires are kept
 * ({@link KEPT}): capture_pane's bounding keys, the read batch's own accounting.
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
  /** The tools it applies to; every tool whose result has the key when absent. */
  readonly tools?: readonly string[];
}

/** Nothing was cut (`truncated` is not true): the counts and limits say nothing. */
const uncut = (_: unknown, data: Data) => data.truncated !== true;
const isFalse = (value: unknown) => value === false;
const isZero = (value: unknown) => value === 0;
const CUT = "Present only when something was cut.";

/** Rules for flags that carry news only when true, on `tools`. */
function onlyTrue(keys: readonly string[], tools?: readonly string[]): LeanRule[] {
  return keys.map((key) => ({ key, idle: isFalse, when: "Present (true) only then.", tools }));
}

/** The lean rules; each reads the full data, never another rule's outcome. */
export const LEAN_RULES: readonly LeanRule[] = [
  // Bounded text (docs/design.md §1.5): what was cut, and the limits that cut it.
  { key: "truncated", idle: isFalse, when: "Present (true) only when something was cut." },
  { key: "truncatedLines", idle: uncut, when: CUT },
  { key: "truncatedBytes", idle: uncut, when: CUT },
  { key: "lineLimit", idle: uncut, when: `${CUT} The line limit that applied.` },
  { key: "byteLimit", idle: uncut, when: `${CUT} The byte limit that applied.` },
  { key: "encoding", idle: (value) => value === "utf-8" },
  // Input: the receivers, when more than the pane named (synchronized partners); send_keys's
  // constant `sent: true`.
  {
    key: "resolvedPaneIds",
    idle: (value, data) => Array.isArray(value) && value.length === 1 && value[0] === data.paneId,
    when: "Present only when more panes than paneId received it (synchronized panes).",
  },
  { key: "sent", idle: (value) => value === true, tools: ["send_keys"] },
  // Streams (docs/design.md §7).
  {
    key: "streaming",
    idle: (value) => value === true,
    when: "Present (false) only when the pane was polled, not streamed.",
  },
  {
    key: "alternateScreen",
    idle: isFalse,
    when: "Present (true) only while a full-screen program shows the alternate screen.",
  },
  { key: "missedRows", idle: isZero, when: "Present only when rows were missed." },
  { key: "missedBytes", idle: isZero },
  {
    key: "seedRace",
    idle: isFalse,
    when: "Present (true) only when output kept arriving while the stream began.",
  },
  // Waits (docs/design.md §4): the ceiling's clamp, and how long a call that waited took.
  {
    key: "timeoutClamped",
    idle: isFalse,
    when: "Present (true) only when the timeout asked for was above the wait ceiling.",
  },
  {
    key: "timeoutMs",
    idle: (_, data) => data.timeoutClamped !== true,
    when: "Present only when the timeout was clamped: the one that applied.",
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
    tools: ["wait_for_text"],
  })),
  ...onlyTrue(["matchedAtEntry"], ["wait_for_text"]),
  // Names withheld, a search's failures and limits, what a create or a kill took with it.
  {
    key: "withheld",
    idle: (value) => Array.isArray(value) && value.length === 0,
    when: "Present only when not empty.",
    tools: ["get_tmux_variables", "show_environment"],
  },
  { key: "panesFailed", idle: isZero, when: "Present only when not 0.", tools: ["search_panes"] },
  ...onlyTrue(
    ["paneLimitClamped", "lineLimitClamped", "byteLimitClamped", "timeLimitClamped"],
    ["search_panes"],
  ),
  ...onlyTrue(["serverStarted"], ["create_session"]),
  ...onlyTrue(
    ["windowEnded", "sessionEnded", "serverExited"],
    ["kill_pane", "kill_window", "kill_session"],
  ),
];

/**
 * Fields kept whatever their value, per tool: what a seed contract requires — capture_pane's
 * bounding keys (seed 004), the read batch's own accounting (seeds 000, 001).
 */
export const KEPT: Readonly<Record<string, ReadonlySet<string>>> = {
  capture_pane: new Set(["truncated", "lineLimit", "byteLimit", "encoding"]),
  call_read_tools_batch: new Set(["truncated", "truncatedBytes"]),
};

/** The rules that apply to one tool's result. */
function rulesFor(tool: string): LeanRule[] {
  const kept = KEPT[tool];
  return LEAN_RULES.filter((rule) =>
    (rule.tools === undefined || rule.tools.includes(tool)) && !kept?.has(rule.key)
  );
}

/**
 * `data` without the fields that say nothing, in its order; other keys (symbol keys too: content
 * blocks attached to the data) are kept as they are. Pure: `data` is not changed.
 */
export function leanData<T extends Data>(tool: string, data: T): T {
  const idle = rulesFor(tool).filter((rule) =>
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
  tool: string,
  schema: Record<string, unknown>,
): Record<string, unknown> {
  const properties = schema.properties as Record<string, Record<string, unknown>> | undefined;
  if (properties === undefined) return schema;
  const rules = rulesFor(tool).filter((rule) => Object.hasOwn(properties, rule.key));
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
