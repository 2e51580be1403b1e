/**
 * Fidelity: real programs run in panes while the live engine streams them, and the stream's
 * terminal must show, row for row, what `capture-pane -p` of the same pane shows (trailing spaces
 * aside, as capture-pane trims them). Any difference fails.
 */
import { assert, assertEquals } from "../support/assert.ts";
import { contextFor, eventually, TmuxFixture } from "../support/fixture.ts";
import { LiveEngine } from "../../src/tmux/live/engine.ts";
import { LIVE_DEFAULTS } from "../../src/tmux/live/options.ts";
import type { PaneStream } from "../../src/live/stream.ts";

/** An interactive bash with a fixed prompt and no user configuration. */
const BASH = "env LANG=C.UTF-8 INPUTRC=/dev/null HISTFILE=/dev/null PS1='$ ' " +
  "bash --norc --noprofile";

interface Scene {
  fx: TmuxFixture;
  stream: PaneStream;
  /** Type text (literally) into the pane, optionally pressing keys after it. */
  type(text: string, ...keys: string[]): Promise<void>;
  /** Wait until tmux shows `text` on the pane's screen. */
  shows(text: string): Promise<void>;
  /** tmux's rows of the pane's screen, trailing spaces removed. */
  screen(): Promise<string[]>;
  /** Wait for tmux and the emulator to agree, then assert they do, row for row. */
  same(step: string): Promise<void>;
  /** Write a shell script into the fixture directory; its path. */
  script(name: string, body: string): Promise<string>;
}

/** Run `body` against a streamed pane running `command` (bash by default). */
async function scene(
  body: (s: Scene) => Promise<void>,
  options: {
    command?: string;
    width?: number;
    height?: number;
    /** Run before the stream starts (so it is seeded from what this leaves on the screen). */
    before?: (s: Pick<Scene, "type" | "shows">) => Promise<void>;
  } = {},
): Promise<void> {
  await using fx = await TmuxFixture.start({
    command: options.command ?? BASH,
    width: options.width ?? 60,
    height: options.height ?? 12,
  });
  const tmux = (...args: string[]) => fx.tmux(...args);
  const capture = async () =>
    (await tmux("capture-pane", "-p", "-t", "%0")).replace(/\n$/, "").split("\n")
      .map((row) => row.replace(/ +$/, ""));
  const shows = async (text: string) => {
    assert(
      await eventually(async () => (await capture()).join("\n").includes(text)),
      `tmux never showed ${JSON.stringify(text)}:\n${(await capture()).join("\n")}`,
    );
  };
  if (options.command === undefined) await shows("$");
  const type = async (text: string, ...keys: string[]) => {
    if (text !== "") await tmux("send-keys", "-t", "%0", "-l", text);
    for (const key of keys) await tmux("send-keys", "-t", "%0", key);
  };
  await options.before?.({ type, shows });
  const engine = new LiveEngine(contextFor(fx.runner()), new Set(), LIVE_DEFAULTS, () => {});
  try {
    const stream = await engine.join("%0");
    const same = async (step: string) => {
      let theirs: string[] = [];
      let ours: string[] = [];
      await eventually(async () => {
        theirs = await capture();
        ours = stream.emulator!.screenRows();
        return JSON.stringify(theirs) === JSON.stringify(ours);
      });
      assertEquals(ours, theirs, `${step}: the emulator differs from capture-pane`);
    };
    await same("seeded");
    await body({
      fx,
      stream,
      type,
      shows,
      screen: capture,
      same,
      script: async (name, text) => {
        const path = `${fx.dir}/${name}`;
        await Deno.writeTextFile(path, text);
        return path;
      },
    });
  } finally {
    await engine.close();
  }
}

Deno.test("fidelity: bash readline — typing, editing, a multi-line paste, history recall", async () => {
  await scene(async ({ fx, type, shows, same }) => {
    await type("echo hello world", "Enter");
    await shows("hello world\n$");
    await same("typed command");
    // Editing in the middle of the line redraws its tail.
    await type("echo abcdef", "Left", "Left", "Left");
    await type("XYZ", "Enter");
    await shows("abcXYZdef\n$");
    await same("edited line");
    // A bracketed paste of three lines (bash 5.2 echoes it, then redraws the line).
    await fx.tmux("set-buffer", "-b", "fidelity", "echo one\necho two\necho three");
    await fx.tmux("paste-buffer", "-p", "-d", "-b", "fidelity", "-t", "%0");
    await shows("echo three");
    await same("pasted lines");
    await type("", "Enter");
    await shows("three\n$");
    await same("pasted lines run");
    // History recall replaces the line in place.
    await type("", "Up", "Up", "Up");
    await shows("$ echo abcXYZdef");
    await same("history recall");
    await type("", "C-u");
    await type("echo 'a long line that wraps past the edge of this sixty column pane, twice'");
    await same("a wrapped command line");
    await type("", "Enter");
    await shows("twice\n$");
    await same("wrapped command run");
  });
});

Deno.test("fidelity: progress bars drawn with carriage returns and with cursor movement", async () => {
  await scene(async ({ type, shows, same, script }) => {
    const bars = await script(
      "bars.sh",
      "i=0; while [ $i -le 10 ]; do printf '\\r[%-10s] %3d%%' \"$(printf '%*s' $i '' | tr ' ' '#')\" " +
        "$((i*10)); i=$((i+1)); sleep 0.01; done; printf '\\n'\n" +
        "printf 'a: 10%%\\nb: 10%%\\nc: 10%%\\n'\n" +
        "for p in 40 70 100; do sleep 0.01; printf '\\033[3A\\033[2Ka: %d%%\\n\\033[2Kb: %d%%\\n" +
        "\\033[2Kc: %d%%\\n' $p $p $p; done\necho BARS-DONE\n",
    );
    await type(`sh ${bars}`, "Enter");
    await shows("BARS-DONE\n$");
    await same("progress bars");
  });
});

Deno.test("fidelity: cursor-up redraws, erased lines and clear", async () => {
  await scene(async ({ type, shows, screen, same, script }) => {
    const redraw = await script(
      "redraw.sh",
      "printf 'first\\nold line that is long\\n'\n" +
        "printf '\\033[1A\\033[2Knew\\n'\n" +
        "printf 'abcdef\\033[3D\\033[K!\\n'\n" +
        "printf 'x\\033[5Cy\\033[1A\\033[3Gz\\n\\n'\n" +
        "echo REDRAW-DONE\n",
    );
    await type(`sh ${redraw}`, "Enter");
    await shows("REDRAW-DONE\n$");
    await same("redraws");
    await type("clear", "Enter");
    assert(await eventually(async () => (await screen())[0] === "$"), "cleared");
    await same("after clear");
    await type("echo after clear", "Enter");
    await shows("after clear\n$");
    await same("output after clear");
  });
});

Deno.test("fidelity: ls --color and tabs", async () => {
  await scene(async ({ fx, type, shows, same }) => {
    const dir = `${fx.dir}/listing`;
    await Deno.mkdir(`${dir}/a directory`, { recursive: true });
    await Deno.writeTextFile(`${dir}/plain.txt`, "x");
    await Deno.writeTextFile(`${dir}/run.sh`, "#!/bin/sh\n", { mode: 0o755 });
    await Deno.symlink("plain.txt", `${dir}/link`);
    await type(`cd '${dir}' && ls --color=always -F && ls --color=auto && echo LS-DONE`, "Enter");
    await shows("LS-DONE\n$");
    await same("ls --color");
    await type("printf 'a\\tb\\tc\\n1234567\\t8\\t\\tx\\n\\ttab first\\n'", "Enter");
    await shows("tab first\n$");
    await same("tabs");
  });
});

Deno.test("fidelity: CJK wide characters, emoji and combining marks, also at the right edge", async () => {
  await scene(async ({ type, shows, same, script }) => {
    const wide = await script(
      "wide.sh",
      "printf '中文字符 and 日本語\\n'\n" +
        "printf 'smile 😀 thumbs 👍🏽 flag 🇫🇷 e\\314\\201 n\\314\\203 a\\314\\200\\n'\n" +
        // 19 cells then a wide character: it does not fit in column 20 and wraps whole.
        "printf '%s中文\\n' \"$(printf '%*s' 19 '' | tr ' ' 'x')\"\n" +
        "printf '%s😀\\n' \"$(printf '%*s' 19 '' | tr ' ' 'y')\"\n" +
        "echo WIDE-DONE\n",
    );
    await type(`sh ${wide}`, "Enter");
    await shows("WIDE-DONE\n$");
    await same("wide characters");
  }, { width: 20 });
});

Deno.test("fidelity: lines exactly the pane's width, alone and followed by more", async () => {
  await scene(async ({ type, shows, same, script }) => {
    const edge = await script(
      "edge.sh",
      "line=$(printf '%*s' 30 '' | tr ' ' '=')\n" +
        'echo "$line"\necho after\nprintf \'%s\' "$line"; echo\nprintf \'%s%s\\n\' "$line" tail\n' +
        "printf '%s' \"$line\"; printf '\\r|'; echo\necho EDGE-DONE\n",
    );
    await type(`sh ${edge}`, "Enter");
    await shows("EDGE-DONE\n$");
    await same("width-long lines");
  }, { width: 30 });
});

Deno.test("fidelity: resizes while streaming reflow the same way", async () => {
  await scene(async ({ fx, type, shows, same, stream }) => {
    await type(
      'for i in 1 2 3; do echo "line $i: the quick brown fox jumps over the lazy dog again"; done',
      "Enter",
    );
    await shows("line 3");
    await same("before resizing");
    for (const [x, y] of [[40, 12], [25, 8], [70, 14], [60, 12]]) {
      await fx.tmux("resize-window", "-t", "@0", "-x", String(x), "-y", String(y));
      assert(
        await eventually(() => stream.emulator!.cols === x && stream.emulator!.rows === y),
        `the emulator followed the resize to ${x}x${y}`,
      );
      await same(`resized to ${x}x${y}`);
    }
    // A split makes the pane narrower; output continues in it.
    await fx.tmux("split-window", "-h", "-d", "-t", "%0", "sleep 100000");
    await type("echo still streaming after the split, in a narrower pane", "Enter");
    await shows("narrower pane\n$");
    await same("after a split");
  });
});

Deno.test("fidelity: resizes with history above and a long command line being typed", async () => {
  await scene(async ({ fx, type, shows, same, stream }) => {
    await type("seq 1 50", "Enter");
    await shows("50\n$");
    await type("echo 'a command line long enough to wrap in this pane when it narrows down'");
    await same("typing");
    for (const [x, y] of [[30, 10], [80, 15], [45, 16], [45, 6], [60, 12]]) {
      await fx.tmux("resize-window", "-t", "@0", "-x", String(x), "-y", String(y));
      assert(
        await eventually(() => stream.emulator!.cols === x && stream.emulator!.rows === y),
        `the emulator followed the resize to ${x}x${y}`,
      );
      await same(`resized to ${x}x${y} while typing`);
    }
    await type("", "Enter");
    await shows("ows down\n$");
    await same("the long command ran");
    // Zooming a pane of a split window resizes it to the whole window, and back.
    await fx.tmux("split-window", "-v", "-d", "-t", "%0", "sleep 100000");
    await same("split");
    await fx.tmux("resize-pane", "-Z", "-t", "%0");
    assert(await eventually(() => stream.emulator!.rows === 12), "zoomed");
    await same("zoomed");
    await fx.tmux("resize-pane", "-Z", "-t", "%0");
    assert(await eventually(() => stream.emulator!.rows < 12), "unzoomed");
    await same("unzoomed");
  });
});

Deno.test("fidelity: a full-screen program entering and leaving the alternate screen", async () => {
  await scene(async ({ fx, type, shows, same, stream }) => {
    const text = Array.from({ length: 40 }, (_, i) => `row ${i + 1} of the paged file`).join("\n");
    await Deno.writeTextFile(`${fx.dir}/paged.txt`, text);
    await type(`less ${fx.dir}/paged.txt`, "Enter");
    await shows("row 11 of the paged file");
    assert(await eventually(() => stream.emulator!.alternate), "on the alternate screen");
    await same("less on the alternate screen");
    await type("", "Space");
    await shows("row 22 of the paged file");
    await same("less, next page");
    await type("q");
    await shows("$ less");
    assert(await eventually(() => !stream.emulator!.alternate), "back on the normal screen");
    await same("after less");
  });
});

Deno.test("fidelity: a stream started under a full-screen program restores the screen beneath it", async () => {
  await scene(async ({ type, shows, same, stream }) => {
    assertEquals(stream.emulator!.alternate, true, "seeded on the alternate screen");
    await type(":q!", "Enter");
    await shows("$ vim");
    assert(await eventually(() => !stream.emulator!.alternate), "back on the normal screen");
    await same("after vim");
  }, {
    before: async ({ type, shows }) => {
      await type("echo before", "Enter");
      await type("vim -u NONE -N", "Enter");
      await shows("~");
    },
  });
});

Deno.test("fidelity: rows added with the cursor above the bottom come back from the history", async () => {
  await scene(async ({ fx, type, shows, same, stream, script }) => {
    // The cursor is left five rows above the bottom; `cat` prints nothing on a resize.
    const up = await script("up.sh", "seq 1 40; printf 'UP-DONE\\n\\033[5A'; exec cat\n");
    await type(`sh ${up}`, "Enter");
    await shows("UP-DONE");
    await same("printed");
    const sizes = [[60, 14], [45, 14], [45, 18], [35, 21], [70, 24], [30, 10], [80, 45]];
    for (const [x, y] of sizes) {
      await fx.tmux("resize-window", "-t", "@0", "-x", String(x), "-y", String(y));
      assert(
        await eventually(() => stream.emulator!.cols === x && stream.emulator!.rows === y),
        `the emulator followed the resize to ${x}x${y}`,
      );
      await same(`resized to ${x}x${y}`);
    }
  });
});
