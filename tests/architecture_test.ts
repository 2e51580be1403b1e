/**
 * The layer rules of docs/design.md §2, checked over the import graph of src/, main.ts and mod.ts:
 * no import circle, imports point down the layer list, the leaves (src/live/, src/render/) and the
 * funnel (src/tmux/) stay below what they must not reach, each toolset's tool files import only
 * the funnel modules their powers allow and never each other, every acting tool file goes through
 * the guard, only src/sdk.ts imports the SDK and only src/tmux/ spawns processes, and every
 * `§n.m` a file cites exists in docs/design.md.
 */
import { assert, assertEquals } from "./support/assert.ts";
import type { ToolSpec } from "../src/tool_types.ts";
import { TOOLS } from "../src/catalog.ts";
import type { Toolset } from "../src/config.ts";

const root = new URL("../", import.meta.url);

/** Project modules every tool file may import, whatever its toolset. */
const SHARED = [
  "src/errors.ts",
  "src/results.ts",
  "src/rows.ts",
  "src/tool_types.ts",
  "src/tools/schemas.ts",
  "src/tools/wording.ts",
  "src/wait/",
  "src/pattern/",
];

/** The read-only rooms of the funnel, and the leaves below it: what an inspect tool may reach. */
const READ = [
  "src/tmux/core/",
  "src/tmux/read/",
  "src/tmux/live/",
  "src/live/",
  "src/render/",
  "src/view/",
  "src/generated/",
];

/**
 * What each toolset may import beyond {@link SHARED}: the read rooms, and — for a toolset that
 * acts — the guard and the funnel room named after the toolset (src/tmux/<toolset>/).
 */
const ALLOWED: Record<Toolset, readonly string[]> = {
  inspect: READ,
  manage: [...READ, "src/guard/", "src/tmux/manage/"],
  execute: [...READ, "src/guard/", "src/tmux/execute/"],
  teardown: [...READ, "src/guard/", "src/tmux/teardown/"],
};

/**
 * The layer list of docs/design.md §2, top to bottom, read from the map of the rooms (its first
 * code block): a row starts at the left margin with its paths (comma-separated, ended by two spaces
 * or the line), and indented lines go on with its description. A module imports only modules of
 * its own layer or a lower one. A path ending in "/" is a folder; a file named exactly wins over a
 * folder holding it (src/tools/schemas.ts is a shared helper, not a tool file), and a deeper folder
 * over the folder holding it (src/tmux/core/ over src/tmux/).
 */
function designLayers(design: string): string[][] {
  const section = design.slice(design.indexOf("## 2. "), design.indexOf("**2.1 "));
  const block = section.match(/```\n([\s\S]*?)```/)?.[1] ?? "";
  return block.split("\n").filter((line) => /^\S/.test(line))
    .map((line) => line.split(/\s{2,}/)[0].split(/,\s*/).map((path) => path.trim()));
}

const design = await Deno.readTextFile(new URL("docs/design.md", root));
const LAYERS: readonly (readonly string[])[] = designLayers(design);

/** Every layer uses it to report failures (docs/design.md §2.1), so it may be imported from anywhere. */
const EVERYWHERE = "src/errors.ts";

function under(path: string, entry: string): boolean {
  return entry.endsWith("/") ? path.startsWith(entry) : path === entry;
}

/** Project-relative paths a source file imports (bare specifiers such as "zod" are skipped). */
function projectImports(file: string, source: string): string[] {
  const specifiers = source.matchAll(/(?:\bfrom\s+|\bimport\s*\(?\s*)"(\.{1,2}\/[^"]+)"/g);
  return [...specifiers].map((m) =>
    new URL(m[1], new URL(file, root)).pathname.slice(root.pathname.length)
  );
}

/** The imports of `file` that its toolsets do not allow. */
function violations(file: string, source: string, toolsets: readonly Toolset[]): string[] {
  const allowed = [...SHARED, ...toolsets.flatMap((t) => ALLOWED[t])];
  return projectImports(file, source)
    .filter((path) => !allowed.some((a) => under(path, a)))
    .map((path) => `${file} (${toolsets.join(",")}) imports ${path}`);
}

/** Every TypeScript file of src/ (recursively), plus main.ts and mod.ts, with its source. */
async function sources(): Promise<Map<string, string>> {
  const found = new Map<string, string>();
  const walk = async (dir: string) => {
    for await (const entry of Deno.readDir(new URL(dir, root))) {
      const path = `${dir}${entry.name}`;
      if (entry.isDirectory) await walk(`${path}/`);
      else if (entry.name.endsWith(".ts") && !entry.name.endsWith("_test.ts")) {
        found.set(path, await Deno.readTextFile(new URL(path, root)));
      }
    }
  };
  await walk("src/");
  for (const file of ["main.ts", "mod.ts"]) {
    found.set(file, await Deno.readTextFile(new URL(file, root)));
  }
  return found;
}

/** The import graph: each file and the project files it imports. */
function importGraph(files: Map<string, string>): Map<string, string[]> {
  return new Map([...files].map(([file, source]) => [file, projectImports(file, source)]));
}

/** The import circles of a graph: its strongly connected parts with a cycle (Tarjan), sorted. */
function circles(graph: ReadonlyMap<string, readonly string[]>): string[] {
  let counter = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[] = [];
  const visit = (file: string) => {
    index.set(file, counter);
    low.set(file, counter++);
    stack.push(file);
    onStack.add(file);
    for (const next of graph.get(file) ?? []) {
      if (!index.has(next)) {
        visit(next);
        low.set(file, Math.min(low.get(file)!, low.get(next)!));
      } else if (onStack.has(next)) {
        low.set(file, Math.min(low.get(file)!, index.get(next)!));
      }
    }
    if (low.get(file) !== index.get(file)) return;
    const part: string[] = [];
    let member: string;
    do {
      member = stack.pop()!;
      onStack.delete(member);
      part.push(member);
    } while (member !== file);
    if (part.length > 1 || (graph.get(file) ?? []).includes(file)) {
      found.push(part.sort().join(" "));
    }
  };
  for (const file of graph.keys()) if (!index.has(file)) visit(file);
  return found.sort();
}

function layerOf(path: string, layers: readonly (readonly string[])[] = LAYERS): number {
  const exact = layers.findIndex((layer) => layer.includes(path));
  if (exact >= 0) return exact;
  // The deepest folder holding the path names its layer.
  let best = -1;
  let depth = -1;
  layers.forEach((layer, index) => {
    for (const entry of layer) {
      if (under(path, entry) && entry.length > depth) [best, depth] = [index, entry.length];
    }
  });
  return best;
}

/** Imports that point up the layer list, and files the list does not place. */
function upwardImports(graph: ReadonlyMap<string, readonly string[]>): string[] {
  const found: string[] = [];
  for (const [file, imports] of graph) {
    const own = layerOf(file);
    if (own < 0) found.push(`${file} is in no layer of docs/design.md §2`);
    for (const path of imports) {
      if (path !== EVERYWHERE && layerOf(path) < own) found.push(`${file} imports ${path} (up)`);
    }
  }
  return found;
}

/** Imports of files under `folder` that leave it, other than to `allowed`. */
function leavingImports(
  graph: ReadonlyMap<string, readonly string[]>,
  folder: string,
  allowed: readonly string[],
): string[] {
  return [...graph].filter(([file]) => file.startsWith(folder)).flatMap(([file, imports]) =>
    imports.filter((path) => !path.startsWith(folder) && !allowed.some((a) => under(path, a)))
      .map((path) => `${file} imports ${path}`)
  );
}

/** The numbers (`2`, `2.1`) docs/design.md defines: its `## N.` sections and `**N.M` rules. */
function designNumbers(design: string): Set<string> {
  return new Set([
    ...[...design.matchAll(/^## (\d+)\. /gm)].map((m) => m[1]),
    ...[...design.matchAll(/^\*\*(\d+\.\d+) /gm)].map((m) => m[1]),
  ]);
}

/** `§n` and `§n.m` citations in a text that name nothing in `numbers`. */
function missingCitations(file: string, text: string, numbers: ReadonlySet<string>): string[] {
  return [...text.matchAll(/§(\d+(?:\.\d+)?)/g)]
    .filter((m) => !numbers.has(m[1]))
    .map((m) => `${file} cites §${m[1]}`);
}

/**
 * Each tool file and its toolsets, read from the specs the module exports (no list of names): the
 * files of src/tools/<toolset>/, whose folder must be the one toolset their specs declare.
 */
async function toolFiles(): Promise<Array<{ file: string; toolsets: Toolset[]; folder: string }>> {
  const found: Array<{ file: string; toolsets: Toolset[]; folder: string }> = [];
  for await (const folder of Deno.readDir(new URL("src/tools/", root))) {
    if (!folder.isDirectory) continue;
    for await (const entry of Deno.readDir(new URL(`src/tools/${folder.name}/`, root))) {
      if (!entry.name.endsWith(".ts") || entry.name.endsWith("_test.ts")) continue;
      const file = `src/tools/${folder.name}/${entry.name}`;
      const module = await import(new URL(file, root).href) as Record<string, unknown>;
      const specs = Object.values(module).filter(Array.isArray).flat() as ToolSpec[];
      const toolsets = [...new Set(specs.map((s) => s.toolset))];
      found.push({ file, toolsets, folder: folder.name });
    }
  }
  return found;
}

const files = await sources();
const graph = importGraph(files);

Deno.test("each tool file sits in the folder of its one toolset, and every tool has such a file", async () => {
  const tools = await toolFiles();
  const misplaced = tools.filter(({ toolsets, folder }) =>
    toolsets.length !== 1 || toolsets[0] !== folder
  ).map(({ file, toolsets }) => `${file}: ${toolsets.join(",") || "no tools"}`);
  assertEquals(misplaced, []);
  const specs = (await Promise.all(tools.map(({ file }) => import(new URL(file, root).href))))
    .flatMap((m) => Object.values(m as Record<string, unknown>).filter(Array.isArray).flat());
  const named = new Set((specs as ToolSpec[]).map((s) => s.name));
  assertEquals(TOOLS.map((t) => t.name).filter((name) => !named.has(name)), []);
});

Deno.test("tool files import only the funnel modules their toolsets allow, and never each other", async () => {
  const tools = await toolFiles();
  const found = tools.flatMap(({ file, toolsets }) => violations(file, files.get(file)!, toolsets));
  assertEquals(found, []);
  assert(tools.length >= 10, `${tools.length} tool files checked`);
});

Deno.test("every execute or teardown tool file goes through the guard", async () => {
  const acting = (await toolFiles()).filter(({ toolsets }) =>
    toolsets.includes("execute") || toolsets.includes("teardown")
  );
  const unguarded = acting
    .filter(({ file }) => !graph.get(file)!.some((path) => path.startsWith("src/guard/")))
    .map(({ file }) => file);
  assertEquals(unguarded, []);
  assert(acting.length >= 3, `${acting.length} acting tool files checked`);
});

Deno.test("the map of docs/design.md §2 names every room of src/, each of at most 15 modules, and nothing that is gone", () => {
  const named = LAYERS.flat();
  const rooms = new Map<string, number>();
  for (const file of files.keys()) {
    if (!file.startsWith("src/")) continue;
    const room = file.slice(0, file.lastIndexOf("/") + 1);
    rooms.set(room, (rooms.get(room) ?? 0) + 1);
  }
  const unnamed = [...rooms.keys()].filter((room) =>
    room !== "src/" && !named.includes(room) &&
    // A folder inside a named room belongs to it (src/view/page/, the page's own source).
    !named.some((entry) => entry.endsWith("/") && room.startsWith(entry) && entry !== "src/tmux/")
  );
  assertEquals(unnamed, [], "rooms the map does not name");
  const gone = named.filter((entry) =>
    entry.endsWith("/")
      ? !rooms.has(entry) && ![...rooms.keys()].some((r) => r.startsWith(entry))
      : !files.has(entry)
  );
  assertEquals(gone, [], "entries of the map that name nothing");
  const crowded = [...rooms].filter(([room, count]) => room !== "src/generated/" && count > 15);
  assertEquals(crowded, [], "rooms over 15 hand-written modules");
});

Deno.test("no import circle in src/, main.ts and mod.ts", () => {
  assertEquals(circles(graph), []);
});

Deno.test("imports point down the layer list of docs/design.md §2", () => {
  assertEquals(upwardImports(graph), []);
});

Deno.test("src/live/ and src/render/ import only the bottom row, src/errors.ts and their own folder (live: src/pattern/; render: src/generated/)", () => {
  const leaves = ["src/errors.ts", "src/base/"];
  assertEquals(leavingImports(graph, "src/live/", [...leaves, "src/pattern/"]), []);
  assertEquals(leavingImports(graph, "src/render/", [...leaves, "src/generated/"]), []);
});

Deno.test("src/tmux/ never imports the tools, the guard, the server or src/results.ts", () => {
  const above = ["src/tools/", "src/guard/", "src/server.ts", "src/results.ts"];
  const found = [...graph].filter(([file]) => file.startsWith("src/tmux/"))
    .flatMap(([file, imports]) =>
      imports.filter((path) => above.some((a) => under(path, a))).map((p) => `${file} → ${p}`)
    );
  assertEquals(found, []);
});

Deno.test("src/wait/ never imports the tools or the guard (it sits beside them, below the tool files)", () => {
  const above = ["src/tools/", "src/guard/"];
  const found = [...graph].filter(([file]) => file.startsWith("src/wait/"))
    .flatMap(([file, imports]) =>
      imports.filter((path) => above.some((a) => under(path, a))).map((p) => `${file} → ${p}`)
    );
  assertEquals(found, []);
  assert([...graph.keys()].some((file) => file.startsWith("src/wait/")), "src/wait/ checked");
});

Deno.test("only src/sdk.ts imports the SDK, and only the protocol layer imports src/sdk.ts", () => {
  const protocol = ["src/server.ts", "src/stdio_transport.ts", "src/jsonrpc.ts", "src/http/"];
  const found: string[] = [];
  for (const [file, source] of files) {
    if (file !== "src/sdk.ts" && /"(npm:)?@modelcontextprotocol\/sdk/.test(source)) {
      found.push(`${file} imports the SDK package`);
    }
    if (/@modelcontextprotocol\/sdk\/client/.test(source)) found.push(`${file} imports the client`);
    if (graph.get(file)!.includes("src/sdk.ts") && !protocol.some((p) => under(file, p))) {
      found.push(`${file} imports src/sdk.ts`);
    }
  }
  assertEquals(found, []);
});

Deno.test("only src/tmux/ spawns processes", () => {
  const spawning = [...files]
    .filter(([file, source]) =>
      !file.startsWith("src/tmux/") && /Deno\.(Command|run)\b/.test(source)
    )
    .map(([file]) => file);
  assertEquals(spawning, []);
});

Deno.test("every § a source, test or script cites exists in docs/design.md", async () => {
  const numbers = designNumbers(await Deno.readTextFile(new URL("docs/design.md", root)));
  assert(numbers.has("2") && numbers.has("2.1") && numbers.has("9.1"), [...numbers].join(" "));
  const cited = new Map(files);
  const walk = async (dir: string): Promise<void> => {
    for await (const entry of Deno.readDir(new URL(dir, root))) {
      const path = `${dir}${entry.name}`;
      if (entry.isDirectory) await walk(`${path}/`);
      else if (entry.name.endsWith(".ts")) {
        cited.set(path, await Deno.readTextFile(new URL(path, root)));
      }
    }
  };
  for (const dir of ["tests/", "scripts/", "src/"]) await walk(dir);
  const found = [...cited].flatMap(([file, text]) => missingCitations(file, text, numbers));
  assertEquals(found, []);
});

Deno.test("a tool's name is a string in at most two files of src/: its own and one that words a text", () => {
  const found = TOOLS.flatMap(({ name }) => {
    const spelled = [...files].filter(([file, source]) =>
      file.startsWith("src/") && source.includes(`"${name}"`)
    ).map(([file]) => file);
    return spelled.length > 2 ? [`${name}: ${spelled.join(", ")}`] : [];
  });
  assertEquals(found, []);
});

Deno.test("the checks flag what they are for", () => {
  const source = 'import { sendKeys } from "../../tmux/execute/input.ts";\n' +
    'import { x } from "../inspect/capture.ts";\nimport { z } from "zod";\n' +
    'import { snapshot } from "../../tmux/read/queries.ts";\n';
  assertEquals(violations("src/tools/inspect/sneaky.ts", source, ["inspect"]), [
    "src/tools/inspect/sneaky.ts (inspect) imports src/tmux/execute/input.ts",
    "src/tools/inspect/sneaky.ts (inspect) imports src/tools/inspect/capture.ts",
  ]);
  assertEquals(violations("src/tools/inspect/sneaky.ts", source, ["execute"]), [
    "src/tools/inspect/sneaky.ts (execute) imports src/tools/inspect/capture.ts",
  ]);
  const looped = new Map([
    ["a.ts", ["b.ts"]],
    ["b.ts", ["c.ts", "d.ts"]],
    ["c.ts", ["a.ts"]],
    ["d.ts", ["d.ts"]],
    ["e.ts", ["a.ts"]],
  ]);
  assertEquals(circles(looped), ["a.ts b.ts c.ts", "d.ts"]);
  assertEquals(
    upwardImports(
      new Map([["src/tmux/core/x.ts", ["src/server.ts", "src/errors.ts", "src/base/utf8.ts"]]]),
    ),
    ["src/tmux/core/x.ts imports src/server.ts (up)"],
  );
  const map = "## 2. L\n\nmap\n\n```\na.ts, b/  top\n    more\nb/c/  below\nd.ts\n```\n\n**2.1 ";
  assertEquals(designLayers(map), [["a.ts", "b/"], ["b/c/"], ["d.ts"]]);
  assertEquals(layerOf("b/c/x.ts", designLayers(map)), 1);
  assertEquals(layerOf("b/x.ts", designLayers(map)), 0);
  assertEquals(
    leavingImports(new Map([["src/live/x.ts", ["src/live/y.ts", "src/tmux/z.ts"]]]), "src/live/", [
      "src/errors.ts",
    ]),
    ["src/live/x.ts imports src/tmux/z.ts"],
  );
  assertEquals(
    missingCitations("f.ts", "see \u00a72.1 and \u00a72.99, \u00a712", new Set(["2", "2.1"])),
    ["f.ts cites \u00a72.99", "f.ts cites \u00a712"],
  );
  assertEquals(
    projectImports(
      "src/a.ts",
      'export { b } from "./b.ts";\nimport "./c.ts";\nawait import("./d.ts");',
    ),
    ["src/b.ts", "src/c.ts", "src/d.ts"],
  );
});
