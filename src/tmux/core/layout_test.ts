/**
 * tmux's layout strings without tmux: the checksum against strings tmux 3.3a printed, the grammar
 * and geometry checkLayout enforces (each refusal says why), and the pane sizes a
 * `%layout-change` carries.
 */
import { assertEquals, assertThrows } from "../../../tests/support/assert.ts";
import { ToolError } from "../../errors.ts";
import { checkLayout, layoutChecksum, layoutPanes, NAMED_LAYOUTS } from "./layout.ts";

/** Layouts as tmux 3.3a printed them for an 80x24 window: one pane, split, split again. */
const PRINTED = [
  "b25d,80x24,0,0,0",
  "8205,80x24,0,0{40x24,0,0,0,39x24,41,0,1}",
  "d67e,80x24,0,0{40x24,0,0,0,39x24,41,0[39x12,41,0,1,39x11,41,13,2]}",
  "b25f,80x24,0,0,2", // the visible layout of that window with %2 zoomed
];

/** A layout string with the checksum tmux would give its body. */
function summed(body: string): string {
  return `${layoutChecksum(body)},${body}`;
}

Deno.test("layoutChecksum gives the checksum tmux printed for each layout", () => {
  for (const layout of PRINTED) {
    assertEquals(layoutChecksum(layout.slice(5)), layout.slice(0, 4), layout);
  }
});

Deno.test("checkLayout accepts named layouts, printed layouts and any case of the checksum", () => {
  const accepted = [
    ...NAMED_LAYOUTS,
    ...PRINTED,
    "D67E,80x24,0,0{40x24,0,0,0,39x24,41,0[39x12,41,0,1,39x11,41,13,2]}", // read with %hx
    summed("80x24,0,0"), // pane ids are optional
    summed("1000x500,0,0,7"), // the largest pane we create or follow (§7.2)
    summed("80x24,0,0[80x12,0,0,1,80x11,0,13,2]"), // stacked: 12 + 1 + 11 = 24
  ];
  for (const layout of accepted) checkLayout(layout);
});

Deno.test("checkLayout refuses what tmux would refuse, saying why", () => {
  const refused: Array<[string, string]> = [
    ["", "does not start with a 4-digit checksum"],
    ["tile", "does not start with a 4-digit checksum"], // tmux would take a prefix; we do not
    ["b25,80x24,0,0,0", "does not start with a 4-digit checksum"],
    ["b25d;80x24,0,0,0", "does not start with a 4-digit checksum"],
    [`abcd,${"1x1,0,0{".repeat(1100)}`, "longer than 8192 characters"],
    ["b25d,80x24,0,0,0,", "unexpected text at character 16"],
    ["8205,80x24,0,0{40x24,0,0,0,39x24,41,0,1}}", "unexpected text at character 40"],
    ["abcd,80x24,0", "expected WxH,X,Y at character 5"],
    [summed("80x24,0,0{40x24,0,0,0"), "unclosed { at character 26"],
    [summed("80x24,0,0()"), "unexpected text at character 14"],
    [summed("0x24,0,0,1"), "a cell of 0x24"],
    [summed("1001x24,0,0,1"), "a cell of 1001x24"],
    ["b25e,80x24,0,0,0", "checksum does not match"],
    [summed("80x24,0,0{40x24,0,0,0,40x24,41,0,1}"), "do not add up"], // 40 + 1 + 40 > 80
    [summed("80x24,0,0{40x24,0,0,0,39x23,41,0,1}"), "do not add up"], // a shorter column
    [summed("80x24,0,0[80x12,0,0,1,80x12,0,13,2]"), "do not add up"], // 12 + 1 + 12 > 24
  ];
  for (const [layout, why] of refused) {
    const error = assertThrows(() => checkLayout(layout), ToolError, why);
    assertEquals(error.code, "invalid_arguments", layout);
  }
});

Deno.test("layoutPanes reads each pane's size; a later layout (the visible one) wins", () => {
  const cases: Array<[string[], Array<[string, number, number]>]> = [
    [[PRINTED[0]], [["%0", 80, 24]]],
    [[PRINTED[2]], [["%0", 40, 24], ["%1", 39, 12], ["%2", 39, 11]]],
    [[PRINTED[2], PRINTED[3]], [["%0", 40, 24], ["%1", 39, 12], ["%2", 80, 24]]],
    [[PRINTED[2], ""], [["%0", 40, 24], ["%1", 39, 12], ["%2", 39, 11]]],
    [["8205,80x24,0,0{40x24,0,0,0,39x24,41,0,1}", "b25f,80x24,0,0,1"], [
      ["%0", 40, 24],
      ["%1", 80, 24],
    ]],
    [["garbage"], []],
  ];
  for (const [layouts, panes] of cases) {
    assertEquals(
      layoutPanes(...layouts),
      new Map(panes.map(([id, width, height]) => [id, { width, height }])),
      layouts.join(" "),
    );
  }
});
