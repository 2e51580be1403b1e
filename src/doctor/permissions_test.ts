/**
 * The doctor reads the grants it asks about, and nothing is taken as granted that Deno did not say
 * was: a table of grants stands for Deno.permissions. No tmux.
 */
import { assertEquals } from "../../tests/support/assert.ts";
import { ENV_VARIABLES } from "../config/permissions.ts";
import { type PermissionQuery, readPermissions } from "./permissions.ts";

/** Grants as `name` or `name:value` (a variable, a command, a host), like the flags give them. */
function grants(...granted: string[]): PermissionQuery {
  const set = new Set(granted);
  return (d) => {
    const value = "variable" in d
      ? d.variable
      : "command" in d
      ? d.command
      : "host" in d
      ? d.host
      : "path" in d
      ? d.path
      : undefined;
    const whole = set.has(d.name);
    const one = value !== undefined && (set.has(`${d.name}:${value}`) ||
      [...set].some((g) =>
        g.endsWith("*") && g.startsWith(`${d.name}:`) &&
        String(value).startsWith(g.slice(d.name.length + 1, -1))
      ));
    return whole || one ? "granted" : "prompt";
  };
}

const START = grants("run:tmux", ...ENV_VARIABLES.map((v) => `env:${v}`));

Deno.test("the start task's grants read as exactly run tmux and its variables", () => {
  assertEquals(readPermissions(START, { ssh: false }), {
    run: { tmux: true, ssh: false, any: false },
    env: { wanted: ENV_VARIABLES, missing: [], any: false },
    read: false,
    write: false,
    net: { any: false, http: false },
    ffi: false,
    sys: false,
  });
});

Deno.test("--ssh wants SSH_AUTH_SOCK too; --http wants its own address", () => {
  const p = readPermissions(START, { ssh: true, http: { host: "127.0.0.1", port: 8765 } });
  assertEquals(p.env.missing, ["SSH_AUTH_SOCK"]);
  assertEquals([p.run.ssh, p.net.http], [false, false]);
  const widened = grants(
    "run:tmux",
    "run:ssh",
    "net:127.0.0.1:8765",
    ...ENV_VARIABLES.map((v) => `env:${v}`),
    "env:SSH_AUTH_SOCK",
  );
  const q = readPermissions(widened, { ssh: true, http: { host: "127.0.0.1", port: 8765 } });
  assertEquals([q.run.ssh, q.net.http, q.net.any, q.env.missing], [true, true, false, []]);
});

Deno.test("wildcard variables are asked about through a name they cover", () => {
  const p = readPermissions(grants("run:tmux", "env:TMUX", "env:TMUX_MCP_*"), { ssh: false });
  assertEquals(p.env.missing, ENV_VARIABLES.filter((v) => v !== "TMUX" && v !== "TMUX_MCP_*"));
});

Deno.test("whole-kind grants (-A) read as such", () => {
  const p = readPermissions(grants("run", "env", "read", "write", "net", "ffi", "sys"), {
    ssh: false,
  });
  assertEquals(p, {
    run: { tmux: true, ssh: true, any: true },
    env: { wanted: ENV_VARIABLES, missing: [], any: true },
    read: true,
    write: true,
    net: { any: true, http: false },
    ffi: true,
    sys: true,
  });
});
