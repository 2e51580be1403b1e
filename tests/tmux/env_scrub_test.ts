/**
 * A tmux server that create_session starts holds none of tmux-mcp's `TMUX_MCP_*`/`LIBTMUX_*`
 * variables in its global environment, known or not, and the server process never receives the
 * HTTP token (docs/design.md §5.12).
 */
import { assert, assertEquals } from "../support/assert.ts";
import { connectStdio, ok } from "../support/client.ts";
import { FIXTURE_PREFIX, tmuxOn } from "../support/fixture.ts";

const TOKEN = "scrub-canary-token-8231";
const OTHER = "scrub-canary-other-5517";

/** A process's environment, NUL-separated (read through `cat`, like any other user's process). */
async function environOf(pid: string): Promise<string> {
  const out = await new Deno.Command("cat", { args: [`/proc/${pid}/environ`] }).output();
  const environ = new TextDecoder().decode(out.stdout);
  assert(environ.includes("PATH="), `the environment of ${pid} was read`);
  return environ;
}

Deno.test("create_session starting the server: no TMUX_MCP_*/LIBTMUX_* name stays in its global environment, and the token never reaches the server process", async () => {
  const dir = await Deno.makeTempDir({ prefix: FIXTURE_PREFIX });
  const socket = `${dir}/scrub.sock`;
  const { client, close } = await connectStdio(["-S", socket], {
    TMUX_MCP_HTTP_TOKEN: TOKEN,
    TMUX_MCP_SOMETHING_ELSE: OTHER,
    LIBTMUX_SOMETHING_ELSE: OTHER,
  });
  try {
    assert(!await tmuxOn(socket, "list-sessions").then(() => true, () => false), "no server yet");
    const made = await ok<{ serverStarted: boolean; paneId: string }>(
      client,
      "create_session",
      { name: "scrubbed" },
    );
    assertEquals(made.serverStarted, true, "our process started the tmux server");

    const global = await tmuxOn(socket, "show-environment", "-g");
    assert(global.includes("PATH="), "the global environment was read");
    assert(!/^-?(TMUX_MCP_|LIBTMUX_)/m.test(global), global);
    assert(!global.includes(TOKEN) && !global.includes(OTHER), global);

    // A pane made after the scrub inherits none of them either.
    const split = await ok<{ paneId: string }>(client, "split_window", {
      paneId: made.paneId,
      direction: "below",
    });
    if (Deno.build.os === "linux") {
      const panePid =
        (await tmuxOn(socket, "display-message", "-p", "-t", split.paneId, "#{pane_pid}"))
          .trim();
      const environ = await environOf(panePid);
      assert(!environ.includes(TOKEN) && !environ.includes(OTHER), "the new pane has neither");
    }

    if (Deno.build.os === "linux") {
      const serverPid = (await tmuxOn(socket, "display-message", "-p", "#{pid}")).trim();
      const environ = await environOf(serverPid);
      assert(!environ.includes(TOKEN), "the tmux server process never received the token");
    }
  } finally {
    await close();
    await tmuxOn(socket, "kill-server").catch(() => {});
    await Deno.remove(dir, { recursive: true }).catch(() => {});
  }
});
