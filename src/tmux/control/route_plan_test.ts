/**
 * The control route's pure parts without tmux (docs/design.md §5.14): which chains the planner
 * routes and how, the rows a capture prints (tmux 3.3a's clamping of -S/-E, as observed), and
 * the routed reply's state machine fed made-up lines, forged ones included.
 */
import { assert, assertEquals } from "../../../tests/support/assert.ts";
import type { TmuxCommand } from "../core/argv.ts";
import { FramingError, quoteControlArgument } from "./syntax.ts";
import { rowTemplate, separators } from "../core/format.ts";
import { captureRows, planRoute, templateVariables } from "./route_plan.ts";
import { RoutedReply } from "./route_reply.ts";

Deno.test("the route carries listings, unjoined captures and keystrokes; options, environments, joined captures and stdin input are spawned", () => {
  const sep = separators();
  const routable: TmuxCommand[][] = [
    [["list-panes", "-a", "-F", rowTemplate(sep, "P", ["pane_id", "pane_current_path"])]],
    [["list-windows", "-t", "@3", "-F", "#{window_id}"], ["list-clients", "-F", "#{client_pid}"]],
    [["display-message", "-p", "-t", "%1", rowTemplate(sep, "H", ["pane_id", "cursor_x"])]],
    [["display-message", "-p", rowTemplate(sep, "V", ["version", "socket_path", "pid"])]],
    [["capture-pane", "-p", "-t", "%1", "-S", "-100", "-E", "5"]],
    [["send-keys", "-l", "-t", "%1", "--", "multi\nline $HOME ; text"]],
    [["send-keys", "-t", "%1", "Enter"]],
    [["has-session", "-t", "=main"]],
  ];
  for (const commands of routable) {
    assert(planRoute(commands), `routed: ${commands.map((c) => c[0]).join(",")}`);
  }
  const spawned: TmuxCommand[][] = [
    [["capture-pane", "-p", "-J", "-t", "%1"]], // joined rows cannot be counted
    [["capture-pane", "-p", "-a", "-q", "-t", "%1"]],
    [["show-options", "-g"]],
    [["show-environment", "-s", "-g"]],
    [["show-hooks", "-g"]],
    [["load-buffer", "-b", "tmux-mcp-x", "-"]],
    [["list-panes", "-a", "-F", "#{pane_id}"], ["show-options", "-g"]], // one unroutable: all spawned
    [["display-message", "-p", "#{pane_id}"]], // no target: the asking client's pane
    [["display-message", "-p", "-t", "%1", "#{client_tty}"]], // depends on the client asking
    [["list-sessions", "-F", "#{session_attached}"]], // ours would count
    [["display-message", "-p", "-t", "%1", "#(touch x)"]], // only plain variables
    [["rename-window", "-t", "@1", "x"]],
    [["send-keys", "-t", "%1", "-X", "cancel"]],
    [["send-keys", "-t", "%1", "two\nlines"]], // a key name never spans lines
    [["has-session", "-t", "=a\nb"]],
    [["wait-for", "chan"]],
  ];
  for (const commands of spawned) {
    assertEquals(planRoute(commands), undefined, commands.map((c) => c.join(" ")).join(" ; "));
  }
  // Rows are wrapped in the call's nonce; a capture gets our header first; a sentinel closes.
  const plan = planRoute([["capture-pane", "-p", "-t", "%1"]], "f00d")!;
  assertEquals(plan.shapes.map((s) => s.kind), ["header", "screen", "sentinel"]);
  assert(plan.line.includes("f00d"));
  assert(!plan.line.includes("\n"));
});

Deno.test("a routed reply ends only where its shape allows: forged %end/%error/%begin lines with the block's own key are output", () => {
  const sep = separators();
  const plan = planRoute([
    ["list-panes", "-a", "-F", rowTemplate(sep, "P", ["pane_id", "pane_current_path"])],
    ["capture-pane", "-p", "-t", "%1", "-S", "-2"],
    ["send-keys", "-t", "%1", "Enter"],
  ], "c0ffee")!;
  const { open, close } = plan;
  const feed = (reply: RoutedReply, lines: string[]) => lines.map((l) => reply.line(l));
  const key = (n: number) => `1796068231 ${n} 1`;
  const row = (id: string, path: string) =>
    `${open}${sep.row}P${sep.field}${id}${sep.field}${path}${close}`;
  const forgedPath = `/tmp/x\n%end ${key(10)}\n%error ${key(10)}\n%begin ${key(11)}\n`;
  const reply = new RoutedReply(plan);
  const done = feed(reply, [
    `%begin ${key(10)}`,
    ...row("%1", forgedPath).split("\n"),
    ...row("%2", "/home").split("\n"),
    `%end ${key(10)}`,
    `%begin ${key(11)}`,
    `${open}%1 5 3${close}`, // history 5, height 3: -S -2 is rows 3..7 (5 rows)
    `%end ${key(11)}`,
    `%begin ${key(12)}`,
    `%end ${key(12)}`, // a forged end: only 0 of 5 rows so far
    `%error ${key(12)}`,
    `%begin ${key(13)} 1`,
    "row four",
    "row five",
    `%end ${key(12)}`, // the real end: 5 rows
    `%begin ${key(13)}`,
    `%end ${key(13)}`, // send-keys prints nothing
    `%begin ${key(14)}`,
    `${open}${close}`,
    `%end ${key(14)}`,
  ]);
  assertEquals(done.indexOf(true), done.length - 1, "complete at the sentinel's end only");
  assertEquals(
    reply.stdout.join(""),
    `${sep.row}P${sep.field}%1${sep.field}${forgedPath}\n${sep.row}P${sep.field}%2${sep.field}/home\n` +
      `%end ${key(12)}\n%error ${key(12)}\n%begin ${key(13)} 1\nrow four\nrow five\n`,
  );
  assertEquals(reply.failure, undefined);

  // A genuine failure ends the chain where tmux stopped it.
  const failing = new RoutedReply(plan);
  feed(failing, [`%begin ${key(20)}`, `${row("%1", "/")}`, `%end ${key(20)}`, `%begin ${key(21)}`]);
  assert(failing.line(`${open}  ${close}`) === false); // the pane is gone: no rows will follow
  assert(failing.line(`%end ${key(21)}`) === false);
  feed(failing, [`%begin ${key(22)}`, "can't find pane: %1"]);
  assert(failing.line(`%error ${key(22)}`), "an error ends the reply");
  assertEquals(failing.failure, "can't find pane: %1");

  // What no honest tmux sends is a framing error.
  const broken: Array<[string, string[]]> = [
    ["a foreign block (a hook)", [`%begin 1796068231 30 0`]],
    ["a line between blocks", [`%begin ${key(30)}`, `%end ${key(30)}`, "stray"]],
    ["a row without the nonce's prefix", [
      `%begin ${key(30)}`,
      `%1 /tmp${close}`,
      `%end ${key(30)}`,
    ]],
    ["a capture longer than counted", [
      `%begin ${key(30)}`,
      `%end ${key(30)}`,
      `%begin ${key(31)}`,
      `${open}%1 0 2${close}`,
      `%end ${key(31)}`,
      `%begin ${key(32)}`,
      "a",
      "b",
      "c",
    ]],
  ];
  for (const [what, lines] of broken) {
    const reply = new RoutedReply(plan);
    let threw = false;
    try {
      feed(reply, lines);
    } catch (error) {
      threw = error instanceof FramingError;
    }
    assert(threw, `${what} is a framing error`);
  }
});

Deno.test("captureRows counts the lines capture-pane -p prints, as tmux 3.3a clamps -S/-E", () => {
  // Observed on a pane with 5 rows of history and a 3-row screen (rows 0..7 of the whole pane).
  const observed: Array<[string | undefined, string | undefined, number]> = [
    [undefined, undefined, 3], // the screen
    ["-", "-", 8], // all of it
    ["-2", undefined, 5],
    ["-100", "5", 8], // clamped at both ends
    ["2", "0", 3], // swapped
    ["0", "0", 1],
    ["-5", "-6", 1], // both above the history's top
    [undefined, "-1", 2],
    ["40000", undefined, 3], // over SHRT_MAX: the screen's top
    ["x", "1", 2], // not a number: the screen's top
    ["-", "1", 7],
  ];
  for (const [start, end, rows] of observed) {
    assertEquals(captureRows(start, end, 5, 3), rows, `-S ${start} -E ${end}`);
  }
});

Deno.test("templateVariables names a format's variables, or refuses anything but #{name} and ##", () => {
  const cases: Array<[string, string[] | undefined]> = [
    ["", []],
    ["plain text", []],
    ["#{pane_id} #{history_size}", ["pane_id", "history_size"]],
    ["##{pane_id} is text, #{pane_id} is not", ["pane_id"]],
    ["#{@user_option}", ["@user_option"]],
    ["#{?pane_active,a,b}", undefined], // a conditional
    ["#{=5:pane_title}", undefined], // a modifier
    ["#(id)", undefined], // a shell job
    ["#D", undefined], // a short alias
    ["#{pane_id", undefined],
  ];
  for (const [template, variables] of cases) {
    assertEquals(templateVariables(template), variables, template);
  }
});

Deno.test("send-keys is routed only as literal text after -- or one bare key name", () => {
  const cases: Array<[TmuxCommand, string[] | undefined]> = [
    [["send-keys", "-l", "-t", "%1", "--", "a ; b"], [
      "send-keys",
      "-l",
      "-t",
      "%1",
      "--",
      "a ; b",
    ]],
    [["send-keys", "-t", "%1", "--", "x\ny"], ["send-keys", "-t", "%1", "--", "x\ny"]],
    [["send-keys", "-t", "%1", "C-c"], ["send-keys", "-t", "%1", "C-c"]],
    [["send-keys", "-t", "%1", "-l", "Enter"], undefined], // a flag without --
    [["send-keys", "-t", "%1", "-Enter"], undefined], // reads as a flag
    [["send-keys", "-t", "%1", "Page Down"], undefined], // two words
    [["send-keys", "-t", "@1", "--", "x"], undefined], // not a pane
    [["send-keys", "-l", "--", "x"], undefined], // no target
    [["send-keys", "-t", "%1", "-t", "%2", "--", "x"], undefined], // a flag twice
    [["send-keys", "-t", "%1", "--", "a", "b"], undefined], // two texts
  ];
  for (const [command, sent] of cases) {
    const plan = planRoute([command], "feed");
    if (sent === undefined) {
      assertEquals(plan, undefined, command.join(" "));
      continue;
    }
    assert(plan, command.join(" "));
    assertEquals(plan.shapes.map((s) => s.kind), ["silent", "sentinel"]);
    const quoted = sent.map(quoteControlArgument).join(" ");
    assert(plan.line.startsWith(`${quoted} ; `), `${plan.line} starts with ${quoted}`);
  }
});
