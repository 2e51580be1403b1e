/**
 * `i` events are the bytes the pane received (docs/design.md §11.2): typed text, key names in the
 * pane's current modes (normal, and application cursor and keypad keys), pastes with and without
 * bracketed-paste markers, text too long for one tmux argument, batch rows. A pane whose program
 * writes every byte it receives to a file is the witness.
 */
import { assert, assertEquals } from "../support/assert.ts";
import { connectInProcess, ok } from "../support/client.ts";
import { eventually, TmuxFixture } from "../support/fixture.ts";
import { castFile, sessionDirs } from "../support/recordings.ts";

/**
 * A window whose program writes every byte it receives to a file (`stty raw -echo`: exactly what
 * tmux wrote), after printing `modes` (escape sequences setting terminal modes, then
 * `MODES-SET`): at once, or — `later` — once the test creates `<name>.go`.
 */
async function receiver(fx: TmuxFixture, name: string, modes: string, later = false) {
  const file = `${fx.dir}/${name}`;
  const ready = `${fx.dir}/${name}.ready`;
  const go = later ? `while [ ! -e ${fx.dir}/${name}.go ]; do sleep 0.05; done; ` : "";
  const paneId = await fx.newWindow(
    `bash --norc --noprofile -c "stty raw -echo && touch ${ready} && ${go}` +
      `printf '${modes}MODES-SET' && exec cat > ${file}"`,
  );
  assert(await eventually(() => Deno.stat(ready).then(() => true, () => false)));
  return { paneId, file, go: `${fx.dir}/${name}.go` };
}

/** The `i` events of a pane's recording, joined. */
function inputOf(session: string, paneId: string): string {
  const { events } = castFile(`${session}/local-p${paneId.slice(1)}.cast`);
  return events.filter((e) => e[1] === "i").map((e) => e[2]).join("");
}

const KEYS = ["Up", "Left", "C-c", "F5", "F1", "Home", "End", "M-x", "KP5", "KPEnter", "BTab"];

Deno.test("i events hold exactly the bytes the pane received, in normal and application modes", async () => {
  await using fx = await TmuxFixture.start();
  const dir = `${fx.dir}/records`;
  const APP = "\\033[?1h\\033=";
  const normal = await receiver(fx, "normal", "");
  // Application cursor keys and keypad set before the pane is followed: the seed carries them.
  const seeded = await receiver(fx, "seeded", APP);
  // The same and bracketed paste, set while it is followed: its stream sees them.
  const live = await receiver(fx, "live", `${APP}\\033[?2004h`, true);
  const { client, close } = await connectInProcess(["-S", fx.socket, "--record", dir]);
  const sent = async (paneId: string, go?: string) => {
    await ok(client, "send_keys", { paneId, keys: "héllo wörld", enter: false });
    if (go) {
      await Deno.writeTextFile(go, "");
      const seen = await ok<{ outcome: string }>(client, "wait_for_text", {
        paneId,
        patterns: ["MODES-SET"],
        includeScreen: true,
      });
      assertEquals(seen.outcome, "matched");
    }
    for (const keys of KEYS) await ok(client, "send_keys", { paneId, keys, enter: false });
    await ok(client, "send_keys", { paneId, keys: "Up", literal: true });
    await ok(client, "send_keys", { paneId, keys: "C-Up", enter: false });
    // A sequence: keys and text in order, in one call.
    await ok(client, "send_keys", { paneId, keys: ["seq", "Left", "C-a", "é"], enter: false });
    await ok(client, "paste_text", { paneId, text: "one\ntwo\r\nthree", enter: true });
    await ok(client, "send_keys", { paneId, keys: "y".repeat(9000), enter: false });
    await ok(client, "send_keys_batch", {
      operations: [{ paneId, keys: "row" }, { paneId, keys: "Down", enter: false }],
    });
  };
  try {
    await sent(normal.paneId);
    await sent(seeded.paneId);
    await sent(live.paneId, live.go);
  } finally {
    await close();
  }
  const session = sessionDirs(dir)[0];
  for (const { paneId, file } of [normal, seeded, live]) {
    const expected = inputOf(session, paneId);
    const received = () => Deno.readTextFile(file).catch(() => "");
    assert(await eventually(async () => (await received()).length >= expected.length));
    const got = await received();
    // Compared as JSON, so a difference shows its escape sequences.
    assertEquals(JSON.stringify(got).slice(0, 400), JSON.stringify(expected).slice(0, 400));
    assertEquals(got, expected);
  }
  // The modes made a difference, and the recording followed them.
  assert(inputOf(session, normal.paneId).startsWith("héllo wörld\x1b[A\x1b[D\x03"));
  assert(inputOf(session, seeded.paneId).startsWith("héllo wörld\x1bOA\x1bOD\x03"));
  assert(inputOf(session, live.paneId).startsWith("héllo wörld\x1bOA\x1bOD\x03"));
  assert(inputOf(session, live.paneId).includes("\x1b[200~one\rtwo\rthree\x1b[201~\r"));
  assert(inputOf(session, normal.paneId).includes("one\rtwo\rthree\r"));
  // Where the stream never saw the paste mode, the recording says it does not know it.
  const marks = (paneId: string) =>
    castFile(`${session}/local-p${paneId.slice(1)}.cast`).events.filter((e) => e[1] === "m")
      .map((e) => e[2]);
  assert(marks(normal.paneId).some((m) => m.startsWith("paste: the program's bracketed-paste")));
  assert(!marks(live.paneId).some((m) => m.startsWith("paste:")));
});

Deno.test("a key whose bytes the recorder does not know is recorded by name in a marker", async () => {
  await using fx = await TmuxFixture.start();
  const dir = `${fx.dir}/records`;
  const pane = await receiver(fx, "raw", "");
  const { client, close } = await connectInProcess(["-S", fx.socket, "--record", dir]);
  try {
    await ok(client, "send_keys", { paneId: pane.paneId, keys: "C-Tab", enter: false });
  } finally {
    await close();
  }
  const { events } = castFile(`${sessionDirs(dir)[0]}/local-p${pane.paneId.slice(1)}.cast`);
  assert(events.some((e) => e[1] === "m" && e[2] === "key C-Tab"), JSON.stringify(events));
  assert(!events.some((e) => e[1] === "i"));
});
