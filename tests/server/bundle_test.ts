/**
 * The distributable graph: `deno compile` cannot fetch its runtime on this network, so CI checks
 * that `deno bundle` of main.ts works and that the bundle serves MCP under the start permissions
 * (docs/design.md §8.5) — and that the bundle refuses to pass for a program under plain Node.
 */
import { assert, assertEquals } from "../support/assert.ts";
import { connectStdio, MAIN, ok } from "../support/client.ts";
import { TmuxFixture } from "../support/fixture.ts";

/** Bundle main.ts into `dir`; the bundle's path. */
async function bundle(dir: string): Promise<string> {
  const out = `${dir}/tmux-mcp.js`;
  const bundled = await new Deno.Command(Deno.execPath(), {
    args: ["bundle", "--quiet", "--output", out, MAIN],
    stdout: "null",
    stderr: "piped",
  }).output();
  assertEquals(bundled.success, true, new TextDecoder().decode(bundled.stderr));
  return out;
}

function hasNode(): boolean {
  try {
    return new Deno.Command("node", { args: ["--version"], stdout: "null", stderr: "null" })
      .outputSync().success;
  } catch {
    return false;
  }
}

Deno.test("deno bundle of main.ts serves MCP under the start permissions", async () => {
  await using fx = await TmuxFixture.start({ session: "bundled" });
  const out = await bundle(fx.dir);
  const { client, close } = await connectStdio(["-S", fx.socket], {}, out);
  try {
    const { sessions } = await ok<{ sessions: Array<{ sessionName: string }> }>(
      client,
      "list_sessions",
    );
    assertEquals(sessions.map((s) => s.sessionName), ["bundled"]);
  } finally {
    await close();
  }
});

Deno.test({
  name: "the bundle under plain Node prints one line saying it needs Deno and exits 1",
  ignore: !hasNode(),
  fn: async () => {
    const dir = await Deno.makeTempDir({ prefix: "tmux-mcp-bundle-" });
    try {
      const out = await bundle(dir);
      for (const args of [[], ["--version"]]) {
        const run = await new Deno.Command("node", {
          args: [out, ...args],
          cwd: dir,
          stdin: "null",
          stdout: "piped",
          stderr: "piped",
        }).output();
        const stderr = new TextDecoder().decode(run.stderr);
        assertEquals(run.code, 1, stderr);
        assertEquals(new TextDecoder().decode(run.stdout), "");
        assertEquals(stderr.trimEnd().split("\n").length, 1, stderr);
        assert(stderr.includes("needs Deno"), stderr);
      }
    } finally {
      await Deno.remove(dir, { recursive: true });
    }
  },
});
