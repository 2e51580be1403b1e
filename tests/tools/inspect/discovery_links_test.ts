/**
 * list_panes learns which sessions a window is linked into from its own rows (docs/design.md
 * §6.13): a control-mode person on a second session watches the window linked there, and only it.
 */
import { assertEquals } from "../../support/assert.ts";
import { connectInProcess, ok } from "../../support/client.ts";
import { TmuxFixture } from "../../support/fixture.ts";

interface Row {
  paneId: string;
  sessionName: string;
  isAttended: boolean;
}

Deno.test("list_panes: a window linked into a session a control-mode person watches is attended", async () => {
  await using fx = await TmuxFixture.start({ session: "one" });
  const linked = await fx.newWindow("sleep 100000", "=one:");
  await fx.tmux("new-session", "-d", "-s", "two", "sleep 100000");
  await fx.tmux("link-window", "-d", "-s", `=one:1`, "-t", "=two:5");
  const { client, close } = await connectInProcess(["-S", fx.socket]);
  const detach = await fx.attachControlPerson("two");
  try {
    const { panes } = await ok<{ panes: Row[] }>(client, "list_panes");
    const attended = (name: string) =>
      panes.filter((p) => p.sessionName === name).map((p) => [p.paneId, p.isAttended]).sort();
    // In both sessions the linked window's pane is watched; session one's own window is not.
    assertEquals(attended("one"), [["%0", false], [linked, true]].sort());
    assertEquals(attended("two"), [["%2", true], [linked, true]].sort());
    // Filtered to one session or one window, the same answer.
    const one = await ok<{ panes: Row[] }>(client, "list_panes", { session: "one" });
    assertEquals(one.panes.map((p) => [p.paneId, p.isAttended]).sort(), attended("one"));
  } finally {
    await detach();
    await close();
  }
});
