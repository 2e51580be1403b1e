/**
 * Who watches what (docs/design.md §6.3), pure: which clients are people, which sessions a
 * control-mode person sees whole (the input guard lists window links only for those, §6.13), and
 * which windows count as watched.
 */
import { assertEquals } from "../../../tests/support/assert.ts";
import { type ClientRow, isWatched, sessionsShownWhole, watchers } from "./watchers.ts";

/** A client row with defaults: a plain client of session $1 showing window @1. */
function client(over: Partial<ClientRow>): ClientRow {
  return {
    pid: 100,
    sessionId: "$1",
    windowId: "@1",
    controlMode: false,
    flags: "attached,focused,UTF-8",
    name: "/dev/pts/3",
    tty: "/dev/pts/3",
    ...over,
  };
}

const OWN = new Set([7]);
const control = (over: Partial<ClientRow> = {}) =>
  client({ controlMode: true, flags: "attached,control-mode,UTF-8", tty: "", ...over });

Deno.test("sessionsShownWhole: only control clients that are people, attached to a session", () => {
  const cases: Array<[string, ClientRow[], string[]]> = [
    ["no clients", [], []],
    ["a plain client sees one window, not its session", [client({})], []],
    ["a control-mode person (iTerm2 -CC)", [control({ sessionId: "$2" })], ["$2"]],
    ["our own control client", [control({ pid: 7 })], []],
    ["a no-output control client (another server's route)", [
      control({ flags: "attached,control-mode,no-output,UTF-8" }),
    ], []],
    ["a control client attached to no session", [control({ sessionId: "" })], []],
    ["two people, one session each", [control({ sessionId: "$1" }), control({ sessionId: "$3" })], [
      "$1",
      "$3",
    ]],
  ];
  for (const [name, clients, want] of cases) {
    assertEquals([...sessionsShownWhole(clients, OWN)].sort(), want, name);
  }
});

Deno.test("watchers: a control-mode person watches every window linked into their session", () => {
  const links = [
    { sessionId: "$1", windowId: "@1" },
    { sessionId: "$1", windowId: "@4" },
    { sessionId: "$2", windowId: "@4" },
    { sessionId: "$2", windowId: "@5" },
  ];
  const seen = watchers([control({ sessionId: "$2", windowId: "@5" })], OWN, links);
  const watched = (windowId: string, active: boolean) => isWatched({ windowId, active }, seen);
  // @4 is linked into $2 too: every pane of it counts, active or not.
  assertEquals([watched("@4", false), watched("@5", false), watched("@1", true)], [
    true,
    true,
    false,
  ]);
  // Without the links (the guard lists none when nobody is in control mode) nothing is whole.
  const plain = watchers([client({ windowId: "@1" })], OWN, []);
  assertEquals(
    [
      isWatched({ windowId: "@1", active: true }, plain),
      isWatched({ windowId: "@1", active: false }, plain),
    ],
    [true, false],
  );
});
