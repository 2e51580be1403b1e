/**
 * Recording never fails a tool call (docs/design.md §11.4): a read-only directory, one removed
 * while recording and files that can no longer be written each stop recording, said once on
 * stderr (and in the log where it can still be written), while every call goes on working. With
 * `--no-live` the calls are logged and the log says the panes' output is not recorded.
 */
import { assert, assertEquals, assertMatch } from "../support/assert.ts";
import { connectInProcess, ok } from "../support/client.ts";
import { type TmuxFixture, TmuxFixture as Fixture } from "../support/fixture.ts";
import { actionLog, agentPane, cleanShells, sessionDirs } from "../support/recordings.ts";

/** Whether this process can make a file immutable (root with CAP_LINUX_IMMUTABLE, and a file system that has the flag). */
async function chattr(flag: "+i" | "-i", ...paths: string[]): Promise<boolean> {
  const out = await new Deno.Command("chattr", { args: [flag, ...paths], stderr: "null" }).output()
    .catch(() => undefined);
  return out?.success ?? false;
}

/** Whether the tests run as root (which writes through a directory's mode). */
const ROOT =
  new TextDecoder().decode((await new Deno.Command("id", { args: ["-u"] }).output()).stdout)
    .trim() === "0";

/** Every kind of call keeps working: create, run, type, read. */
async function everyCallWorks(
  client: Parameters<typeof ok>[0],
  fx: TmuxFixture,
  name: string,
): Promise<void> {
  const pane = await agentPane(client, fx, name);
  const ran = await ok<{ exitStatus: number; output: string }>(client, "run_shell_command", {
    paneId: pane,
    command: "echo still-$((40+2))",
  });
  assertEquals([ran.exitStatus, ran.output], [0, "still-42"]);
  await ok(client, "send_keys", { paneId: pane, keys: "echo typed" });
  await ok(client, "capture_pane", { paneId: pane });
}

/** The stderr lines saying recording stopped: exactly one. */
function saidOnce(stderr: string, why: RegExp): void {
  const lines = stderr.split("\n").filter((l) => l.startsWith("recording stopped"));
  assertEquals(lines.length, 1, stderr);
  assertMatch(lines[0], why);
  assertMatch(lines[0], /tool calls go on, unrecorded$/);
}

async function server(fx: TmuxFixture, dir: string, extra: string[] = []) {
  return await connectInProcess(["-S", fx.socket, "--record", dir, ...extra]);
}

Deno.test("a read-only recording directory: every call works, stderr says once that recording stopped", async () => {
  await using fx = await Fixture.start();
  await cleanShells(fx);
  const dir = `${fx.dir}/records`;
  await Deno.mkdir(dir, { mode: 0o500 });
  await Deno.chmod(dir, 0o500);
  // root writes through a mode; an immutable directory stops it too.
  if (ROOT && !await chattr("+i", dir)) {
    console.warn("record_failure_test: SKIPPED the read-only case — chattr +i is not available");
    return;
  }
  const { client, close, stderr } = await server(fx, dir);
  try {
    await everyCallWorks(client, fx, "agent");
  } finally {
    await close();
    if (ROOT) await chattr("-i", dir);
    await Deno.chmod(dir, 0o700);
  }
  saidOnce(stderr(), /cannot create a session directory in .*records/);
  assertEquals([...Deno.readDirSync(dir)], []);
});

Deno.test("the recording directory removed while recording: every call works, stderr says once, nothing is recreated", async () => {
  await using fx = await Fixture.start();
  await cleanShells(fx);
  const dir = `${fx.dir}/records`;
  const { client, close, stderr } = await server(fx, dir);
  try {
    await everyCallWorks(client, fx, "before");
    assertEquals(sessionDirs(dir).length, 1);
    await Deno.remove(dir, { recursive: true });
    await everyCallWorks(client, fx, "after");
  } finally {
    await close();
  }
  saidOnce(stderr(), /was removed/);
  assertEquals(await Deno.stat(dir).then(() => true, () => false), false);
});

Deno.test("recording files that can no longer be written: every call works, stderr and the log say once", async () => {
  if (!ROOT) {
    console.warn("record_failure_test: SKIPPED the failed-write case — it needs chattr (root)");
    return;
  }
  await using fx = await Fixture.start();
  await cleanShells(fx);
  const dir = `${fx.dir}/records`;
  const { client, close, stderr } = await server(fx, dir);
  const [session, files] = [{ path: "" }, [] as string[]];
  try {
    await everyCallWorks(client, fx, "before");
    session.path = sessionDirs(dir)[0];
    files.push(...[...Deno.readDirSync(session.path)].map((e) => `${session.path}/${e.name}`));
    if (!await chattr("+i", ...files)) {
      console.warn("record_failure_test: SKIPPED the failed-write case — chattr +i failed");
      return;
    }
    // A write now fails as it would on a full disk: recording stops, the calls go on.
    await everyCallWorks(client, fx, "after");
  } finally {
    await close();
    await chattr("-i", ...files);
  }
  saidOnce(stderr(), /cannot write .*Operation not permitted/);
  // The log could not take its last line either: it ends with what was written before.
  const log = actionLog(session.path);
  assert(!log.some((l) => l.kind === "stopped"));
});

Deno.test("--no-live: calls are logged, and the log says once per pane that its output is not recorded", async () => {
  await using fx = await Fixture.start();
  await cleanShells(fx);
  const dir = `${fx.dir}/records`;
  const { client, close } = await server(fx, dir, ["--no-live"]);
  let pane = "";
  try {
    pane = (await ok<{ paneId: string }>(client, "create_session", { name: "agent" })).paneId;
    await ok(client, "send_keys", { paneId: pane, keys: "echo one" });
    await ok(client, "send_keys", { paneId: pane, keys: "echo two" });
  } finally {
    await close();
  }
  const [session] = sessionDirs(dir);
  const log = actionLog(session);
  const unrecorded = log.filter((l) => l.kind === "recording");
  assertEquals(unrecorded.map((l) => [l.event, l.paneId]), [["not_recorded", pane]]);
  assertMatch(unrecorded[0].why as string, /--no-live/);
  assertEquals(log.filter((l) => l.kind === "done").length, 3);
  assertEquals([...Deno.readDirSync(session)].map((e) => e.name), ["actions.jsonl"]);
});

Deno.test("past the live connection cap, recording attaches nothing more: the log says the pane is not recorded", async () => {
  await using fx = await Fixture.start();
  await cleanShells(fx);
  const dir = `${fx.dir}/records`;
  const { client, close, built } = await connectInProcess(
    ["-S", fx.socket, "--record", dir],
    {},
    { maxConnections: 1 },
  );
  const panes: string[] = [];
  try {
    for (const name of ["first", "second"]) {
      const pane = (await ok<{ paneId: string }>(client, "create_session", { name })).paneId;
      await ok(client, "send_keys", { paneId: pane, keys: `echo ${name}` });
      panes.push(pane);
    }
    // The first session's recording holds the one connection; nothing attached for the second.
    assertEquals(built.live?.stats().connections, 1);
  } finally {
    await close();
  }
  const log = actionLog(sessionDirs(dir)[0]);
  const recording = log.filter((l) => l.kind === "recording");
  assertEquals(recording.map((l) => [l.event, l.paneId]), [
    ["started", panes[0]],
    ["not_recorded", panes[1]],
  ]);
  assertMatch(recording[1].why as string, /already follows 1 sessions live/);
});
