/** Runs last (files run in name order): no tmux process of our test fixtures may survive. */
import { assertEquals } from "./support/assert.ts";
import { FIXTURE_PREFIX } from "./support/fixture.ts";

Deno.test("after the suite no tmux server or client of ours is alive", async () => {
  const out = await new Deno.Command("ps", { args: ["-eo", "pid,args"] }).output();
  const ours = new TextDecoder().decode(out.stdout).split("\n")
    .filter((line) => /\btmux\b/.test(line) && line.includes(FIXTURE_PREFIX));
  assertEquals(ours, []);
});
