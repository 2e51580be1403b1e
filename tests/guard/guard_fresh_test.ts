/**
 * The input guard is never stale (docs/design.md §6.2, §6.13): it lists only the fields it decides
 * on, but lists them afresh for every call, so a person or a nested tmux client that arrives
 * between two send_keys calls makes the second one refused.
 */
import { assert, assertEquals, assertMatch } from "../support/assert.ts";
import { connectInProcess, connectStdio, fails, ok } from "../support/client.ts";
import { eventually, TmuxFixture } from "../support/fixture.ts";

const SHELL = "env -i PATH=/usr/local/bin:/usr/bin:/bin TERM=screen PS1='$ ' HISTFILE=/dev/null " +
  "bash --norc --noprofile";

/**
 * Send to `paneId`, let `attach` bring a person in, and check the next send is refused before
 * tmux sees it; once they are gone, the next listing says so and a send goes through.
 */
async function refusedWhileAttached(
  fx: TmuxFixture,
  paneId: string,
  attach: () => Promise<() => Promise<void>>,
): Promise<void> {
  const { client, close } = await connectInProcess(["-S", fx.socket]);
  try {
    await ok(client, "send_keys", { paneId, keys: "a", enter: false });
    const detach = await attach();
    try {
      const refused = await fails(client, "send_keys", { paneId, keys: "b", enter: false });
      assertEquals([refused.code, refused.effects], ["target_denied", "none"]);
      assertMatch(refused.text, /a person is watching pane/);
    } finally {
      await detach();
    }
    await ok(client, "send_keys", { paneId, keys: "c", enter: false });
  } finally {
    await close();
  }
}

Deno.test("guard: a person attaching between two send_keys calls refuses the second", async () => {
  await using fx = await TmuxFixture.start({ session: "in", command: "sleep 100000" });
  const paneId = await fx.display("=in:0", "#{pane_id}");
  await refusedWhileAttached(fx, paneId, () => fx.attachPerson("in"));
});

Deno.test("guard: a nested tmux client started by the first send_keys refuses the second", async () => {
  await using fx = await TmuxFixture.start({ session: "in", command: SHELL });
  await fx.tmux("new-session", "-d", "-s", "work", "sleep 100000");
  const host = await fx.display("=in:0", "#{pane_id}");
  const { client, close } = await connectInProcess(["-S", fx.socket]);
  try {
    // The first call is allowed, and it is what makes the pane host a client of this server.
    await ok(client, "send_keys", {
      paneId: host,
      keys: `env -u TMUX TERM=screen tmux -S ${fx.socket} attach -t =work`,
    });
    const attached = await eventually(async () =>
      (await fx.tmux("list-clients", "-F", "#{session_name}")).split("\n").includes("work")
    );
    assertEquals(attached, true, "the nested client attached");
    const refused = await fails(client, "send_keys", {
      paneId: host,
      keys: "C-b",
      enter: false,
      force: true,
    });
    assertEquals([refused.code, refused.effects], ["target_denied", "none"]);
    assertMatch(refused.text, /runs a tmux client attached to this tmux server/);
  } finally {
    await close();
  }
});

Deno.test("guard: a control-mode person attaching between two calls refuses the second, through a linked window", async () => {
  await using fx = await TmuxFixture.start({ session: "in", command: "sleep 100000" });
  const paneId = await fx.display("=in:0", "#{pane_id}");
  await fx.tmux("new-session", "-d", "-s", "two", "sleep 100000");
  await fx.tmux("link-window", "-d", "-s", "=in:0", "-t", "=two:5");
  // Session two's current window is its own: only the link shows the person pane %0.
  await refusedWhileAttached(fx, paneId, () => fx.attachControlPerson("two"));
});

Deno.test("guard: window links are listed only while a control-mode person is attached", async () => {
  await using fx = await TmuxFixture.start({ session: "in", command: "sleep 100000" });
  const paneId = await fx.display("=in:0", "#{pane_id}");
  await fx.tmux("new-session", "-d", "-s", "two", "sleep 100000");
  const server = await connectStdio(["-S", fx.socket], { TMUX_MCP_DEBUG: "1" });
  // The tmux commands of each logged call (names only), from the last `from` lines on.
  const calls = (from: number) =>
    server.stderr().split("\n").slice(from).flatMap((l) => l.match(/tmux: .* ms (\S+)/)?.[1] ?? []);
  try {
    const before = server.stderr().split("\n").length - 1;
    await ok(server.client, "send_keys", { paneId, keys: "a", enter: false });
    const plain = calls(before);
    assert(plain.some((c) => c.startsWith("list-clients,list-panes")), plain.join(" "));
    assert(!plain.some((c) => c.includes("list-windows")), plain.join(" "));
    const detach = await fx.attachControlPerson("two");
    try {
      const from = server.stderr().split("\n").length - 1;
      // The person sees session two only: pane %0 of session in is not theirs, and is typed into.
      await ok(server.client, "send_keys", { paneId, keys: "b", enter: false });
      assert(calls(from).includes("list-windows"), calls(from).join(" "));
    } finally {
      await detach();
    }
  } finally {
    await server.close();
  }
});
