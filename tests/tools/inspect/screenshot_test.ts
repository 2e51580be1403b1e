/**
 * screenshot_pane against real tmux panes, through the SDK client (which checks every result
 * against the advertised output schema). Each picture is decoded with fast-png, an independent
 * PNG decoder, and its pixels compared with the cells the pane printed.
 */
// deno-lint-ignore no-import-prefix -- dev tooling (deno.dev.lock): a start never fetches it
import { decode } from "npm:fast-png@^8.0.0";
import { assert, assertEquals } from "../../support/assert.ts";
import {
  call,
  type CallToolResult,
  type Connected,
  connectInProcess,
  connectStdio,
  fails,
  MAIN,
  ok,
} from "../../support/client.ts";
import { eventually, TmuxFixture } from "../../support/fixture.ts";
import { THEME } from "../../../src/render/palette.ts";

interface Facts {
  paneId: string;
  generation: string;
  columns: number;
  rows: number;
  scrollbackLines: number;
  pixelWidth: number;
  pixelHeight: number;
  cellWidth: number;
  cellHeight: number;
  bytes: number;
  /** Present (true) only on the alternate screen; `truncated` only when true (§3.1). */
  alternateScreen?: boolean;
  cursorMarked: boolean;
  cursorX: number;
  cursorY: number;
  theme: string;
  source: string;
  truncated?: boolean;
  clippedColumns?: number;
  clippedRows?: number;
  scale?: number;
  terminalContent: string;
}

/** A decoded picture: pixels as 0xRRGGBB, row-major. */
interface Picture {
  width: number;
  height: number;
  pixels: Uint32Array;
}

const CELL_W = 10;
const CELL_H = 20;
const dark = THEME.dark;

function bytesOf(base64: string): Uint8Array {
  return Uint8Array.from(atob(base64), (c) => c.charCodeAt(0));
}

function picture(png: Uint8Array): Picture {
  const image = decode(png);
  const pixels = new Uint32Array(image.width * image.height);
  for (let i = 0; i < pixels.length; i++) {
    const rgb = image.palette
      ? image.palette[image.data[i]]
      : [image.data[i * 3], image.data[i * 3 + 1], image.data[i * 3 + 2]];
    pixels[i] = (rgb[0] << 16) | (rgb[1] << 8) | rgb[2];
  }
  return { width: image.width, height: image.height, pixels };
}

/** The pixels of cell (column, row). */
function cell(p: Picture, column: number, row: number): number[] {
  const out: number[] = [];
  for (let y = row * CELL_H; y < (row + 1) * CELL_H; y++) {
    for (let x = column * CELL_W; x < (column + 1) * CELL_W; x++) {
      out.push(p.pixels[y * p.width + x]);
    }
  }
  return out;
}

function count(pixels: number[], color: number): number {
  return pixels.filter((p) => p === color).length;
}

/** Call screenshot_pane: the facts, the PNG's bytes, its decoded pixels and the whole result. */
async function shoot(
  client: Connected["client"],
  args: Record<string, unknown>,
): Promise<{ facts: Facts; png: Uint8Array; picture: Picture; result: CallToolResult }> {
  const result = await call(client, "screenshot_pane", args);
  assert(!result.isError, JSON.stringify(result.content));
  const image = result.content[0] as { type: string; data: string; mimeType: string };
  assertEquals([image.type, image.mimeType], ["image", "image/png"]);
  const png = bytesOf(image.data);
  return {
    facts: result.structuredContent as unknown as Facts,
    png,
    picture: picture(png),
    result,
  };
}

/** A window running `script` in sh, once `ready` shows in its capture; its pane id. */
async function paneRunning(fx: TmuxFixture, script: string, ready: string): Promise<string> {
  const paneId = await fx.newWindow(["sh", "-c", `${script}; exec sleep 100000`], "=main:");
  const shown = await eventually(async () =>
    (await fx.tmux("capture-pane", "-p", "-t", paneId)).includes(ready)
  );
  assert(shown, `the pane printed ${ready}`);
  return paneId;
}

Deno.test("screenshot_pane: an image/png block of the pane's cells at 10x20 pixels each, then a text block with the same facts", async () => {
  await using fx = await TmuxFixture.start();
  const { client, close } = await connectInProcess(["-S", fx.socket]);
  try {
    const paneId = await paneRunning(fx, "printf 'hello\\n'", "hello");
    const { facts, png, picture, result } = await shoot(client, { paneId });
    assertEquals([picture.width, picture.height], [80 * CELL_W, 24 * CELL_H]);
    assertEquals(
      [facts.columns, facts.rows, facts.pixelWidth, facts.pixelHeight],
      [80, 24, 800, 480],
    );
    assertEquals([facts.cellWidth, facts.cellHeight, facts.bytes], [CELL_W, CELL_H, png.length]);
    assertEquals([facts.source, facts.theme, facts.truncated ?? false, facts.scrollbackLines], [
      "capture",
      "dark",
      false,
      0,
    ]);
    assertEquals([facts.alternateScreen ?? false, facts.terminalContent], [false, "data"]);
    const info = await ok<{ generation: string }>(client, "get_pane_info", { paneId });
    assertEquals(facts.generation, info.generation);
    assertEquals(result.content.length, 2);
    const text = result.content[1] as { type: string; text: string };
    assertEquals(text.type, "text");
    assertEquals(JSON.parse(text.text), result.structuredContent);
    assert(!text.text.includes("base64") && text.text.length < 1000, "the text block is short");
    assert(!("clippedColumns" in facts) && !("scale" in facts), "nothing was clipped");
  } finally {
    await close();
  }
});

Deno.test("a red background has red pixels exactly where its cells are; text has foreground pixels and an empty cell has none", async () => {
  await using fx = await TmuxFixture.start();
  const { client, close } = await connectInProcess(["-S", fx.socket]);
  try {
    const paneId = await paneRunning(fx, "printf '\\033[41m  \\033[0m X\\n'", "X");
    const { picture } = await shoot(client, { paneId, cursor: false });
    const red = dark.ansi[1];
    assertEquals(count(cell(picture, 0, 0), red), CELL_W * CELL_H);
    assertEquals(count(cell(picture, 1, 0), red), CELL_W * CELL_H);
    assertEquals(count(cell(picture, 2, 0), dark.background), CELL_W * CELL_H);
    const x = cell(picture, 3, 0);
    const inked = x.filter((p) => p !== dark.background).length;
    assert(inked > 20 && inked < 100, `the X has ${inked} foreground pixels`);
    assert(count(x, dark.foreground) > 0, "some of them fully covered");
    assertEquals(count(x, red), 0);
    for (const [column, row] of [[10, 0], [0, 5], [79, 23]]) {
      assertEquals(count(cell(picture, column, row), dark.background), CELL_W * CELL_H);
    }
    const light = (await shoot(client, { paneId, cursor: false, theme: "light" })).picture;
    assertEquals(count(cell(light, 10, 0), THEME.light.background), CELL_W * CELL_H);
    assertEquals(count(cell(light, 0, 0), THEME.light.ansi[1]), CELL_W * CELL_H);
  } finally {
    await close();
  }
});

Deno.test("a wide CJK character covers two cells (a box of two cells: the font has no CJK glyphs) and the next character follows them", async () => {
  await using fx = await TmuxFixture.start();
  const { client, close } = await connectInProcess(["-S", fx.socket]);
  try {
    const paneId = await paneRunning(fx, "printf '\\344\\270\\255x\\n\\357\\277\\275\\n'", "x");
    const { picture } = await shoot(client, { paneId, cursor: false });
    const fg = dark.foreground;
    // The box's top edge runs across the boundary between the two cells.
    const edge = (x: number) => picture.pixels[2 * picture.width + x];
    for (const x of [1, 9, 10, 18]) assertEquals(edge(x), fg, `pixel ${x} of the top edge`);
    assertEquals([edge(0), edge(19)], [dark.background, dark.background]);
    assert(count(cell(picture, 2, 0), fg) > 5, "the x is drawn in the third cell");
    assertEquals(count(cell(picture, 3, 0), dark.background), CELL_W * CELL_H);
    // U+FFFD is in the font: a glyph of one cell, not a box.
    const replacement = cell(picture, 0, 1);
    assert(count(replacement, fg) > 0 && count(cell(picture, 1, 1), fg) === 0);
  } finally {
    await close();
  }
});

Deno.test("the cursor's cell is a block, and plain when cursor is false or the program hides the cursor", async () => {
  await using fx = await TmuxFixture.start();
  const { client, close } = await connectInProcess(["-S", fx.socket]);
  try {
    const paneId = await paneRunning(fx, "printf 'ab'", "ab");
    const shown = await shoot(client, { paneId });
    assertEquals(
      [shown.facts.cursorX, shown.facts.cursorY, shown.facts.cursorMarked],
      [2, 0, true],
    );
    // An empty cell inverted: filled with the foreground colour.
    assertEquals(count(cell(shown.picture, 2, 0), dark.foreground), CELL_W * CELL_H);
    assertEquals(count(cell(shown.picture, 3, 0), dark.background), CELL_W * CELL_H);
    const off = await shoot(client, { paneId, cursor: false });
    assertEquals(off.facts.cursorMarked, false);
    assertEquals(count(cell(off.picture, 2, 0), dark.background), CELL_W * CELL_H);

    const hidden = await paneRunning(fx, "printf '\\033[?25lab'", "ab");
    const h = await shoot(client, { paneId: hidden });
    assertEquals([h.facts.cursorX, h.facts.cursorMarked], [2, false]);
    assertEquals(count(cell(h.picture, 2, 0), dark.background), CELL_W * CELL_H);
  } finally {
    await close();
  }
});

Deno.test("scrollbackLines adds that many history rows above the screen, at most what the pane has", async () => {
  await using fx = await TmuxFixture.start();
  const { client, close } = await connectInProcess(["-S", fx.socket]);
  try {
    const paneId = await paneRunning(fx, "seq 1 60", "60");
    const history = Number(await fx.display(paneId, "#{history_size}"));
    assert(history >= 30, `history ${history}`);
    const ten = await shoot(client, { paneId, scrollbackLines: 10, cursor: false });
    assertEquals([ten.facts.scrollbackLines, ten.facts.pixelHeight], [10, (24 + 10) * CELL_H]);
    assertEquals(ten.picture.height, (24 + 10) * CELL_H);
    assertEquals(ten.facts.truncated ?? false, false);
    // The screen's top row ("38" when 60 lines and the cursor's row fill 24 rows) is row 10 now:
    // the same pixels as row 0 of a picture without history.
    const plain = await shoot(client, { paneId, cursor: false });
    assertEquals(cell(ten.picture, 0, 10), cell(plain.picture, 0, 0));
    assertEquals(cell(ten.picture, 1, 10), cell(plain.picture, 1, 0));
    const all = await shoot(client, { paneId, scrollbackLines: 200, cursor: false });
    assertEquals([all.facts.scrollbackLines, all.facts.truncated ?? false], [history, false]);
  } finally {
    await close();
  }
});

Deno.test("a pane over 400x200 cells is clipped to 400 columns and 200 rows, and the clamp is disclosed", async () => {
  await using fx = await TmuxFixture.start({ width: 430, height: 215 });
  const { client, close } = await connectInProcess(["-S", fx.socket]);
  try {
    const paneId = await paneRunning(fx, "printf 'top\\n'", "top");
    const { facts, picture } = await shoot(client, { paneId, scrollbackLines: 5 });
    assertEquals([facts.columns, facts.rows], [430, 215]);
    assertEquals([picture.width, picture.height], [4000, 4000]);
    assertEquals([facts.clippedColumns, facts.clippedRows, facts.truncated], [30, 15, true]);
    assertEquals(facts.scrollbackLines, 0);
    assert(count(cell(picture, 0, 0), dark.foreground) > 0, "the screen's top row is drawn");
  } finally {
    await close();
  }
});

Deno.test("a picture whose PNG would pass 1 MiB is halved until it fits, and says so", async () => {
  await using fx = await TmuxFixture.start({ width: 160, height: 80 });
  const { client, close } = await connectInProcess(["-S", fx.socket]);
  try {
    // Every cell a random truecolour pair: as incompressible as a terminal gets.
    let seed = 7;
    const random = () => {
      seed ^= seed << 13;
      seed ^= seed >>> 17;
      seed ^= seed << 5;
      return (seed >>> 0) % 256;
    };
    let noise = "";
    for (let row = 0; row < 79; row++) {
      for (let column = 0; column < 160; column++) {
        noise += `\x1b[38;2;${random()};${random()};${random()}m\x1b[48;2;${random()};` +
          `${random()};${random()}m${String.fromCharCode(33 + (random() % 90))}`;
      }
      noise += "\x1b[0m\r\n";
    }
    await Deno.writeTextFile(`${fx.dir}/noise`, noise + "END");
    const paneId = await paneRunning(fx, `cat '${fx.dir}/noise'`, "END");
    const { facts, png, picture } = await shoot(client, { paneId, cursor: false });
    assert(png.length <= 1_048_576, `${png.length} bytes`);
    assertEquals([facts.scale, facts.truncated], [0.5, true]);
    assertEquals([facts.pixelWidth, facts.pixelHeight], [800, 800]);
    assertEquals([picture.width, picture.height], [800, 800]);
  } finally {
    await close();
  }
});

Deno.test("two calls on an unchanged pane return identical bytes", async () => {
  await using fx = await TmuxFixture.start();
  const { client, close } = await connectInProcess(["-S", fx.socket]);
  try {
    const paneId = await paneRunning(
      fx,
      "printf '\\033[1;32mok\\033[0m \\033[3;4;38;5;208mitalic\\033[0m \\342\\224\\214\\342\\224\\200 \\344\\270\\255\\n$ '",
      "$",
    );
    const first = await shoot(client, { paneId });
    const second = await shoot(client, { paneId });
    assertEquals(second.png, first.png);
    assertEquals(second.facts, first.facts);
  } finally {
    await close();
  }
});

Deno.test("a replaced pane is stale_target, a missing one target_not_found, and the batch refuses screenshot_pane", async () => {
  await using fx = await TmuxFixture.start();
  const { client, close } = await connectInProcess(["-S", fx.socket]);
  try {
    const paneId = await fx.display("=main:0", "#{pane_id}");
    const stale = await fails(client, "screenshot_pane", { paneId, generation: "0.0" });
    assertEquals([stale.code, stale.effects], ["stale_target", "none"]);
    const missing = await fails(client, "screenshot_pane", { paneId: "%9999" });
    assertEquals(missing.code, "target_not_found");
    const bad = await fails(client, "screenshot_pane", { paneId, scrollbackLines: 201 });
    assertEquals(bad.code, "invalid_arguments");
    const batch = await ok<{ results: Array<{ success: boolean; error: string | null }> }>(
      client,
      "call_read_tools_batch",
      { operations: [{ tool: "screenshot_pane", arguments: { paneId } }], onError: "continue" },
    );
    assertEquals(batch.results[0].success, false);
    assert(batch.results[0].error?.startsWith("tool_denied") ?? false, batch.results[0].error!);
    const { tools } = await client.listTools();
    const batchTool = tools.find((t) => t.name === "call_read_tools_batch")!;
    assert(!JSON.stringify(batchTool.inputSchema).includes("screenshot_pane"));
  } finally {
    await close();
  }
});

Deno.test("over stdio, main.ts and its bundle serve screenshot_pane under the start permissions, byte for byte as in process", async () => {
  await using fx = await TmuxFixture.start();
  const paneId = await paneRunning(
    fx,
    "printf '\\033[44m blue \\033[0m \\342\\226\\210\\n'",
    "blue",
  );
  const inProcess = await connectInProcess(["-S", fx.socket]);
  const expected = await shoot(inProcess.client, { paneId }).finally(() => inProcess.close());
  const bundle = `${fx.dir}/tmux-mcp.js`;
  const bundled = await new Deno.Command(Deno.execPath(), {
    args: ["bundle", "--quiet", "--output", bundle, MAIN],
    stdout: "null",
    stderr: "piped",
  }).output();
  assertEquals(bundled.success, true, new TextDecoder().decode(bundled.stderr));
  for (const entry of [MAIN, bundle]) {
    const { client, close, stderr } = await connectStdio(["-S", fx.socket], {}, entry);
    try {
      const { png, facts } = await shoot(client, { paneId });
      assertEquals(png, expected.png, `${entry}: ${stderr()}`);
      assertEquals(facts, expected.facts);
    } finally {
      await close();
    }
  }
});

Deno.test("a pane capture_since follows is drawn from its terminal: a background erased with ESC [K keeps its colour there, not in a capture", async () => {
  await using fx = await TmuxFixture.start();
  const paneId = await paneRunning(
    fx,
    "printf 'go\\n'; read x; printf '\\033[44mblue\\033[K\\033[0m\\n'",
    "go",
  );
  const { client, close } = await connectInProcess(["-S", fx.socket]);
  const unfollowed = await connectInProcess(["-S", fx.socket, "--no-live"]);
  try {
    const first = await ok<{ cursor: string }>(client, "capture_since", { paneId });
    await fx.tmux("send-keys", "-t", paneId, "Enter");
    await ok(client, "capture_since", { paneId, cursor: first.cursor, waitMs: 20_000 });
    const blue = dark.ansi[4];
    const live = await shoot(client, { paneId, cursor: false });
    assertEquals(live.facts.source, "live");
    assertEquals(count(cell(live.picture, 10, 2), blue), CELL_W * CELL_H);
    assertEquals(count(cell(live.picture, 79, 2), blue), CELL_W * CELL_H);
    const captured = await shoot(unfollowed.client, { paneId, cursor: false });
    assertEquals(captured.facts.source, "capture");
    assertEquals(count(cell(captured.picture, 10, 2), dark.background), CELL_W * CELL_H);
    // Everything else is the same picture.
    assertEquals(cell(live.picture, 1, 2), cell(captured.picture, 1, 2));
    assertEquals(cell(live.picture, 0, 0), cell(captured.picture, 0, 0));
    const history = await shoot(client, { paneId, scrollbackLines: 3 });
    assertEquals([history.facts.source, history.facts.scrollbackLines], ["live", 0]);
  } finally {
    await close();
    await unfollowed.close();
  }
});
