/** The recording directory's bounds, as plans. */
import { assertEquals } from "../../tests/support/assert.ts";
import { type DirFile, paneFileName, partName, planPrune, rotates } from "./caps.ts";

Deno.test("a file rotates before a write would take it past its cap, never before its first", () => {
  const table: Array<[number, number, number, boolean]> = [
    [0, 10, 100, false],
    [0, 1000, 100, false], // the first write always lands, even over the cap
    [90, 10, 100, false],
    [90, 11, 100, true],
    [100, 1, 100, true],
    [50, 1000, 100, true],
  ];
  for (const [written, next, cap, expected] of table) {
    assertEquals([written, next, cap, rotates(written, next, cap)], [written, next, cap, expected]);
  }
});

Deno.test("a prune removes the oldest closed files until the directory fits, never an open one", () => {
  const files: DirFile[] = [
    { path: "s1/actions.jsonl", size: 40, mtime: 1, open: false },
    { path: "s1/local-p1.cast", size: 50, mtime: 2, open: false },
    { path: "s2/local-p2.cast", size: 30, mtime: 0, open: true },
    { path: "s2/actions.jsonl", size: 20, mtime: 3, open: true },
    { path: "s1/local-p1.2.cast", size: 10, mtime: 2, open: false },
  ];
  assertEquals(planPrune(files, 1000), { remove: [], freed: 0, over: false });
  assertEquals(planPrune(files, 110), { remove: ["s1/actions.jsonl"], freed: 40, over: false });
  // Equal ages go by path, whatever order they were listed in.
  assertEquals(planPrune(files, 70), {
    remove: ["s1/actions.jsonl", "s1/local-p1.2.cast", "s1/local-p1.cast"],
    freed: 100,
    over: false,
  });
  assertEquals(planPrune([...files].reverse(), 70).remove, planPrune(files, 70).remove);
  // Only open files left and still over: say so.
  assertEquals(planPrune(files, 10), {
    remove: ["s1/actions.jsonl", "s1/local-p1.2.cast", "s1/local-p1.cast"],
    freed: 100,
    over: true,
  });
});

Deno.test("parts and pane files have safe, ordered names", () => {
  assertEquals(partName("actions.jsonl", 1), "actions.jsonl");
  assertEquals(partName("actions.jsonl", 2), "actions.2.jsonl");
  assertEquals(partName("local-p3.cast", 12), "local-p3.12.cast");
  assertEquals(partName("noext", 3), "noext.3");
  assertEquals(paneFileName("local", "%3", 1), "local-p3.cast");
  assertEquals(paneFileName("box1", "%12", 2), "box1-p12-2.cast");
  assertEquals(paneFileName("../../etc", "%1", 1), "______etc-p1.cast");
  assertEquals(paneFileName("", "%/..", 1), "host-p0.cast");
});
