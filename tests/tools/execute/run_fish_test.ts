/**
 * run_shell_command in fish panes (docs/design.md §7.9), against real tmux and a real fish: exact
 * output and exit statuses of fish-syntax commands, a syntax error and a C-c'd program still ending
 * their frames, output that looks like a frame, no framing on screen nor in fish's history, a
 * command that looks for our buffer or nonce and finds neither, the own-shell rule both ways, and a
 * fish pane on a remote host. Skipped with a message where fish is missing (CI installs it from
 * apt). `TMUX_MCP_TEST_FISH` may name other fish binaries, colon-separated, to run the same tests
 * with (e.g. builds of older releases).
 */
import { runBuffers, typedRunLines } from "../../support/typed_runs.ts";
import type { Client } from "@modelcontextprotocol/sdk/client";
import { assert, assertEquals, assertMatch } from "../../support/assert.ts";
import { connectInProcess, fails, ok } from "../../support/client.ts";
import { eventually, TmuxFixture } from "../../support/fixture.ts";
import { sshdMissing, TEST_USER } from "../../support/sshd.ts";
import { remoteStack } from "../../support/remote.ts";
import { frameNonce } from "../../../src/live/run_frame.ts";

interface Ran {
  outcome: "completed" | "timeout" | "pane_died" | "server_gone";
  exitStatus?: number;
  output: string;
  runId?: string;
  note?: string;
}

/** A fish to run the tests with: its absolute path and its version as [major, minor]. */
interface Fish {
  path: string;
  version: [number, number];
}

const PANE_PATH = "/usr/local/bin:/usr/bin:/bin";

/** The fish binaries to test: TMUX_MCP_TEST_FISH's, else the one on PATH; none when missing. */
async function fishes(): Promise<Fish[]> {
  const paths = Deno.env.get("TMUX_MCP_TEST_FISH")?.split(":").filter(Boolean) ?? ["fish"];
  const found: Fish[] = [];
  for (const path of paths) {
    // Its absolute path (default-shell needs one), then its version.
    const out = await new Deno.Command("sh", {
      args: ["-c", `PATH=${PANE_PATH}; command -v "$0" && "$0" --version`, path],
      stderr: "null",
    }).output();
    const [where, said] = new TextDecoder().decode(out.stdout).split("\n");
    const version = /version (\d+)\.(\d+)/.exec(said ?? "");
    if (out.success && version && where.startsWith("/")) {
      found.push({ path: where, version: [+version[1], +version[2]] });
    } else console.log(`${path} is not installed (apt-get install fish): its runs are skipped`);
  }
  return found;
}

const FISHES = await fishes();
const missing = FISHES.length === 0 ? "fish is not installed" : undefined;
const name = (title: string) => missing ? `${title} (skipped: ${missing})` : title;
const sshd = missing ?? await sshdMissing();

/** Whether `fish` is at least `major.minor`. */
function atLeast(fish: Fish, major: number, minor: number): boolean {
  return fish.version[0] > major || (fish.version[0] === major && fish.version[1] >= minor);
}

/**
 * A home for one fish: the prompt `$ `, no greeting, and the man-page completions marked as made
 * (a first start would otherwise generate them in the background, a minute of CPU).
 */
async function fishHome(dir: string): Promise<Record<string, string>> {
  const env = { HOME: dir, XDG_CONFIG_HOME: `${dir}/config`, XDG_DATA_HOME: `${dir}/data` };
  await Deno.mkdir(`${dir}/config/fish`, { recursive: true });
  await Deno.mkdir(`${dir}/data/fish/generated_completions`, { recursive: true });
  await Deno.writeTextFile(
    `${dir}/config/fish/config.fish`,
    "set -g fish_greeting\nfunction fish_prompt\n  printf '$ '\nend\n",
  );
  return env;
}

/** The shell command line that starts `fish` in a clean environment with the home `env`. */
function fishCommand(fish: Fish, env: Record<string, string>): string {
  const vars = { PATH: PANE_PATH, TERM: "screen", ...env };
  const assignments = Object.entries(vars).map(([k, v]) => `${k}='${v}'`).join(" ");
  return `env -i ${assignments} ${fish.path}`;
}

/** A window running fish in its own home (under the fixture's directory), at its prompt. */
async function fishPane(fx: TmuxFixture, fish: Fish, home = "fish-home"): Promise<string> {
  const env = await fishHome(`${fx.dir}/${home}`);
  const paneId = await fx.newWindow(fishCommand(fish, env), "=run:");
  assert(
    await eventually(async () => (await screen(fx, paneId)).split("\n").includes("$")),
    `${fish.path} shows its prompt`,
  );
  return paneId;
}

/** The pane's history and screen as tmux shows them, wrapped lines joined. */
async function screen(fx: TmuxFixture, paneId: string): Promise<string> {
  const text = await fx.tmux("capture-pane", "-p", "-J", "-S", "-", "-t", paneId);
  return text.split("\n").map((line) => line.trimEnd()).join("\n");
}

function server(): Promise<TmuxFixture> {
  return TmuxFixture.start({ session: "run", command: "sleep 100000", width: 100, height: 30 });
}

function run(client: Client, paneId: string, command: string, extra: Record<string, unknown> = {}) {
  return ok<Ran>(client, "run_shell_command", { paneId, command, ...extra });
}

async function expectRun(
  client: Client,
  paneId: string,
  command: string,
  exitStatus: number,
  output: string | RegExp,
  what: string,
): Promise<Ran> {
  const ran = await run(client, paneId, command);
  const shown = `${what}: ${JSON.stringify(ran).slice(0, 400)}`;
  assertEquals([ran.outcome, ran.exitStatus], ["completed", exitStatus], shown);
  if (typeof output === "string") assertEquals(ran.output, output, shown);
  else assert(output.test(ran.output), shown);
  return ran;
}

Deno.test({
  name: name(
    "run_shell_command in fish: statuses, exact output, errors, state kept, frames not forged, no framing on screen or in history",
  ),
  ignore: missing !== undefined,
  fn: async () => {
    await using fx = await server();
    const { client, close } = await connectInProcess(["-S", fx.socket]);
    try {
      for (const fish of FISHES) {
        const home = `home-${fish.version.join(".")}-${FISHES.indexOf(fish)}`;
        const pane = await fishPane(fx, fish, home);
        const what = (command: string) => `fish ${fish.version.join(".")}: ${command.slice(0, 40)}`;
        const check = (command: string, status: number, output: string | RegExp) =>
          expectRun(client, pane, command, status, output, what(command));
        await ok(client, "send_keys", { paneId: pane, keys: "echo typed-by-hand" });
        await check("true", 0, "");
        await check("false", 1, "");
        await check("sh -c 'exit 7'", 7, "");
        await check("seq 1 5", 0, "1\n2\n3\n4\n5");
        await check("echo out; echo err >&2", 0, "out\nerr");
        await check(
          'set a 1\nif test "$a" = 1\n  echo yes\nend\nfor i in 1 2\n  echo "line $i"\nend\nfalse',
          1,
          "yes\nline 1\nline 2",
        );
        await check("printf '%s\\n' 'héllo wörld 😀 中文 ﬁ'", 0, "héllo wörld 😀 中文 ﬁ");
        await check(
          'echo (echo nested) it\\\'s \\$HOME "quoted  twice"',
          0,
          "nested it's $HOME quoted  twice",
        );
        // A program killed by a signal: 128 + its number (fish may say so before the end frame).
        await check("sh -c 'kill -TERM $$'", 143, /^(.*SIGTERM.*)?$/s);
        // fish 3.1's eval answered 1 for a command not found.
        const notFound = atLeast(fish, 3, 2) ? 127 : 1;
        await check("no-such-command-here", notFound, /no-such-command-here/);
        // A syntax error is the command's: fish reports it (123; 1 in fish 3.1), the end frame
        // follows, and nothing after the error ran.
        for (const broken of ["echo (unclosed; echo not-reached", "begin\necho not-reached"]) {
          const ran = await run(client, pane, broken);
          assertEquals(ran.outcome, "completed", what(broken));
          assert(ran.exitStatus! > 0 && ran.output !== "", `${what(broken)}: ${ran.output}`);
          // fish quotes the line in its message; the word never stands alone as printed output.
          assert(!/^not-reached$/m.test(ran.output), ran.output);
        }
        // The shell's state is used and kept, as when typed.
        await check("cd /tmp; set X 42; set -l L 7", 0, "");
        await check('pwd; echo "$X/$L"', 0, "/tmp\n42/7");
        // Last: output without a final newline (fish then marks the row with its own sign).
        await check("printf 'no final newline'", 0, "no final newline");

        const shown = await screen(fx, pane);
        const typed = typedRunLines(shown);
        assertEquals(runBuffers(typed).size, 15, `one typed line per call:\n${shown}`);
        const prompted = typed.filter((l) => l.startsWith("$  'eval' ('tmux' -S "));
        assertEquals(runBuffers(prompted), runBuffers(typed), `each at a prompt:\n${shown}`);
        assert(!/7735;|printf|delete-buffer/.test(shown), `no framing on screen:\n${shown}`);

        // Frame-like output (after the screen was read): a real escape with another nonce, and
        // the frame as visible text.
        const fake = frameNonce();
        await check(
          `printf '\\e]7735;tmux-mcp;${fake};start\\a\\e]7735;tmux-mcp;${fake};exit;0\\a'\n` +
            `echo 'ESC]7735;tmux-mcp;${fake};exit;0'\nsleep 0.2\necho after\nsh -c 'exit 3'`,
          3,
          `ESC]7735;tmux-mcp;${fake};exit;0\nafter`,
        );
        // fish keeps a line led by a space out of its history, file and builtin alike.
        const file = `${fx.dir}/${home}/data/fish/fish_history`;
        const saved = () => Deno.readTextFile(file).catch(() => "");
        assert(await eventually(async () => (await saved()).includes("typed-by-hand")), "saved");
        const history = await run(client, pane, "history");
        for (const text of [await saved(), history.output]) {
          assertMatch(text, /echo typed-by-hand/);
          assert(!/save-buffer|eval|seq 1 5|X 42|nested/.test(text), text);
        }
      }
      assertEquals(await fx.tmux("list-buffers"), "", "no buffer of ours is left");
      console.log(`fish run: ${FISHES.map((f) => `${f.path} ${f.version.join(".")}`).join(", ")}`);
    } finally {
      await close();
    }
  },
});

Deno.test({
  name: name(
    "fish: a C-c'd program still ends the frame (fish 3.5+), and the command finds neither our buffer nor our nonce",
  ),
  ignore: missing !== undefined,
  fn: async () => {
    await using fx = await server();
    const { client, close } = await connectInProcess(["-S", fx.socket]);
    const sleeping = (paneId: string) =>
      eventually(async () => (await fx.display(paneId, "#{pane_current_command}")) === "sleep");
    try {
      for (const fish of FISHES) {
        const pane = await fishPane(fx, fish, `home-${FISHES.indexOf(fish)}`);
        const version = fish.version.join(".");
        // Everything the shell holds that a command can list: no frame, nonce or script in it.
        const look = "'7735;|tmux-mcp;|delete-buffer'";
        const found = await run(
          client,
          pane,
          [
            `echo buffers:(count (tmux -S '${fx.socket}' list-buffers))`,
            `echo variables:(set -L | string match -r -- ${look} | count)`,
            `echo functions:(functions -a | string match -r -- ${look} | count)`,
            `echo line:(status current-commandline 2>/dev/null | string match -r -- ${look} | count)`,
            `echo history:(history | string match -r -- ${look} | count)`,
          ].join("\n"),
        );
        assertEquals(
          found.output,
          "buffers:0\nvariables:0\nfunctions:0\nline:0\nhistory:0",
          `fish ${version}`,
        );

        if (!atLeast(fish, 3, 5)) {
          // Before 3.5 fish drops the rest of the line when a program it ran dies of SIGINT, as
          // bash does: no end frame; the mark ends once the key was pressed through us.
          const ran = await run(client, pane, "sleep 30", { timeoutMs: 300 });
          assertEquals(ran.outcome, "timeout");
          await ok(client, "send_keys", { paneId: pane, keys: "C-c", enter: false });
          assert(
            await eventually(async () => {
              const r = await client.callTool({
                name: "run_shell_command",
                arguments: { paneId: pane, command: "echo back" },
              });
              return !r.isError && (r.structuredContent as unknown as Ran).output === "back";
            }),
            `fish ${version}: usable after C-c`,
          );
          console.log(`fish ${version}: before 3.5 no end frame after C-c; the pane was freed`);
          continue;
        }
        // A person presses C-c while the call waits: the program dies, the end frame follows.
        const running = run(client, pane, "echo started; sleep 30; echo not-reached", {
          timeoutMs: 30_000,
        });
        // C-c once sleep is in front: a key between two jobs would interrupt fish itself.
        assert(await sleeping(pane), "the command started");
        await fx.tmux("send-keys", "-t", pane, "C-c");
        const ran = await running;
        assertEquals([ran.outcome, ran.exitStatus], ["completed", 130], JSON.stringify(ran));
        assertMatch(ran.output, /^started(\n\^C)?$/);
        // A command whose call timed out, C-c, and wait_for_command's answer.
        const slow = await run(client, pane, "echo again; sleep 30", { timeoutMs: 300 });
        assertEquals(slow.outcome, "timeout");
        assert(await sleeping(pane), "sleep in front");
        await fx.tmux("send-keys", "-t", pane, "C-c");
        const end = await ok<Ran>(client, "wait_for_command", { runId: slow.runId });
        assertEquals([end.outcome, end.exitStatus], ["completed", 130], JSON.stringify(end));
        await expectRun(client, pane, "echo after", 0, "after", `fish ${version}: after C-c`);
      }
    } finally {
      await close();
    }
  },
});

Deno.test({
  name: name(
    "fish: run_shell_command types only into the pane's own shell, fish or not; exec and exit end it",
  ),
  ignore: missing !== undefined,
  fn: async () => {
    await using fx = await server();
    const { client, close } = await connectInProcess(["-S", fx.socket]);
    const fish = FISHES[0];
    const foreground = (paneId: string, program: string) =>
      eventually(async () => (await fx.display(paneId, "#{pane_current_command}")) === program);
    try {
      // bash started by hand in a fish pane, and fish started by hand in a bash pane.
      const pane = await fishPane(fx, fish);
      await ok(client, "send_keys", { paneId: pane, keys: "bash --norc --noprofile" });
      assert(await foreground(pane, "bash"), "bash in front");
      const refused = await fails(client, "run_shell_command", { paneId: pane, command: "true" });
      assertEquals(refused.code, "target_denied");
      assertMatch(refused.message, /running "bash", not its own shell "fish"/);
      await ok(client, "send_keys", { paneId: pane, keys: "exit" });
      assert(await foreground(pane, "fish"), "fish in front again");
      await expectRun(client, pane, "echo back", 0, "back", "fish after bash");

      const env = await fishHome(`${fx.dir}/bash-home`);
      const bash = await fx.newWindow(
        `env -i PATH=${PANE_PATH} HOME=${env.HOME} TERM=screen PS1='$ ' bash --norc --noprofile`,
        "=run:",
      );
      assert(await foreground(bash, "bash"), "bash pane");
      await ok(client, "send_keys", {
        paneId: bash,
        keys:
          `XDG_CONFIG_HOME=${env.XDG_CONFIG_HOME} XDG_DATA_HOME=${env.XDG_DATA_HOME} ${fish.path}`,
      });
      assert(await foreground(bash, "fish"), "fish in front of bash");
      const other = await fails(client, "run_shell_command", { paneId: bash, command: "true" });
      assertMatch(other.message, /running "fish", not its own shell "bash"/);

      // A fish pane that tmux started as its default-shell (no start command).
      await fx.tmux("set-option", "-g", "default-shell", fish.path);
      for (const [key, value] of Object.entries(await fishHome(`${fx.dir}/bare-home`))) {
        await fx.tmux("set-environment", "-g", key, value);
      }
      const bare = (await fx.tmux("new-window", "-d", "-t", "=run:", "-P", "-F", "#{pane_id}"))
        .trim();
      assert(await foreground(bare, "fish"), "default-shell fish");
      await expectRun(client, bare, "echo bare", 0, "bare", "default-shell fish");

      // `exec` replaces fish: the mark ends and no end frame is waited for (fish 3.1 refuses
      // `exec` while our eval runs, a job to it); `exit` is pane_died.
      if (atLeast(fish, 3, 2)) {
        // The call's own look at the pane sees the program in front and stops waiting.
        const replaced = await run(client, pane, "exec sleep 100000", { timeoutMs: 20_000 });
        assertEquals(replaced.outcome, "timeout");
        assertMatch(replaced.note ?? "", /replaced the pane's shell \(exec\)/);
      }
      const dying = await fishPane(fx, fish, "dying-home");
      const died = await run(client, dying, "echo bye; exit 3", { timeoutMs: 10_000 });
      assertEquals(died.outcome, "pane_died");
    } finally {
      await close();
    }
  },
});

Deno.test({
  name: sshd
    ? `fish on a remote host (skipped: ${sshd})`
    : "fish on a remote host: run_shell_command",
  ignore: sshd !== undefined,
  fn: async () => {
    await using env = await remoteStack({ sessions: [[0, "work"]] });
    const fish = FISHES[0];
    // The remote user's own directory for fish (the rig's remote directory is that user's).
    const home = `${env.rig.dir}/remote/fish-home`;
    const prepare = await new Deno.Command("runuser", {
      args: [
        "-u",
        TEST_USER,
        "--",
        "sh",
        "-c",
        'mkdir -p "$0/config/fish" "$0/data/fish/generated_completions" && printf "%s\\n" "set -g fish_greeting" "function fish_prompt; printf \'\\$ \'; end" > "$0/config/fish/config.fish"',
        home,
      ],
    }).output();
    assert(prepare.success, new TextDecoder().decode(prepare.stderr));
    const start = fishCommand(fish, {
      HOME: home,
      XDG_CONFIG_HOME: `${home}/config`,
      XDG_DATA_HOME: `${home}/data`,
    });
    const paneId =
      (await env.rig.tmux(0, "new-window", "-d", "-t", "work", "-P", "-F", "#{pane_id}", start))
        .trim();
    const remote = `m1:${paneId}`;
    assert(
      await eventually(async () =>
        (await env.rig.tmux(0, "capture-pane", "-p", "-t", paneId)).split("\n").some((l) =>
          l.trimEnd() === "$"
        )
      ),
      "remote fish's prompt",
    );
    const { client } = env.server;
    const ran = await ok<Ran>(client, "run_shell_command", {
      paneId: remote,
      command: "echo remote-(math 6 \\* 7)\nfalse",
      timeoutMs: 20_000,
    });
    assertEquals([ran.outcome, ran.exitStatus, ran.output], ["completed", 1, "remote-42"]);
  },
});
