/**
 * The recording directory stays bounded (docs/design.md §11.4): with small caps, a pane printing
 * far more than the directory may hold is recorded in parts that each replay alone (a header and a
 * first frame of their own), the oldest closed parts are removed, the log says both, and what is
 * left fits the cap.
 */
import { assert, assertEquals } from "../support/assert.ts";
import { connectInProcess, ok } from "../support/client.ts";
import { TmuxFixture } from "../support/fixture.ts";
import {
  actionLog,
  agentPane,
  ASCIINEMA,
  asciinemaCat,
  castFile,
  cleanShells,
  partsOf,
  sessionDirs,
} from "../support/recordings.ts";

const FILE_BYTES = 8192;
const DIR_BYTES = 65536;

Deno.test("past the caps, recordings continue in parts and the oldest closed files go, said in the log", async () => {
  await using fx = await TmuxFixture.start();
  await cleanShells(fx);
  const dir = `${fx.dir}/records`;
  const { client, close } = await connectInProcess([
    "-S",
    fx.socket,
    "--record",
    dir,
    "--record-file-bytes",
    String(FILE_BYTES),
    "--record-dir-bytes",
    String(DIR_BYTES),
  ]);
  let pane = "";
  try {
    pane = await agentPane(client, fx, "agent");
    // About 250 KB of output: four times what the directory may hold.
    for (let round = 1; round <= 5; round++) {
      const ran = await ok<{ exitStatus: number }>(client, "run_shell_command", {
        paneId: pane,
        command: `seq -f 'round ${round} line %g' 1 2000`,
      });
      assertEquals(ran.exitStatus, 0);
    }
  } finally {
    await close();
  }
  const [session] = sessionDirs(dir);
  const casts = partsOf(session, `local-p${pane.slice(1)}.cast`);
  const logs = partsOf(session, "actions.jsonl");
  const files = [...Deno.readDirSync(session)].map((e) => `${session}/${e.name}`);
  const sizes = files.map((f) => Deno.statSync(f).size);
  // Bounded: the directory within its cap (give or take the part being written), each part
  // within the file cap plus one event.
  const total = sizes.reduce((a, b) => a + b, 0);
  assert(total <= DIR_BYTES + FILE_BYTES, `${total} bytes in ${files.length} files`);
  assert(sizes.every((size) => size <= FILE_BYTES * 2), sizes.join());
  // Parts: the first ones are gone, the rest numbered on, each a recording of its own.
  assertEquals(casts.length > 1, true, files.join());
  assert(!casts[0].endsWith(`local-p${pane.slice(1)}.cast`), "the first part was removed");
  assert(logs.length > 0 && !logs[0].endsWith("/actions.jsonl"), "the log's first part went too");
  const lines = actionLog(session);
  assert(lines.some((l) => l.kind === "continued"), "the log went on in a new part");
  assert(
    lines.some((l) => l.kind === "recording" && l.event === "continued"),
    "the recording's parts are in the log",
  );
  const pruned = lines.filter((l) => l.kind === "pruned");
  assert(pruned.length > 0, JSON.stringify(lines.map((l) => l.kind)));
  assert(pruned.every((l) => (l.removed as string[]).every((p) => p.startsWith(session))));
  for (const part of casts) {
    const { header, events } = castFile(part);
    assert(/\(part \d+\)$/.test(header.title as string), header.title as string);
    // Each part opens with the screen as it was, then goes on.
    assertEquals(events[0][1], "o");
    assert(events[0][2].startsWith("\x1b[0m\x1b[H\x1b[2J"));
  }
  if (!ASCIINEMA) return;
  const last = castFile(casts.at(-1)!).events.filter((e) => e[1] === "o").map((e) => e[2]);
  assertEquals(await asciinemaCat(fx, casts.at(-1)!), last.join(""));
  assert(last.join("").includes("round 5 line 2000"));
});
