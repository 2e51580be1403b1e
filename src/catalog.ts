/**
 * The manifest: every tool's contract in one place. It drives tools/list, toolset filtering,
 * `_meta` capability rows, the `tmux://capabilities` resource and the README tool table.
 */
import { z } from "zod";
import {
  type Config,
  CORE,
  type Surface,
  type Toolset,
  TOOLSET_NAMES,
  TOOLSETS,
  WAIT_MAX_MS,
} from "./config.ts";
import { idMark, qualifiedPattern } from "./id_marks.ts";
import { leanJsonSchema } from "./lean.ts";
import { errorSchema } from "./results.ts";
import { PROSE_FREE } from "./tools/schemas.ts";
import type { AnnotationClass, ToolSpec } from "./tool_types.ts";
import { batchTools } from "./tools/inspect/batch.ts";
import { captureTools } from "./tools/inspect/capture.ts";
import { discoveryTools } from "./tools/inspect/discovery.ts";
import { searchTools } from "./tools/inspect/search.ts";
import { screenshotTools } from "./tools/inspect/screenshot.ts";
import { showPaneTools } from "./tools/inspect/show_pane.ts";
import { paneViewTools } from "./tools/inspect/pane_view.ts";
import { sinceTools } from "./tools/inspect/since.ts";
import { waitTools } from "./tools/inspect/waits.ts";
import { channelTools } from "./tools/manage/channels.ts";
import { inspectTools } from "./tools/inspect/info.ts";
import { inputTools } from "./tools/execute/input.ts";
import { runTools } from "./tools/execute/run.ts";
import { lifecycleTools } from "./tools/execute/lifecycle.ts";
import { manageNameTools } from "./tools/manage/names.ts";
import { manageViewTools } from "./tools/manage/arrange.ts";
import { settingsTools } from "./tools/inspect/settings.ts";
import { teardownTools } from "./tools/teardown/kill.ts";

/** Every tool, in listing order: the one list of tool names. */
export const TOOLS: readonly ToolSpec[] = [
  ...discoveryTools,
  ...inspectTools,
  ...captureTools,
  ...sinceTools,
  ...searchTools,
  ...screenshotTools,
  ...showPaneTools,
  ...waitTools,
  ...settingsTools,
  ...batchTools,
  ...manageNameTools,
  ...manageViewTools,
  ...channelTools,
  ...inputTools,
  ...runTools,
  ...lifecycleTools,
  ...teardownTools,
];

/**
 * Every tool name by toolset, derived from {@link TOOLS} (each tool's own `toolset`): what
 * `--tools` and `--exclude-tools` may name (docs/design.md §1.2, §4).
 */
export const SURFACE: Surface = {
  inspect: namesOf("inspect"),
  manage: namesOf("manage"),
  execute: namesOf("execute"),
  teardown: namesOf("teardown"),
};

function namesOf(set: Toolset): readonly string[] {
  return TOOLS.filter((t) => t.toolset === set).map((t) => t.name);
}

/**
 * Tools only an MCP Apps view calls (`_meta.ui.visibility: ["app"]`, docs/design.md §10.2). They
 * are not in {@link SURFACE}: each is enabled with the model-visible tool whose view calls it.
 */
export const APP_TOOLS: readonly ToolSpec[] = [...paneViewTools];

/** The app-only tools the enabled tools' views call. */
export function appTools(enabled: readonly ToolSpec[]): ToolSpec[] {
  const views = new Set(enabled.flatMap((t) => t.ui ? [t.ui.resourceUri] : []));
  return APP_TOOLS.filter((t) => t.ui && views.has(t.ui.resourceUri));
}

/**
 * MCP annotation hints per class (docs/design.md §1.7). A hint is left out only where the
 * protocol's default says the same (`openWorldHint` is true by default) or where the protocol
 * gives it no meaning (`destructiveHint` and `idempotentHint` of a read-only tool): the model
 * reads them every turn (§4).
 */
export const ANNOTATIONS: Record<
  AnnotationClass,
  {
    readOnlyHint: boolean;
    destructiveHint?: boolean;
    idempotentHint?: boolean;
    openWorldHint?: true;
  }
> = {
  inspect: { readOnlyHint: true },
  // The batch contract (tests/fixtures/batch_contract.json) spells every hint.
  batch: { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: true },
  setter: { readOnlyHint: false, destructiveHint: false, idempotentHint: true },
  ordered: { readOnlyHint: false, destructiveHint: false, idempotentHint: false },
  execute: { readOnlyHint: false, destructiveHint: true, idempotentHint: false },
  teardown: { readOnlyHint: false, destructiveHint: true, idempotentHint: false },
};

/** The `_meta` key carrying a tool's capability facts. */
export const CAPABILITY_META_KEY = "tmux-mcp/capability";

/** Whether the toolsets (and the `core` preset) of this configuration include a tool. */
function inToolsets(spec: ToolSpec, config: Config): boolean {
  return config.toolsets.includes(spec.toolset) ||
    (spec.core === true && config.toolsets.includes(CORE));
}

/** The tools this configuration exposes: (toolsets ∪ --tools) − --exclude-tools, in order. */
export function effectiveTools(config: Config): ToolSpec[] {
  const excluded = new Set(config.excludeTools);
  const added = new Set(config.tools);
  return TOOLS.filter((t) => !excluded.has(t.name) && (inToolsets(t, config) || added.has(t.name)));
}

/** For a built tool this configuration hides: what a person can change to enable it. */
export function denialHint(name: string, config: Config): string {
  const app = APP_TOOLS.find((t) => t.name === name);
  if (app) {
    const owner = TOOLS.find((t) => t.ui?.resourceUri === app.ui?.resourceUri)?.name ?? "…";
    return `${name} serves ${owner}'s view and is enabled with it: ${denialHint(owner, config)}`;
  }
  const spec = TOOLS.find((t) => t.name === name);
  if (config.excludeTools.includes(name)) {
    return `${name} is removed by --exclude-tools (or TMUX_MCP_EXCLUDE_TOOLS / LIBTMUX_EXCLUDE_TOOLS); a person can take it off that list.`;
  }
  if (!spec) return `A person can enable it with --tools ${name}.`;
  // The whole list, the tool's toolset added: naming that toolset alone would drop the others
  // (the core preset too).
  const sets = TOOLSET_NAMES.filter((t) => t === spec.toolset || config.toolsets.includes(t));
  return `A person can enable it with --toolsets ${sets.join(",")} or --tools ${name}.`;
}

/**
 * Draft-7 JSON Schema of a zod schema, without the `$schema` key (added once at the root). With
 * `remoteIds` (remote hosts configured), each pattern of a field marked as an id takes a host
 * prefix (`box1:%3`, §5.15): the edge strips it before the tool's own schema checks the id; without,
 * every schema keeps its exact contract.
 */
function jsonSchema(
  schema: z.ZodType,
  io: "input" | "output",
  remoteIds = false,
): Record<string, unknown> {
  const { $schema: _drop, ...rest } = z.toJSONSchema(schema, {
    target: "draft-7",
    io,
    override: ({ zodSchema, jsonSchema }) => {
      const node = zodSchema as unknown as z.ZodType;
      if (PROSE_FREE.has(node)) withoutDescriptions(jsonSchema);
      if (remoteIds && typeof jsonSchema.pattern === "string" && idMark(node)) {
        jsonSchema.pattern = qualifiedPattern(jsonSchema.pattern);
      }
    },
  });
  return rest;
}

/** Delete every `description` keyword of a JSON Schema, in place (not a property so named). */
function withoutDescriptions(node: unknown): void {
  if (Array.isArray(node)) return node.forEach(withoutDescriptions);
  if (node === null || typeof node !== "object") return;
  const schema = node as Record<string, unknown>;
  delete schema.description;
  for (const [key, value] of Object.entries(schema)) {
    if (key === "properties" && value !== null && typeof value === "object") {
      Object.values(value).forEach(withoutDescriptions);
    } else withoutDescriptions(value);
  }
}

/**
 * A JSON Schema without the bounds zod's `.int()` adds (±2^53−1): no JSON number beyond them is
 * an exact integer anyway, validation still enforces them, and the model reads them every turn.
 */
function withoutSafeIntegerBounds(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(withoutSafeIntegerBounds);
  if (node === null || typeof node !== "object") return node;
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(node)) {
    if (key === "maximum" && value === Number.MAX_SAFE_INTEGER) continue;
    if (key === "minimum" && value === Number.MIN_SAFE_INTEGER) continue;
    out[key] = withoutSafeIntegerBounds(value);
  }
  return out;
}

/**
 * The advertised input schema of a tool, given the tools this configuration exposes. It carries
 * no `$schema`: it reads the same as draft-07 and as 2020-12, MCP's default dialect (a test
 * checks), and the model reads it every turn (docs/design.md §4).
 */
export function inputJsonSchema(
  spec: ToolSpec,
  effective: readonly ToolSpec[] = TOOLS,
): Record<string, unknown> {
  const schema = spec.advertisedInput?.(effective) ?? spec.input;
  const json = jsonSchema(schema, "input", spec.remoteIds);
  return withoutSafeIntegerBounds(json) as Record<string, unknown>;
}

/**
 * The advertised success schema of a tool (no error variant): its fields that say nothing are left
 * out of results, so they are optional here and say when they appear (src/lean.ts, §3.1).
 */
export function successJsonSchema(spec: ToolSpec): Record<string, unknown> {
  return leanJsonSchema(jsonSchema(spec.output, "output", spec.remoteIds), spec.keeps);
}

/** The advertised outputSchema: `{type: "object", anyOf: [success, error]}`. */
function outputJsonSchema(spec: ToolSpec): Record<string, unknown> {
  return {
    $schema: "http://json-schema.org/draft-07/schema#",
    type: "object",
    anyOf: [successJsonSchema(spec), jsonSchema(errorSchema, "output")],
  };
}

/** The capability facts of one tool, as in `_meta` and the capabilities resource. */
export function capabilityRow(spec: ToolSpec) {
  return {
    toolset: spec.toolset,
    reach: spec.capability.reach,
    effects: spec.capability.effects,
    output: [...spec.capability.output],
  };
}

/**
 * The tools/list entry of one tool, its descriptions stating `waitMaxMs`, the wait ceiling in
 * force (`--wait-max-ms`), where they write {@link WAIT_MAX_TOKEN}.
 */
export function toolListEntry(
  spec: ToolSpec,
  effective: readonly ToolSpec[] = TOOLS,
  waitMaxMs: number = WAIT_MAX_MS.default,
) {
  return withWaitMax({
    name: spec.name,
    title: spec.title,
    description: spec.description,
    inputSchema: inputJsonSchema(spec, effective) as { type: "object"; [k: string]: unknown },
    outputSchema: outputJsonSchema(spec) as { type: "object"; [k: string]: unknown },
    // The title is the tool's own `title` (MCP 2025-06-18); not repeated in the annotations.
    annotations: { ...ANNOTATIONS[spec.annotations] },
    _meta: { [CAPABILITY_META_KEY]: capabilityRow(spec), ...uiMeta(spec) },
  }, waitMaxMs);
}

/**
 * What a description writes where the wait ceiling belongs (docs/design.md §4): the listing says
 * the ceiling in force instead, so a description never states a default the person changed.
 */
export const WAIT_MAX_TOKEN = "{waitMax}";

/** A wait ceiling in a few characters: "30 s", "2 min", "1500 ms". */
export function waitMaxText(ms: number): string {
  if (ms >= 60_000 && ms % 60_000 === 0) return `${ms / 60_000} min`;
  if (ms % 1_000 === 0) return `${ms / 1_000} s`;
  return `${ms} ms`;
}

/** `value` with {@link WAIT_MAX_TOKEN} replaced by `waitMaxMs` in every string it holds. */
export function withWaitMax<T>(value: T, waitMaxMs: number): T {
  const text = waitMaxText(waitMaxMs);
  const walk = (node: unknown): unknown => {
    if (typeof node === "string") return node.replaceAll(WAIT_MAX_TOKEN, text);
    if (Array.isArray(node)) return node.map(walk);
    if (node === null || typeof node !== "object") return node;
    return Object.fromEntries(Object.entries(node).map(([k, v]) => [k, walk(v)]));
  };
  return walk(value) as T;
}

/**
 * A tool's MCP Apps metadata: `ui` as the extension's 2026-01-26 protocol has it, plus the older
 * flat `ui/resourceUri` that hosts built on earlier drafts read.
 */
function uiMeta(spec: ToolSpec) {
  if (!spec.ui) return {};
  const { resourceUri, visibility } = spec.ui;
  return {
    ui: { resourceUri, ...(visibility ? { visibility: [...visibility] } : {}) },
    "ui/resourceUri": resourceUri,
  };
}

/** Every toolset name, re-exported for callers that only import the catalog. */
export { TOOLSETS };
