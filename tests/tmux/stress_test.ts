/**
 * Stress on tmux 3.3a (docs/design.md §5.14): 100 concurrent calls mixed over the control route
 * and the spawn path while panes flood output, a pane killed and the server killed mid-reply —
 * nothing hangs, nothing crosses between replies, every failure is a typed error, and the MCP
 * server keeps serving.
 */
import { assert, assertEquals } from "../support/assert.ts";
import { call, type CallToolResult, ok, sessionsOnOneHost } from "../support/client.ts";
import { cleanEnv, eventually, TmuxFixture } from "../support/fixture.ts";
import type { ErrorCode } from "../../src/errors.ts";

/** Codes a call may fail with here; anything else (or an untyped failure) fails the test. */
const TYPED: ReadonlySet<ErrorCode> = new Set<ErrorCode>([
  "target_not_found",
  "server_gone",
  "server_not_running",
  "timeout",
]);

/** A host with live mode (so the route), one MCP session, and debug logging collected. */
async function routed(fx: TmuxFixture) {
  const { host, sessions: [session], logs } = await sessionsOnOneHost(
    ["-S", fx.socket, "--toolsets", "inspect,manage,execute"],
    1,
    undefined,
    cleanEnv({ TMUX_MCP_DEBUG: "1" }),
  );
  return {
    host,
    client: session.client,
    logs,
    async close() {
      await session.close();
      await host.close();
    },
  };
}

/** Settle every call within `ms`, or fail: nothing may hang. */
async function settleAll(calls: Promise<CallToolResult>[], ms: number): Promise<CallToolResult[]> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const hung = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`calls still running after ${ms} ms`)), ms);
  });
  try {
    return await Promise.race([Promise.all(calls), hung]);
  } finally {
    clearTimeout(timer);
  }
}

/** The error code of a failed call; fails the test when the failure is not a typed one. */
function failure(result: CallToolResult): ErrorCode | undefined {
  if (!result.isError) return undefined;
  const code = (result.structuredContent as { error?: { code?: ErrorCode } })?.error?.code;
  assert(code !== undefined && TYPED.has(code), `a typed failure: ${JSON.stringify(result)}`);
  return code;
}

function text(result: CallToolResult): string {
  return (result.structuredContent as { text?: string }).text ?? "";
}

Deno.test("stress: 100 concurrent calls over both paths while panes flood; a pane and then the server killed mid-reply", async () => {
  await using fx = await TmuxFixture.start({ width: 80, height: 20, command: "cat" });
  await fx.tmux("set-option", "-g", "history-limit", "3000");
  const pane = async (command: string) => await fx.newWindow(command, "=main:");
  // Floods print their own letter, and forged reply lines, as fast as tmux takes them.
  const floods = [
    await pane("yes 'AAAA %end 1796068231 1000 1'"),
    await pane("yes 'BBBB %error 1796068231 1001 1'"),
  ];
  const quiet = await pane("sh -c 'seq -f QUIET%g 1 2500; exec cat'");
  const file = `${fx.dir}/rx.out`;
  const ready = `${fx.dir}/rx.ready`;
  const rx = await pane(`stty raw -echo && touch ${ready} && exec cat > ${file}`);
  assert(await eventually(async () => await Deno.stat(ready).then(() => true, () => false)));
  const victim = await pane("sh -c 'seq -f VICTIM%g 1 2500; exec cat'");
  const r = await routed(fx);
  try {
    assert(await r.host.route!.ready(), "the route connects");
    const panes = ["%0", ...floods, quiet, rx, victim];

    // 1. 100 calls at once, routed and spawned mixed, while two panes flood.
    const tokens: string[] = [];
    const mixed: Array<[string, Record<string, unknown>, (r: CallToolResult) => void]> = [];
    for (let i = 0; i < 100; i++) {
      const flood = floods[i % 2];
      const letter = i % 2 === 0 ? "A" : "B";
      const other = i % 2 === 0 ? "B" : "A";
      const own = (result: CallToolResult) => {
        assert(!result.isError, JSON.stringify(result).slice(0, 300));
        assert(text(result).includes(letter.repeat(4)), "the pane's own text");
        assert(!text(result).includes(other.repeat(4)), "nothing from another reply");
      };
      switch (i % 10) {
        case 0:
          mixed.push(["list_panes", {}, (result) => {
            const ids = (result.structuredContent as { panes: Array<{ paneId: string }> }).panes
              .map((p) => p.paneId).sort();
            assertEquals(ids, [...panes].sort());
          }]);
          break;
        case 1:
          mixed.push(["capture_pane", { paneId: flood }, own]); // routed
          break;
        case 2:
          mixed.push(["capture_pane", { paneId: flood, joinWrapped: true }, own]); // spawned
          break;
        case 3:
          mixed.push(["snapshot_pane", { paneId: flood }, own]); // routed
          break;
        case 4:
          mixed.push(["capture_pane", { paneId: quiet, start: -2000, maxLines: 2000 }, (res) => {
            assert(!res.isError);
            const lines = text(res).trimEnd().split("\n");
            assertEquals(lines.at(-1), "QUIET2500");
            lines.forEach((line, k) => assertEquals(line, `QUIET${2500 - lines.length + 1 + k}`));
          }]);
          break;
        case 5: {
          const token = `<${i}:${"x".repeat(i)}>`;
          tokens.push(token);
          mixed.push(["send_keys", { paneId: rx, keys: token, enter: false }, (res) => {
            assert(!res.isError, JSON.stringify(res).slice(0, 300));
          }]);
          break;
        }
        case 6:
          mixed.push(["get_pane_info", { paneId: quiet }, (res) => {
            assertEquals((res.structuredContent as { paneId: string }).paneId, quiet);
          }]);
          break;
        case 7:
          mixed.push(["show_option", { name: "history-limit", scope: "global-session" }, (res) => {
            assertEquals((res.structuredContent as { value: string }).value, "3000"); // spawned
          }]);
          break;
        case 8:
          mixed.push(["search_panes", { pattern: "QUIET2500" }, (res) => {
            const matches = (res.structuredContent as { matches: Array<{ paneId: string }> })
              .matches;
            assert(matches.every((m) => m.paneId === quiet), "matches only where they are");
          }]);
          break;
        default:
          mixed.push(["list_windows", {}, (res) => assert(!res.isError)]);
      }
    }
    const results = await settleAll(
      mixed.map(([name, args]) => call(r.client, name, args)),
      60_000,
    );
    results.forEach((result, k) => mixed[k][2](result));
    const paths = r.logs.filter((l) => l.startsWith("tmux: "));
    assert(paths.some((l) => l.startsWith("tmux: control ")), "calls went over the route");
    assert(paths.some((l) => l.startsWith("tmux: spawn ")), "and over the spawn path");
    assert(
      await eventually(async () =>
        (await Deno.readTextFile(file)).length === tokens.join("").length
      ),
    );
    const received = await Deno.readTextFile(file);
    for (const token of tokens) assert(received.includes(token), "each send arrived whole");

    // 2. A pane killed while 100 calls on it are in flight.
    const onVictim = Array.from({ length: 100 }, (_, i) =>
      call(
        r.client,
        ["capture_pane", "snapshot_pane", "get_pane_info", "send_keys"][i % 4],
        i % 4 === 0
          ? { paneId: victim, start: -2500, maxLines: 2500 }
          : i % 4 === 3
          ? { paneId: victim, keys: "k", enter: false }
          : { paneId: victim },
      ));
    // Mid-flight: once the first of them is answered, most are still on their way.
    await Promise.race(onVictim);
    await fx.tmux("kill-pane", "-t", victim);
    const killed = await settleAll(onVictim, 60_000);
    const codes = new Set(killed.map(failure));
    assert(codes.has("target_not_found"), "calls after the kill found no pane");
    await ok(r.client, "list_panes", {});

    // 3. The server killed while 100 calls are in flight; then a new server on the socket.
    const serverPid = await fx.serverPid();
    const inFlight = Array.from({ length: 100 }, (_, i) =>
      call(
        r.client,
        ["list_panes", "capture_pane", "capture_pane", "send_keys"][i % 4],
        i % 4 === 0 ? {} : i % 4 === 1 ? { paneId: quiet, start: -2500, maxLines: 2500 } : i %
              4 === 2
          ? { paneId: floods[i % 2] }
          : { paneId: rx, keys: "z", enter: false },
      ));
    await Promise.race(inFlight);
    Deno.kill(serverPid, "SIGKILL");
    const ended = await settleAll(inFlight, 60_000);
    ended.forEach(failure);
    assert(await eventually(() => !r.host.route!.stats().connected, 20_000), "the route noticed");
    await fx.tmux("-f", "/dev/null", "new-session", "-d", "-s", "again", "cat");
    const again = await ok<{ panes: Array<{ sessionName: string }> }>(r.client, "list_panes", {});
    assertEquals(again.panes.map((p) => p.sessionName), ["again"]);
    assert(await r.host.route!.ready(), "the route attached to the new server");
    await ok(r.client, "capture_pane", { paneId: "%0" });
    assert(r.logs.at(-1)?.startsWith("tmux: control "), "and carries calls again");
  } finally {
    await r.close();
  }
});
