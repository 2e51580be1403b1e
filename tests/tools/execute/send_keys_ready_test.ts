/**
 * The default wait after input, `waitFor: {}` (docs/design.md §7.10 rule 5), against real tmux,
 * real programs and a real MCP client, live and with --no-live: each step is ONE call with no
 * pattern and no quietMs, answered once the program waits for input, with `outcome` saying why.
 */
import { assert, assertEquals } from "../../support/assert.ts";
import type { Client } from "@modelcontextprotocol/sdk/client";
import { connectInProcess, ok } from "../../support/client.ts";
import { eventually, TmuxFixture } from "../../support/fixture.ts";

interface Waited {
  outcome?: string;
  text?: string;
  currentCommand?: string;
  timeoutMs?: number;
  note?: string;
}

/** A bash with a plain `$ ` prompt and no start files. */
const SHELL =
  "env -i PATH=/usr/local/bin:/usr/bin:/bin TERM=screen PS1='$ ' bash --norc --noprofile";

/** Whether a program is on the test shells' PATH (CI may lack one: its test says so, skipped). */
async function installed(program: string): Promise<boolean> {
  const found = (await new Deno.Command("sh", {
    args: ["-c", `command -v ${program}`],
    clearEnv: true,
    env: { PATH: "/usr/local/bin:/usr/bin:/bin" },
  }).output()).success;
  if (!found) console.log(`${program} is not installed: its tests are skipped`);
  return found;
}
const PYTHON = await installed("python3");
const VIM = await installed("vim");

/** The two ways a wait runs: on the live stream, and polling the screen (--no-live). */
const MODES = [["live", []], ["polled", ["--no-live"]]] as const;

/** The lines of a waited result's text, trailing blanks trimmed. */
function lines(result: Waited): string[] {
  return (result.text ?? "").split("\n").map((l) => l.trimEnd());
}

/** The last non-empty line of a waited result's text. */
function lastLine(result: Waited): string {
  return lines(result).findLast((l) => l !== "") ?? "";
}

/** A pane running {@link SHELL} at its prompt, and a client of a server with `args`. */
async function setup(args: readonly string[], width?: number) {
  const fx = await TmuxFixture.start({ command: SHELL, width });
  assert(
    await eventually(async () =>
      (await fx.tmux("capture-pane", "-p", "-t", "%0")).split("\n").includes("$")
    ),
    "the shell's prompt",
  );
  const connected = await connectInProcess(["-S", fx.socket, ...args]);
  return { fx, ...connected };
}

/** One step with the default wait: type `keys`, answer once the program waits for input. */
async function step(client: Client, keys: string | string[], why = "prompt"): Promise<Waited> {
  const result = await ok<Waited>(client, "send_keys", {
    paneId: "%0",
    keys,
    waitFor: {},
  });
  assertEquals(result.outcome, why, JSON.stringify(result));
  return result;
}

for (const [mode, args] of MODES) {
  Deno.test({
    name: `waitFor {} (${mode}): Python REPL steps answer at >>>, a slow one only after its output`,
    ignore: !PYTHON,
  }, async () => {
    const { fx, client, close } = await setup(args);
    await using _fx = fx;
    try {
      const started = await step(client, "PYTHON_BASIC_REPL=1 python3 -q");
      assertEquals(lastLine(started), ">>>", started.text);
      const sum = await step(client, "2+3");
      assertEquals(lines(sum).filter((l) => l !== "").slice(-3), [">>> 2+3", "5", ">>>"]);
      // The cursor rests on an empty row while the step runs: not a prompt, however long.
      const slow = await step(client, "import time; time.sleep(1.5); print('late')");
      assert(lines(slow).includes("late"), `answered after the output: ${slow.text}`);
      assertEquals(lastLine(slow), ">>>");
      // Leaving the REPL: the shell's prompt answers.
      const left = await step(client, "exit()");
      assertEquals(lastLine(left), "$");
    } finally {
      await close();
    }
  });

  Deno.test(`waitFor {} (${mode}): a bash read -p installer answers at each question`, async () => {
    const { fx, client, close } = await setup(args);
    await using _fx = fx;
    try {
      const script = `${fx.dir}/install.sh`;
      await Deno.writeTextFile(
        script,
        "read -p 'Name: ' name\necho \"hello $name\"\nread -p 'Install to [/opt]? ' dir\n" +
          'echo "installing to ${dir:-/opt}"\n',
      );
      const asked = await step(client, `bash ${script}`);
      assertEquals(lastLine(asked), "Name:", asked.text);
      const named = await step(client, "Alice");
      assert(lines(named).includes("hello Alice"), named.text);
      assertEquals(lastLine(named), "Install to [/opt]?");
      const done = await step(client, "");
      assert(lines(done).includes("installing to /opt"), done.text);
      assertEquals(lastLine(done), "$");
    } finally {
      await close();
    }
  });

  Deno.test({
    name: `waitFor {} (${mode}): a pdb step answers at (Pdb)`,
    ignore: !PYTHON,
  }, async () => {
    const { fx, client, close } = await setup(args);
    await using _fx = fx;
    try {
      const program = `${fx.dir}/prog.py`;
      await Deno.writeTextFile(program, "x = 1\ny = x + 41\nprint('y is', y)\n");
      const started = await step(client, `python3 -m pdb ${program}`);
      assertEquals(lastLine(started), "(Pdb)", started.text);
      const next = await step(client, "n");
      assert(lines(next).some((l) => l.startsWith("-> y = x + 41")), next.text);
      assertEquals(lastLine(next), "(Pdb)");
      const printed = await step(client, "p x + 1");
      assert(lines(printed).includes("2"), printed.text);
      await step(client, "q");
    } finally {
      await close();
    }
  });

  Deno.test(`waitFor {} (${mode}): silence after 'loading' is no answer; the prompt after 'listening' is`, async () => {
    const { fx, client, close } = await setup(args);
    await using _fx = fx;
    try {
      const flag = `${fx.dir}/go`;
      const server = `${fx.dir}/server.sh`;
      // Held by a flag file the test creates, not by a sleep of its own.
      await Deno.writeTextFile(
        server,
        `echo 'loading configuration'\nwhile [ ! -e ${flag} ]; do sleep 0.05; done\n` +
          "echo 'listening on :8080'\nread -p 'admin> ' cmd\necho \"ran $cmd\"\n",
      );
      const progress: string[] = [];
      let settled = false;
      const answer = client.callTool(
        { name: "send_keys", arguments: { paneId: "%0", keys: `bash ${server}`, waitFor: {} } },
        undefined,
        { onprogress: (p) => progress.push(p.message ?? "") },
      ).finally(() => settled = true);
      // Two progress notifications naming 'loading' as the newest line: the wait has sat through
      // more than a second of silence after it (the settle is 300 ms) without answering.
      assert(
        await eventually(() => progress.filter((m) => m.includes("loading")).length >= 2, 20_000),
        `progress: ${JSON.stringify(progress)}`,
      );
      assertEquals(settled, false, "the call still waits");
      await Deno.writeTextFile(flag, "");
      const result = (await answer).structuredContent as Waited;
      assertEquals(result.outcome, "prompt", JSON.stringify(result));
      assert(lines(result).includes("loading configuration"), result.text);
      assert(lines(result).includes("listening on :8080"), result.text);
      assertEquals(lastLine(result), "admin>");
      const ran = await step(client, "status");
      assert(lines(ran).includes("ran status"), ran.text);
      assertEquals(lastLine(ran), "$");
    } finally {
      await close();
    }
  });

  Deno.test(`waitFor {} (${mode}): a program reading on an empty line, or silent, answers timeout`, async () => {
    const { fx, client, close } = await setup(args);
    await using _fx = fx;
    try {
      const reading = await ok<Waited>(client, "send_keys", {
        paneId: "%0",
        keys: "cat",
        waitFor: { timeoutMs: 1500 },
      });
      assertEquals([reading.outcome, reading.timeoutMs], ["timeout", undefined], "not clamped");
      assertEquals(lastLine(reading), "$ cat");
      // Its interrupt brings the shell's prompt back: that answers.
      const back = await ok<Waited>(client, "send_keys", {
        paneId: "%0",
        keys: "C-c",
        enter: false,
        waitFor: {},
      });
      assertEquals([back.outcome, lastLine(back)], ["prompt", "$"]);
      // Typing without Enter only echoes: no effect of the input, no answer.
      const typed = await ok<Waited>(client, "send_keys", {
        paneId: "%0",
        keys: "echo pending",
        enter: false,
        waitFor: { timeoutMs: 1000 },
      });
      assertEquals(typed.outcome, "timeout");
      const ran = await step(client, "");
      assert(lines(ran).includes("pending"), ran.text);
    } finally {
      await close();
    }
  });

  Deno.test({
    name: `waitFor {} (${mode}): vim opened, edited and left with one sequence (Escape, :wq)`,
    ignore: !VIM,
  }, async () => {
    const { fx, client, close } = await setup(args);
    await using _fx = fx;
    try {
      const file = `${fx.dir}/note.txt`;
      // A full-screen program: its screen settled answers `quiet`.
      const opened = await step(client, `vim -u NONE -N ${file}`, "quiet");
      assert(lines(opened).some((l) => l.startsWith("~")), opened.text);
      // One call: insert, Escape, :wq, Enter. Left by programChange, which no pause of vim's
      // while it writes and exits can answer early (a settled full-screen program could).
      const saved = await ok<Waited>(client, "send_keys", {
        paneId: "%0",
        keys: ["ihello from vim", "Escape", ":wq", "Enter"],
        enter: false,
        waitFor: { programChange: true },
      });
      assertEquals([saved.outcome, saved.currentCommand], ["program_changed", "bash"]);
      assertEquals(await Deno.readTextFile(file), "hello from vim\n");
      // Back at the shell, the default answers at its prompt.
      const listed = await step(client, `cat ${file}`);
      assertEquals(lines(listed).slice(-2), ["hello from vim", "$"]);
    } finally {
      await close();
    }
  });
}
