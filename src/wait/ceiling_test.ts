/** The wait ceiling, table-driven: what each waiting tool's timeout becomes and what it discloses. */
import { assertEquals } from "../../tests/support/assert.ts";
import { WAIT_DEFAULT_MS, waitBudget } from "./ceiling.ts";

Deno.test("the ceiling clamps an asked timeout and says so; a default is kept under it silently", () => {
  const cases: [number | undefined, number, number, number, boolean][] = [
    // [asked, fallback, ceiling, timeoutMs, timeoutClamped]
    [5_000, WAIT_DEFAULT_MS, 60_000, 5_000, false],
    [120_000, WAIT_DEFAULT_MS, 60_000, 60_000, true],
    [60_000, WAIT_DEFAULT_MS, 60_000, 60_000, false],
    [0, WAIT_DEFAULT_MS, 60_000, 0, false],
    // No timeout asked: the tool's default, under the ceiling, never "clamped".
    [undefined, WAIT_DEFAULT_MS, 60_000, 30_000, false],
    [undefined, WAIT_DEFAULT_MS, 1_000, 1_000, false],
    // capture_since and the pane view wait nothing unless asked.
    [undefined, 0, 30_000, 0, false],
    // run_shell_command and wait_for_command default to the ceiling itself.
    [undefined, 30_000, 30_000, 30_000, false],
    // waitFor's numbers are not schema integers: whole milliseconds, floored before the clamp.
    [1_500.9, WAIT_DEFAULT_MS, 60_000, 1_500, false],
    [1_000.5, WAIT_DEFAULT_MS, 1_000, 1_000, false],
    [Number.MAX_SAFE_INTEGER, WAIT_DEFAULT_MS, 30_000, 30_000, true],
  ];
  for (const [asked, fallback, ceiling, timeoutMs, timeoutClamped] of cases) {
    assertEquals(
      waitBudget(asked, fallback, ceiling),
      { timeoutMs, timeoutClamped },
      `${asked} / ${fallback} under ${ceiling}`,
    );
  }
});
