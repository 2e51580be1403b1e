/**
 * At the connection cap, a connection whose streams all ended makes room (docs/design.md §7.1), and
 * it has detached before the next one attaches (§7.4): tmux 3.3a sends `%client-detached` to every control client, also to one still
 * identifying, and the server crashes. Our client process must have exited before the next is
 * started: tmux then sees the first gone before anything the second sends. (Only a connection
 * whose streams all ended is closed so; one with streams is never evicted.)
 */
import { assert, assertEquals } from "../support/assert.ts";
import { connectInProcess, ok } from "../support/client.ts";
import { eventually, TmuxFixture } from "../support/fixture.ts";

/** Our control clients of this fixture's server running now: pid and the session attached. */
async function controlClients(fx: TmuxFixture): Promise<{ pid: number; session: string }[]> {
  const out = await new Deno.Command("ps", { args: ["-eo", "pid=,args="] }).output();
  return new TextDecoder().decode(out.stdout).split("\n")
    .map((line) => line.trim().match(/^(\d+) (.*) -C attach -E -t (\$\d+)$/))
    .filter((m): m is RegExpMatchArray => m !== null && m[2].includes(fx.socket))
    .map((m) => ({ pid: Number(m[1]), session: m[3] }));
}

/** Two sessions and a server of ours with room for one connection, whose streams expire fast. */
async function capOfOne(fx: TmuxFixture) {
  await fx.tmux("new-session", "-d", "-s", "s1", "cat");
  const panes = (await fx.tmux("list-panes", "-a", "-F", "#{pane_id}")).trim().split("\n");
  const server = await connectInProcess(["-S", fx.socket], {}, {
    maxConnections: 1,
    streamTtlMs: 100,
    sweepMs: 50,
  });
  return { panes, ...server };
}

Deno.test("at the connection cap, a connection whose streams all ended makes room", async () => {
  await using fx = await TmuxFixture.start({ session: "s0", command: "cat" });
  const { panes, client, close, built } = await capOfOne(fx);
  try {
    await ok(client, "capture_since", { paneId: panes[0] });
    assert(await eventually(() => built.live!.stats().streams === 0), "the stream expired");
    const next = await ok<{ streaming?: boolean }>(client, "capture_since", { paneId: panes[1] });
    assertEquals(next.streaming ?? true, true, "streamed (streaming: false only when polled)");
    assertEquals(built.live!.stats().connections, 1);
    assertEquals(built.live!.stats().detaches, 1);
  } finally {
    await close();
  }
});

Deno.test("the cap's closed idle connection has exited before the next one attaches", async () => {
  await using fx = await TmuxFixture.start({ session: "s0", command: "cat" });
  const { panes, client, close, built } = await capOfOne(fx);
  let first: number | undefined;
  try {
    await ok(client, "capture_since", { paneId: panes[0] });
    const [only] = await controlClients(fx);
    assertEquals(only?.session, "$0");
    first = only.pid;
    assert(await eventually(() => built.live!.stats().streams === 0), "its stream expired");
    // Stopped, it cannot exit when told to detach: only the close's bound (a kill) ends it.
    Deno.kill(first, "SIGSTOP");
    const next = ok(client, "capture_since", { paneId: panes[1] });
    next.catch(() => {});
    let seen: { pid: number; session: string }[] = [];
    assert(
      await eventually(async () =>
        (seen = await controlClients(fx)).some((c) => c.session === "$1")
      ),
      "the next connection attached",
    );
    assertEquals(
      seen.map((c) => c.session),
      ["$1"],
      "the evicted client had exited when the next one started",
    );
    await next;
  } finally {
    // Killed by the close's bound when the fix holds; resumed otherwise, so it can exit.
    if (first !== undefined) {
      try {
        Deno.kill(first, "SIGCONT");
      } catch {
        // already gone
      }
    }
    await close();
  }
});
