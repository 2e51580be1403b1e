/**
 * The user documentation as the checks read it: README.md plus every docs/ page it links, so a
 * statement moved from the README to a page it links is still checked.
 */

const ROOT = new URL("../..", import.meta.url);

/** One markdown file: its path from the repository root and its text. */
export interface Doc {
  path: string;
  text: string;
}

/** Relative link targets (`[x](target)`, `![x](target)`) of a markdown text, code left out. */
export function relativeLinks(markdown: string): string[] {
  const prose = markdown.replace(/^```[\s\S]*?^```/gm, "").replace(/`[^`\n]*`/g, "");
  return [...prose.matchAll(/!?\[[^\]]*\]\(([^)\s]+)\)/g)].map((m) => m[1])
    .filter((target) => !/^[a-z][a-z0-9+.-]*:/i.test(target));
}

/** Resolve `target` as written in the file at `from` (both relative to the root). */
export function resolveLink(from: string, target: string): { path: string; anchor: string } {
  const [file, anchor = ""] = target.split("#");
  if (file === "") return { path: from, anchor };
  const url = new URL(file, new URL(from, "file:///"));
  return { path: decodeURIComponent(url.pathname.slice(1)), anchor };
}

/** GitHub's anchor for a heading: lower case, punctuation dropped, spaces to hyphens. */
export function anchorOf(heading: string): string {
  return heading.trim().toLowerCase().replace(/[^\p{L}\p{N}\s_-]/gu, "").replace(/ /g, "-");
}

/** The anchors of a markdown text's headings (duplicates numbered as GitHub does). */
export function anchors(markdown: string): Set<string> {
  const seen = new Map<string, number>();
  const out = new Set<string>();
  const prose = markdown.replace(/^```[\s\S]*?^```/gm, "");
  for (const [, heading] of prose.matchAll(/^#{1,6} (.+)$/gm)) {
    const base = anchorOf(heading);
    const n = seen.get(base) ?? 0;
    seen.set(base, n + 1);
    out.add(n === 0 ? base : `${base}-${n}`);
  }
  return out;
}

/** Read a file relative to the repository root. */
export function readDoc(path: string): Promise<string> {
  return Deno.readTextFile(new URL(path, ROOT));
}

/** README.md and every docs/*.md page it links (docs/design.md, for contributors, left out). */
export async function userDocs(): Promise<Doc[]> {
  const readme = await readDoc("README.md");
  const pages = new Set<string>();
  for (const target of relativeLinks(readme)) {
    const { path } = resolveLink("README.md", target);
    if (/^docs\/[^/]+\.md$/.test(path) && path !== "docs/design.md") pages.add(path);
  }
  const docs: Doc[] = [{ path: "README.md", text: readme }];
  for (const path of [...pages].sort()) docs.push({ path, text: await readDoc(path) });
  return docs;
}

/** Every markdown file the links test covers: README.md and docs/*.md. */
export async function allDocs(): Promise<Doc[]> {
  const docs: Doc[] = [{ path: "README.md", text: await readDoc("README.md") }];
  for await (const entry of Deno.readDir(new URL("docs/", ROOT))) {
    if (entry.isFile && entry.name.endsWith(".md")) {
      docs.push({ path: `docs/${entry.name}`, text: await readDoc(`docs/${entry.name}`) });
    }
  }
  return docs.sort((a, b) => a.path.localeCompare(b.path));
}
