/**
 * Remote panes are recorded like local ones (docs/design.md §11.2): through their host's live
 * engine, into the same directory, named after their host, and logged with it. A private sshd
 * (tests/support/sshd.ts) stands for the remote machine; skipped, with the reason, without sshd.
 */
import { assert, assertEquals } from "../support/assert.ts";
import { connectInProcess, ok } from "../support/client.ts";
import { cleanEnv, TmuxFixture } from "../support/fixture.ts";
import { sshdMissing, SshRig } from "../support/sshd.ts";
import { actionLog, castFile, sessionDirs } from "../support/recordings.ts";

const missing = await sshdMissing();

Deno.test({
  name: `a remote pane is recorded like a local one${missing ? ` (skipped: ${missing})` : ""}`,
  ignore: missing !== undefined,
  fn: async () => {
    const rig = await SshRig.start();
    await using local = await TmuxFixture.start({ session: "here" });
    try {
      await rig.tmux(
        0,
        "-f",
        "/dev/null",
        "new-session",
        "-d",
        "-s",
        "work",
        "-x",
        "80",
        "-y",
        "24",
      );
      const dir = `${local.dir}/records`;
      const { client, close } = await connectInProcess(
        ["--socket-path", local.socket, ...rig.sshArgs([0]), "--record", dir],
        cleanEnv(),
      );
      try {
        const run = await ok<{ exitStatus: number; output: string }>(client, "run_shell_command", {
          paneId: "m1:%0",
          command: "echo far-$((40+2))",
          timeoutMs: 20_000,
        });
        assertEquals([run.exitStatus, run.output.trim()], [0, "far-42"]);
      } finally {
        await close();
      }
      const [session] = sessionDirs(dir);
      const log = actionLog(session);
      const done = log.find((l) => l.kind === "done" && l.tool === "run_shell_command")!;
      assertEquals([done.host, (done.panes as Array<{ paneId: string }>)[0].paneId], ["m1", "%0"]);
      assertEquals(log.find((l) => l.kind === "call")?.args, {
        paneId: "%0",
        command: "echo far-$((40+2))",
        timeoutMs: 20_000,
      });
      const { header, events } = castFile(`${session}/m1-p0.cast`);
      assertEquals(header.title, "tmux-mcp: m1 %0");
      assert(events.some((e) => e[1] === "o" && e[2].includes("far-42")));
      assert(events.some((e) => e[1] === "i" && e[2].startsWith(" eval ")));
    } finally {
      await rig.close();
    }
  },
});
