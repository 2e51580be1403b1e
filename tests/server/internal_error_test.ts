/**
 * A bug of ours is not reported as tmux refusing the command: a handler that throws something
 * other than a typed error answers `internal_error` (docs/design.md §3.3), never `tmux_failed`.
 * The bug is provoked for real: a real handler run on a context with no tmux runner at all, a
 * state no host ever builds, so the handler's own code throws a TypeError.
 */
import { assert, assertEquals } from "../support/assert.ts";
import { SURFACE, TOOLS } from "../../src/catalog.ts";
import { parseConfig } from "../../src/config.ts";
import { callTool } from "../../src/server.ts";
import type { ActingContext } from "../../src/tool_types.ts";

function brokenContext(): ActingContext {
  const outcome = parseConfig([], () => undefined, SURFACE);
  if (outcome.kind !== "run") throw new Error("no config");
  return {
    // The impossible state: a context whose tmux access is missing its runner and caller.
    tmux: {},
    config: outcome.config,
    signal: new AbortController().signal,
    invoke: () => Promise.reject(new Error("no nested calls here")),
    manifest: TOOLS,
    channels: {},
  } as unknown as ActingContext;
}

function spec(name: string) {
  const found = TOOLS.find((t) => t.name === name);
  if (!found) throw new Error(`${name} is not in the manifest`);
  return found;
}

for (
  const [name, args, effects] of [
    ["list_sessions", {}, "none"],
    ["rename_session", { session: "$0", name: "renamed" }, "possible"],
  ] as const
) {
  Deno.test(`a handler bug in ${name} answers internal_error, not tmux_failed`, async () => {
    const logged: string[] = [];
    const result = await callTool(spec(name), args, brokenContext(), (line) => logged.push(line));
    const error = (result.structuredContent as { error: Record<string, unknown> }).error;
    assertEquals(result.isError, true);
    assertEquals(error.code, "internal_error");
    assertEquals(error.effects, effects);
    assertEquals(error.retryable, false);
    const text = (result.content[0] as { text: string }).text;
    assert(text.startsWith(`internal_error: internal error in ${name}: `), text);
    assert(text.includes("Hint: This is a bug in tmux-mcp"), text);
    assert(!text.includes("tmux rejected"), text);
    // The stack goes to the server's stderr for the bug report.
    assertEquals(logged.length, 1);
    assert(logged[0].startsWith(`internal error in ${name}: TypeError`), logged[0]);
  });
}
