/**
 * What the scripts that generate a source module share (scripts/view_page.ts,
 * scripts/pattern_worker.ts): bundling one entry for the browser (or a worker) into one minified
 * script, and writing the module or, with `--check`, failing when the committed one is stale.
 */

const root = new URL("../", import.meta.url);

/** One minified script of `entry` (a path from the repository root) and all it imports. */
export async function bundleScript(entry: string): Promise<string> {
  const { code, stdout, stderr } = await new Deno.Command(Deno.execPath(), {
    args: [
      "bundle",
      "--quiet",
      // The page and the worker are built with tooling only the suite and scripts use.
      "--lock=deno.dev.lock",
      "--platform",
      "browser",
      "--minify",
      new URL(entry, root).pathname,
    ],
    cwd: root.pathname,
    stdout: "piped",
    stderr: "piped",
  }).output();
  if (code !== 0) throw new Error(`deno bundle failed: ${new TextDecoder().decode(stderr)}`);
  return new TextDecoder().decode(stdout).trim();
}

/**
 * Write `text` to `path` (from the repository root), or with `--check` in the arguments exit 1
 * when the committed file differs; `task` says how to regenerate it.
 */
export async function writeOrCheck(path: string, text: string, task: string): Promise<void> {
  const file = new URL(path, root);
  if (Deno.args.includes("--check")) {
    if (await Deno.readTextFile(file) !== text) {
      console.error(`${path} differs from a fresh build: run \`${task}\``);
      Deno.exit(1);
    }
    console.log(`${path} matches its source`);
  } else {
    await Deno.writeTextFile(file, text);
    console.log(`${path}: ${new TextEncoder().encode(text).length} bytes`);
  }
}
