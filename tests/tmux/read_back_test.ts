/**
 * Reads that fell behind the follower's kept rows (docs/design.md §7.3): rows tmux still holds come
 * back from tmux's history, in order and once; rows tmux no longer holds (cleared history,
 * `ESC [ 3 J`) and rows from before a resize are `missedRows`. Real tmux, a real MCP client.
 */
import { assert, assertEquals } from "../support/assert.ts";
import type { Client } from "@modelcontextprotocol/sdk/client";
import { connectInProcess, ok } from "../support/client.ts";
import { eventually, TmuxFixture } from "../support/fixture.ts";

/** A capture_since result: missedRows and truncated only when not 0 or false (§3.1). */
interface Since {
  text: string;
  cursor?: string;
  missedRows?: number;
  truncated?: boolean;
  outcome: string;
}

const BURST = 500;
const BIG = { maxLines: 100_000, maxBytes: 262_144 };

/**
 * A pane that prints the next BURST numbers when it reads `b`, and `ESC [ 3 J` when it reads `e`;
 * it echoes nothing, so its rows are the numbers alone (after `ready`).
 */
const PANE = "sh -c 'stty -echo; echo ready; n=0; while read cmd; do case $cmd in " +
  "b) seq $((n+1)) $((n+" + BURST + ")); n=$((n+" + BURST + "));; " +
  'e) printf "\\033[3J";; esac; done\'';

/** A reader following %0 through capture_since cursors. */
class Reader {
  /** Every number read so far, in the order read. */
  readonly numbers: number[] = [];
  readonly missed: number[] = [];
  #cursor = "";

  constructor(readonly client: Client) {}

  /** Follow the pane once it is ready (a line typed before `stty -echo` ran would be echoed). */
  async start(fx: TmuxFixture): Promise<void> {
    assert(await eventually(async () => (await fx.tmux("capture-pane", "-p")).startsWith("ready")));
    const first = await ok<Since>(this.client, "capture_since", { paneId: "%0" });
    this.#cursor = first.cursor!;
  }

  /** Read until `last` has come; returns the missedRows of those reads. */
  async until(last: number): Promise<number> {
    let missed = 0;
    while (!this.numbers.includes(last)) {
      const next = await ok<Since>(this.client, "capture_since", {
        paneId: "%0",
        cursor: this.#cursor,
        waitMs: 10_000,
        ...BIG,
      });
      assert(next.outcome !== "timeout", `no output while waiting for ${last}`);
      assertEquals(next.truncated ?? false, false);
      missed += next.missedRows ?? 0;
      this.#cursor = next.cursor!;
      // A read that ends inside a line returns that line again, whole, next time.
      const complete = next.text.slice(0, next.text.lastIndexOf("\n") + 1);
      for (const line of complete.split("\n").slice(0, -1)) this.numbers.push(Number(line));
    }
    this.missed.push(missed);
    return missed;
  }
}

/** Let the pane print a burst; resolves once tmux shows its last number. */
async function burst(fx: TmuxFixture, last: number): Promise<void> {
  await fx.tmux("send-keys", "-t", "%0", "b", "Enter");
  assert(
    await eventually(async () =>
      (await fx.tmux("capture-pane", "-p", "-t", "%0")).includes(`\n${last}\n`)
    ),
    `tmux shows ${last}`,
  );
}

/** Numbers from `first` to `last`. */
function run(first: number, last: number): number[] {
  return Array.from({ length: last - first + 1 }, (_, i) => first + i);
}

Deno.test("capture_since: a reader that falls behind gets every line tmux still holds, once and in order", async () => {
  await using fx = await TmuxFixture.start({ command: PANE });
  const { client, close } = await connectInProcess(["-S", fx.socket]);
  try {
    const reader = new Reader(client);
    await reader.start(fx);
    // Each burst is read only once tmux shows all of it: far more rows than the follower keeps.
    for (let n = BURST; n <= 6 * BURST; n += BURST) {
      await burst(fx, n);
      assertEquals(await reader.until(n), 0, `missedRows of the reads of burst ending ${n}`);
    }
    assertEquals(reader.numbers, run(1, 6 * BURST));
  } finally {
    await close();
  }
});

Deno.test("capture_since: rows tmux no longer holds, or held before a resize, are missedRows", async () => {
  await using fx = await TmuxFixture.start({ command: PANE });
  const { client, close } = await connectInProcess(["-S", fx.socket]);
  try {
    const reader = new Reader(client);
    await reader.start(fx);
    const expected: number[] = [];
    let n = 0;
    /** A burst, then `event`, then the reads: the gap is the burst's first rows, disclosed. */
    const gap = async (event: () => Promise<void>, why: string) => {
      const from = reader.numbers.length;
      n += BURST;
      await burst(fx, n);
      await event();
      const missed = await reader.until(n);
      assert(missed > 0 && missed < BURST, `${why}: ${missed} rows missed`);
      expected.push(...run(n - BURST + 1 + missed, n));
      assertEquals(reader.numbers.slice(from), run(n - BURST + 1 + missed, n), why);
    };
    const whole = async (why: string) => {
      n += BURST;
      await burst(fx, n);
      assertEquals(await reader.until(n), 0, why);
      expected.push(...run(n - BURST + 1, n));
    };
    await whole("before anything");
    await gap(() => fx.tmux("clear-history", "-t", "%0").then(() => {}), "clear-history");
    await whole("after clear-history");
    await gap(async () => {
      await fx.tmux("send-keys", "-t", "%0", "e", "Enter");
      assert(await eventually(async () => (await fx.display("%0", "#{history_size}")) === "0"));
    }, "ESC [ 3 J");
    await whole("after ESC [ 3 J");
    await gap(async () => {
      await fx.tmux("resize-window", "-t", "%0", "-x", "60");
      assert(await eventually(async () => (await fx.display("%0", "#{pane_width}")) === "60"));
    }, "resize");
    await whole("after the resize");
    assertEquals(reader.numbers, expected);
  } finally {
    await close();
  }
});
