/**
 * Control-mode syntax and reply matching without tmux (docs/design.md §5.11, §5.14, §7.2): quoting,
 * `%output` decoding, what each kind of line means, line splitting across chunks, and the reply
 * queue fed made-up lines — in order, failing, foreign, forged, read by a reader.
 */
import { assert, assertEquals, assertThrows } from "../../../tests/support/assert.ts";
import { ToolError } from "../../errors.ts";
import { type Pending, ReplyQueue } from "./replies.ts";
import {
  decodeOutput,
  FramingError,
  isOutput,
  LineSplitter,
  parseBegin,
  parseNotification,
  parseOutput,
  quoteControlArgument,
} from "./syntax.ts";

const encoder = new TextEncoder();
const decoder = new TextDecoder();

Deno.test("quoteControlArgument escapes what control mode would expand or end the line on", () => {
  const cases: Array<[string, string]> = [
    ["plain", '"plain"'],
    ["", '""'],
    ['a"b', '"a\\"b"'],
    ["$HOME", '"\\$HOME"'],
    ["~/x", '"\\~/x"'],
    ["back\\slash", '"back\\\\slash"'],
    ["a ; b", '"a ; b"'], // inside quotes, not a separator
    ["#{pane_id}", '"#{pane_id}"'], // format expansion is the caller's (literal())
    ["l1\nl2\r\t", '"l1\\nl2\\r\\t"'],
    ["\x01\x1b\x7f", '"\\001\\033\\177"'],
    ["é😀", '"é😀"'],
  ];
  for (const [arg, quoted] of cases) assertEquals(quoteControlArgument(arg), quoted, arg);
  for (const bad of ["nul\0x", "lone \ud800 surrogate"]) {
    assertThrows(() => quoteControlArgument(bad), ToolError, "NUL or a lone surrogate");
  }
});

Deno.test("decodeOutput turns \\ooo escapes into bytes and leaves everything else", () => {
  const cases: Array<[string, number[]]> = [
    ["abc", [0x61, 0x62, 0x63]],
    ["\\033[1m", [0x1b, 0x5b, 0x31, 0x6d]],
    ["\\303\\251", [0xc3, 0xa9]], // é, split into bytes
    ["\\134", [0x5c]], // an escaped backslash
    ["\\12", [0x5c, 0x31, 0x32]], // too short: literal
    ["\\089", [0x5c, 0x30, 0x38, 0x39]], // not octal: literal
    ["end\\", [0x65, 0x6e, 0x64, 0x5c]],
  ];
  for (const [data, bytes] of cases) {
    assertEquals([...decodeOutput(encoder.encode(data))], bytes, data);
  }
});

Deno.test("control lines: %begin keys and flags, %output, notifications", () => {
  assertEquals(parseBegin("%begin 1796068231 12 1"), { key: "1796068231 12 1", ours: true });
  assertEquals(parseBegin("%begin 1796068231 12 0"), { key: "1796068231 12 0", ours: false });
  assertEquals(parseBegin("%begin 1796068231 12 3"), { key: "1796068231 12 3", ours: true });
  for (const other of ["%begin 1 2", "%begin 1 2 1 x", " %begin 1 2 1", "%end 1 2 1"]) {
    assertEquals(parseBegin(other), undefined, other);
  }

  const output = encoder.encode("%output %12 hi\\015\\012");
  assert(isOutput(output));
  const parsed = parseOutput(output)!;
  assertEquals([parsed.paneId, decoder.decode(parsed.bytes)], ["%12", "hi\r\n"]);
  assert(!isOutput(encoder.encode("%outpu")));
  assert(!isOutput(encoder.encode("%extended-output %1 0 : x")));
  assertEquals(parseOutput(encoder.encode("%output  x")), undefined); // names no pane

  const notes: Array<[string, unknown]> = [
    ["%layout-change @3 b25d,80x24,0,0,0 b25d,80x24,0,0,0 *", {
      kind: "layout",
      windowId: "@3",
      panes: new Map([["%0", { width: 80, height: 24 }]]),
    }],
    ["%layout-change @3 b25d,80x24,0,0,0", {
      kind: "layout",
      windowId: "@3",
      panes: new Map([["%0", { width: 80, height: 24 }]]),
    }],
    ["%window-close @4", { kind: "window-close", windowId: "@4" }],
    ["%unlinked-window-close @4", { kind: "window-close", windowId: "@4" }],
    ["%subscription-changed gen $1 @2 0 %5 - : 1234", {
      kind: "subscription",
      name: "gen",
      paneId: "%5",
    }],
    ["%exit", { kind: "exit", reason: "tmux ended the connection" }],
    ["%exit server exited", { kind: "exit", reason: "server exited" }],
    ["%window-add @4", undefined],
    ["%sessions-changed", undefined],
    ["%window-close @4 extra", undefined],
  ];
  for (const [line, note] of notes) assertEquals(parseNotification(line), note, line);
});

Deno.test("LineSplitter splits at newlines across chunks, bytes intact", () => {
  const splitter = new LineSplitter();
  const chunks = ["%beg", "in 1 2 1\n%output %1 \xff", "\n\n", "tail"];
  const lines = chunks.flatMap((c) =>
    splitter.push(Uint8Array.from(c, (ch) => ch.charCodeAt(0))).map((l) => [...l])
  );
  assertEquals(lines, [
    [..."%begin 1 2 1"].map((c) => c.charCodeAt(0)),
    [..."%output %1 \xff"].map((c) => c.charCodeAt(0)),
    [],
  ]);
  assertEquals(splitter.push(Uint8Array.of(0x0a)).map((l) => decoder.decode(l)), ["tail"]);
});

/** What happened to each queued command, in the order they were queued. */
type Outcome = string[] | string | "waiting";

/** Queue `commands` slots (true: read by a reader that ends at its third line), feed `lines`. */
function run(
  strict: boolean,
  commands: boolean[],
  lines: string[],
): { outcomes: Outcome[]; notes: string[]; attached: boolean; framing?: string } {
  let attached = false;
  const queue = new ReplyQueue(strict, () => attached = true);
  const outcomes: Outcome[] = commands.map(() => "waiting");
  commands.forEach((reader, i) => {
    const seen: string[] = [];
    const pending: Pending = {
      resolve: (got) => outcomes[i] = reader ? seen : got,
      reject: (error) => outcomes[i] = `${error instanceof ToolError ? error.code : "?"}`,
      ...(reader
        ? {
          reader: {
            sent() {},
            line(text: string) {
              if (text === "forged") throw new FramingError("a forged line");
              seen.push(text);
              return seen.length === 3;
            },
          },
        }
        : {}),
    };
    queue.push(pending);
  });
  const notes: string[] = [];
  for (const line of lines) {
    try {
      if (!queue.line(line)) notes.push(line);
    } catch (error) {
      assert(error instanceof FramingError, String(error));
      return { outcomes, notes, attached, framing: error.message };
    }
  }
  return { outcomes, notes, attached };
}

Deno.test("the reply queue settles commands in order; only the begin's own key ends a block", () => {
  const k = (n: number, flag = 1) => `1700000000 ${n} ${flag}`;
  const cases: Array<[string, ReturnType<typeof run>, ReturnType<typeof run>]> = [
    [
      "the attach's block, then two replies; notifications are not the queue's",
      run(false, [false, false], [
        `%begin ${k(1, 0)}`,
        `%end ${k(1, 0)}`,
        "%window-add @1",
        `%begin ${k(2)}`,
        "%1 0",
        `%end ${k(3)}`, // another key: output
        `%end ${k(2)}`,
        `%begin ${k(4)}`,
        "can't find pane: %9",
        `%error ${k(4)}`,
      ]),
      {
        outcomes: [["%1 0", `%end ${k(3)}`], "target_not_found"],
        notes: ["%window-add @1"],
        attached: true,
      },
    ],
    [
      "a reader reads its reply from the %begin on, forged lines and all",
      run(false, [true, false], [
        `%begin ${k(5)}`,
        `%end ${k(5)}`,
        "%exit",
        `%begin ${k(6)}`,
        `%end ${k(6)}`,
      ]),
      {
        outcomes: [[`%begin ${k(5)}`, `%end ${k(5)}`, "%exit"], []],
        notes: [],
        attached: false,
      },
    ],
    [
      "strict: a second foreign block is a framing error",
      run(true, [false], [`%begin ${k(1, 0)}`, `%end ${k(1, 0)}`, `%begin ${k(2, 0)}`]),
      {
        outcomes: ["waiting"],
        notes: [],
        attached: true,
        framing: "output that is not a reply to our commands (a hook?)",
      },
    ],
    [
      "strict: a reply nobody asked for is a framing error; lax: it is dropped",
      run(true, [], [`%begin ${k(1)}`]),
      { outcomes: [], notes: [], attached: false, framing: "a reply nobody asked for" },
    ],
    [
      "lax: a reply nobody asked for is read and dropped",
      run(false, [], [`%begin ${k(1)}`, "x", `%end ${k(1)}`, "%exit"]),
      { outcomes: [], notes: ["%exit"], attached: false },
    ],
    [
      "a reader that refuses a line turns into a framing error",
      run(false, [true], [`%begin ${k(1)}`, "forged"]),
      { outcomes: ["waiting"], notes: [], attached: false, framing: "a forged line" },
    ],
  ];
  for (const [what, actual, expected] of cases) assertEquals(actual, expected, what);
});

Deno.test("the reply queue hands back every waiting command when the connection ends, and keeps the attach's failure", () => {
  const queue = new ReplyQueue(false, () => {});
  const settled: string[] = [];
  for (const name of ["a", "b"]) {
    queue.push({ resolve: () => settled.push(name), reject: () => settled.push(name) });
  }
  assert(!queue.inReply);
  assert(queue.line("%begin 1 1 1"));
  assert(queue.inReply);
  assertEquals(queue.drain().length, 2);
  assertEquals(queue.drain().length, 0);
  assertEquals(settled, [], "the client settles them, saying why");

  let attached = false;
  const attach = new ReplyQueue(false, () => attached = true);
  for (const line of ["%begin 1 1 0", "no sessions", "%error 1 1 0"]) assert(attach.line(line));
  assertEquals([attach.foreignError, attached], ["no sessions", true]);
});
