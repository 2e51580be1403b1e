/** show_option, show_environment (secret-aware), show_hooks against real tmux. */
import { assert, assertEquals } from "../../support/assert.ts";
import { connectInProcess, fails, ok } from "../../support/client.ts";
import { TmuxFixture } from "../../support/fixture.ts";

Deno.test("show_option: every scope, inheritance, set flag, exact names", async () => {
  await using fx = await TmuxFixture.start({ session: "alpha" });
  await fx.tmux("new-session", "-d", "-s", "alp", "sleep 100000");
  await fx.tmux("set-option", "-s", "buffer-limit", "42");
  await fx.tmux("set-option", "-t", "=alpha:", "status", "off");
  await fx.tmux("set-option", "-w", "-t", "=alpha:0", "mode-keys", "vi");
  await fx.tmux("set-option", "-p", "-t", "%0", "remain-on-exit", "on");
  await fx.tmux("set-option", "-g", "@user", "hello world\\;"); // raw tmux argv: escape the ";"
  const { client, close } = await connectInProcess(["-S", fx.socket]);
  try {
    const read = (args: Record<string, unknown>) =>
      ok<Record<string, unknown>>(client, "show_option", args);
    assertEquals(await read({ name: "buffer-limit" }), {
      name: "buffer-limit",
      scope: "server",
      value: "42",
      set: true,
    });
    assertEquals(await read({ name: "status", scope: "session", target: "alpha" }), {
      name: "status",
      scope: "session",
      value: "off",
      set: true,
    });
    // alp inherits the global value and is not confused with alpha.
    const inherited = await read({ name: "status", scope: "session", target: "alp" });
    assertEquals([inherited.value, inherited.set], ["on", false]);
    assertEquals((await read({ name: "status", scope: "global-session" })).value, "on");
    assertEquals((await read({ name: "mode-keys", scope: "window", target: "@0" })).value, "vi");
    // The global default depends on $EDITOR/$VISUAL; compare with tmux's own answer.
    assertEquals(
      (await read({ name: "mode-keys", scope: "global-window" })).value,
      (await fx.tmux("show-options", "-g", "-w", "-v", "mode-keys")).trim(),
    );
    const pane = await read({ name: "remain-on-exit", scope: "pane", target: "%0" });
    assertEquals([pane.value, pane.set], ["on", true]);
    assertEquals((await read({ name: "@user", scope: "global-session" })).value, "hello world;");
    const unsetUser = await read({ name: "@nobody", scope: "session", target: "alpha" });
    assertEquals([unsetUser.value, unsetUser.set], [null, false]);
    const statusFormat = await read({ name: "status-format[1]", scope: "global-session" });
    assertEquals(
      statusFormat.value,
      (await fx.tmux("show-options", "-g", "-v", "status-format[1]")).replace(/\n$/, ""),
    );

    const refusals: Array<[Record<string, unknown>, string]> = [
      [{ name: "buffer-l" }, "invalid_arguments"], // tmux would resolve the prefix
      [{ name: "no-such-option" }, "invalid_arguments"],
      [{ name: "status" }, "invalid_arguments"], // a session option asked at server scope
      [{ name: "status", scope: "session" }, "invalid_arguments"], // needs a target
      [{ name: "buffer-limit", target: "alpha" }, "invalid_arguments"], // server takes none
      [{ name: "mode-keys", scope: "window", target: "alpha" }, "invalid_arguments"],
      [{ name: "status", scope: "session", target: "alph" }, "target_not_found"],
      [{ name: "status", scope: "session", target: "alpha:1" }, "target_not_found"],
      [{ name: "mode-keys", scope: "window", target: "@99" }, "target_not_found"],
      [{ name: "-g" }, "invalid_arguments"],
      [{ name: "status;" }, "invalid_arguments"],
      [{ name: "#{pane_id}" }, "invalid_arguments"],
      [{ name: "status", scope: "planet" }, "invalid_arguments"],
    ];
    for (const [args, code] of refusals) {
      assertEquals((await fails(client, "show_option", args)).code, code, JSON.stringify(args));
    }
    const wrongScope = await fails(client, "show_option", { name: "status" });
    assert(wrongScope.text.includes("session option"), wrongScope.text);
  } finally {
    await close();
  }
});

Deno.test("show_environment: values, removed marks, secrets withheld, multi-line values", async () => {
  await using fx = await TmuxFixture.start({ session: "envs" });
  await fx.tmux("set-environment", "-g", "PLAIN_VALUE", "visible");
  await fx.tmux("set-environment", "-g", "GITHUB_TOKEN", "ghp_supersecret");
  await fx.tmux("set-environment", "-g", "db_password", "hunter2");
  await fx.tmux("set-environment", "-g", "SSH_AUTH_SOCK", "/tmp/agent.sock");
  await fx.tmux("set-environment", "-g", "Api_Key", "k-123");
  await fx.tmux("set-environment", "-t", "=envs", "MULTI", 'line1\nline2 "quoted" $HOME \\ `tick`');
  await fx.tmux("set-environment", "-t", "=envs", "-r", "GONE");
  const { client, close } = await connectInProcess(["-S", fx.socket]);
  try {
    const global = await ok<{
      variables: Array<{ name: string; value?: string; removed?: boolean }>;
      withheld: string[];
    }>(client, "show_environment");
    const byName = new Map(global.variables.map((v) => [v.name, v]));
    assertEquals(byName.get("PLAIN_VALUE"), { name: "PLAIN_VALUE", value: "visible" });
    assertEquals(global.withheld.sort(), [
      "Api_Key",
      "GITHUB_TOKEN",
      "SSH_AUTH_SOCK",
      "db_password",
    ]);
    for (const name of global.withheld) assertEquals(byName.get(name), { name });
    const text = JSON.stringify(global);
    for (const secret of ["ghp_supersecret", "hunter2", "k-123", "/tmp/agent.sock"]) {
      assert(!text.includes(secret), `secret ${secret} leaked`);
    }
    const session = await ok<
      { variables: Array<{ name: string; value?: string; removed?: boolean }> }
    >(
      client,
      "show_environment",
      { session: "envs" },
    );
    const local = new Map(session.variables.map((v) => [v.name, v]));
    assertEquals(local.get("MULTI")?.value, 'line1\nline2 "quoted" $HOME \\ `tick`');
    assertEquals(local.get("GONE"), { name: "GONE", removed: true });
    assertEquals(
      (await fails(client, "show_environment", { session: "env" })).code,
      "target_not_found",
    );
  } finally {
    await close();
  }
});

Deno.test("show_hooks: global and session hooks with their commands", async () => {
  await using fx = await TmuxFixture.start({ session: "hooked" });
  await fx.tmux("set-hook", "-g", "after-new-window", "display-message hi");
  await fx.tmux("set-hook", "-g", "-a", "after-new-window", 'run-shell "echo x\\;y"');
  await fx.tmux("set-hook", "-t", "=hooked:", "after-split-window", "display-message split");
  const { client, close } = await connectInProcess(["-S", fx.socket]);
  try {
    const global = await ok<{ hooks: Array<{ name: string; index: number; command: string }> }>(
      client,
      "show_hooks",
    );
    assertEquals(global.hooks.map((h) => `${h.name}[${h.index}]`), [
      "after-new-window[0]",
      "after-new-window[1]",
    ]);
    assertEquals(global.hooks[0].command, "display-message hi");
    assert(global.hooks[1].command.startsWith("run-shell"));
    const session = await ok<{ hooks: Array<{ name: string; index: number; command: string }> }>(
      client,
      "show_hooks",
      { session: "hooked" },
    );
    assertEquals(session.hooks, [{
      name: "after-split-window",
      index: 0,
      command: "display-message split",
    }]);
    assertEquals((await fails(client, "show_hooks", { session: "hook" })).code, "target_not_found");
  } finally {
    await close();
  }
});

Deno.test("settings values are bounded and say so: option, environment", async () => {
  await using fx = await TmuxFixture.start({ session: "big" });
  // One tmux command cannot carry more than ~16 KiB: build the value by appending.
  await fx.tmux("set-option", "-g", "@big", "o".repeat(10_000));
  await fx.tmux("set-option", "-ga", "@big", "o".repeat(10_000));
  await fx.tmux("set-environment", "-g", "BIG_VALUE", "e".repeat(5_000));
  const { client, close } = await connectInProcess(["-S", fx.socket]);
  try {
    const option = await ok<{ value: string; truncated?: boolean }>(client, "show_option", {
      name: "@big",
      scope: "global-session",
    });
    assertEquals([option.value.length, option.value.endsWith("…"), option.truncated], [
      16_384,
      true,
      true,
    ]);
    const env = await ok<
      { variables: Array<{ name: string; value?: string }>; truncated?: boolean }
    >(
      client,
      "show_environment",
    );
    const big = env.variables.find((v) => v.name === "BIG_VALUE")!;
    assertEquals([big.value!.length, env.truncated], [4096, true]);
    const small = await ok<{ truncated?: boolean }>(client, "show_option", {
      name: "buffer-limit",
    });
    assertEquals(small.truncated, undefined);
  } finally {
    await close();
  }
});
