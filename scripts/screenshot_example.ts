/**
 * Generate docs/screenshot.png, the README's example of screenshot_pane: a private tmux server,
 * one 80x24 pane that prints a test run with a diff, and a table, in colour, and one screenshot_pane
 * call through an in-process MCP client — the same path an agent's call takes.
 *
 *   deno run --allow-run --allow-read --allow-write --allow-env scripts/screenshot_example.ts
 */
import { connectInProcess } from "../tests/support/client.ts";
import { eventually, TmuxFixture } from "../tests/support/fixture.ts";

const E = "\x1b[";
const prompt = `${E}1;32mdev${E}0m:${E}1;34m~/src/app${E}0m$ `;
const scene = [
  `${prompt}deno test tests/parser_test.ts`,
  `${E}2mrunning 4 tests from ./tests/parser_test.ts${E}0m`,
  `parses an empty document ... ${E}32mok${E}0m ${E}2m(2ms)${E}0m`,
  `parses nested lists ... ${E}32mok${E}0m ${E}2m(5ms)${E}0m`,
  `keeps trailing spaces ... ${E}31mFAILED${E}0m ${E}2m(3ms)${E}0m`,
  `reports line numbers ... ${E}32mok${E}0m ${E}2m(1ms)${E}0m`,
  "",
  `${E}1;37;41m ERRORS ${E}0m`,
  `keeps trailing spaces ${E}2m=> ./tests/parser_test.ts:41:6${E}0m`,
  `${E}1;31merror${E}0m: AssertionError: Values are not equal.`,
  `${E}31m-   "a b"${E}0m`,
  `${E}32m+   "a b  "${E}0m`,
  "",
  `${E}31mFAILED${E}0m | 3 passed | ${E}31m1 failed${E}0m ${E}2m(14ms)${E}0m`,
  `${prompt}cat status.txt`,
  "┌──────┬──────────────┬─────────┐",
  `│ ${E}1mpane${E}0m │ ${E}1mcommand${E}0m      │ ${E}1mstate${E}0m   │`,
  "├──────┼──────────────┼─────────┤",
  `│ %0   │ vim          │ ${E}38;5;114mwatched${E}0m │`,
  `│ %1   │ ${E}3mdeno test${E}0m    │ ${E}38;5;214mrunning${E}0m │`,
  `│ %2   │ ${E}4mssh build-01${E}0m │ ${E}38;2;255;90;90mexited${E}0m  │`,
  "└──────┴──────────────┴─────────┘",
  `${prompt}${E}7m git ${E}0m${E}44;97m main ${E}0m ▐░▒▓█ ⠿⣿⡇ ✓ →`,
].join("\r\n");

await using fx = await TmuxFixture.start({ width: 80, height: 24 });
await Deno.writeTextFile(`${fx.dir}/scene`, scene);
const paneId = (await fx.tmux(
  "new-window",
  "-d",
  "-P",
  "-F",
  "#{pane_id}",
  "-t",
  "=main:",
  "sh",
  "-c",
  `cat '${fx.dir}/scene'; exec sleep 100000`,
)).trim();
const shown = await eventually(async () =>
  (await fx.tmux("capture-pane", "-p", "-t", paneId)).includes("main")
);
if (!shown) throw new Error("the example pane did not print its scene");
const { client, close } = await connectInProcess(["-S", fx.socket]);
try {
  const result = await client.callTool({ name: "screenshot_pane", arguments: { paneId } });
  const image = (result.content as Array<{ type: string; data?: string }>)
    .find((block) => block.type === "image");
  if (!image?.data) throw new Error(`no image: ${JSON.stringify(result.content)}`);
  const png = Uint8Array.from(atob(image.data), (c) => c.charCodeAt(0));
  const out = new URL("../docs/screenshot.png", import.meta.url);
  await Deno.writeFile(out, png);
  console.log(`docs/screenshot.png: ${JSON.stringify(result.structuredContent)}`);
} finally {
  await close();
}
