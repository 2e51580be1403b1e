/**
 * The import graph keeps each toolset to its powers: a tool file may import only the funnel
 * modules its toolsets allow (an inspect tool never imports the input module), and tool files
 * never import each other (docs/design.md §2.1).
 */
import { assertEquals } from "./support/assert.ts";
import type { ToolSpec } from "../src/tool_spec.ts";
import type { Toolset } from "../src/config.ts";

/** Project modules every tool file may import, whatever its toolset. */
const SHARED = [
  "src/errors.ts",
  "src/results.ts",
  "src/rows.ts",
  "src/tool_spec.ts",
  "src/tools/common.ts",
];

/** Read-only funnel modules: what an inspect tool may reach. */
const READ = [
  "src/tmux/capture.ts",
  "src/tmux/command.ts",
  "src/tmux/environment.ts",
  "src/tmux/queries.ts",
  "src/tmux/settings.ts",
  "src/tmux/targets.ts",
  "src/tmux/live.ts",
  "src/live/",
  "src/render/",
  "src/view/",
];

/** What each toolset may import beyond {@link SHARED}. */
const ALLOWED: Record<Toolset, readonly string[]> = {
  inspect: READ,
  manage: [...READ, "src/guard.ts", "src/tmux/manage.ts"],
  execute: [
    ...READ,
    "src/guard.ts",
    "src/tmux/input.ts",
    "src/tmux/lifecycle.ts",
    "src/tmux/run.ts",
  ],
  teardown: [...READ, "src/guard.ts", "src/tmux/teardown.ts"],
};

const root = new URL("../", import.meta.url);

/** Project-relative paths a source file imports (bare specifiers such as "zod" are skipped). */
function projectImports(file: string, source: string): string[] {
  return [...source.matchAll(/from\s+"(\.{1,2}\/[^"]+)"/g)]
    .map((m) => new URL(m[1], new URL(file, root)).pathname.slice(root.pathname.length));
}

/** The imports of `file` that its toolsets do not allow. */
function violations(file: string, source: string, toolsets: readonly Toolset[]): string[] {
  const allowed = [...SHARED, ...toolsets.flatMap((t) => ALLOWED[t])];
  return projectImports(file, source)
    .filter((path) => !allowed.some((a) => a.endsWith("/") ? path.startsWith(a) : path === a))
    .map((path) => `${file} (${toolsets.join(",")}) imports ${path}`);
}

Deno.test("tool files import only the funnel modules their toolsets allow, and never each other", async () => {
  const found: string[] = [];
  let files = 0;
  for await (const entry of Deno.readDir(new URL("src/tools/", root))) {
    if (!entry.name.endsWith(".ts") || entry.name === "common.ts") continue;
    const file = `src/tools/${entry.name}`;
    const module = await import(new URL(file, root).href) as Record<string, unknown>;
    const specs = Object.values(module).filter(Array.isArray).flat() as ToolSpec[];
    const toolsets = [...new Set(specs.map((s) => s.toolset))];
    if (toolsets.length === 0) continue;
    files++;
    found.push(...violations(file, await Deno.readTextFile(new URL(file, root)), toolsets));
  }
  assertEquals(found, []);
  assertEquals(files >= 10, true, `${files} tool files checked`);
});

Deno.test("the import check flags an inspect tool that imports the input module or another tool", () => {
  const source = 'import { sendKeys } from "../tmux/input.ts";\n' +
    'import { x } from "./capture.ts";\nimport { z } from "zod";\n' +
    'import { snapshot } from "../tmux/queries.ts";\n';
  assertEquals(violations("src/tools/sneaky.ts", source, ["inspect"]), [
    "src/tools/sneaky.ts (inspect) imports src/tmux/input.ts",
    "src/tools/sneaky.ts (inspect) imports src/tools/capture.ts",
  ]);
  assertEquals(violations("src/tools/sneaky.ts", source, ["execute"]), [
    "src/tools/sneaky.ts (execute) imports src/tools/capture.ts",
  ]);
});
