/**
 * A tmux server that never answers (stopped with SIGSTOP): every deadline still holds and shutdown
 * is bounded. A stopped server keeps our clients' stdout pipes open (the tmux client hands its fds
 * to the server), so nothing may wait for an EOF. Each test resumes the server before closing it.
 */
import { assert, assertEquals } from "../support/assert.ts";
import { ToolError } from "../../src/errors.ts";
import { TmuxRunner } from "../../src/tmux/core/runner.ts";
import { ControlClient } from "../../src/tmux/control/client.ts";
import { listPanes } from "../../src/tmux/read/queries.ts";
import { connectInProcess, ok } from "../support/client.ts";
import { cleanEnv, contextFor, eventually, TmuxFixture } from "../support/fixture.ts";
import { RawMain } from "../support/raw_stdio.ts";
import { waitingTmuxClient } from "../support/processes.ts";

const env = cleanEnv();

/** A regression shows as a failed time bound, not a hung suite: the server thaws after this. */
const WATCHDOG_MS = 20_000;

/**
 * What "bounded" means here: well under the watchdog (a call that waited for the thaw takes at
 * least WATCHDOG_MS), yet over 5x the deadlines and grace periods at stake (0.3 to 2 s), so a busy
 * machine does not fail it. How fast these really are is not asserted.
 */
const BOUND_MS = 12_000;

/** Start a fixture, stop its server while `body` runs, resume it before closing. */
async function withFrozen(
  body: (fx: TmuxFixture, freeze: () => void) => Promise<void>,
): Promise<void> {
  const fx = await TmuxFixture.start({ command: "cat" });
  const pid = await fx.serverPid();
  let frozen = false;
  const thaw = () => {
    if (frozen) Deno.kill(pid, "SIGCONT");
    frozen = false;
  };
  let watchdog: ReturnType<typeof setTimeout> | undefined;
  try {
    await body(fx, () => {
      Deno.kill(pid, "SIGSTOP");
      frozen = true;
      watchdog = setTimeout(thaw, WATCHDOG_MS);
    });
  } finally {
    clearTimeout(watchdog);
    thaw();
    await fx.close();
  }
}

async function timed<T>(work: () => Promise<T>): Promise<[T | Error, number]> {
  const start = performance.now();
  try {
    return [await work(), performance.now() - start];
  } catch (error) {
    return [error as Error, performance.now() - start];
  }
}

Deno.test("against a stopped server, a tmux call answers timeout at its deadline", async () => {
  await withFrozen(async (fx, freeze) => {
    const runner = new TmuxRunner({
      socket: { kind: "path", path: fx.socket },
      env: (n) => env[n],
      defaultTimeoutMs: 300,
    });
    freeze();
    const [listing, listingMs] = await timed(() => listPanes(contextFor(runner)));
    assert(listing instanceof ToolError && listing.code === "timeout", String(listing));
    assert(listingMs < BOUND_MS, `list-panes took ${listingMs} ms`);
    // Input tmux does not read yet (load-buffer -) must not hold the call either.
    const [loaded, loadedMs] = await timed(() =>
      runner.run(["load-buffer", "-"], { stdin: new Uint8Array(1 << 20), effects: "possible" })
    );
    assert(loaded instanceof ToolError && loaded.code === "timeout", String(loaded));
    assertEquals(loaded.effects, "possible");
    assert(loadedMs < BOUND_MS, `load-buffer took ${loadedMs} ms`);
  });
});

Deno.test("against a stopped server, an aborted tmux call answers cancelled at once", async () => {
  await withFrozen(async (fx, freeze) => {
    const runner = fx.runner();
    freeze();
    const controller = new AbortController();
    // Aborted once the tmux client waits for the stopped server's answer, not after some time.
    const waiting = eventually(async () =>
      (await waitingTmuxClient(fx.socket, "list-sessions")) !== undefined
    ).then((seen) => controller.abort(seen ? "waiting" : "never seen waiting"));
    const [error, ms] = await timed(() =>
      runner.run(["list-sessions"], { signal: controller.signal })
    );
    await waiting;
    assertEquals(controller.signal.reason, "waiting");
    assert(error instanceof ToolError && error.code === "cancelled", String(error));
    assert(ms < BOUND_MS, `cancel took ${ms} ms`);
  });
});

Deno.test("against a stopped server, a control command times out and its client is ended", async () => {
  await withFrozen(async (fx, freeze) => {
    let exited = false;
    const client = await ControlClient.open(fx.runner(), "$0", {
      onOutput() {},
      onClose() {},
      onExit: () => exited = true,
    });
    freeze();
    const [error, ms] = await timed(() => client.command(["list-panes"], undefined, 300));
    assert(error instanceof ToolError && error.code === "timeout", String(error));
    assert(ms < BOUND_MS, `the command took ${ms} ms`);
    assert(await eventually(() => exited, 10_000), "the tmux client process was ended");
    await client.close();
  });
});

Deno.test("against a stopped server, closing a control client is bounded", async () => {
  await withFrozen(async (fx, freeze) => {
    const client = await ControlClient.open(fx.runner(), "$0", { onOutput() {}, onClose() {} });
    freeze();
    // A command in flight when the close starts (its reply never comes).
    const pending = client.command(["list-panes"]).catch((e) => e);
    const [, ms] = await timed(() => client.close());
    assert(ms < BOUND_MS, `close took ${ms} ms`);
    assert(client.closed);
    assertEquals((await pending as ToolError).code, "server_gone");
  });
});

Deno.test("against a stopped server, an in-process server with a live stream closes in bounded time", async () => {
  await withFrozen(async (fx, freeze) => {
    const { client, close, built } = await connectInProcess(["-S", fx.socket]);
    let closed = false;
    try {
      await ok(client, "capture_since", { paneId: "%0" });
      assertEquals(built.live?.stats().connections, 1);
      freeze();
      const [, ms] = await timed(() => close());
      closed = true;
      assert(ms < BOUND_MS, `close took ${ms} ms`);
    } finally {
      if (!closed) await close();
    }
  });
});

Deno.test("against a stopped server, the stdio process exits soon after stdin closes", async () => {
  await withFrozen(async (fx, freeze) => {
    await using main = await RawMain.spawn(["-S", fx.socket]);
    await main.handshake();
    const started = await main.request("tools/call", {
      name: "capture_since",
      arguments: { paneId: "%0" },
    });
    assert(!(started.result as { isError?: boolean }).isError, JSON.stringify(started));
    freeze();
    const start = performance.now();
    await main.closeStdin();
    const status = await main.exited(WATCHDOG_MS + 10_000);
    const ms = performance.now() - start;
    assert(status, `still running after 30 s; stderr: ${main.stderr}`);
    assertEquals(status.code, 0);
    assert(ms < BOUND_MS, `exit took ${ms} ms`);
  });
});

Deno.test("against a stopped server, the stdio process exits soon after SIGTERM", async () => {
  await withFrozen(async (fx, freeze) => {
    await using main = await RawMain.spawn(["-S", fx.socket]);
    await main.handshake();
    await main.request("tools/call", { name: "capture_since", arguments: { paneId: "%0" } });
    freeze();
    const start = performance.now();
    main.kill("SIGTERM");
    const status = await main.exited(WATCHDOG_MS + 10_000);
    const ms = performance.now() - start;
    assert(status, `still running after 30 s; stderr: ${main.stderr}`);
    assert(ms < BOUND_MS, `exit took ${ms} ms`);
  });
});
