/**
 * Recording writes only where the person allows (docs/design.md §11.3): under the default
 * permissions `--record` refuses to start with one line naming the flags; `deno task
 * start:record` grants read and write of `$TMUX_MCP_RECORD` alone, and records there.
 */
import { assert, assertEquals, assertMatch } from "../support/assert.ts";
import { connectStdio, ok, runMain } from "../support/client.ts";
import { TmuxFixture } from "../support/fixture.ts";
import { actionLog, sessionDirs } from "../support/recordings.ts";

Deno.test("--record without read and write of DIR: exit 2, one line naming the flags, nothing made", async () => {
  await using fx = await TmuxFixture.start();
  const dir = `${fx.dir}/records`;
  for (const args of [["--record", dir], []]) {
    const env: Record<string, string> = args.length ? {} : { TMUX_MCP_RECORD: dir };
    const out = await runMain(["-S", fx.socket, ...args], env);
    assertEquals(out.code, 2, out.stderr);
    const lines = out.stderr.trim().split("\n");
    assertEquals(lines.length, 1, out.stderr);
    assertMatch(lines[0], new RegExp(`--allow-read=${dir} --allow-write=${dir}`));
    assertMatch(lines[0], /deno task start:record.*a compiled binary cannot record$/);
  }
  assertEquals(await Deno.stat(dir).then(() => true, () => false), false);
});

Deno.test("deno task start:record: TMUX_MCP_RECORD names the directory, granted and recorded into", async () => {
  await using fx = await TmuxFixture.start();
  const dir = `${fx.dir}/records`;
  const env = { TMUX_MCP_RECORD: dir };
  const server = await connectStdio(["-S", fx.socket], env, undefined, undefined, "start:record");
  try {
    const made = await ok<{ paneId: string }>(server.client, "create_session", { name: "agent" });
    await ok(server.client, "send_keys", { paneId: made.paneId, keys: "echo recorded" });
  } finally {
    await server.close();
  }
  assert(!server.stderr().includes("recording stopped"), server.stderr());
  const [session] = sessionDirs(dir);
  const log = actionLog(session);
  assertEquals(log.filter((l) => l.kind === "call").map((l) => l.tool), [
    "create_session",
    "send_keys",
  ]);
});
