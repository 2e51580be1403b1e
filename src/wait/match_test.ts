/** The yield rule and the no-match rule of every wait, table-driven, with a clock of their own. */
import { assert, assertEquals, assertRejects } from "../../tests/support/assert.ts";
import { ToolError } from "../errors.ts";
import { type LineTest, MatchPace, missedMatch, SLICE_MS, tryLine } from "./match.ts";

const never = new AbortController().signal;
const later = () => ({ signal: never, deadline: Date.now() + 60_000 });

/** A clock the test moves by hand. */
function clock(): { now: () => number; advance: (ms: number) => void } {
  let t = 1_000;
  return { now: () => t, advance: (ms) => t += ms };
}

/** Whether a timer queued before `work` ran while it ran (it handed the event loop a turn). */
async function turned(work: () => Promise<unknown>): Promise<boolean> {
  let fired = false;
  const timer = setTimeout(() => fired = true, 0);
  await work();
  const ran = fired;
  clearTimeout(timer);
  return ran;
}

Deno.test("the yield rule: a slice of matching, then one turn of the event loop", async () => {
  const cases: [number, boolean][] = [
    // [ms of matching so far, a turn is due]
    [0, false],
    [SLICE_MS - 1, false],
    [SLICE_MS, true],
    [500, true],
  ];
  for (const [worked, due] of cases) {
    const time = clock();
    const pace = new MatchPace(time.now);
    time.advance(worked);
    assertEquals(pace.due, due, `${worked} ms`);
    assertEquals(await turned(() => pace.breathe(never)), due, `${worked} ms: a turn`);
    // A turn starts a fresh slice.
    assertEquals(pace.due, false);
  }
  // Cancelled while it yielded: the wait ends as cancelled.
  const time = clock();
  const pace = new MatchPace(time.now);
  time.advance(SLICE_MS);
  const controller = new AbortController();
  controller.abort();
  const error = await assertRejects(() => pace.breathe(controller.signal, "stop"), ToolError);
  assertEquals([error.code, error.message], ["cancelled", "stop"]);
});

Deno.test("the no-match rule: a worker's timeout is no match; anything else is the call's failure", () => {
  const cases: [unknown, string][] = [
    [new ToolError("timeout", "matched past the deadline"), "late"],
    [new ToolError("cancelled", "the call was cancelled"), "cancelled"],
    [new ToolError("busy", "64 long lines already wait"), "busy"],
    [new Error("bug"), "Error"],
  ];
  for (const [error, outcome] of cases) {
    let got: string;
    try {
      got = missedMatch(error);
    } catch (thrown) {
      assert(thrown === error, "rethrown as it came");
      got = thrown instanceof ToolError ? thrown.code : (thrown as Error).name;
    }
    assertEquals(got, outcome, String(error));
  }
});

Deno.test("a line's tests: the first answer wins; late past the deadline; ended when the stream went", async () => {
  const no: LineTest<string> = () => undefined;
  const yes: LineTest<string> = (line) => `hit ${line}`;
  const worker = (answer: string | undefined): LineTest<string> => () => Promise.resolve(answer);
  const failing = (code: "timeout" | "busy"): LineTest<string> => () =>
    Promise.reject(new ToolError(code, code));
  const cases: [LineTest<string>[], "past" | "future", boolean, unknown][] = [
    // [tests, deadline, stream still there, answer]
    [[], "future", true, { value: undefined }],
    [[no, no], "future", true, { value: undefined }],
    [[no, yes, failing("busy")], "future", true, { value: "hit x" }],
    [[worker(undefined), worker("later")], "future", true, { value: "later" }],
    [[yes], "past", true, "late"],
    [[failing("timeout"), yes], "future", true, "late"],
    // The stream ended while a worker matched: nothing more is tried.
    [[worker(undefined), yes], "future", false, "ended"],
  ];
  for (const [tests, deadline, alive, answer] of cases) {
    const bounds = { signal: never, deadline: deadline === "past" ? Date.now() - 1 : 9e15 };
    assertEquals(
      await tryLine(tests, "x", bounds, new MatchPace(), () => alive),
      answer,
      `${tests.length} tests, ${deadline}, ${alive}`,
    );
  }
  const busy = await assertRejects(
    () => tryLine([failing("busy")], "x", later(), new MatchPace()),
    ToolError,
  );
  assertEquals(busy.code, "busy");
});

Deno.test("a line's tests yield between them once the slice is used, not only between lines", async () => {
  const time = clock();
  const pace = new MatchPace(time.now);
  let tried = 0;
  let triedAtTurn = -1;
  const timer = setTimeout(() => triedAtTurn = tried, 0);
  // Each of 64 patterns costs 15 ms of this clock: the turn comes before the third.
  const heavy: LineTest<never> = () => {
    tried++;
    time.advance(15);
    return undefined;
  };
  await tryLine(Array(64).fill(heavy), "a long line", later(), pace);
  clearTimeout(timer);
  assertEquals([tried, triedAtTurn], [64, 2]);
});
