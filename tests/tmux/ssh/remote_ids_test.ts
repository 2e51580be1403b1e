// deno-lint-ignore-file no-explicit-any -- the sample walks untyped JSON Schema documents
/**
 * Qualified ids at the edge (docs/design.md §5.15). Without ssh: every result field whose schema is
 * an id's pattern comes back qualified, and arguments name one host, never this machine by
 * accident (a malformed `host`, a batch's own `host`). Over ssh: every tool whose result holds an
 * id is called on a remote host (a private sshd, tests/support/sshd.ts), and no `$N`, `@N`, `%N`,
 * cursor or runId appears in its structuredContent or text without `m1:` before it, nor a remote
 * session's name: such an id would address this machine's object of the same number. The sweep
 * checks it called every tool whose output schema marks an id, so a new one cannot be left out.
 * The sweep is skipped, with the reason, where sshd or root is missing.
 */
import { assert, assertEquals } from "../../support/assert.ts";
import { call, connectStdio } from "../../support/client.ts";
import { TmuxFixture } from "../../support/fixture.ts";
import { sshdMissing, SshRig } from "../../support/sshd.ts";
import { TOOLS } from "../../../src/catalog.ts";
import { ToolError } from "../../../src/errors.ts";
import { anyMark } from "../../../src/id_marks.ts";
import { hostSurface } from "../../../src/server/host_call.ts";
import { type HostPlan, planHost, qualifyResult } from "../../../src/server/host_ids.ts";
import type { ToolSpec } from "../../../src/tool_types.ts";
import { z } from "zod";
import type { Client } from "@modelcontextprotocol/sdk/client";

const missing = await sshdMissing();
const name = (title: string) => missing ? `${title} (skipped: ${missing})` : title;

const REMOTES = new Set(["m1"]);

/** A tool's spec as served with remote hosts (`host` added where it names no object). */
function hosted(name: string): ToolSpec {
  return hostSurface(TOOLS.filter((t) => t.name === name), [...REMOTES])[0];
}

/** What `planHost` does with a call of `tool`: its plan, or the error it refuses with. */
function plan(tool: string, args: unknown): HostPlan | ToolError {
  try {
    return planHost(hosted(tool).input, args, REMOTES);
  } catch (error) {
    if (error instanceof ToolError) return error;
    throw error;
  }
}

/** Is the JSON Schema pattern an id's (`^%\d+$`, `^@\d+$`, `^\$\d+$`, a cursor's)? */
const ID_PATTERN = /^\^(\\?[%@$]|ltxc1)/;

/**
 * A value of every field of a JSON Schema (one row per array, the first variant of a union), an id
 * pattern's field holding a plain id; and the paths of those id fields.
 */
function sample(schema: any, path: string, ids: string[]): unknown {
  if (schema.anyOf) return sample(schema.anyOf.find((s: any) => s.type !== "null"), path, ids);
  const type = Array.isArray(schema.type) ? schema.type[0] : schema.type;
  if (type === "object") {
    return Object.fromEntries(
      Object.entries(schema.properties ?? {}).map(([k, s]) => [k, sample(s, `${path}.${k}`, ids)]),
    );
  }
  if (type === "array") return [sample(schema.items, `${path}[0]`, ids)];
  if (type !== "string") return type === "boolean" ? true : 1;
  if (schema.const !== undefined || schema.enum) return schema.const ?? schema.enum[0];
  if (typeof schema.pattern !== "string" || !ID_PATTERN.test(schema.pattern)) return "text";
  ids.push(path);
  return schema.pattern.includes("ltxc1")
    ? "ltxc1.00.0"
    : `${schema.pattern[1].replace("\\", "")}1`;
}

/** The value at a sample path (`.panes[0].paneId`). */
function at(value: unknown, path: string): unknown {
  return [...path.matchAll(/\.([^.[]+)|\[(\d+)\]/g)]
    .reduce((v: any, m) => v?.[m[1] ?? Number(m[2])], value);
}

Deno.test("remote hostile: every result field whose schema is an id's pattern comes back qualified", () => {
  let found = 0;
  for (const spec of TOOLS) {
    const ids: string[] = [];
    const data = sample(z.toJSONSchema(spec.output, { io: "output" }), "", ids);
    const out = qualifyResult(spec.output, data, "m1");
    for (const path of ids) {
      const value = String(at(out, path));
      assert(value.startsWith("m1:"), `${spec.name}${path}: ${value}`);
      found++;
    }
  }
  // Found at all (the walk works): the rows' ids, and created, typed-into and ended panes.
  assert(found >= 20, `${found} id fields`);
});

Deno.test("remote hostile: a `host` that is not a name is refused, never sent to this machine", () => {
  for (const host of [5, null, ["m1"], { name: "m1" }, true, "M1", "m1 ", "local:m1"]) {
    const error = plan("create_session", { host, name: "x" });
    assert(error instanceof ToolError, JSON.stringify(host));
    assertEquals(error.code, "invalid_arguments");
  }
  // A long (or secret) name is echoed only in part.
  const error = plan("create_session", { host: "s3cret-".repeat(1000) });
  assert(error instanceof ToolError && error.message.length < 120, String(error));
});

Deno.test("remote hostile: with `host`, a plain id or session name (as rows show it) is that host's", () => {
  assertEquals(plan("list_windows", { host: "m1", session: "work" }), {
    host: "m1",
    args: { session: "work" },
  });
  assertEquals(plan("show_option", { host: "m1", name: "x", target: "%0" }), {
    host: "m1",
    args: { name: "x", target: "%0" },
  });
  // A prefix of another host still conflicts with it.
  const conflicts: Array<[string, unknown]> = [
    ["list_windows", { host: "m1", session: "local:work" }],
    ["list_panes", { host: "local", window: "m1:@0" }],
    ["send_keys_batch", {
      operations: [{ paneId: "m1:%0", keys: "x" }, { paneId: "%1", keys: "y" }],
    }],
  ];
  for (const [tool, args] of conflicts) {
    const error = plan(tool, args);
    assert(error instanceof ToolError && error.code === "invalid_arguments", String(error));
  }
});

Deno.test("remote hostile: a read batch takes no host of its own (its rows answer for theirs)", () => {
  const batch = {
    host: "m1",
    operations: [{ tool: "get_pane_info", arguments: { paneId: "%0" } }],
  };
  const error = plan("call_read_tools_batch", batch);
  assert(error instanceof ToolError && error.code === "invalid_arguments", String(error));
  // Inside a row, host is that row's.
  const rows = { operations: [{ tool: "list_panes", arguments: { host: "m1" } }] };
  assertEquals(plan("call_read_tools_batch", rows), { host: undefined, args: rows });
});

/** An id, cursor or runId not qualified by a host (`m1:%0` is; `%0`, `"ltxc1.…` are not). */
const BARE = /(?<![\w:])(?:[$@%]\d+|ltxc1\.|run-[0-9a-f]{6})/g;
/** The remote sessions' names, which must come back as `m1:NAME`. */
const SESSIONS = ["work", "fresh", "fresh2"];

/** The calls of one sweep: each result checked, each tool counted. */
class Sweep {
  readonly called = new Set<string>();
  constructor(readonly client: Client) {}

  /** Call `tool` on the remote host; its data, after checking it holds no bare id. */
  async on<T = Record<string, unknown>>(tool: string, args: Record<string, unknown>): Promise<T> {
    const result = await call(this.client, tool, args);
    const texts = result.content.flatMap((c) => c.type === "text" ? [c.text] : []);
    assert(!result.isError, `${tool}: ${texts.join("\n")}`);
    for (const text of [JSON.stringify(result.structuredContent), ...texts]) {
      assertEquals(text.match(BARE), null, `${tool} answered a bare id: ${text.slice(0, 2000)}`);
      for (const session of SESSIONS) {
        assert(!text.includes(`"${session}"`), `${tool} answered session ${session} bare: ${text}`);
      }
    }
    this.called.add(tool);
    return result.structuredContent as T;
  }
}

Deno.test({
  name: name("remote ids: no tool answers a bare id or session name from a remote host"),
  ignore: missing !== undefined,
  fn: async () => {
    await using rig = await SshRig.start();
    await using local = await TmuxFixture.start({ session: "here" });
    await rig.tmux(0, "-f", "/dev/null", "new-session", "-d", "-s", "work", "-x", "80", "-y", "24");
    const server = await connectStdio(
      [
        "--socket-path",
        local.socket,
        ...rig.sshArgs([0]),
        "--toolsets",
        "inspect,manage,execute,teardown",
      ],
      {},
      undefined,
      undefined,
      "start:ssh",
    );
    try {
      const s = new Sweep(server.client);
      await reads(s);
      await acts(s, rig);
      await lifecycle(s);
      // Every tool whose result can hold an id was called (app-only tools excepted: a client
      // without MCP Apps is not served them).
      const returning = TOOLS.filter((t) => anyMark(t.output, (m) => !("call" in m)));
      assertEquals(returning.map((t) => t.name).filter((n) => !s.called.has(n)), []);
      assert(returning.length > 35, `${returning.length} tools return ids`);
    } finally {
      await server.close();
    }
  },
});

/** The listings, details and reads of the remote pane `m1:%0`. */
async function reads(s: Sweep) {
  const pane = { paneId: "m1:%0" };
  await s.on("list_sessions", { host: "m1" });
  await s.on("list_windows", { host: "m1" });
  await s.on("list_panes", { host: "m1" });
  await s.on("get_server_info", { host: "m1" });
  await s.on("get_session_info", { session: "m1:work" });
  await s.on("get_window_info", { windowId: "m1:@0" });
  await s.on("get_pane_info", pane);
  await s.on("find_pane_by_position", { windowId: "m1:@0", corner: "top-left" });
  const { values } = await s.on<{ values: Record<string, string> }>("get_tmux_variables", {
    ...pane,
    names: [
      "pane_id",
      "window_id",
      "session_id",
      "next_session_id",
      "session_name",
      "client_session",
      "hook_pane",
      "window_linked_sessions_list",
      "window_active_sessions_list",
    ],
  });
  assertEquals([values.pane_id, values.next_session_id], ["m1:%0", "m1:$1"]);
  await s.on("capture_pane", pane);
  await s.on("snapshot_pane", pane);
  await s.on("show_pane", pane);
  await s.on("screenshot_pane", pane);
  await s.on("call_read_tools_batch", {
    operations: [
      { tool: "get_pane_info", arguments: pane },
      { tool: "list_windows", arguments: { host: "m1" } },
    ],
  });
}

/** Typing, waiting and running in `m1:%0`; arranging a second pane, then ending it. */
async function acts(s: Sweep, rig: SshRig) {
  const pane = { paneId: "m1:%0" };
  const { cursor } = await s.on<{ cursor: string }>("capture_since", pane);
  await s.on("send_keys", {
    ...pane,
    keys: "echo ids-$((6*7))",
    enter: true,
    waitFor: { pattern: "ids-42" },
  });
  await s.on("wait_for_text", { ...pane, patterns: ["ids-42"], cursor });
  await s.on("search_panes", { host: "m1", pattern: "ids-42" });
  await s.on("paste_text", { ...pane, text: "echo pasted", enter: true });
  await s.on("run_shell_command", { ...pane, command: "echo ran" });
  // A command that waits for a file: the call times out before it is there, whatever the load.
  const file = `${rig.dir}/remote/go-${crypto.randomUUID()}`;
  const late = await s.on<{ outcome: string; runId?: string }>("run_shell_command", {
    ...pane,
    command: `while [ ! -e ${file} ]; do sleep 0.05; done; echo late`,
    timeoutMs: 200,
  });
  assertEquals(late.outcome, "timeout");
  await Deno.writeTextFile(file, "");
  await s.on("wait_for_command", { runId: late.runId, timeoutMs: 30_000 });

  const { paneId } = await s.on<{ paneId: string }>("split_window", {
    ...pane,
    direction: "right",
  });
  const other = { paneId };
  await s.on("select_pane", other);
  await s.on("swap_pane", { ...pane, otherPaneId: paneId });
  await s.on("resize_pane", { ...other, width: 30 });
  await s.on("select_layout", { windowId: "m1:@0", layout: "even-horizontal" });
  await s.on("resize_window", { windowId: "m1:@0", width: 100, height: 30 });
  await s.on("set_pane_title", { ...other, title: "t" });
  await s.on("rename_window", { windowId: "m1:@0", name: "w" });
  await s.on("set_synchronize_panes", { windowId: "m1:@0", enabled: false });
  await s.on("send_keys_batch", {
    operations: [{ ...pane, keys: "echo b1", enter: true }, { ...other, keys: "echo b2" }],
  });
  await s.on("clear_pane_scrollback", other);
  await s.on("respawn_pane", { ...other, kill: true });
  await s.on("kill_pane", other);
}

/** A session and a window made, moved, set up, renamed and closed on the remote host. */
async function lifecycle(s: Sweep) {
  const made = await s.on<{ name: string }>("create_session", { host: "m1", name: "fresh" });
  assertEquals(made.name, "m1:fresh");
  const { windowId } = await s.on<{ windowId: string }>("create_window", { session: made.name });
  await s.on("move_window", { windowId, session: "m1:work" });
  await s.on("select_window", { windowId });
  await s.on("kill_window", { windowId });
  await s.on("set_mouse_enabled", { session: made.name, enabled: true });
  await s.on("set_history_limit", { session: made.name, lines: 5_000 });
  await s.on("rename_session", { session: made.name, name: "fresh2" });
  await s.on("kill_session", { session: "m1:fresh2" });
}
