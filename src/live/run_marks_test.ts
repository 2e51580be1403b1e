/**
 * The busy marks on their own (docs/design.md §6.12): when a mark is over, table-driven, and the
 * registry ending a mark that a check finds over; a PaneStream fed by hand, no tmux.
 */
import { assert, assertEquals } from "../../tests/support/assert.ts";
import { markOver, type PaneNow, RunMarks } from "./run_marks.ts";
import { FramedRun } from "./run_frame.ts";
import { PaneStream } from "./stream.ts";
import { ToolError } from "../errors.ts";
import { blankSeed } from "../../tests/support/seed.ts";

/** A command that started in bash at generation g1 and `exec`s python3, with `over` applied. */
function run(over: Partial<Parameters<typeof markOver>[0]> = {}) {
  return {
    settled: false,
    started: true,
    keyPressed: false,
    generation: "g1",
    shell: "bash",
    execs: new Set(["python3"]),
    ...over,
  };
}

/** The pane alive at g1 with `command` in front. */
function pane(command: string, over: Partial<PaneNow> = {}): PaneNow {
  return { paneId: "%1", generation: "g1", dead: false, currentCommand: command, ...over };
}

Deno.test("markOver: a mark ends at its end frame, its stream's end, the pane's death or replacement, an exec'd program, or the shell back after a key", () => {
  const cases: Array<[string, ReturnType<typeof run>, boolean, PaneNow, boolean]> = [
    ["running: another program in front", run(), false, pane("sleep"), false],
    ["the shell in front alone proves nothing", run(), false, pane("bash"), false],
    ["the end frame came", run({ settled: true }), false, pane("sleep"), true],
    ["the stream ended", run(), true, pane("sleep"), true],
    ["the pane died", run(), false, pane("bash", { dead: true }), true],
    ["the pane was replaced", run(), false, pane("bash", { generation: "g2" }), true],
    ["the command exec'd python3", run(), false, pane("python3"), true],
    [
      "python3 before the start frame is not the exec",
      run({ started: false }),
      false,
      pane(
        "python3",
      ),
      false,
    ],
    [
      "a key was pressed and the shell is back",
      run({ keyPressed: true }),
      false,
      pane("bash"),
      true,
    ],
    [
      "a key was pressed, another program in front",
      run({ keyPressed: true }),
      false,
      pane(
        "less",
      ),
      false,
    ],
    [
      "a key was pressed before the start frame (C-c flushed the waiting line)",
      run({ keyPressed: true, started: false }),
      false,
      pane("bash"),
      true,
    ],
    [
      "a program of another name than the shell",
      run({ keyPressed: true }),
      false,
      pane("zsh"),
      false,
    ],
  ];
  for (const [name, marked, ended, now, want] of cases) {
    assertEquals(markOver(marked, ended, now), want, name);
  }
});

Deno.test("RunMarks: a check that finds the mark over releases it, and the pane is no longer marked", () => {
  const stream = new PaneStream(
    { paneId: "%1", generation: "g1", sessionId: "$0", windowId: "@0" },
    100,
  );
  stream.seed(blankSeed(40, 6), stream.changes, false);
  const marks = new RunMarks();
  const framed = new FramedRun({
    paneId: "%1",
    generation: "g1",
    shell: "bash",
    buffer: "tmux-mcp-0",
    execs: new Set(),
  });
  marks.add(framed, stream);
  assertEquals(marks.marked(), ["%1"]);
  assert(marks.pending(pane("bash")) === framed, "still running: the mark holds");
  assertEquals(marks.pending(pane("bash", { generation: "g2" })), undefined);
  assertEquals([marks.size, marks.holds(framed)], [0, false]);
  // The stream's end releases a mark by itself (the run settles).
  const again = new FramedRun({
    paneId: "%1",
    generation: "g1",
    shell: "bash",
    buffer: "tmux-mcp-1",
    execs: new Set(),
  });
  marks.add(again, stream);
  stream.end(new ToolError("server_gone", "gone"));
  assertEquals(marks.size, 0);
});
