/** tmux's command line without tmux (docs/design.md §5.1–§5.2): socket flags, chains, escaping. */
import { assertEquals, assertThrows } from "../../../tests/support/assert.ts";
import { ToolError } from "../../errors.ts";
import {
  chainArgs,
  commandList,
  controlArgs,
  describeSocket,
  escapeArgument,
  type SocketSpec,
} from "./argv.ts";

const SOCKETS: Array<[SocketSpec, string[], string]> = [
  [{ kind: "default" }, [], "tmux's default socket"],
  [{ kind: "name", name: "work" }, ["-L", "work"], 'socket name "work"'],
  [{ kind: "path", path: "/tmp/s" }, ["-S", "/tmp/s"], "socket /tmp/s"],
];

Deno.test("chains: -u and the socket first, `;` between commands, a trailing ; escaped", () => {
  for (const [socket, flags, name] of SOCKETS) {
    assertEquals(chainArgs(socket, [["list-sessions"]]), ["-u", ...flags, "list-sessions"]);
    assertEquals(describeSocket(socket), name);
  }
  assertEquals(
    chainArgs({ kind: "default" }, [["rename-window", "x;"], ["kill-server;"], ["a", ";"]]),
    ["-u", "rename-window", "x\\;", ";", "kill-server\\;", ";", "a", "\\;"],
  );
  assertEquals(commandList(["list-sessions"]), [["list-sessions"]]);
  assertEquals(commandList([["a"], ["b"]]), [["a"], ["b"]]);
  const cases: Array<[string, string]> = [
    ["plain", "plain"],
    ["end;", "end\\;"],
    ["semi;colon", "semi;colon"],
    ["end\\;", "end\\\\;"],
    ["", ""],
  ];
  for (const [arg, escaped] of cases) assertEquals(escapeArgument(arg), escaped, arg);
  assertThrows(() => escapeArgument("a\0b"), ToolError, "NUL");
});

Deno.test("the control attach: -C attach -E, client flags, and only a session id", () => {
  assertEquals(controlArgs({ kind: "name", name: "w" }, "$3", []), [
    "-u",
    "-L",
    "w",
    "-C",
    "attach",
    "-E",
    "-t",
    "$3",
  ]);
  assertEquals(controlArgs({ kind: "default" }, "$0", ["no-output", "ignore-size"]), [
    "-u",
    "-C",
    "attach",
    "-E",
    "-f",
    "no-output,ignore-size",
    "-t",
    "$0",
  ]);
  const refused: Array<[string, string[]]> = [["main", []], ["$1;x", []], ["$1", ["a,b"]], [
    "$1",
    ["Output"],
  ]];
  for (const [session, flags] of refused) {
    assertThrows(() => controlArgs({ kind: "default" }, session, flags), Error, "internal");
  }
});
