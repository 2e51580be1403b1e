/**
 * `--record` end to end (docs/design.md §11): a real MCP client whose person answers elicitations,
 * real tmux, real shells and python3, and the real `asciinema cat`. One session creates a pane,
 * runs commands, drives a REPL and is refused once and allowed once by the person; its action log
 * holds each call with its decision, and its recording replays exactly what the pane printed
 * (tmux's own `pipe-pane` of the same pane is the witness).
 */
// @ts-types="npm:@modelcontextprotocol/sdk@^1.32.2/types"
import type { ElicitResult } from "@modelcontextprotocol/sdk/types.js";
import { CHOICES } from "../../src/guard/ask.ts";
import { assert, assertEquals } from "../support/assert.ts";
import { askingClient, connectInProcess, fails, ok } from "../support/client.ts";
import { eventually, TmuxFixture } from "../support/fixture.ts";
import {
  actionLog,
  agentPane,
  ASCIINEMA,
  asciinemaCat,
  castFile,
  cleanShells,
  type LogLine,
  modeOf,
  sessionDirs,
} from "../support/recordings.ts";

/** A person who answers from a script, in order. */
function person(...script: Array<"once" | "decline">) {
  return askingClient(
    "person",
    (): ElicitResult =>
      (script.shift() ?? "decline") === "once"
        ? { action: "accept", content: { decision: CHOICES.once } }
        : { action: "decline" },
  );
}

/** The log's `done` line of the call whose `call` line matched `when`. */
function doneOf(log: LogLine[], when: (line: LogLine) => boolean): LogLine {
  const start = log.find((l) => l.kind === "call" && when(l));
  assert(start, `no call line matches in ${JSON.stringify(log)}`);
  const done = log.find((l) => l.kind === "done" && l.call === start.call);
  assert(done, `call ${start.call} has no done line`);
  return done;
}

Deno.test("a recorded session: its action log holds every call and decision, and asciinema cat replays exactly what the pane printed", async () => {
  await using fx = await TmuxFixture.start();
  await cleanShells(fx);
  const dir = `${fx.dir}/records`;
  const watched = (await fx.tmux("display-message", "-p", "-t", "=main:", "#{pane_id}")).trim();
  const detach = await fx.attachPerson("main");
  const { client, close } = await connectInProcess(
    ["-S", fx.socket, "--record", dir, "--toolsets", "inspect,execute", "--ask-timeout-ms", "8000"],
    {},
    undefined,
    person("decline", "once"),
  );
  const pipe = `${fx.dir}/pipe`;
  let pane = "";
  let firstSize = "";
  try {
    pane = await agentPane(client, fx, "agent");
    firstSize = await fx.display(pane, "#{pane_width}x#{pane_height}");
    // tmux's own copy of everything the pane prints from now on: the witness.
    await fx.tmux("pipe-pane", "-o", "-t", pane, `cat >> ${pipe}`);
    const first = await ok<{ exitStatus: number }>(client, "run_shell_command", {
      paneId: pane,
      command: `printf 'caf\\303\\251 \\033[32mgreen\\033[0m\\n'; echo "sum=$((6*7))"`,
    });
    assertEquals(first.exitStatus, 0);
    const failed = await ok<{ exitStatus: number }>(client, "run_shell_command", {
      paneId: pane,
      command: "ls /no-such-dir-here",
    });
    assertEquals(failed.exitStatus, 2);
    // A REPL: typed lines, read back by waiting for what it prints.
    await ok(client, "send_keys", { paneId: pane, keys: "python3 -q" });
    const wait = (text: string) =>
      ok<{ outcome: string }>(client, "wait_for_text", {
        paneId: pane,
        patterns: [text],
        includeScreen: true,
      });
    assertEquals((await wait(">>>")).outcome, "matched");
    await ok(client, "send_keys", { paneId: pane, keys: "print('py' + 'thon', 6*7)" });
    assertEquals((await wait("python 42")).outcome, "matched");
    await ok(client, "send_keys", { paneId: pane, keys: "exit()" });
    assert(
      await eventually(async () => (await fx.display(pane, "#{pane_current_command}")) === "bash"),
    );
    await ok(client, "run_shell_command", { paneId: pane, command: "echo THE-END" });
    // A resize is an event of its own.
    await fx.tmux("resize-window", "-t", "=agent:", "-x", "100", "-y", "30");
    const cast = () => Deno.readTextFile(`${sessionDirs(dir)[0]}/local-p${pane.slice(1)}.cast`);
    const size = await fx.display(pane, "#{pane_width}x#{pane_height}");
    assertEquals(size.startsWith("100x"), true);
    assert(await eventually(async () => (await cast()).includes(`"r","${size}"`)));
    // The person's pane: refused once, then allowed once.
    const refused = await fails(client, "send_keys", { paneId: watched, keys: "echo from-agent" });
    assertEquals(refused.code, "target_denied");
    await ok(client, "send_keys", { paneId: watched, keys: "echo from-agent" });
  } finally {
    await close();
    await detach();
  }

  // Private by construction: the directory and the session's 0700, every file 0600.
  assertEquals(modeOf(dir), 0o700);
  const [session] = sessionDirs(dir);
  assertEquals(modeOf(session), 0o700);
  for (const entry of Deno.readDirSync(session)) {
    assertEquals([entry.name, modeOf(`${session}/${entry.name}`)], [entry.name, 0o600]);
  }

  // The action log: every call, its panes and generations, the guard's decision, the outcome.
  const log = actionLog(session);
  assertEquals(log[0].kind, "session");
  const created = doneOf(log, (l) => l.tool === "create_session");
  assertEquals((created.panes as Array<{ paneId: string }>).map((p) => p.paneId), [pane]);
  assert((created.panes as Array<{ generation: string }>)[0].generation !== "");
  const runs = log.filter((l) => l.kind === "call" && l.tool === "run_shell_command");
  assertEquals((runs[0].args as { command: string }).command.startsWith("printf 'caf"), true);
  const ran = doneOf(log, (l) => l.call === runs[0].call);
  assertEquals(ran.guard, { decision: "allowed" });
  assertEquals(ran.outcome, { ok: true, exitStatus: 0, outcome: "completed" });
  assertEquals(doneOf(log, (l) => l.call === runs[1].call).outcome, {
    ok: true,
    exitStatus: 2,
    outcome: "completed",
  });
  const typed = doneOf(
    log,
    (l) => (l.args as { keys?: string }).keys === "print('py' + 'thon', 6*7)",
  );
  assertEquals(typed.guard, { decision: "allowed" });
  assertEquals(typed.panes, created.panes);
  const reads = log.filter((l) => l.kind === "read" && l.tool === "wait_for_text");
  assertEquals(reads.length, 2);
  assert(reads.every((r) => (r.bytes as number) > 0 && (r.panes as string[])[0] === pane));
  const asked = log.filter((l) => l.kind === "asked");
  assertEquals(asked.map((l) => l.answer), ["denied", "allowed once"]);
  const toWatched = log.filter((l) =>
    l.kind === "call" && (l.args as { paneId?: string }).paneId === watched
  );
  assertEquals(toWatched.length, 2);
  const denied = doneOf(log, (l) => l.call === toWatched[0].call);
  assertEquals((denied.guard as { decision: string; answer: string }).answer, "denied");
  assertEquals((denied.outcome as { error: string }).error, "target_denied");
  const allowed = doneOf(log, (l) => l.call === toWatched[1].call);
  assertEquals(allowed.guard, {
    decision: "asked",
    answer: "allowed once",
    about: (allowed.guard as { about: string }).about,
    panes: [{
      paneId: watched,
      generation: (allowed.panes as Array<{ generation: string }>)[0].generation,
    }],
  });
  assertEquals(allowed.outcome, { ok: true });
  // Lines are in the order things happened.
  const times = log.map((l) => Date.parse(l.t));
  assertEquals(times, [...times].sort((a, b) => a - b));

  // The recording: asciicast v2, input before its echo, a marker for each call that touched it.
  const file = `${session}/local-p${pane.slice(1)}.cast`;
  const { header, events } = castFile(file);
  assertEquals(`${header.width}x${header.height}`, firstSize);
  const marks = events.filter((e) => e[1] === "m").map((e) => e[2]);
  assert(marks.some((m) => /^#\d+ run_shell_command$/.test(m)), marks.join());
  const input = events.findIndex((e) => e[1] === "i" && e[2] === "print('py' + 'thon', 6*7)");
  const echo = events.findIndex((e) => e[1] === "o" && e[2].includes("print('py' + 'thon'"));
  assert(input >= 0 && echo > input, `input ${input}, echo ${echo}`);
  const times2 = events.map((e) => e[0]);
  assertEquals(times2, [...times2].sort((a, b) => a - b));
  // The person's pane was recorded from the call the person allowed, with what was typed.
  const other = castFile(`${session}/local-p${watched.slice(1)}.cast`);
  assert(other.events.some((e) => e[1] === "i" && e[2] === "echo from-agent"));

  if (!ASCIINEMA) return;
  const replayed = await asciinemaCat(fx, file);
  const output = events.filter((e) => e[1] === "o").map((e) => e[2]);
  assertEquals(replayed, output.join(""));
  assert(await eventually(async () => (await Deno.readTextFile(pipe)).includes("THE-END")));
  const witness = await Deno.readTextFile(pipe);
  // From the first typed line on (the witness started after the pane's first prompt) up to the
  // last command's output, byte for byte.
  const span = (text: string) =>
    text.slice(text.indexOf(' eval "$(tmux'), text.lastIndexOf("THE-END") + "THE-END".length);
  assert(
    span(witness).includes("café \x1b[32mgreen\x1b[0m") && span(witness).includes("python 42"),
  );
  assertEquals(span(replayed), span(witness));
  assert(replayed.startsWith(output[0]) && output[0].startsWith("\x1b[0m\x1b[H\x1b[2J"));
});
