/**
 * The distributable graph: `deno compile` cannot fetch its runtime on this network, so CI checks
 * that `deno bundle` of main.ts works and that the bundle serves MCP under the start permissions.
 */
import { assertEquals } from "./support/assert.ts";
import { connectStdio, ok } from "./support/client.ts";
import { TmuxFixture } from "./support/fixture.ts";

Deno.test("deno bundle of main.ts serves MCP under the start permissions", async () => {
  await using fx = await TmuxFixture.start({ session: "bundled" });
  const out = `${fx.dir}/tmux-mcp.js`;
  const bundled = await new Deno.Command(Deno.execPath(), {
    args: ["bundle", "--quiet", "--output", out, new URL("../main.ts", import.meta.url).pathname],
    stdout: "null",
    stderr: "piped",
  }).output();
  assertEquals(bundled.success, true, new TextDecoder().decode(bundled.stderr));
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
