/**
 * Input tools and the preflight against real tmux and real bash panes: byte-exact delivery, keys,
 * large text through private buffers, every guard, synchronized cohorts, serialization, the
 * send_keys_batch contract, and no paste buffer left behind.
 */
// deno-lint-ignore no-import-prefix -- dev tooling (deno.dev.lock): a start never fetches it
import { Ajv } from "npm:ajv@^8";
import { assert, assertEquals, assertMatch } from "../../support/assert.ts";
import { connectInProcess, fails, ok } from "../../support/client.ts";
import {
  cleanEnv,
  contextFor,
  eventually,
  nestedClient,
  TmuxFixture,
} from "../../support/fixture.ts";
import { inputJsonSchema, successJsonSchema, TOOLS } from "../../../src/catalog.ts";
import { ToolError } from "../../../src/errors.ts";
import { waitForShape } from "../../../src/wait/after_input.ts";
import { TmuxRunner } from "../../../src/tmux/core/runner.ts";
import { pasteText, sendKeys, stripPasteMarkers } from "../../../src/tmux/execute/input.ts";
import { PaneQueue } from "../../../src/tmux/core/pane_queue.ts";

const encoder = new TextEncoder();
const decoder = new TextDecoder();

/** An input result: `resolvedPaneIds` only when more panes than paneId received it (§3.1). */
interface Sent {
  paneId: string;
  resolvedPaneIds?: string[];
}

/** Start a server whose first window (the one an attached client would show) runs `sleep`. */
function server(): Promise<TmuxFixture> {
  return TmuxFixture.start({ session: "in", command: "sleep 100000" });
}

/** Where {@link received} sends its sentinel, by receiving file; `enter` for a canonical tty. */
const receiving = new Map<string, { fx: TmuxFixture; paneId: string; enter: boolean }>();

/** Typed after everything a test sent: its arrival shows that nothing else is on the way. */
const SENTINEL = "#end-of-test-input#";

async function exists(path: string): Promise<boolean> {
  return await Deno.stat(path).then(() => true, () => false);
}

/**
 * A pane that writes every byte it receives to a file. `stty raw -echo` turns off the line
 * discipline entirely (no 4096-byte line limit, no CR/LF mapping, no signals), so the file holds
 * exactly what tmux wrote; `-icanon -echo` keeps only the CR→LF input mapping programs normally
 * see. `within` splits an existing pane's window instead of opening a new window.
 */
async function receiver(
  fx: TmuxFixture,
  name: string,
  options: { tty?: string; within?: string; prelude?: string } = {},
): Promise<{ paneId: string; file: string }> {
  const file = `${fx.dir}/${name}.out`;
  const ready = `${fx.dir}/${name}.ready`;
  const prelude = options.prelude ? `${options.prelude} && ` : "";
  const script = `stty ${options.tty ?? "raw -echo"} && ${prelude}touch ${ready} && ` +
    `exec cat > ${file}`;
  const where = options.within
    ? ["split-window", "-d", "-t", options.within]
    : ["new-window", "-d", "-t", "=in:"];
  const paneId = (await fx.tmux(
    ...where,
    "-P",
    "-F",
    "#{pane_id}",
    `bash --norc --noprofile -c '${script}'`,
  )).trim();
  assert(await eventually(() => exists(ready)), `${name} set up its terminal`);
  receiving.set(file, { fx, paneId, enter: false });
  return { paneId, file };
}

/**
 * The file once a sentinel typed behind everything sent has arrived (tmux writes to a pane in
 * order, so all that was on its way arrived first), the sentinel taken off.
 */
async function received(file: string): Promise<Uint8Array> {
  const rx = receiving.get(file);
  if (rx === undefined) throw new Error(`${file} is not a receiver's file`);
  await rx.fx.tmux("send-keys", "-t", rx.paneId, "-l", SENTINEL);
  if (rx.enter) await rx.fx.tmux("send-keys", "-t", rx.paneId, "Enter");
  const tail = SENTINEL + (rx.enter ? "\n" : "");
  let text = "";
  await eventually(async () => {
    text = decoder.decode(await Deno.readFile(file).catch(() => new Uint8Array()));
    return text.endsWith(tail);
  });
  // A synchronized window carries another member's sentinel too: every one is taken off.
  return encoder.encode(text.replaceAll(tail, ""));
}

/** Compare bytes, showing text on mismatch. */
function assertBytes(actual: Uint8Array, expected: Uint8Array | string, what: string): void {
  const want = typeof expected === "string" ? encoder.encode(expected) : expected;
  if (actual.length !== want.length || actual.some((b, i) => b !== want[i])) {
    assertEquals(
      JSON.stringify(decoder.decode(actual)).slice(0, 400),
      JSON.stringify(decoder.decode(want)).slice(0, 400),
      `${what}: ${actual.length} bytes received, ${want.length} expected`,
    );
    assert(false, `${what}: bytes differ`);
  }
}

/** An interactive bash with a fixed prompt and environment, ready for input. */
async function shell(fx: TmuxFixture): Promise<string> {
  const command = `env -i PATH=/usr/local/bin:/usr/bin:/bin HOME=${fx.dir} TERM=screen ` +
    `PS1='$ ' HISTFILE=/dev/null bash --norc --noprofile`;
  const paneId =
    (await fx.tmux("new-window", "-d", "-t", "=in:", "-P", "-F", "#{pane_id}", command))
      .trim();
  assert(
    await eventually(async () => (await screen(fx, paneId)).split("\n").includes("$")),
    "prompt",
  );
  return paneId;
}

async function screen(fx: TmuxFixture, paneId: string): Promise<string> {
  return await fx.tmux("capture-pane", "-p", "-t", paneId);
}

/** No paste buffer of ours (or anyone's) may be left on the server. */
async function assertNoBuffers(fx: TmuxFixture): Promise<void> {
  assertEquals(await fx.tmux("list-buffers"), "");
}

Deno.test("send_keys: text arrives byte-exact; key names are pressed; flag-like text is typed", async () => {
  await using fx = await server();
  const rx = await receiver(fx, "exact");
  const { client, close } = await connectInProcess(["-S", fx.socket]);
  try {
    const hostile = `echo 'single' "double" $HOME \`tick\` back\\slash\ttab é€😀 ; x ;`;
    const sends: Array<[Record<string, unknown>, string]> = [
      [{ keys: hostile, literal: true, enter: false }, hostile],
      [{ keys: hostile, enter: false }, hostile], // not a key name: typed as text
      [
        { keys: "ends with a backslash-semicolon \\;", enter: false },
        "ends with a backslash-semicolon \\;",
      ],
      [{ keys: "-la", enter: false }, "-la"],
      [{ keys: "-H", enter: false }, "-H"], // tmux would take it as its hex flag
      [{ keys: "--", enter: false }, "--"],
      [{ keys: "0x41 hello", enter: false }, "0x41 hello"], // tmux alone would send just "A"
      [{ keys: "a\nb\rc", literal: true, enter: false }, "a\nb\rc"],
      [{ keys: "C-c", enter: false }, "\x03"],
      [{ keys: "Escape", enter: false }, "\x1b"],
      [{ keys: "Up", enter: false }, "\x1b[A"],
      [{ keys: "F5", enter: false }, "\x1b[15~"],
      [{ keys: "BTab", enter: false }, "\x1b[Z"],
      [{ keys: "Tab", enter: false }, "\t"],
      [{ keys: "C-c", literal: true, enter: false }, "C-c"],
      [{ keys: "run it;" }, "run it;\r"], // enter defaults to true: Enter is CR
      [{ keys: "", enter: true }, "\r"],
    ];
    let expected = "";
    for (const [args, bytes] of sends) {
      const sent = await ok<Sent>(client, "send_keys", { paneId: rx.paneId, ...args });
      // Sent to the pane named alone: nothing else to say (docs/design.md §3.1).
      assertEquals(sent, { paneId: rx.paneId });
      expected += bytes;
    }
    assertBytes(await received(rx.file), expected, "all sends");
    assertEquals(
      await fx.display("=in:", "#{session_name}"),
      "in",
      "a trailing ; started no tmux command",
    );
    await assertNoBuffers(fx);
  } finally {
    await close();
  }
});

Deno.test("send_keys: 100 KB and the 8 KiB boundary arrive byte-exact through private buffers", async () => {
  await using fx = await server();
  const rx = await receiver(fx, "big");
  const { client, close } = await connectInProcess(["-S", fx.socket]);
  try {
    let big = "";
    for (let i = 0; encoder.encode(big).length < 100_000; i++) {
      big += `line ${i}\t"quoted" 'single' $HOME \\ é€😀 ;\n`;
    }
    const at = (n: number) => "x".repeat(n - 1) + ";";
    const texts: Array<[string, boolean, boolean]> = [
      [big, false, false],
      [at(8192), true, false], // one argument
      [at(8193), true, true], // a buffer, then Enter
      [big, true, true],
    ];
    let expected = "";
    for (const [keys, literal, enter] of texts) {
      await ok(client, "send_keys", { paneId: rx.paneId, keys, literal, enter });
      expected += keys + (enter ? "\r" : "");
      await assertNoBuffers(fx);
    }
    assertBytes(await received(rx.file), expected, "large sends");
  } finally {
    await close();
  }
});

Deno.test("paste_text: 1,000 lines whole, terminal newlines, bracketed paste, Enter after a pause", async () => {
  await using fx = await server();
  const lines = await receiver(fx, "lines", { tty: "-icanon -echo" });
  const raw = await receiver(fx, "raw");
  const bracketed = await receiver(fx, "bracketed", { prelude: 'printf "\\033[?2004h"' });
  const { client, close } = await connectInProcess(["-S", fx.socket]);
  try {
    const text = Array.from({ length: 1000 }, (_, i) => `${i}: "quoted" $HOME \\ é€😀 \t;`)
      .join("\n") + "\n";
    const pasted = await ok<Sent & { bytes: number }>(client, "paste_text", {
      paneId: lines.paneId,
      text,
    });
    assertEquals(pasted, { paneId: lines.paneId, bytes: encoder.encode(text).length });
    // The terminal's usual CR→LF input mapping restores every line exactly.
    assertBytes(await received(lines.file), text, "1,000 lines");
    await assertNoBuffers(fx);

    // Unmapped, a paste carries newlines as carriage returns, like a terminal's paste; Enter
    // follows after the documented pause.
    await ok(client, "paste_text", { paneId: raw.paneId, text: "a\nb;", enter: true });
    assertBytes(await received(raw.file), "a\rb;\r", "raw paste with Enter");

    // A program that enabled bracketed paste gets the markers; typed keys never do.
    await ok(client, "paste_text", { paneId: bracketed.paneId, text: "x\ny" });
    await ok(client, "send_keys", { paneId: bracketed.paneId, keys: "z".repeat(9000) });
    const expected = "\x1b[200~x\ry\x1b[201~" + "z".repeat(9000) + "\r";
    assertBytes(await received(bracketed.file), expected, "bracketed");
    await assertNoBuffers(fx);
  } finally {
    await close();
  }
});

Deno.test("send_keys in bash: C-c interrupts sleep, Up recalls history, Enter runs it", async () => {
  await using fx = await server();
  const paneId = await shell(fx);
  const { client, close } = await connectInProcess(["-S", fx.socket]);
  const command = () => fx.display(paneId, "#{pane_current_command}");
  try {
    await ok(client, "send_keys", { paneId, keys: "sleep 100" });
    assert(await eventually(async () => await command() === "sleep"), "sleep runs");
    await ok(client, "send_keys", { paneId, keys: "C-c", enter: false });
    assert(await eventually(async () => await command() === "bash"), "C-c interrupted sleep");

    await ok(client, "send_keys", { paneId, keys: "echo recall-$((40+2))" });
    const outputs = async () =>
      (await screen(fx, paneId)).split("\n").filter((l) => l === "recall-42").length;
    assert(await eventually(async () => await outputs() === 1), "the command ran");
    await ok(client, "send_keys", { paneId, keys: "Up", enter: false });
    const lastLine = async () => (await screen(fx, paneId)).trimEnd().split("\n").at(-1);
    assert(
      await eventually(async () => await lastLine() === "$ echo recall-$((40+2))"),
      "Up recalled the command",
    );
    await ok(client, "send_keys", { paneId, keys: "", enter: true });
    assert(await eventually(async () => await outputs() === 2), "Enter ran it again");
  } finally {
    await close();
  }
});

Deno.test("guard: the caller's own pane is refused unless force; another server's pane is not ours", async () => {
  await using fx = await server();
  const rx = await receiver(fx, "own");
  const pid = await fx.serverPid();
  const own = { TMUX: `${fx.socket},${pid},0`, TMUX_PANE: rx.paneId };
  const { client, close } = await connectInProcess(["-S", fx.socket], own);
  const elsewhere = await connectInProcess(["-S", fx.socket], {
    TMUX: `/tmp/other.sock,${pid + 100000},0`,
    TMUX_PANE: rx.paneId,
  });
  try {
    const attempts: Array<[string, Record<string, unknown>]> = [
      ["send_keys", { paneId: rx.paneId, keys: "no" }],
      ["paste_text", { paneId: rx.paneId, text: "no" }],
    ];
    for (const [tool, args] of attempts) {
      const denied = await fails(client, tool, args);
      assertEquals([denied.code, denied.effects, denied.retryable], [
        "target_denied",
        "none",
        false,
      ]);
      assertMatch(denied.text, /own terminal/);
      assertMatch(denied.text, /force: true/);
    }
    const batch = await ok<{ completed: number; failures: Array<{ reason: string }> }>(
      client,
      "send_keys_batch",
      { operations: [{ paneId: rx.paneId, keys: "no" }] },
    );
    assertEquals(batch.completed, 0);
    assertMatch(batch.failures[0].reason, /^target_denied: pane %\d+ is the pane this server/);
    await ok(client, "send_keys", { paneId: rx.paneId, keys: "yes", force: true, enter: false });
    await ok(client, "send_keys_batch", {
      operations: [{ paneId: rx.paneId, keys: "!", force: true, enter: false }],
    });
    // Same pane id, but $TMUX names another server (pid): not the caller's pane.
    await ok(elsewhere.client, "send_keys", { paneId: rx.paneId, keys: "?", enter: false });
    assertBytes(await received(rx.file), "yes!?", "only the allowed sends");
  } finally {
    await close();
    await elsewhere.close();
  }
});

Deno.test("guard: a pane a person watches is refused even with force; --allow-watched-panes allows it", async () => {
  await using fx = await server();
  const watchedPane = await fx.display("=in:0", "#{pane_id}");
  const rx = await receiver(fx, "unwatched"); // another window: not on the person's screen
  const detach = await fx.attachPerson("in");
  const strict = await connectInProcess(["-S", fx.socket]);
  const allowing = await connectInProcess(["-S", fx.socket, "--allow-watched-panes"]);
  try {
    for (const force of [false, true]) {
      const denied = await fails(strict.client, "send_keys", {
        paneId: watchedPane,
        keys: "x",
        force,
      });
      assertEquals([denied.code, denied.effects], ["target_denied", "none"]);
      assertMatch(denied.text, /a person is watching pane/);
      assertMatch(denied.text, /force does not override/);
      assertMatch(denied.text, /--allow-watched-panes/);
    }
    const paste = await fails(strict.client, "paste_text", { paneId: watchedPane, text: "x" });
    assertEquals(paste.code, "target_denied");
    await ok(strict.client, "send_keys", { paneId: rx.paneId, keys: "fine", enter: false });
    assertBytes(await received(rx.file), "fine", "the unwatched pane");
    await ok(allowing.client, "send_keys", { paneId: watchedPane, keys: "", enter: true });
  } finally {
    await strict.close();
    await allowing.close();
    await detach();
  }
});

Deno.test("guard: missing, dead, copy-mode and input-disabled panes are refused", async () => {
  await using fx = await server();
  await fx.tmux("set-option", "-g", "remain-on-exit", "on");
  const dead = (await fx.tmux("new-window", "-d", "-P", "-F", "#{pane_id}", "exit 3")).trim();
  assert(await eventually(async () => await fx.display(dead, "#{pane_dead}") === "1"), "dead");
  const copy = await receiver(fx, "copy");
  await fx.tmux("copy-mode", "-t", copy.paneId);
  const off = await receiver(fx, "off");
  await fx.tmux("select-pane", "-d", "-t", off.paneId);
  const { client, close } = await connectInProcess(["-S", fx.socket]);
  try {
    const cases: Array<[string, string, RegExp]> = [
      ["%999", "target_not_found", /no pane %999/],
      [dead, "target_denied", /is dead: its program exited with status 3/],
      [copy.paneId, "target_denied", /is in a mode/],
      [off.paneId, "target_denied", /input to pane %\d+ is disabled/],
    ];
    for (const [paneId, code, message] of cases) {
      const attempts: Array<[string, Record<string, unknown>]> = [
        ["send_keys", { keys: "x" }],
        ["paste_text", { text: "x" }],
      ];
      for (const [tool, args] of attempts) {
        const error = await fails(client, tool, { paneId, ...args, force: true });
        assertEquals([error.code, error.effects], [code, "none"], `${tool} ${paneId}`);
        assertMatch(error.message, message);
      }
    }
    await fx.tmux("send-keys", "-t", copy.paneId, "-X", "cancel");
    await ok(client, "send_keys", { paneId: copy.paneId, keys: "after", enter: false });
    assertBytes(await received(copy.file), "after", "only after leaving copy mode");
    await assertNoBuffers(fx);
  } finally {
    await close();
  }
});

Deno.test("synchronized window: the cohort is reported, reached once each, and checked member by member", async () => {
  await using fx = await server();
  const a = await receiver(fx, "a");
  const windowId = await fx.display(a.paneId, "#{window_id}");
  const b = await receiver(fx, "b", { within: a.paneId });
  const c = await receiver(fx, "c", { within: a.paneId });
  const cohort = [a.paneId, b.paneId, c.paneId];
  const inWindowOrder = async (first: string) => [
    first,
    ...(await fx.tmux("list-panes", "-t", windowId, "-F", "#{pane_id}")).trim().split("\n")
      .filter((id) => id !== first),
  ];
  // A pane-level override that set_synchronize_panes must clear for "every pane" to hold.
  await fx.tmux("set-option", "-p", "-t", c.paneId, "synchronize-panes", "off");
  const { client, close } = await connectInProcess(["-S", fx.socket]);
  const pid = await fx.serverPid();
  const asC = await connectInProcess(["-S", fx.socket], {
    TMUX: `${fx.socket},${pid},0`,
    TMUX_PANE: c.paneId,
  });
  try {
    assertEquals(
      await ok(client, "set_synchronize_panes", { windowId, enabled: true }),
      { windowId, enabled: true },
    );
    assertEquals(await fx.display(c.paneId, "#{synchronize-panes}"), "1");
    const small = await ok<Sent>(client, "send_keys", { paneId: a.paneId, keys: "s" });
    assertEquals(small.resolvedPaneIds, await inWindowOrder(a.paneId));
    const big = "B".repeat(9000);
    const large = await ok<Sent>(client, "send_keys", { paneId: b.paneId, keys: big });
    assertEquals(large.resolvedPaneIds, await inWindowOrder(b.paneId));
    const paste = await ok<Sent>(client, "paste_text", {
      paneId: c.paneId,
      text: "p",
      enter: true,
    });
    assertEquals(paste.resolvedPaneIds, await inWindowOrder(c.paneId));
    const batch = await ok<{ targets: Array<{ index: number; resolvedPaneIds: string[] }> }>(
      client,
      "send_keys_batch",
      { operations: [{ paneId: a.paneId, keys: "t", enter: false }] },
    );
    assertEquals(batch.targets, [{ index: 0, resolvedPaneIds: await inWindowOrder(a.paneId) }]);
    assertEquals([...batch.targets[0].resolvedPaneIds].sort(), [...cohort].sort());
    // Every member got every input exactly once (a paste is not copied by tmux itself).
    const each = `s\r${big}\rp\rt`;
    for (const rx of [a, b, c]) {
      assertBytes(await received(rx.file), each, `member ${rx.paneId}`);
    }

    // A member that is the caller's own pane makes the whole cohort refused, unless force.
    const denied = await fails(asC.client, "send_keys", { paneId: a.paneId, keys: "no" });
    assertEquals(denied.code, "target_denied");
    assertMatch(denied.message, new RegExp(`pane ${c.paneId} \\(it is synchronized with`));
    const own = await fails(asC.client, "set_synchronize_panes", { windowId, enabled: true });
    assertEquals(own.code, "target_denied");
    await ok(asC.client, "set_synchronize_panes", { windowId, enabled: true, force: true });
    await ok(asC.client, "send_keys", { paneId: a.paneId, keys: "f", enter: false, force: true });

    // A member in copy mode is skipped by tmux: not reported, nothing reaches it.
    await fx.tmux("copy-mode", "-t", b.paneId);
    const skip = await ok<Sent>(client, "send_keys", { paneId: a.paneId, keys: "k", enter: false });
    assertEquals(skip.resolvedPaneIds, [a.paneId, c.paneId]);
    await fx.tmux("send-keys", "-t", b.paneId, "-X", "cancel");

    assertEquals(
      await ok(asC.client, "set_synchronize_panes", { windowId, enabled: false }),
      { windowId, enabled: false },
    );
    const alone = await ok<Sent>(client, "send_keys", {
      paneId: a.paneId,
      keys: "z",
      enter: false,
    });
    assertEquals([alone.paneId, alone.resolvedPaneIds], [a.paneId, undefined], "no partners now");
    assertBytes(await received(a.file), `${each}fkz`, "a");
    assertBytes(await received(b.file), `${each}f`, "b (in copy mode for k)");
    assertBytes(await received(c.file), `${each}fk`, "c");
    await assertNoBuffers(fx);
  } finally {
    await close();
    await asC.close();
  }
});

Deno.test("serialization: concurrent input to one pane never interleaves", async () => {
  await using fx = await server();
  const rx = await receiver(fx, "queue");
  const { client, close } = await connectInProcess(["-S", fx.socket]);
  try {
    const A = "A".repeat(3000);
    const B = "B".repeat(20_000);
    // paste_text holds the pane through its pause before Enter; without the queue the other
    // calls' keys would land between a paste and its Enter.
    await Promise.all([
      ok(client, "paste_text", { paneId: rx.paneId, text: A, enter: true }),
      ok(client, "send_keys", { paneId: rx.paneId, keys: B }),
      ok(client, "send_keys", { paneId: rx.paneId, keys: "C" }),
      ok(client, "paste_text", { paneId: rx.paneId, text: "D", enter: true }),
    ]);
    const chunks = [`${A}\r`, `${B}\r`, "C\r", "D\r"];
    const total = chunks.join("").length;
    const got = decoder.decode(await received(rx.file));
    assertEquals(got.length, total);
    const order = got.split("\r").slice(0, -1).map((chunk) => chunk[0]).join("");
    assertEquals([...order].sort().join(""), "ABCD");
    assertEquals(got, [...order].map((k) => chunks["ABCD".indexOf(k)]).join(""));
    await assertNoBuffers(fx);
  } finally {
    await close();
  }
});

Deno.test("PaneQueue: per server, overlapping sets without deadlock, cancellation frees the pane", async () => {
  const q1 = new PaneQueue();
  const q2 = new PaneQueue();
  const events: string[] = [];
  const held = await q1.acquire(["%2", "%10"]);
  // Another server's queue is independent.
  (await q2.acquire(["%2"]))();
  const second = q1.acquire(["%10", "%2", "%3"]).then((release) => {
    events.push("second");
    release();
  });
  const cancel = new AbortController();
  const third = q1.acquire(["%10"], cancel.signal).then(
    () => events.push("third acquired"),
    (error) => events.push(`third ${(error as ToolError).code}`),
  );
  // Sentinel: a later grant of a free pane; a wrong grant of the others would have come first.
  (await q1.acquire(["%77"]))();
  assertEquals(events, []);
  cancel.abort();
  await third;
  events.push("release");
  held();
  held(); // harmless
  await second;
  assertEquals(events, ["third cancelled", "release", "second"]);
  const busy = await q1.acquire(["%5"]);
  const waiter = await q1.acquire(["%5"], undefined, 30).catch((e) => e);
  assert(waiter instanceof ToolError && waiter.code === "busy", String(waiter));
  busy();
  (await q1.acquire(["%3", "%5"]))();
  await new Promise((r) => setTimeout(r, 0));
  assertEquals([q1.size, q2.size], [0, 0]);
});

Deno.test("send_keys_batch: the contract's schemas, stop/continue, per-row refusals", async () => {
  const contractOutput = JSON.parse(
    await Deno.readTextFile(new URL("../../fixtures/send_keys_batch_output.json", import.meta.url)),
  );
  const contractInput = JSON.parse(
    await Deno.readTextFile(new URL("../../fixtures/send_keys_batch_input.json", import.meta.url)),
  );
  const spec = TOOLS.find((t) => t.name === "send_keys_batch")!;
  const { $schema: _s, ...successSchema } = contractOutput;
  // waitFor (docs/design.md §7.10) extends the contract with optional fields: compare without them.
  const ours = successJsonSchema(spec) as { properties: Record<string, unknown> };
  for (const key of Object.keys(waitForShape)) delete ours.properties[key];
  assertEquals(ours, successSchema);
  // Our input is the contract's, made strict (unknown keys are refused, as on every tool).
  const { $schema: _i, ...strictInput } = structuredClone(contractInput);
  strictInput.additionalProperties = false;
  strictInput.properties.operations.items.additionalProperties = false;
  const input = inputJsonSchema(spec) as { properties: Record<string, unknown> };
  assert(input.properties.waitFor !== undefined, "waitFor is offered");
  delete input.properties.waitFor;
  assertEquals(input, strictInput);
  const validate = new Ajv({ strict: false }).compile(contractOutput);

  await using fx = await server();
  await fx.tmux("set-option", "-g", "remain-on-exit", "on");
  const dead = (await fx.tmux("new-window", "-d", "-P", "-F", "#{pane_id}", "true")).trim();
  assert(await eventually(async () => await fx.display(dead, "#{pane_dead}") === "1"), "dead");
  const a = await receiver(fx, "a");
  const b = await receiver(fx, "b");
  const { client, close } = await connectInProcess(["-S", fx.socket]);
  try {
    const operations = [
      { paneId: a.paneId, keys: "one;", enter: false },
      { paneId: "%999", keys: "x" },
      { paneId: dead, keys: "x", force: true },
      { paneId: b.paneId, keys: "two", literal: true },
      { paneId: a.paneId, keys: "", enter: false },
    ];
    type Batch = {
      completed: number;
      failures: Array<{ index: number; reason: string }>;
      targets: Array<{ index: number; resolvedPaneIds: string[] }>;
    };
    const stopped = await ok<Batch>(client, "send_keys_batch", { operations });
    assert(validate(stopped), JSON.stringify(validate.errors));
    assertEquals(stopped.completed, 1);
    assertEquals(stopped.failures.map((f) => f.index), [1]);
    assertMatch(stopped.failures[0].reason, /^target_not_found: no pane %999$/);
    assertEquals(stopped.targets, [{ index: 0, resolvedPaneIds: [a.paneId] }]);

    const continued = await ok<Batch>(client, "send_keys_batch", {
      operations,
      onError: "continue",
    });
    assert(validate(continued), JSON.stringify(validate.errors));
    assertEquals(continued.completed, 2);
    assertEquals(continued.failures.map((f) => f.index), [1, 2, 4]);
    assertMatch(continued.failures[1].reason, /^target_denied: pane %\d+ is dead/);
    assertMatch(continued.failures[2].reason, /^invalid_arguments: keys is empty/);
    assertEquals(continued.targets, [
      { index: 0, resolvedPaneIds: [a.paneId] },
      { index: 3, resolvedPaneIds: [b.paneId] },
    ]);
    assertBytes(await received(a.file), "one;one;", "row 0 ran in both batches");
    assertBytes(await received(b.file), "two\r", "row 3 ran only when continuing");
    await assertNoBuffers(fx);
  } finally {
    await close();
  }
});

Deno.test("input tools: bad input is invalid_arguments (or target_not_found) before tmux is touched", async () => {
  await using fx = await server();
  const { client, close } = await connectInProcess(["-S", fx.socket]);
  try {
    const op = { paneId: "%0", keys: "x" };
    const cases: Array<[string, Record<string, unknown>, string]> = [
      ["send_keys", { paneId: "0", keys: "x" }, "invalid_arguments"],
      ["send_keys", { paneId: "%0" }, "invalid_arguments"],
      ["send_keys", { paneId: "%0", keys: "x", typo: 1 }, "invalid_arguments"],
      ["send_keys", { paneId: "%0", keys: "", enter: false }, "invalid_arguments"],
      ["send_keys", { paneId: "%0", keys: "nul\0byte" }, "invalid_arguments"],
      ["send_keys", { paneId: "%0", keys: "x".repeat(1_048_577) }, "invalid_arguments"],
      ["send_keys", { paneId: "%0", keys: "é".repeat(600_000) }, "invalid_arguments"],
      ["send_keys_batch", { operations: [] }, "invalid_arguments"],
      ["send_keys_batch", { operations: Array(65).fill(op) }, "invalid_arguments"],
      ["send_keys_batch", { operations: [op], onError: "retry" }, "invalid_arguments"],
      ["send_keys_batch", { operations: [{ ...op, paneId: "main" }] }, "invalid_arguments"],
      ["paste_text", { paneId: "%0", text: "" }, "invalid_arguments"],
      ["paste_text", { paneId: "%0", text: "x", enter: "yes" }, "invalid_arguments"],
      ["set_synchronize_panes", { windowId: "main", enabled: true }, "invalid_arguments"],
      ["set_synchronize_panes", { windowId: "@0" }, "invalid_arguments"],
      ["set_synchronize_panes", { windowId: "@99", enabled: true }, "target_not_found"],
    ];
    for (const [tool, args, code] of cases) {
      const error = await fails(client, tool, args);
      assertEquals(
        [error.code, error.effects],
        [code, "none"],
        `${tool} ${JSON.stringify(args).slice(0, 80)}`,
      );
    }
    assertEquals(await fx.display("%0", "#{synchronize-panes}"), "0");
    await assertNoBuffers(fx);
  } finally {
    await close();
  }
});

Deno.test("funnel: a paste that fails or is cancelled leaves no buffer behind", async () => {
  await using fx = await server();
  const rx = await receiver(fx, "cancel");
  const env = cleanEnv();
  const ctx = contextFor(
    new TmuxRunner({ socket: { kind: "path", path: fx.socket }, env: (n) => env[n] }),
  );
  const failure = async (run: () => Promise<unknown>) => {
    const error = await run().then(() => undefined, (e) => e);
    assert(error instanceof ToolError, String(error));
    return error;
  };
  // The pane is gone by the time tmux pastes: load-buffer ran, paste-buffer failed.
  const lost = await failure(() => pasteText(ctx, ["%999"], "lost"));
  assertEquals([lost.code, lost.effects], ["target_not_found", "possible"]);
  const big = await failure(() =>
    sendKeys(ctx, {
      paneId: "%999",
      receivers: ["%999"],
      keys: "x".repeat(9000),
      literal: true,
      enter: true,
    })
  );
  assertEquals(big.code, "target_not_found");
  await assertNoBuffers(fx);
  // Cancelled at different moments of a 1 MB paste.
  const text = "y".repeat(1_000_000);
  for (let delay = 0; delay < 8; delay++) {
    const cancel = new AbortController();
    const paste = pasteText(ctx, [rx.paneId], text, cancel.signal).catch((e) => e);
    setTimeout(() => cancel.abort(), delay);
    const outcome = await paste;
    assert(typeof outcome === "number" || outcome.code === "cancelled", String(outcome));
    await assertNoBuffers(fx);
  }
});

Deno.test("send_keys: only exact key names are pressed; words that tmux would take are typed", async () => {
  await using fx = await server();
  const rx = await receiver(fx, "names");
  const { client, close } = await connectInProcess(["-S", fx.socket]);
  try {
    // "end", "^c", "0x41", "up" are text; "End" and "C-a" are keys.
    for (const keys of ["end", "^c", "0x41", "up", "End", "C-a"]) {
      await ok(client, "send_keys", { paneId: rx.paneId, keys, enter: false });
    }
    assertBytes(await received(rx.file), "end^c0x41up\x1b[4~\x01", "typed words, pressed keys");
  } finally {
    await close();
  }
});

Deno.test("paste_text: CRLF becomes one Enter and embedded paste markers are removed", async () => {
  await using fx = await server();
  const rx = await receiver(fx, "crlf");
  const { client, close } = await connectInProcess(["-S", fx.socket]);
  try {
    const { bytes } = await ok<{ bytes: number }>(client, "paste_text", {
      paneId: rx.paneId,
      text: "one\r\ntwo\x1b[201~\nthree",
    });
    // The receiver never asked for bracketed paste, so the text arrives with LF as CR.
    assertBytes(await received(rx.file), "one\rtwo\rthree", "normalized paste");
    assertEquals(bytes, 13);
    assertEquals((await fx.tmux("list-buffers")).trim(), "");
  } finally {
    await close();
  }
});

Deno.test("guard: a watched pane reached through a synchronized partner or a linked window is refused", async () => {
  await using fx = await server();
  // Window 0 of "in" (what a person attached to "in" sees): two synchronized panes.
  const shown = await fx.display("=in:0", "#{pane_id}");
  const partner = (await fx.tmux(
    "split-window",
    "-d",
    "-t",
    shown,
    "-P",
    "-F",
    "#{pane_id}",
    "sleep 100000",
  )).trim();
  await fx.tmux("set-option", "-w", "-t", "=in:0", "synchronize-panes", "on");
  // A window of "in" that only a second session shows, and someone watches that one.
  const rx = await receiver(fx, "linked");
  const linkedWindow = await fx.display(rx.paneId, "#{window_id}");
  await fx.tmux("new-session", "-d", "-s", "other", "sleep 100000");
  await fx.tmux("link-window", "-s", linkedWindow, "-t", "=other:7");
  await fx.tmux("select-window", "-t", "=other:7");
  const detachIn = await fx.attachPerson("in");
  const detachOther = await fx.attachPerson("other");
  const { client, close } = await connectInProcess(["-S", fx.socket]);
  try {
    const viaPartner = await fails(client, "send_keys", {
      paneId: partner,
      keys: "x",
      force: true,
    });
    assertEquals(viaPartner.code, "target_denied");
    assertMatch(viaPartner.text, new RegExp(`watching pane ${shown}`));
    const viaLink = await fails(client, "send_keys", { paneId: rx.paneId, keys: "x", force: true });
    assertEquals(viaLink.code, "target_denied");
    // (The person's own client may type into it; what matters is that our "x" never arrived.)
    assert(!(await Deno.readFile(rx.file)).includes(0x78), "nothing of ours arrived");
  } finally {
    await close();
    await detachIn();
    await detachOther();
  }
});

Deno.test("stripPasteMarkers: no nesting of markers inside markers survives cleaning", () => {
  const markers = ["\x1b[200~", "\x1b[201~"];
  // Every way of inserting one marker into another, then that result into a marker again.
  const nest = (outer: string, inner: string) =>
    Array.from({ length: outer.length + 1 }, (_, i) => outer.slice(0, i) + inner + outer.slice(i));
  const once = markers.flatMap((outer) => markers.flatMap((inner) => nest(outer, inner)));
  const twice = markers.flatMap((outer) => once.flatMap((inner) => nest(outer, inner)));
  for (const payload of [...once, ...twice]) {
    const cleaned = stripPasteMarkers(`a${payload}b`);
    assert(
      !cleaned.includes("\x1b[200~") && !cleaned.includes("\x1b[201~"),
      JSON.stringify(payload),
    );
    assertEquals(cleaned, "ab");
  }
  assertEquals(stripPasteMarkers("plain \x1b[A text"), "plain \x1b[A text");
});

Deno.test("paste_text into bash with bracketed paste: nested end markers never run a line before Enter", async () => {
  await using fx = await server();
  const paneId = await shell(fx);
  const { client, close } = await connectInProcess(["-S", fx.socket]);
  try {
    const payloads = [
      "echo one\x1b[20\x1b[201~1~\ntouch FILE\n",
      "\x1b[\x1b[201~201~\ntouch FILE\n",
      "\x1b\x1b[201~[201~\ntouch FILE\n",
      "\x1b[2\x1b[20\x1b[201~1~01~\ntouch FILE\n",
    ];
    for (const [i, payload] of payloads.entries()) {
      const file = `${fx.dir}/pasted-${i}`;
      await ok(client, "paste_text", { paneId, text: payload.replace("FILE", file) });
      // Sentinel: a word typed behind the paste. Once readline shows it, bash has read all the
      // paste, and a line a surviving marker let through would have run (bash runs a line before
      // it reads on). Leading letters absorb what a cut escape sequence would swallow.
      const sentinel = `sentinel-${i}`;
      await fx.tmux("send-keys", "-t", paneId, "-l", `zzzz ${sentinel}`);
      assert(
        await eventually(async () => (await screen(fx, paneId)).includes(sentinel)),
        `the sentinel ${i} never showed`,
      );
      assert(!(await exists(file)), `payload ${i} ran a command before Enter`);
      await ok(client, "send_keys", { paneId, keys: "C-c", enter: false });
    }
  } finally {
    await close();
  }
});

Deno.test("guard: a pane running a tmux client of this server is refused, even with force, and listed as such", async () => {
  await using fx = await server();
  await fx.tmux("new-session", "-d", "-s", "work", "sleep 100000");
  // A nested client: `tmux attach` inside one of this server's panes.
  const host = await nestedClient(fx, "in", "work");
  const { client, close } = await connectInProcess(["-S", fx.socket]);
  try {
    const { panes } = await ok<{ panes: Array<{ paneId: string; hostsTmuxClient: boolean }> }>(
      client,
      "list_panes",
    );
    assertEquals(panes.filter((p) => p.hostsTmuxClient).map((p) => p.paneId), [host]);
    for (
      const [tool, args] of [
        ["send_keys", { keys: "C-b", enter: false, force: true }],
        ["paste_text", { text: "echo hi", force: true }],
      ] as const
    ) {
      const refused = await fails(client, tool, { paneId: host, ...args });
      assertEquals(refused.code, "target_denied", tool);
      assertMatch(refused.text, /runs a tmux client attached to this tmux server/);
    }
  } finally {
    await close();
  }
});

Deno.test("paste_text: a multi-line paste with enter false is refused where the followed program turned bracketed paste off", async () => {
  await using fx = await server();
  const rx = await receiver(fx, "unbracketed", { tty: "-icanon -echo" });
  // The receiver's stream has not shown DECSET/DECRST 2004 yet: the paste goes through.
  const { client, close } = await connectInProcess(["-S", fx.socket]);
  try {
    await ok(client, "capture_since", { paneId: rx.paneId });
    await ok(client, "paste_text", { paneId: rx.paneId, text: "unknown\nmode" });
    // A program in the pane turns bracketed paste off, and the stream sees it.
    const off = (await fx.tmux(
      "split-window",
      "-d",
      "-t",
      rx.paneId,
      "-P",
      "-F",
      "#{pane_id}",
      `sh -c 'read go; printf "\\033[?2004lMODE-OFF\\n"; exec cat > ${fx.dir}/off.out'`,
    )).trim();
    let { cursor } = await ok<{ cursor: string }>(client, "capture_since", { paneId: off });
    await ok(client, "send_keys", { paneId: off, keys: "go" });
    // The marker follows the mode switch on the stream: once it is read, the switch was seen.
    let seen = "";
    const switched = await eventually(async () => {
      const read = await ok<{ text: string; cursor: string }>(client, "capture_since", {
        paneId: off,
        cursor,
        waitMs: 1000,
      });
      cursor = read.cursor;
      seen += read.text;
      return seen.includes("MODE-OFF");
    });
    assert(switched, `the stream showed the mode switch: ${seen}`);
    const error = await fails(client, "paste_text", { paneId: off, text: "one\ntwo" });
    assertEquals(error.code, "target_denied");
    assertMatch(error.text, /bracketed paste off/);
    // One line, or the same text with enter: true, goes through.
    await ok(client, "paste_text", { paneId: off, text: "single line" });
    await ok(client, "paste_text", { paneId: off, text: "three\nfour", enter: true });
    receiving.set(`${fx.dir}/off.out`, { fx, paneId: off, enter: true });
    const got = await received(`${fx.dir}/off.out`);
    assertEquals(decoder.decode(got), "single linethree\nfour\n");
  } finally {
    await close();
  }
});
