/**
 * How long one agent pattern over one 200,000-character line holds the event loop (issue 29,
 * item 10; docs/design.md §7.7 rule 10): the longest gap between 5 ms ticks while compilePattern's
 * matcher answers, beside the time the match took.
 *
 *   deno run scripts/pattern_stall.ts
 */
import { compilePattern } from "../src/pattern/compile.ts";

const LINE = "a".repeat(200_000) + "@y.com";
const PATTERNS: [string, boolean][] = [
  ["[a-z]{1,64}@[a-z]{1,64}\\.com", false],
  ["[a-z]{1,200}@[a-z]{1,200}\\.com", false],
  ["\\bfoo\\b", false],
  ["y.com", true],
];

const bounds = { signal: new AbortController().signal, deadline: Infinity };
for (const [pattern, ignoreCase] of PATTERNS) {
  const find = compilePattern(pattern, { regex: !ignoreCase, ignoreCase });
  await find("warm up", bounds);
  let last = performance.now();
  let longest = 0;
  const ticker = setInterval(() => {
    const now = performance.now();
    longest = Math.max(longest, now - last);
    last = now;
  }, 5);
  await new Promise((resolve) => setTimeout(resolve, 20));
  const started = performance.now();
  const at = await find(LINE, bounds);
  const took = performance.now() - started;
  await new Promise((resolve) => setTimeout(resolve, 20));
  clearInterval(ticker);
  console.log(
    `${pattern}${ignoreCase ? " (ignoreCase)" : ""}: at ${at}, match ${took.toFixed(0)} ms, ` +
      `longest stall ${longest.toFixed(0)} ms`,
  );
}
Deno.exit(0);
