/**
 * Asking the person instead of refusing (docs/design.md §6.11), over real tmux and real MCP
 * clients that declare elicitation: a scripted person answers allow once, allow for the pane,
 * deny, decline, cancel, or nothing at all; grants per session, pane and generation; the bounded,
 * escaped preview; the guard checked again after the answer; stdio end to end.
 */
import type { Client } from "@modelcontextprotocol/sdk/client";
// @ts-types="npm:@modelcontextprotocol/sdk@^1.32.2/inMemory"
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
// @ts-types="npm:@modelcontextprotocol/sdk@^1.32.2/types"
import type { ElicitResult } from "@modelcontextprotocol/sdk/types.js";
import { CHOICES, GrantBook } from "../../src/guard/ask.ts";
import { callPreview, visible } from "../../src/guard/preview.ts";
import { SURFACE } from "../../src/catalog.ts";
import { ASK_TIMEOUT_MS, ConfigError, parseConfig } from "../../src/config.ts";
import { TmuxHost } from "../../src/host.ts";
import { CAPABILITIES_URI, createMcpSession } from "../../src/server.ts";
import { assert, assertEquals, assertMatch, assertThrows } from "../support/assert.ts";
import {
  askingClient,
  connectInProcess,
  connectStdio,
  fails,
  ok,
  type Question,
} from "../support/client.ts";
import { eventually, TmuxFixture } from "../support/fixture.ts";
import { watchedReceiver } from "../support/watched.ts";

/** One scripted answer: a choice, an MCP action without content, or no answer at all. */
type Answer = "once" | "grant" | "deny" | "decline" | "cancel" | "silent" | (() => Promise<Answer>);

/** A person behind a client: answers questions from a script and keeps what was asked. */
class Person {
  readonly questions: Question[] = [];
  /** Questions the server withdrew (its ask timeout) before an answer. */
  withdrawn = 0;
  readonly #script: Answer[] = [];

  /** Queue the next answers. */
  will(...answers: Answer[]): void {
    this.#script.push(...answers);
  }

  readonly answer = async (question: Question): Promise<ElicitResult> => {
    this.questions.push(question);
    let next = this.#script.shift() ?? "decline";
    while (typeof next === "function") next = await next();
    switch (next) {
      case "once":
        return { action: "accept", content: { decision: CHOICES.once } };
      case "grant":
        return { action: "accept", content: { decision: CHOICES.grant } };
      case "deny":
        return { action: "accept", content: { decision: CHOICES.deny } };
      case "decline":
      case "cancel":
        return { action: next };
      case "silent":
        await new Promise((resolve) => question.signal.addEventListener("abort", resolve));
        this.withdrawn++;
        return { action: "cancel" };
    }
  };
}

/**
 * One host and one MCP session per person, each with a client that declares elicitation and
 * answers as that person does; grants expire by `clock`.
 */
async function sessions(
  fx: TmuxFixture,
  people: Person[],
  args: string[] = [],
  clock?: () => number,
): Promise<{ clients: Client[]; close: () => Promise<void> }> {
  const env: Record<string, string> = {};
  const reader = (name: string) => env[name];
  const outcome = parseConfig(
    ["-S", fx.socket, "--ask-timeout-ms", "1000", "--toolsets", "inspect,manage,execute", ...args],
    reader,
    SURFACE,
  );
  if (outcome.kind !== "run") throw new Error("expected a run configuration");
  const host = new TmuxHost({ config: outcome.config, env: reader });
  const clients: Client[] = [];
  const closers: Array<() => Promise<void>> = [];
  for (const [i, person] of people.entries()) {
    const session = createMcpSession(host, { config: outcome.config, version: "test", now: clock });
    const client = askingClient(`person-${i}`, person.answer);
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
    await session.connect(serverSide);
    await client.connect(clientSide);
    await client.listTools();
    clients.push(client);
    closers.push(async () => {
      await client.close();
      await session.close();
    });
  }
  return {
    clients,
    close: async () => {
      for (const close of closers) await close();
      await host.close();
    },
  };
}

async function capabilities(client: Client): Promise<Record<string, unknown>> {
  const read = await client.readResource({ uri: CAPABILITIES_URI });
  return JSON.parse((read.contents[0] as { text: string }).text);
}

Deno.test("input to a watched pane proceeds only when the person allows it, exactly once; decline, cancel and no answer refuse with a hint saying so", async () => {
  await using fx = await TmuxFixture.start();
  const rx = await watchedReceiver(fx);
  const person = new Person();
  const { clients: [client], close } = await sessions(fx, [person]);
  try {
    person.will("once");
    assertEquals(await ok(client, "send_keys", { paneId: rx.paneId, keys: "one" }), {
      paneId: rx.paneId,
    });
    assert(await eventually(async () => (await rx.typed()) === "one\n"), await rx.typed());
    const [question] = person.questions;
    assertMatch(question.message, /send_keys/);
    assertMatch(question.message, new RegExp(`Pane ${rx.paneId}: session "main", window 1 "`));
    assertMatch(question.message, /a person is watching it/);
    assertMatch(question.message, /Keys: "one", then Enter/);
    assertEquals(
      (question.requestedSchema as { properties: { decision: { enum: string[] } } }).properties
        .decision.enum,
      ["allow once", "allow for this pane for 10 minutes", "deny"],
    );

    // "allow once" covers the whole call: paste_text checks the pane again before its Enter.
    person.will("once");
    await ok(client, "paste_text", { paneId: rx.paneId, text: "pasted", enter: true });
    assert(
      await eventually(async () => (await rx.typed()) === "one\npasted\n"),
      await rx.typed(),
    );

    const refusals: Array<[Answer, string, RegExp]> = [
      ["deny", "two", /asked and declined/],
      ["decline", "three", /asked and declined/],
      ["cancel", "four", /dismissed the question/],
      ["silent", "five", /did not answer within 1 s/],
    ];
    for (const [answer, keys, hint] of refusals) {
      person.will(answer);
      const denied = await fails(client, "send_keys", { paneId: rx.paneId, keys });
      assertEquals([denied.code, denied.effects], ["target_denied", "none"], keys);
      assertMatch(denied.message, /a person is watching pane/);
      assertMatch(denied.text, hint);
    }
    assertEquals(person.questions.length, 6);
    // The SDK withdrew the unanswered question at the ask timeout (notifications/cancelled).
    assertEquals(person.withdrawn, 1);

    // A call cancelled while the person reads withdraws the question too.
    person.will("silent");
    const abort = new AbortController();
    const cancelled = client.callTool(
      { name: "send_keys", arguments: { paneId: rx.paneId, keys: "six" } },
      undefined,
      { signal: abort.signal },
    ).catch((error) => error);
    assert(await eventually(() => person.questions.length === 7));
    abort.abort();
    assert((await cancelled) instanceof Error);
    assert(await eventually(() => person.withdrawn === 2));
    // Sentinel: a later allowed call through the same pane queue; nothing of "six" precedes it.
    person.will("once");
    await ok(client, "send_keys", { paneId: rx.paneId, keys: "seven" });
    assert(await eventually(async () => (await rx.typed()).endsWith("seven\n")), await rx.typed());
    assertEquals(await rx.typed(), "one\npasted\nseven\n");
  } finally {
    await close();
    await rx.detach();
  }
});

Deno.test("without the elicitation capability, or with --no-ask, a watched pane is refused as before and no question is sent", async () => {
  await using fx = await TmuxFixture.start();
  const rx = await watchedReceiver(fx);
  const plain = await connectInProcess(["-S", fx.socket]);
  const person = new Person();
  const noAsk = await sessions(fx, [person], ["--no-ask"]);
  try {
    for (const client of [plain.client, noAsk.clients[0]]) {
      const denied = await fails(client, "paste_text", { paneId: rx.paneId, text: "no" });
      assertEquals(denied.code, "target_denied");
      assertMatch(denied.text, /restart this server with --allow-watched-panes/);
      const caps = await capabilities(client);
      assertEquals((caps.ask as { enabled: boolean }).enabled, client === plain.client);
      assertEquals((caps.ask as { clientAnswers: boolean }).clientAnswers, client !== plain.client);
      assertEquals(caps.grants, []);
    }
    assertEquals(person.questions.length, 0);
    assertEquals(await rx.typed(), "");
  } finally {
    await plain.close();
    await noAsk.close();
    await rx.detach();
  }
});

Deno.test("a grant lets the session's later calls through unasked, ends at expiry or when the pane is respawned, and another session never sees it", async () => {
  await using fx = await TmuxFixture.start();
  const rx = await watchedReceiver(fx);
  let now = Date.now();
  const alice = new Person();
  const bob = new Person();
  const { clients: [a, b], close } = await sessions(fx, [alice, bob], [], () => now);
  try {
    alice.will("grant");
    await ok(a, "send_keys", { paneId: rx.paneId, keys: "g1" });
    await ok(a, "paste_text", { paneId: rx.paneId, text: "g2\n" });
    await ok(a, "send_keys_batch", { operations: [{ paneId: rx.paneId, keys: "g3" }] });
    assertEquals(alice.questions.length, 1);
    const pane = (await ok<{ panes: Array<{ paneId: string; generation: string }> }>(
      a,
      "list_panes",
    )).panes.find((p) => p.paneId === rx.paneId)!;
    const grants = (await capabilities(a)).grants as Array<Record<string, string>>;
    assertEquals(grants.map((g) => [g.paneId, g.generation]), [[rx.paneId, pane.generation]]);
    const left = Date.parse(grants[0].expiresAt) - now;
    assert(left === 10 * 60_000, `${left} ms left`);

    // Bob's session holds no grant: he is asked, and his "deny" stands.
    assertEquals((await capabilities(b)).grants, []);
    bob.will("deny");
    assertEquals(
      (await fails(b, "send_keys", { paneId: rx.paneId, keys: "bob" })).code,
      "target_denied",
    );
    assertEquals([alice.questions.length, bob.questions.length], [1, 1]);

    // At expiry the grant ends: Alice is asked again.
    now += 10 * 60_000;
    assertEquals((await capabilities(a)).grants, []);
    alice.will("grant");
    await ok(a, "send_keys", { paneId: rx.paneId, keys: "g4" });
    assertEquals(alice.questions.length, 2);
    await ok(a, "send_keys", { paneId: rx.paneId, keys: "g5" });
    assertEquals(alice.questions.length, 2);
    // g5 must have reached the pane before the respawn below kills the process reading it.
    assert(
      await eventually(async () => (await rx.typed()).endsWith("g5\n")),
      await rx.typed(),
    );

    // A respawned pane is another process: the grant ends with the old one.
    await fx.tmux("respawn-pane", "-k", "-t", rx.paneId, `while :; do cat >> ${rx.file}; done`);
    assertEquals((await capabilities(a)).grants, []);
    alice.will("decline");
    await fails(a, "send_keys", { paneId: rx.paneId, keys: "after-respawn" });
    assertEquals(alice.questions.length, 3);
    assertEquals(await rx.typed(), "g1\ng2\ng3\ng4\ng5\n");
  } finally {
    await close();
    await rx.detach();
  }
});

Deno.test("the question shows the text whole, up to 1,000 characters, control and invisible characters escaped", async () => {
  await using fx = await TmuxFixture.start();
  const rx = await watchedReceiver(fx);
  const person = new Person();
  const { clients: [client], close } = await sessions(fx, [person]);
  try {
    const text = 'echo \x1b[31mred\x1b[0m\tand\r\n\u202eevil\\"' + "x".repeat(970);
    person.will("decline");
    await fails(client, "paste_text", { paneId: rx.paneId, text, enter: true });
    const { message } = person.questions[0];
    const line = message.split("\n").find((l) => l.startsWith("Text: "))!;
    assertEquals(
      line,
      'Text: "echo \\x1b[31mred\\x1b[0m\\tand\\r\\n\\u{202e}evil\\\\\\"' + "x".repeat(970) +
        '", then Enter',
    );
    // deno-lint-ignore no-control-regex -- no raw control character may reach the person
    assert(!/[\x00-\x08\x0b-\x1f\x7f\u202e]/.test(message), "raw control character in question");
    assert(message.length < 2000, `${message.length} characters`);

    // A batch question shows only the rows whose receivers include the pane asked about, each
    // whole, within one budget.
    const rows = callPreview({
      operations: [
        { paneId: "%9", keys: "elsewhere" },
        { paneId: rx.paneId, keys: "a".repeat(600), enter: false },
        { paneId: rx.paneId, keys: "b".repeat(500) },
        { paneId: rx.paneId, keys: "c" },
      ],
    }, { asked: [rx.paneId], receivers: (id) => [id], fromRow: 0 });
    assert(rows.tooLong === undefined);
    assertEquals(rows.lines, [
      `Row 1 (pane ${rx.paneId}): "${"a".repeat(600)}"`,
      "…and 2 more rows for these panes (not covered by this answer: asked about when they come)",
    ]);
    assertEquals([...rows.rows.keys()], [1]);
    assertEquals(visible("ok\u0000\u009b\ud800", 10), '"ok\\x00\\u{9b}\\u{d800}"');
    assertEquals(await rx.typed(), "");
  } finally {
    await close();
    await rx.detach();
  }
});

Deno.test("the guard runs again after the answer: a pane that died while the person read is still refused", async () => {
  await using fx = await TmuxFixture.start();
  const rx = await watchedReceiver(fx);
  await fx.tmux("set-option", "-p", "-t", rx.paneId, "remain-on-exit", "on");
  const person = new Person();
  const { clients: [client], close } = await sessions(fx, [person]);
  try {
    person.will(async () => {
      const pid = Number(await fx.display(rx.paneId, "#{pane_pid}"));
      Deno.kill(pid, "SIGKILL");
      assert(await eventually(async () => (await fx.display(rx.paneId, "#{pane_dead}")) === "1"));
      return "once";
    });
    const denied = await fails(client, "send_keys", { paneId: rx.paneId, keys: "late" });
    assertEquals([denied.code, denied.effects], ["target_denied", "none"]);
    assertMatch(denied.message, /is dead/);
    assertEquals(person.questions.length, 1);

    // Never asked about: a dead pane (and a pane in a mode, input off, a nested client).
    const again = await fails(client, "send_keys", { paneId: rx.paneId, keys: "late" });
    assertMatch(again.message, /is dead/);
    assertEquals(person.questions.length, 1);
  } finally {
    await close();
    await rx.detach();
  }
});

Deno.test("the caller's own pane without force is asked about; a pane in copy mode never is", async () => {
  await using fx = await TmuxFixture.start();
  const own = (await fx.tmux(
    "new-window",
    "-d",
    "-t",
    "=main:",
    "-P",
    "-F",
    "#{pane_id}",
    `cat > ${fx.dir}/own`,
  )).trim();
  const env = { TMUX: `${fx.socket},${await fx.serverPid()},0`, TMUX_PANE: own };
  const person = new Person();
  const client = askingClient("caller", person.answer);
  const { close } = await connectInProcess(
    ["-S", fx.socket, "--ask-timeout-ms", "1000"],
    env,
    undefined,
    client,
  );
  try {
    person.will("once");
    await ok(client, "send_keys", { paneId: own, keys: "mine" });
    assertMatch(person.questions[0].message, /the terminal this MCP server was started from/);
    await fx.tmux("copy-mode", "-t", own);
    const denied = await fails(client, "send_keys", { paneId: own, keys: "mode" });
    assertMatch(denied.message, /is in a mode/);
    assertEquals(person.questions.length, 1);
    // cat writes the line some time after tmux typed it; "mode" was refused, so it never follows.
    const typed = () => Deno.readTextFile(`${fx.dir}/own`).catch(() => "");
    assert(await eventually(async () => await typed() === "mine\n"), await typed());
  } finally {
    await close();
  }
});

Deno.test("view setters and teardown ask through the same guard; a batch asks once per pane and call", async () => {
  await using fx = await TmuxFixture.start();
  const rx = await watchedReceiver(fx);
  const victim = (await fx.tmux("split-window", "-d", "-t", rx.paneId, "-P", "-F", "#{pane_id}"))
    .trim();
  const person = new Person();
  const { clients: [client], close } = await sessions(fx, [person], [
    "--toolsets",
    "inspect,manage,execute,teardown",
  ]);
  try {
    person.will("decline");
    const layout = await fails(client, "select_layout", {
      windowId: await fx.display(rx.paneId, "#{window_id}"),
      layout: "even-vertical",
    });
    assertMatch(layout.text, /asked and declined/);
    assertMatch(person.questions[0].message, /Tool: select_layout/);

    // The person's client now shows the split pane: that is the one they watch.
    await fx.tmux("select-pane", "-t", victim);
    person.will("once");
    assertEquals((await ok(client, "kill_pane", { paneId: victim })).panesEnded, [victim]);
    assertMatch(person.questions[1].message, /Tool: kill_pane/);

    person.will("once");
    const batch = await ok<{ completed: number }>(client, "send_keys_batch", {
      operations: [{ paneId: rx.paneId, keys: "r1" }, { paneId: rx.paneId, keys: "r2" }],
    });
    assertEquals(batch.completed, 2);
    assertEquals(person.questions.length, 3);
    assertMatch(person.questions[2].message, /Row 0 .*"r1", then Enter\nRow 1 .*"r2", then Enter/);
    assert(await eventually(async () => (await rx.typed()) === "r1\nr2\n"), await rx.typed());
  } finally {
    await close();
    await rx.detach();
  }
});

Deno.test("over stdio: the person is asked, allows once, and the text arrives; a decline refuses", async () => {
  await using fx = await TmuxFixture.start();
  const rx = await watchedReceiver(fx);
  const person = new Person();
  const { client, close } = await connectStdio(
    ["-S", fx.socket, "--ask-timeout-ms", "5000"],
    {},
    undefined,
    askingClient("stdio-person", person.answer),
  );
  try {
    person.will("once", "decline");
    await ok(client, "send_keys", { paneId: rx.paneId, keys: "over stdio" });
    const denied = await fails(client, "send_keys", { paneId: rx.paneId, keys: "not this" });
    assertMatch(denied.text, /asked and declined/);
    assertEquals(person.questions.length, 2);
    assert(await eventually(async () => (await rx.typed()) === "over stdio\n"), await rx.typed());
  } finally {
    await close();
    await rx.detach();
  }
});

Deno.test("--no-ask, TMUX_MCP_ASK=0 and --ask-timeout-ms are parsed and bounded; grants end when their pane is gone", () => {
  const parse = (args: string[], env: Record<string, string> = {}) => {
    const outcome = parseConfig(args, (n) => env[n], SURFACE);
    if (outcome.kind !== "run") throw new Error("expected run");
    return outcome.config;
  };
  assertEquals([parse([]).ask, parse([]).askTimeoutMs], [true, ASK_TIMEOUT_MS.default]);
  assertEquals(parse(["--no-ask"]).ask, false);
  assertEquals(parse([], { TMUX_MCP_ASK: "0" }).ask, false);
  assertEquals(parse([], { TMUX_MCP_ASK_TIMEOUT_MS: "5000" }).askTimeoutMs, 5000);
  assertEquals(parse(["--ask-timeout-ms", "1000"]).askTimeoutMs, 1000);
  assertThrows(() => parse(["--ask-timeout-ms", "999"]), ConfigError, "--ask-timeout-ms");
  assertThrows(() => parse(["--ask-timeout-ms", "600001"]), ConfigError, "1000 to 600000");

  const book = new GrantBook(() => 0);
  book.add({ paneId: "%1", generation: "g1.a" });
  book.add({ paneId: "%2", generation: "g1.b" });
  book.prune([{ paneId: "%2", generation: "g1.b" }]);
  assertEquals(book.list().map((g) => g.paneId), ["%2"]);
  assertEquals(book.covers({ paneId: "%2", generation: "g1.c" }), false);
  assertEquals(book.list(), []);
});
