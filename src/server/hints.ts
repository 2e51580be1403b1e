/**
 * Hints that fit the session's surface (docs/design.md §4): a refusal's hint is written once for
 * every configuration, so it may name a tool this session does not serve. At the edge, each such
 * tool gets the sentence that would enable it, as `tool_denied` says it, so the agent is never sent
 * to a tool it would find refused without knowing why.
 */
import { APP_TOOLS, denialHint, TOOLS } from "../catalog.ts";
import type { Config } from "../config.ts";
import type { ToolResult } from "../results.ts";

/** Every built tool's name, longest first, as one pattern of whole words. */
const NAMED = new RegExp(
  `\\b(${
    [...TOOLS, ...APP_TOOLS].map((t) => t.name).sort((a, b) => b.length - a.length).join("|")
  })\\b`,
  "g",
);

/** Where an error result's text gives its hint (src/results.ts: `code: message\nHint: hint`). */
const HINT = "\nHint: ";

/**
 * `hint` followed by how to enable each tool it names that `enabled` lacks; unchanged when it
 * names none.
 */
export function hintForSurface(
  hint: string,
  enabled: ReadonlySet<string>,
  config: Config,
): string {
  const off = [...new Set([...hint.matchAll(NAMED)].map((m) => m[1]))]
    .filter((name) => !enabled.has(name));
  if (off.length === 0) return hint;
  return [hint, ...off.map((name) => enabling(name, config))].join(" ");
}

/** One sentence: `name` is not served here, and what a person can change. */
function enabling(name: string, config: Config): string {
  const how = denialHint(name, config);
  if (how.startsWith(name)) return how;
  return `${name} is not enabled here: ${how.charAt(0).toLowerCase()}${how.slice(1)}`;
}

/**
 * An error result whose hint fits the surface (see {@link hintForSurface}); a success, and a
 * `tool_denied` (whose hint is already about enabling), are returned as they are.
 */
export function resultForSurface(
  result: ToolResult,
  enabled: ReadonlySet<string>,
  config: Config,
): ToolResult {
  const block = result.content[0];
  const code = (result.structuredContent.error as { code?: string } | undefined)?.code;
  if (!result.isError || code === "tool_denied" || block?.type !== "text") return result;
  const at = block.text.indexOf(HINT);
  if (at < 0) return result;
  const hint = block.text.slice(at + HINT.length);
  const fitted = hintForSurface(hint, enabled, config);
  if (fitted === hint) return result;
  const text = block.text.slice(0, at + HINT.length) + fitted;
  return { ...result, content: [{ type: "text", text }, ...result.content.slice(1)] };
}
