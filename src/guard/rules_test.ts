/**
 * The guards' pure rules (src/guard/rules.ts, docs/design.md §6) against made-up pane facts: no
 * tmux. The preflights that list a real server and apply them are tested in input, teardown,
 * manage and ask tests.
 */
import type { ToolError } from "../errors.ts";
import {
  accessRefusal,
  type AccessRules,
  checkNotNestedClient,
  checkReadsInput,
  containedIn,
  type GuardTarget,
  type Listing,
  mergeRows,
  partnersOf,
  receiversIn,
  receivesCopy,
  type ViewChange,
  viewChanges,
} from "./rules.ts";
import type { PaneFacts } from "../rows.ts";
import { assert, assertEquals, assertMatch } from "../../tests/support/assert.ts";

/** A live, idle, unwatched pane `%n` in window `@w` of session `$s`, with `over` applied. */
function pane(n: number, w = 1, s = 0, over: Partial<PaneFacts> = {}): PaneFacts {
  return {
    paneId: `%${n}`,
    generation: `g${n}`,
    sessionId: `$${s}`,
    sessionName: `s${s}`,
    windowId: `@${w}`,
    windowIndex: w,
    windowName: `w${w}`,
    paneIndex: n,
    active: false,
    width: 80,
    height: 24,
    left: 0,
    top: 0,
    currentCommand: "bash",
    currentPath: "/",
    pid: 1000 + n,
    dead: false,
    inMode: false,
    title: "",
    isCaller: false,
    isAttended: false,
    hostsTmuxClient: false,
    historyLines: 0,
    historyLimit: 2000,
    alternateOn: false,
    synchronized: false,
    inputOff: false,
    ...over,
  };
}

/** The code and a message fragment of a thrown or returned refusal; "" when none. */
function outcome(run: () => ToolError | undefined | void): string {
  try {
    const refusal = run();
    return refusal ? `${refusal.code}: ${refusal.message}` : "";
  } catch (error) {
    return `${(error as ToolError).code}: ${(error as Error).message}`;
  }
}

const RULES: AccessRules = { force: false, allowWatchedPanes: false, action: "input to it" };

Deno.test("accessRefusal: watched needs --allow-watched-panes (force has no say); the caller's pane needs force", () => {
  const table: Array<[string, Partial<PaneFacts>, Partial<AccessRules>, RegExp | ""]> = [
    ["idle pane", {}, {}, ""],
    ["watched", { isAttended: true }, {}, /^target_denied: a person is watching pane %1/],
    ["watched, force", { isAttended: true }, { force: true }, /a person is watching/],
    ["watched, allowed", { isAttended: true }, { allowWatchedPanes: true }, ""],
    ["caller", { isCaller: true }, {}, /^target_denied: pane %1 is the pane this server/],
    ["caller, force", { isCaller: true }, { force: true }, ""],
    ["caller and watched, allowed", { isCaller: true, isAttended: true }, {
      allowWatchedPanes: true,
    }, /needs force/],
    ["partner", { isAttended: true }, { via: "%9" }, /pane %1 \(it is synchronized with %9/],
    ["contained", { isCaller: true }, { within: "window @2" }, /pane %1 \(it is in window @2\)/],
  ];
  for (const [name, facts, rules, expected] of table) {
    const got = outcome(() => accessRefusal(pane(1, 1, 0, facts), { ...RULES, ...rules }));
    if (expected === "") assertEquals(got, "", name);
    else assert(expected.test(got), `${name}: ${got}`);
  }
});

Deno.test("checkReadsInput and checkNotNestedClient: dead, in a mode, input off, a nested client", () => {
  const table: Array<[string, Partial<PaneFacts>, string]> = [
    ["live", {}, ""],
    [
      "dead",
      { dead: true, exitStatus: 3 },
      "target_denied: pane %1 is dead: its program exited with status 3, so nothing reads input",
    ],
    [
      "dead, no status",
      { dead: true },
      "target_denied: pane %1 is dead: its program exited, so nothing reads input",
    ],
    [
      "in a mode",
      { inMode: true },
      "target_denied: pane %1 is in a mode (copy mode or similar): keys would drive the mode, not the program",
    ],
    [
      "input off",
      { inputOff: true },
      "target_denied: input to pane %1 is disabled (select-pane -d): tmux drops every key",
    ],
    // Dead comes first: a dead pane in a mode is reported dead.
    [
      "dead in a mode",
      { dead: true, inMode: true },
      "target_denied: pane %1 is dead: its program exited, so nothing reads input",
    ],
  ];
  for (const [name, facts, expected] of table) {
    assertEquals(outcome(() => checkReadsInput(pane(1, 1, 0, facts))), expected, name);
  }
  assertEquals(outcome(() => checkNotNestedClient(pane(1))), "");
  assertMatch(
    outcome(() => checkNotNestedClient(pane(2, 1, 0, { hostsTmuxClient: true }), "%1")),
    /^target_denied: pane %2 \(it is synchronized with %1, so it receives the same input\) runs a tmux client/,
  );
});

Deno.test("mergeRows: one row per pane, watched when any linked session shows it", () => {
  const merged = mergeRows([
    pane(1, 1, 0),
    pane(1, 1, 1, { isAttended: true }),
    pane(1, 1, 2),
    pane(2, 1, 0),
  ]);
  assertEquals([...merged.keys()], ["%1", "%2"]);
  assertEquals([merged.get("%1")!.isAttended, merged.get("%1")!.sessionId], [true, "$0"]);
  assertEquals(merged.get("%2")!.isAttended, false);
});

Deno.test("synchronized cohorts: partners, receivers and who tmux copies keys to", () => {
  const sync = { synchronized: true };
  const panes = mergeRows([
    pane(1, 1, 0, sync),
    pane(2, 1, 0, { ...sync, active: true }),
    pane(3, 1, 0, { ...sync, dead: true }),
    pane(4, 1, 0, { ...sync, inMode: true }),
    pane(5, 1, 0), // same window, not synchronized
    pane(6, 2, 0, sync), // another window
    pane(7, 1, 0, { ...sync, inputOff: true }),
  ]);
  const ids = (list: PaneFacts[]) => list.map((p) => p.paneId);
  const table: Array<[string, string[]]> = [
    ["%1", ["%2", "%4", "%7"]],
    ["%2", ["%1", "%4", "%7"]],
    ["%5", []],
    ["%6", []],
  ];
  for (const [id, partners] of table) {
    assertEquals(ids(partnersOf(panes, panes.get(id)!)), partners, id);
  }
  const receivers = receiversIn(panes);
  assertEquals(receivers("%1"), ["%1", "%2", "%4", "%7"]);
  assertEquals(receivers("%5"), ["%5"]);
  assertEquals(receivers("%99"), ["%99"]);
  const copies: Array<[string, boolean, boolean]> = [
    ["%1", false, true],
    ["%1", true, false],
    ["%2", true, true],
    ["%4", false, false],
    ["%7", false, false],
  ];
  for (const [id, zoomed, expected] of copies) {
    assertEquals(receivesCopy(panes.get(id)!, zoomed), expected, `${id} zoomed=${zoomed}`);
  }
});

/** Two sessions: $0 with windows @1 (%1 %2) and @2 (%3); $1 with @3 (%4) and @2 linked in. */
const LISTING: Listing = {
  sessions: [
    { sessionId: "$0", sessionName: "main", activeWindowId: "@1" },
    { sessionId: "$1", sessionName: "other", activeWindowId: "@3" },
  ],
  windows: [
    { windowId: "@1", sessionId: "$0", zoomed: false },
    { windowId: "@2", sessionId: "$0", zoomed: false },
    { windowId: "@3", sessionId: "$1", zoomed: false },
    { windowId: "@2", sessionId: "$1", zoomed: false },
  ],
  panes: [
    pane(1, 1, 0, { active: true }),
    pane(2, 1, 0),
    pane(3, 2, 0, { active: true }),
    pane(4, 3, 1, { active: true }),
    pane(3, 2, 1, { active: true, isAttended: true }),
  ],
};

Deno.test("containedIn: a pane, a window, a session and where they live; missing and stale targets", () => {
  const table: Array<[GuardTarget, string]> = [
    [{ pane: "%2" }, "%2 [%2] @1 $0"],
    [{ pane: "%2", generation: "g2" }, "%2 [%2] @1 $0"],
    [{ window: "@1" }, "@1 [%1 %2] @1 $0"],
    [{ window: "@2" }, "@2 [%3] @2 $0 $1"],
    [{ session: "main" }, "$0 [%1 %2 %3] @1 @2 $0 $1"],
    [{ session: "$1" }, "$1 [%3 %4] @2 @3 $0 $1"],
    [{ pane: "%9" }, "target_not_found: no pane %9"],
    [{ window: "@9" }, "target_not_found: no window @9"],
    [{ pane: "%2", generation: "g1" }, "stale_target: pane %2 was replaced since generation"],
  ];
  for (const [target, expected] of table) {
    let got: string;
    try {
      const c = containedIn(LISTING, target);
      got = `${c.targetId} [${c.panes.map((p) => p.paneId).join(" ")}] ` +
        `${c.windowIds.join(" ")} ${c.sessionIds.join(" ")}`;
    } catch (error) {
      got = `${(error as ToolError).code}: ${(error as Error).message}`;
    }
    assertEquals(got.slice(0, expected.length), expected, JSON.stringify(target));
  }
  // A pane listed in two sessions is one pane, watched through either.
  assertEquals(containedIn(LISTING, { pane: "%3" }).panes[0].isAttended, true);
});

Deno.test("viewChanges: the windows a setter changes; selecting what is selected changes nothing", () => {
  const table: Array<[Omit<ViewChange, "action">, string]> = [
    [{ windows: ["@2"] }, "@2=x"],
    [{ panes: ["%2", "%4"] }, "@1=x @3=x"],
    [{ selectPane: "%1" }, ""],
    [{ selectPane: "%2" }, "@1=x"],
    [{ selectWindow: "@1" }, ""],
    [
      { selectWindow: "@2" },
      "@1=x (it replaces window @1 on their screen) @3=x (it replaces window @3 on their screen)",
    ],
    [{ selectWindow: "@3" }, ""],
    [{ panes: ["%9"] }, "target_not_found: no pane %9"],
    [{ windows: ["@9"] }, "target_not_found: no window @9"],
  ];
  for (const [change, expected] of table) {
    let got: string;
    try {
      got = [...viewChanges(LISTING, { action: "x", ...change })]
        .map(([id, action]) => `${id}=${action}`).join(" ");
    } catch (error) {
      got = `${(error as ToolError).code}: ${(error as Error).message}`;
    }
    assertEquals(got, expected, JSON.stringify(change));
  }
});
