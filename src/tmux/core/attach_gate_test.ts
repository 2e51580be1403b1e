/**
 * The attach gate and which commands notify (docs/design.md §7.4): pure, no tmux. An attach never
 * overlaps notifying work of ours, waiters are served in order, and a wait given up runs nothing.
 */
import { assertEquals, assertRejects } from "../../../tests/support/assert.ts";
import { AttachGate } from "./attach_gate.ts";
import { commandNotifies, notifies } from "./notifying.ts";
import { ToolError } from "../../errors.ts";

Deno.test("notifying: reads are quiet, everything else holds attaches back", () => {
  const cases: [string[], boolean][] = [
    [["list-panes", "-a", "-F", "#{pane_id}"], false],
    [["list-sessions"], false],
    [["list-clients"], false],
    [["capture-pane", "-p", "-t", "%1"], false],
    [["display-message", "-p", "#{pid}"], false],
    [["display-message", "hello"], true],
    [["show-options", "-g"], false],
    [["has-session", "-t", "$1"], false],
    [["save-buffer", "-b", "x", "-"], false],
    [["wait-for", "channel"], false],
    [["wait-for", "-S", "channel"], false],
    [["new-session", "-d"], true],
    [["rename-session", "-t", "$1", "x"], true],
    [["kill-session", "-t", "$1"], true],
    [["select-pane", "-t", "%1"], true],
    [["send-keys", "-t", "%1", "q"], true],
    [["load-buffer", "-b", "x", "-"], true],
    [["delete-buffer", "-b", "x"], true],
    [["set-option", "-g", "x", "y"], true],
    [["resize-pane", "-t", "%1", "-x", "10"], true],
    [["unknown-future-command"], true],
    [[], false],
  ];
  for (const [command, expected] of cases) {
    assertEquals(commandNotifies(command), expected, command.join(" "));
  }
  assertEquals(notifies([["list-panes"], ["kill-pane", "-t", "%1"]]), true);
  assertEquals(notifies([["list-panes"], ["capture-pane", "-p"]]), false);
});

/** A promise with its resolver, and whether it has settled. */
function latch() {
  const { promise, resolve } = Promise.withResolvers<void>();
  return { promise, resolve };
}

Deno.test("gate: an attach waits for notifying work in flight, and notifying work waits for it", async () => {
  const gate = new AttachGate();
  const log: string[] = [];
  const command = latch();
  const running = gate.notifying(async () => {
    log.push("command starts");
    await command.promise;
    log.push("command ends");
  });
  const attach = latch();
  const attaching = gate.attaching(async () => {
    log.push("attach starts");
    await attach.promise;
    log.push("attach ends");
  });
  const later = gate.notifying(() => Promise.resolve(log.push("later command")));
  await Promise.resolve();
  assertEquals(log, ["command starts"]);
  command.resolve();
  await running;
  await new Promise((r) => setTimeout(r, 0));
  assertEquals(log, ["command starts", "command ends", "attach starts"]);
  assertEquals(gate.held, "attach");
  attach.resolve();
  await Promise.all([attaching, later]);
  assertEquals(log.slice(3), ["attach ends", "later command"]);
  assertEquals(gate.stats().attaches, 1);
  assertEquals(gate.stats().notifying, 2);
});

Deno.test("gate: commands share it; attaches go one at a time, in arrival order", async () => {
  const gate = new AttachGate();
  const a = latch();
  const b = latch();
  let together = 0;
  let most = 0;
  const hold = (l: ReturnType<typeof latch>) =>
    gate.notifying(async () => {
      most = Math.max(most, ++together);
      await l.promise;
      together--;
    });
  const both = [hold(a), hold(b)];
  assertEquals(most, 0);
  await Promise.resolve();
  assertEquals(most, 2, "two notifying commands run at once");
  const order: string[] = [];
  const first = gate.attaching(() => Promise.resolve(order.push("first")));
  const second = gate.attaching(() => Promise.resolve(order.push("second")));
  a.resolve();
  b.resolve();
  await Promise.all([...both, first, second]);
  assertEquals(order, ["first", "second"]);
});

Deno.test("gate: a wait given up runs nothing, with cancelled or timeout", async () => {
  const gate = new AttachGate();
  const attach = latch();
  const attaching = gate.attaching(() => attach.promise);
  let ran = false;
  const controller = new AbortController();
  const cancelled = gate.notifying(() => Promise.resolve(ran = true), {
    signal: controller.signal,
  });
  controller.abort();
  const error = await assertRejects(() => cancelled, ToolError);
  assertEquals((error as ToolError).code, "cancelled");
  const timedOut = await assertRejects(
    () => gate.notifying(() => Promise.resolve(ran = true), { timeoutMs: 10 }),
    ToolError,
  );
  assertEquals((timedOut as ToolError).code, "timeout");
  attach.resolve();
  await attaching;
  assertEquals(ran, false);
  // The gate is free again.
  assertEquals(await gate.notifying(() => Promise.resolve("ran")), "ran");
});

Deno.test("gate: detaches go together, never beside notifying work or an attach", async () => {
  const gate = new AttachGate();
  const log: string[] = [];
  const a = latch();
  const b = latch();
  const detaches = [
    gate.detaching(async () => {
      log.push("detach a");
      await a.promise;
    }),
    gate.detaching(async () => {
      log.push("detach b");
      await b.promise;
    }),
  ];
  const command = gate.notifying(() => Promise.resolve(log.push("command")));
  const attach = gate.attaching(() => Promise.resolve(log.push("attach")));
  await Promise.resolve();
  assertEquals(log, ["detach a", "detach b"], "two detaches at once");
  assertEquals(gate.held, "detach");
  a.resolve();
  await detaches[0];
  assertEquals(log.length, 2, "the command waits for every detach");
  b.resolve();
  await Promise.all([...detaches, command, attach]);
  assertEquals(log.slice(2), ["command", "attach"]);
  assertEquals(gate.stats().detaches, 2);
});

Deno.test("gate: a hold kept past its work delays attaches, not the work's result", async () => {
  const gate = new AttachGate();
  const kept = latch();
  const result = await gate.notifying(() => Promise.resolve("returned"), {}, kept.promise);
  assertEquals(result, "returned");
  let attached = false;
  const attaching = gate.attaching(() => Promise.resolve(attached = true));
  await new Promise((r) => setTimeout(r, 0));
  assertEquals(attached, false, "the shell's delete-buffer may still come");
  kept.resolve();
  await attaching;
  assertEquals(attached, true);
});
