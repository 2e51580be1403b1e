/** The funnel against real tmux: escaping, literal(), separators, classification, environment. */
import { assert, assertEquals, assertRejects, assertThrows } from "../support/assert.ts";
import { ToolError } from "../../src/errors.ts";
import { escapeArgument, refuseFlagLike } from "../../src/tmux/core/argv.ts";
import { TmuxRunner } from "../../src/tmux/core/runner.ts";
import type { TmuxContext } from "../../src/tmux/core/context.ts";
import { literal, parseRows, rowFormat, separators } from "../../src/tmux/core/format.ts";
import { listPanes, listSessions, listWindows } from "../../src/tmux/read/queries.ts";
import { resolveSessionRef } from "../../src/tmux/read/session_ref.ts";
import { cleanEnv, contextFor, eventually, TmuxFixture } from "../support/fixture.ts";
import { waitingTmuxClient } from "../support/processes.ts";

const env = cleanEnv();
const reader = (name: string) => env[name];

function runnerFor(fx: TmuxFixture): TmuxRunner {
  return new TmuxRunner({ socket: { kind: "path", path: fx.socket }, env: reader });
}

function ctxFor(fx: TmuxFixture): TmuxContext {
  return contextFor(runnerFor(fx));
}

Deno.test("a trailing ';' in any argument is text, never a command separator", async () => {
  await using fx = await TmuxFixture.start();
  const runner = runnerFor(fx);
  for (const name of ["foo;", "a\\;", ";", "\\;", "x ; kill-server;", "b\\\\;"]) {
    await runner.run(["rename-session", "-t", "main", literal(name)], { effects: "possible" });
    const stored = (await fx.tmux("display-message", "-p", "#{session_name}")).replace(/\n$/, "");
    // tmux stores (and shows) a backslash in a name as "\\"; undo that one escape to compare.
    assertEquals(stored.replaceAll("\\\\", "\\"), name);
    // The stored form is what listings return and what targets it exactly.
    await runner.run(["rename-session", "-t", `=${stored}`, "main"]);
  }
  // The server survived "kill-server;" as text.
  assertEquals((await fx.tmux("list-sessions", "-F", "#{session_name}")).trim(), "main");
});

Deno.test("escapeArgument keeps ordinary values and refuses NUL", () => {
  assertEquals(escapeArgument("plain"), "plain");
  assertEquals(escapeArgument("end;"), "end\\;");
  assertEquals(escapeArgument("semi;colon"), "semi;colon");
  assertThrows(() => escapeArgument("a\0b"), ToolError);
});

Deno.test("literal() keeps #(...) and #{...} inert in format-expanded arguments", async () => {
  await using fx = await TmuxFixture.start();
  const runner = runnerFor(fx);
  const marker = `${fx.dir}/PWNED`;
  const hostile = `#(touch ${marker})#{pane_id}`;
  await runner.run(["rename-window", "-t", "main:0", literal(hostile)]);
  assertEquals(await fx.display("main:0", "#{window_name}"), hostile);
  await fx.jobsRan();
  assertEquals(await Deno.stat(marker).then(() => true, () => false), false);
});

Deno.test("flag-like values are refused", () => {
  assertThrows(() => refuseFlagLike("-t", "name"), ToolError, "must not start");
  assertEquals(refuseFlagLike("ok-name", "name"), "ok-name");
});

Deno.test("session references resolve exactly, and an id-shaped name is never confused", async () => {
  await using fx = await TmuxFixture.start({ session: "alpha" });
  // tmux lets a session be named like another session's id.
  await fx.tmux("new-session", "-d", "-s", "$0", "sleep 100000");
  await fx.tmux("new-session", "-d", "-s", "$9", "sleep 100000");
  const sessions = await listSessions(ctxFor(fx));
  const idOf = (name: string) => sessions.find((s) => s.sessionName === name)!.sessionId;
  assertEquals(resolveSessionRef(sessions, "alpha"), "$0");
  assertEquals(resolveSessionRef(sessions, "$1"), "$1"); // an id nobody uses as a name
  assertEquals(resolveSessionRef(sessions, "$9"), idOf("$9")); // a name no id has
  const ambiguous = assertThrows(() => resolveSessionRef(sessions, "$0"), ToolError);
  assertEquals(ambiguous.code, "invalid_arguments");
  assert(ambiguous.hint.includes(idOf("$0")), ambiguous.hint);
  for (const ref of ["alp", "al*", "alpha:0", "ALPHA", "$42", ""]) {
    assertEquals(
      assertThrows(() => resolveSessionRef(sessions, ref), ToolError).code,
      "target_not_found",
    );
  }
});

Deno.test("rows survive paths holding separators, tabs, newlines and forged nonces", async () => {
  const sep = separators("00112233aabbccdd");
  const forged = separators("ffffffffffffffff");
  const dir = await Deno.makeTempDir({ prefix: "tmux-mcp-test-" });
  const nasty = `${dir}/a:b\tc\nd\x1e\x1f${forged.row}${forged.field}ñ`;
  await Deno.mkdir(nasty);
  await using fx = await TmuxFixture.start();
  await fx.tmux("new-window", "-d", "-c", nasty, "sleep 100000");
  assertEquals((await listPanes(ctxFor(fx))).length, 2);
  // The new pane's directory is read from its process, which may not have changed into it yet.
  const exact = () => listPanes(ctxFor(fx)).then((ps) => ps.some((p) => p.currentPath === nasty));
  assert(await eventually(exact), "the raw path comes back exactly");
  // The parser itself: a field containing another nonce's separators is not split.
  const format = rowFormat("T", { a: "x", b: "y" });
  const out =
    `${sep.row}T${sep.field}${forged.field}1${sep.field}2\n${sep.row}T${sep.field}3${sep.field}4\n`;
  assertEquals(format.decode(parseRows(out, sep)), [{ a: `${forged.field}1`, b: "2" }, {
    a: "3",
    b: "4",
  }]);
  await Deno.remove(dir, { recursive: true });
});

Deno.test("failures are classified into typed codes", async () => {
  await using fx = await TmuxFixture.start();
  const runner = runnerFor(fx);
  const missing = await assertRejects(
    () => runner.run(["list-panes", "-t", "%999"]),
    ToolError,
  );
  assertEquals(missing.code, "target_not_found");
  const noSession = await assertRejects(
    () => runner.run(["list-windows", "-t", "=nope"]),
    ToolError,
  );
  assertEquals(noSession.code, "target_not_found");
  const bad = await assertRejects(() => runner.run(["no-such-command"]), ToolError);
  assertEquals(bad.code, "tmux_failed");
  const dead = new TmuxRunner({ socket: { kind: "path", path: fx.deadSocket }, env: reader });
  const notRunning = await assertRejects(() => dead.run(["list-sessions"]), ToolError);
  assertEquals(notRunning.code, "server_not_running");
  assertEquals(notRunning.retryable, true);
});

Deno.test("deadline and AbortSignal end a call with timeout / cancelled", async () => {
  await using fx = await TmuxFixture.start();
  const runner = runnerFor(fx);
  // wait-for blocks until signalled: a reliable long-running tmux command.
  const timeout = await assertRejects(
    () => runner.run(["wait-for", "never-signalled"], { timeoutMs: 200 }),
    ToolError,
  );
  assertEquals(timeout.code, "timeout");
  const controller = new AbortController();
  const pending = runner.run(["wait-for", "never-signalled-2"], { signal: controller.signal });
  // Aborted once the tmux client is waiting for its answer, not after some time.
  assert(
    await eventually(async () =>
      (await waitingTmuxClient(fx.socket, "wait-for never-signalled-2")) !== undefined
    ),
  );
  controller.abort();
  const cancelled = await assertRejects(() => pending, ToolError);
  assertEquals(cancelled.code, "cancelled");
});

Deno.test("stdin reaches tmux (load-buffer -) byte for byte", async () => {
  await using fx = await TmuxFixture.start();
  const runner = runnerFor(fx);
  const text = "line 1;\n$HOME \\ 'q' \"d\" ñ 😀\n";
  await runner.run(["load-buffer", "-b", "funnel-test", "-"], { stdin: text });
  assertEquals(await fx.tmux("show-buffer", "-b", "funnel-test"), text);
  await fx.tmux("delete-buffer", "-b", "funnel-test");
});

Deno.test("listing queries agree with tmux's own view", async () => {
  await using fx = await TmuxFixture.start({ session: "alpha" });
  await fx.tmux("new-session", "-d", "-s", "beta", "-x", "100", "-y", "30", "sleep 100000");
  await fx.tmux("split-window", "-d", "-t", "=beta:0", "sleep 100000");
  const ctx = ctxFor(fx);
  const sessions = await listSessions(ctx);
  assertEquals(sessions.map((s) => s.sessionName).sort(), ["alpha", "beta"]);
  const windows = await listWindows(ctx);
  assertEquals(windows.length, 2);
  const panes = await listPanes(ctx);
  assertEquals(panes.length, 3);
  for (const pane of panes) {
    const view = await fx.display(
      pane.paneId,
      "#{pane_pid} #{pane_width} #{pane_height} #{pane_left} #{pane_top} #{session_name}",
    );
    assertEquals(
      view,
      `${pane.pid} ${pane.width} ${pane.height} ${pane.left} ${pane.top} ${pane.sessionName}`,
    );
  }
});
