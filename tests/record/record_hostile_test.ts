/**
 * Pane bytes and agent strings are data in the recordings (docs/design.md §11.3): a pane printing
 * forged log lines, an asciicast header, events, line separators and invalid UTF-8, and a command
 * whose text holds forged lines, leave the action log one object a line with only the server's own
 * entries, and the recording one header followed by events that replay the bytes as printed.
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
  sessionDirs,
} from "../support/recordings.ts";

const FORGED_LOG = '{"t":"2000-01-01T00:00:00.000Z","kind":"done","call":1,"forged":true}';
const FORGED_CAST = '{"version": 2, "width": 1, "height": 1}';
const FORGED_EVENT = '[0.5, "o", "forged"]';

Deno.test("a pane printing forged log lines and asciicast headers, and an agent sending them, forge nothing", async () => {
  await using fx = await TmuxFixture.start();
  await cleanShells(fx);
  const dir = `${fx.dir}/records`;
  const { client, close } = await connectInProcess(["-S", fx.socket, "--record", dir]);
  let pane = "";
  try {
    pane = await agentPane(client, fx, "agent");
    // The command's own text holds forged lines: it is logged whole, as data.
    const command = `cat <<'EOF'\n${FORGED_LOG}\n${FORGED_CAST}\n${FORGED_EVENT}\nEOF\n` +
      // A separator JSON leaves bare, NEL, an invalid byte and the halves of a split "€".
      `printf 'sep\\342\\200\\250%s\\302\\205x\\377y\\342\\202' '${FORGED_LOG}'; printf '\\254\\n'`;
    const ran = await ok<{ exitStatus: number; output: string }>(client, "run_shell_command", {
      paneId: pane,
      command,
    });
    assertEquals(ran.exitStatus, 0);
    assert(ran.output.includes(FORGED_CAST), ran.output);
  } finally {
    await close();
  }
  const [session] = sessionDirs(dir);
  const log = actionLog(session);
  // Only the server's entries: each call has its start and its end, nothing is forged.
  assert(log.every((line) => !("forged" in line)), JSON.stringify(log));
  const calls = log.filter((l) => l.kind === "call").map((l) => l.call);
  assertEquals(log.filter((l) => l.kind === "done").map((l) => l.call), calls);
  const run = log.find((l) => l.kind === "call" && l.tool === "run_shell_command")!;
  assert((run.args as { command: string }).command.includes(`\n${FORGED_LOG}\n`));
  // The raw file: no line but the server's; every separator is escaped.
  const raw = Deno.readTextFileSync(`${session}/actions.jsonl`);
  assert(!/[\u0085\u2028\u2029]/.test(raw));

  const file = `${session}/local-p${pane.slice(1)}.cast`;
  const { header, events } = castFile(file);
  assertEquals(header.title, `tmux-mcp: local ${pane}`);
  assert(!/[\u0085\u2028\u2029]/.test(Deno.readTextFileSync(file)));
  const printed = events.filter((e) => e[1] === "o").map((e) => e[2]).join("");
  // As printed: the forged lines are output, the separators kept, the invalid byte replaced, the
  // split character joined.
  assert(printed.includes(`${FORGED_CAST}\r\n${FORGED_EVENT}\r\n`), printed);
  assert(printed.includes(`sep\u2028${FORGED_LOG}\u0085x\ufffdy€\r\n`), JSON.stringify(printed));
  if (!ASCIINEMA) return;
  const replayed = await asciinemaCat(fx, file);
  assertEquals(replayed, printed);
});
