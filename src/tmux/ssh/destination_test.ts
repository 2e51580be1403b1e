/** `--ssh NAME=DESTINATION[,socket-…]` (src/tmux/ssh/destination.ts): what is taken, what not. */
import { assertEquals, assertThrows } from "../../../tests/support/assert.ts";
import { parseSshSpec, parseSshSpecs, type SshHostSpec, SshSpecError } from "./destination.ts";

const ACCEPTED: Array<[string, SshHostSpec]> = [
  ["box1=box", { name: "box1", destination: "box", socket: { kind: "default" } }],
  ["b=user@box.example", {
    name: "b",
    destination: "user@box.example",
    socket: { kind: "default" },
  }],
  ["gpu-2=ssh://me@gpu:2222", {
    name: "gpu-2",
    destination: "ssh://me@gpu:2222",
    socket: { kind: "default" },
  }],
  ["x=alias,socket-name=work", {
    name: "x",
    destination: "alias",
    socket: { kind: "name", name: "work" },
  }],
  ["x=alias,socket-path=/tmp/a b,c", {
    name: "x",
    destination: "alias",
    socket: { kind: "path", path: "/tmp/a b,c" },
  }],
  ["x=[::1]", { name: "x", destination: "[::1]", socket: { kind: "default" } }],
  [`${"a".repeat(32)}=h`, { name: "a".repeat(32), destination: "h", socket: { kind: "default" } }],
  ["x=a=b", { name: "x", destination: "a=b", socket: { kind: "default" } }],
];

Deno.test("--ssh values that are taken", () => {
  for (const [text, spec] of ACCEPTED) assertEquals(parseSshSpec(text), spec, text);
});

const REFUSED: Array<[string, string]> = [
  ["box", "NAME=DESTINATION"],
  ["=box", "must be 1-32 lowercase"],
  ["Box=box", "must be 1-32 lowercase"],
  ["1box=box", "must be 1-32 lowercase"],
  ["box_1=box", "must be 1-32 lowercase"],
  [`${"a".repeat(33)}=h`, "must be 1-32 lowercase"],
  ["local=box", "reserved"],
  ["b=", "is empty"],
  ["b=-oProxyCommand=touch /tmp/x", 'must not start with "-"'],
  ["b=-p", 'must not start with "-"'],
  ["b=box -p 22", "whitespace or control"],
  ["b=box\tx", "whitespace or control"],
  ["b=box\n", "whitespace or control"],
  ["b=box\x1b[2J", "whitespace or control"],
  ["b=box\u0085", "whitespace or control"],
  ["b=box\u00a0", "whitespace or control"],
  ["b=box,", "only socket-name=N or socket-path=P"],
  ["b=box,port=22", "only socket-name=N or socket-path=P"],
  ["b=box,socket-name", "only socket-name=N or socket-path=P"],
  ["b=box,socket-name=", "non-empty"],
  ["b=box,socket-name=a/b", "contain no '/'"],
  ["b=box,socket-path=", "must not be empty"],
  ["b=box,socket-path=/tmp/\nx", "control characters"],
  ["b=box,socket-name=a\x07", "control characters"],
];

Deno.test("--ssh values that are refused, each with the rule it breaks", () => {
  for (const [text, message] of REFUSED) {
    assertThrows(() => parseSshSpec(text), SshSpecError, message);
  }
});

Deno.test("a host name given twice is refused", () => {
  assertEquals(parseSshSpecs(["a=x", "b=x"]).map((s) => s.name), ["a", "b"]);
  assertThrows(() => parseSshSpecs(["a=x", "a=y"]), SshSpecError, "given twice");
});
