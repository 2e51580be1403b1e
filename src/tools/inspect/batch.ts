/**
 * call_read_tools_batch (the batch envelope, docs/design.md §1.3): up to 16 inspect calls, run serially, each through the same
 * validation, handler and error mapping as a direct call, in one client approval. The whole
 * JSON-RPC response — structuredContent and the text block that repeats it — stays under
 * 1,000,000 bytes: nested results are dropped largest first, every attempted row is kept, and the
 * accounting says what was removed.
 */
import { z } from "zod";
import { ToolError } from "../../errors.ts";
import { byteLength, errorResult, type ToolResult } from "../../results.ts";
import { defineTool, type ToolSpec } from "../../tool_types.ts";
import { nestedCall, PROSE_FREE } from "../schemas.ts";

/** The ceiling of the complete JSON-RPC response, framing included (the batch contract). */
const RESPONSE_LIMIT = 1_000_000;

const onErrorSchema = z.enum(["stop", "continue"]).describe(
  "Default stop: a failing row ends it.",
);

const nestedResultSchema = z.object({
  content: z.array(z.unknown()),
  isError: z.boolean().optional(),
  structuredContent: z.record(z.string(), z.unknown()).optional(),
}).catchall(z.unknown());

const rowSchema = z.object({
  index: z.int().min(0),
  tool: z.string(),
  success: z.boolean(),
  error: z.string().nullable(),
  result: nestedResultSchema.nullable(),
  resultTruncated: z.boolean(),
}).strict();

type Row = z.infer<typeof rowSchema>;

const outputSchema = z.object({
  results: z.array(rowSchema),
  succeeded: z.int().min(0),
  failed: z.int().min(0),
  stoppedAt: z.int().min(0).nullable(),
  truncated: z.boolean(),
  truncatedBytes: z.int().min(0),
  onError: z.enum(["stop", "continue"]),
}).strict();

/** The advertised input: the batch contract's union of per-tool shapes, from the enabled tools' schemas. */
function advertisedInput(effective: readonly ToolSpec[]): z.ZodType {
  // No prose per variant: the tool's own entry describes its arguments, and the operations'
  // description says once that they are that tool's own.
  const variants = effective.filter((spec) => spec.batchable).map((spec) => {
    const args = spec.input.optional();
    PROSE_FREE.add(args, {});
    return z.object({ arguments: args, tool: z.literal(spec.name) }).strict();
  });
  const item = variants.length === 0
    ? z.never()
    : variants.length === 1
    ? variants[0]
    : z.union(variants as unknown as [z.ZodType, z.ZodType, ...z.ZodType[]]);
  return z.object({
    onError: onErrorSchema.optional(),
    operations: z.array(item).min(1).max(16).describe(
      "Each takes the arguments of its tool called on its own.",
    ),
  }).strict();
}

/** `code: message` of an error result. */
function errorLine(result: ToolResult): string {
  const error = (result.structuredContent as { error?: { code: string; message: string } }).error;
  return error ? `${error.code}: ${error.message}` : "internal_error: the call failed";
}

type Batch = z.infer<typeof outputSchema>;

/**
 * The text block: compact JSON of the envelope, each nested result once — its structured data,
 * or its text where it has none — so a client that shows the model only `content` loses no row.
 */
function batchText(data: Batch): string {
  return JSON.stringify({
    ...data,
    results: data.results.map((row) => ({ ...row, result: nestedData(row.result) })),
  });
}

function nestedData(result: Row["result"]): unknown {
  if (result === null) return null;
  if (result.structuredContent !== undefined) return result.structuredContent;
  return result.content.map((block) => (block as { text?: string }).text ?? block);
}

/** Bytes of the complete JSON-RPC response this data would produce. */
function responseBytes(data: Batch, id: string | number): number {
  return byteLength(JSON.stringify({
    jsonrpc: "2.0",
    id,
    result: { content: [{ type: "text", text: batchText(data) }], structuredContent: data },
  })) + 1; // the transport's line terminator
}

/** Drop nested results, largest first, until the response fits; account for every byte. */
function fit(data: Batch, id: string | number): void {
  if (responseBytes(data, id) < RESPONSE_LIMIT) return;
  const sizes = new Map<Row, number>(
    data.results.map((r) => [r, r.result === null ? 0 : byteLength(JSON.stringify(r.result))]),
  );
  const order = [...data.results].sort((a, b) => sizes.get(b)! - sizes.get(a)!);
  for (const row of order) {
    if (row.result === null) continue;
    row.result = null;
    row.resultTruncated = true;
    data.truncated = true;
    data.truncatedBytes += sizes.get(row)! - "null".length;
    // Each result appears in structuredContent and, escaped, in the text: measure, don't guess.
    if (responseBytes(data, id) < RESPONSE_LIMIT) return;
  }
}

/** The batch tool's manifest entry. */
export const batchTools = [
  defineTool({
    name: "call_read_tools_batch",
    toolset: "inspect",
    title: "Run read-only tools in a batch",
    description: "Run up to 16 read-only inspect calls in order, under one approval. Each row " +
      "carries its call's result or error; past 1,000,000 bytes the largest become null.",
    input: z.object({
      onError: onErrorSchema.optional(),
      operations: z.array(
        z.object({
          tool: z.string().max(64),
          arguments: nestedCall().optional(),
        }).strict(),
      ).min(1).max(16),
    }).strict(),
    advertisedInput,
    output: outputSchema,
    // The batch contract (seeds 000, 001) requires its accounting, even when nothing was cut.
    keeps: ["truncated", "truncatedBytes"],
    annotations: "batch",
    capability: { reach: "none", effects: "observe", output: ["metadata", "terminal-text"] },
    summarize: (data) => batchText(data as Batch),
    handler: async ({ operations, onError = "stop" }, ctx) => {
      // Batchable tools that are not enabled still reach invoke, which says how to enable them.
      const allowed = new Set(ctx.manifest.filter((t) => t.batchable).map((t) => t.name));
      const data: Batch = {
        results: [],
        succeeded: 0,
        failed: 0,
        stoppedAt: null,
        truncated: false,
        truncatedBytes: 0,
        onError,
      };
      for (const [index, operation] of operations.entries()) {
        if (ctx.signal.aborted) throw new ToolError("cancelled", "the batch was cancelled");
        const result = allowed.has(operation.tool)
          ? await ctx.invoke(operation.tool, operation.arguments ?? {})
          : errorResult(
            new ToolError("tool_denied", `${operation.tool.slice(0, 64)} cannot run in a batch`, {
              hint: "A batch runs only read-only inspect tools; call other tools directly.",
            }),
          );
        const success = !result.isError;
        data.results.push({
          index,
          tool: operation.tool,
          success,
          error: success ? null : errorLine(result),
          result,
          resultTruncated: false,
        });
        if (success) data.succeeded++;
        else data.failed++;
        if (!success && onError === "stop") {
          data.stoppedAt = index;
          break;
        }
      }
      fit(data, ctx.requestId ?? 0);
      return data;
    },
  }),
];
