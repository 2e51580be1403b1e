/**
 * Runs last (files run in name order): no process of THIS run's fixtures may survive.
 *
 * Every process a fixture starts names the fixture's directory in its arguments — the tmux server
 * (`-S <dir>/tmux.sock`), the MCP server's control clients, the person clients and their `script`
 * wrappers — and that directory starts with this run's {@link FIXTURE_PREFIX}, which holds this
 * process's id. Other suites running on the same machine use other prefixes and are not counted.
 */
import { assertEquals } from "./support/assert.ts";
import { FIXTURE_PREFIX } from "./support/fixture.ts";

Deno.test("after the suite no tmux server or client of ours is alive", async () => {
  const out = await new Deno.Command("ps", { args: ["-eo", "pid,args"] }).output();
  const ours = new TextDecoder().decode(out.stdout).split("\n")
    .filter((line) => line.includes(FIXTURE_PREFIX));
  assertEquals(ours, []);
});

Deno.test("after the suite no fixture directory of ours is left", async () => {
  const tmp = Deno.env.get("TMPDIR") || "/tmp";
  const left: string[] = [];
  for await (const entry of Deno.readDir(tmp)) {
    if (entry.name.startsWith(FIXTURE_PREFIX)) left.push(entry.name);
  }
  assertEquals(left, []);
});
