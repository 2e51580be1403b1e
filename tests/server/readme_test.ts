/** The README stays true: generated tool table, quick start, permissions, configuration. */
import { assert, assertEquals } from "../support/assert.ts";
import {
  normalizeList,
  normalizeTable,
  renderSurfaceList,
  renderToolTable,
  surfaceRegion,
  tableRegion,
} from "../../scripts/readme_tools.ts";
import { startPermissions } from "../support/client.ts";
import { TOOLS } from "../../src/catalog.ts";

const readme = await Deno.readTextFile(new URL("../../README.md", import.meta.url));

Deno.test("README tool table matches the manifest (run `deno task readme` to fix)", () => {
  assertEquals(normalizeTable(tableRegion(readme)), normalizeTable(renderToolTable()));
});

Deno.test("design doc §1.2 tool list matches the manifest (run `deno task readme` to fix)", async () => {
  const design = await Deno.readTextFile(new URL("../../docs/design.md", import.meta.url));
  const listed = normalizeList(surfaceRegion(design));
  assertEquals(listed, normalizeList(renderSurfaceList()));
  // The rendering names every tool exactly once, so a tool added to the manifest shows up here.
  for (const name of TOOLS.map((t) => t.name)) {
    assertEquals(listed.split(/[\s,.]+/).filter((word) => word === name).length, 1, name);
  }
});

Deno.test("README quick start: two commands, start then test; permissions written down", async () => {
  const quick = readme.split(/^## Quick start/m)[1];
  const block = /```[a-z]*\n([\s\S]*?)```/.exec(quick)![1].trim().split("\n");
  assertEquals(block.length, 2);
  // `-q`: the first start prints the server's own lines only, not deno task's.
  assert(block[0].endsWith("task -q start") && block[1].endsWith("task test"), block.join(" / "));
  const envList = (await startPermissions()).find((f) => f.startsWith("--allow-env="))!;
  for (const name of envList.split("=")[1].split(",")) {
    assert(readme.includes(`\`${name}\``), `README explains ${name}`);
  }
  for (const flag of ["--socket-name", "--toolsets", "--exclude-tools", "--allow-watched-panes"]) {
    assert(readme.includes(flag), flag);
  }
});
