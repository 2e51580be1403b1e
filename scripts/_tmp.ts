import { TOOLS, toolListEntry } from "../src/catalog.ts";
for (const n of Deno.args) {
  const s = TOOLS.find((t) => t.name === n)!;
  const { name, title, description, inputSchema, annotations } = toolListEntry(s, TOOLS);
  console.log(JSON.stringify({ name, title, description, inputSchema, annotations }));
}
