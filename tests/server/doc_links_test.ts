/**
 * The user documentation holds together: every relative link in README.md and docs/*.md reaches a
 * file (and a heading, when it names one), the README links each page that holds its depth, the
 * pages carry no development history, and every block labelled `json` is JSON.
 */
import { assert, assertEquals } from "../support/assert.ts";
import {
  allDocs,
  anchorOf,
  anchors,
  readDoc,
  relativeLinks,
  resolveLink,
  userDocs,
} from "../support/docs.ts";

const docs = await allDocs();

async function exists(path: string): Promise<boolean> {
  return await readDoc(path).then(() => true, () => false) ||
    await Deno.stat(new URL(`../../${path}`, import.meta.url)).then(() => true, () => false);
}

Deno.test("the link readers: anchors as GitHub makes them, targets resolved from the file", () => {
  assertEquals(anchorOf("The default: `core`"), "the-default-core");
  assertEquals(anchorOf("Live mode: `capture_since`"), "live-mode-capture_since");
  assertEquals([...anchors("# A\n## A\n```\n# not a heading\n```\n")], ["a", "a-1"]);
  assertEquals(resolveLink("docs/tools.md", "../README.md#tools"), {
    path: "README.md",
    anchor: "tools",
  });
  assertEquals(resolveLink("docs/tools.md", "#waiting"), {
    path: "docs/tools.md",
    anchor: "waiting",
  });
  assertEquals(relativeLinks("[a](b.md) `[c](d.md)` [e](https://x) ![f](g.png)"), [
    "b.md",
    "g.png",
  ]);
});

Deno.test("every relative link in README.md and docs/*.md reaches a file and its heading", async () => {
  let checked = 0;
  for (const doc of docs) {
    for (const target of relativeLinks(doc.text)) {
      const { path, anchor } = resolveLink(doc.path, target);
      assert(await exists(path), `${doc.path}: ${target} names no file`);
      if (anchor !== "") {
        assert(path.endsWith(".md"), `${doc.path}: ${target} has an anchor in a non-markdown file`);
        const text = docs.find((d) => d.path === path)?.text ?? await readDoc(path);
        assert(anchors(text).has(anchor), `${doc.path}: ${target} names no heading of ${path}`);
      }
      checked++;
    }
  }
  assert(checked > 20, `only ${checked} links`);
});

Deno.test("the README links every page that holds its depth", async () => {
  const linked = (await userDocs()).map((d) => d.path);
  for (const page of ["http", "performance", "recording", "remote-hosts", "security", "tools"]) {
    assert(linked.includes(`docs/${page}.md`), `README links docs/${page}.md`);
  }
});

Deno.test("user docs carry no development history: no issue numbers, seeds or rounds", async () => {
  for (const doc of await userDocs()) {
    for (const pattern of [/\bissue \d+/i, /\bseed \d{3}\b/i, /\bround \d+\b/i, /\(issue/i]) {
      const hit = pattern.exec(doc.text);
      assert(hit === null, `${doc.path}: "${hit?.[0]}"`);
    }
  }
});

Deno.test("every code block labelled json parses", () => {
  let parsed = 0;
  for (const doc of docs) {
    let section = "";
    const lines = doc.text.split("\n");
    for (let i = 0; i < lines.length; i++) {
      if (lines[i].startsWith("## ")) section = lines[i].slice(3).trim();
      const open = /^```(\w*)\s*$/.exec(lines[i]);
      if (!open) continue;
      const body: string[] = [];
      for (i++; i < lines.length && !lines[i].startsWith("```"); i++) body.push(lines[i]);
      if (open[1] !== "json") continue;
      try {
        JSON.parse(body.join("\n"));
      } catch (error) {
        throw new Error(`${doc.path}: ${section}: ${(error as Error).message}`);
      }
      parsed++;
    }
  }
  assert(parsed > 5, `only ${parsed} json blocks`);
});
