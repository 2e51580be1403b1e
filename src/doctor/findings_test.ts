/**
 * The doctor's rules: each situation gives the level it should, a fix on every warning and problem,
 * and the exit status follows the problems alone. Table-driven; no tmux.
 */
import { assert, assertEquals } from "../../tests/support/assert.ts";
import { ToolError } from "../errors.ts";
import { type CheckedConfig, type Facts, findings, type Level, report } from "./findings.ts";
import type { PermissionFacts } from "./permissions.ts";
import { ENV_VARIABLES } from "../config/permissions.ts";

const START: PermissionFacts = {
  run: { tmux: true, ssh: false, any: false },
  env: { wanted: ENV_VARIABLES, missing: [], any: false },
  read: false,
  write: false,
  net: { any: false, http: false },
  ffi: false,
  sys: false,
};

const OWN: CheckedConfig = { live: true, socketSource: "flag", ssh: [] };
const RUNNING = {
  described: 'socket name "agent"',
  running: true as const,
  path: "/tmp/tmux-0/agent",
  sessions: 2,
  people: new Map<string, number>(),
};

function facts(change: Partial<Facts> = {}): Facts {
  return {
    config: OWN,
    tmux: { version: "tmux 3.3a" },
    socket: RUNNING,
    permissions: START,
    ...change,
  };
}

/** What a case should give: the level of the finding whose text matches, and the exit status. */
interface Case {
  name: string;
  facts: Facts;
  expect: [RegExp, Level][];
  status: 0 | 1;
}

const CASES: Case[] = [
  {
    name: "the agent's own server, running, start permissions",
    facts: facts(),
    expect: [
      [
        /^tmux 3\.3a \(3\.2 or newer needed\); it has the control-client crash .* agent's own/,
        "ok",
      ],
      [/^socket name "agent" \(\/tmp\/tmux-0\/agent\): a server with 2 sessions; no one/, "ok"],
      [/^permissions: run tmux; read 13 of the 13 variables .*; no files, no network/, "ok"],
    ],
    status: 0,
  },
  {
    name: "the person's own server with live mode: the crash is a warning",
    facts: facts({ config: { ...OWN, socketSource: "default" } }),
    expect: [[/^tmux 3\.3a has the control-client crash/, "warning"]],
    status: 0,
  },
  {
    name: "live mode off: the crash cannot happen",
    facts: facts({ config: { ...OWN, live: false, socketSource: "default" } }),
    expect: [[/cannot happen: live mode is off/, "ok"]],
    status: 0,
  },
  {
    name: "no tmux on PATH: one problem (not also the permission Deno could not resolve)",
    facts: facts({
      tmux: { error: new ToolError("tmux_not_found", "tmux is not installed or not on PATH") },
      socket: undefined,
      permissions: { ...START, run: { ...START.run, tmux: false } },
    }),
    expect: [[/^tmux is not on PATH/, "problem"], [/^permissions: run tmux;/, "ok"]],
    status: 1,
  },
  {
    name: "a tmux older than the minimum",
    facts: facts({ tmux: { version: "tmux 3.1c" } }),
    expect: [[/^tmux 3\.1c is older than tmux 3\.2/, "problem"]],
    status: 1,
  },
  {
    name: "a build without a release number is taken as new enough",
    facts: facts({ tmux: { version: "tmux master" } }),
    expect: [[/^tmux master \(no release number: taken as 3\.2 or newer\)/, "ok"]],
    status: 0,
  },
  {
    name: "people attached are named by session",
    facts: facts({ socket: { ...RUNNING, people: new Map([["main", 2], ["logs", 0]]) } }),
    expect: [[/; 2 people attached \(main\): the panes they look at are guarded$/, "ok"]],
    status: 0,
  },
  {
    name: "no server on the agent's own socket is fine",
    facts: facts({ socket: { described: 'socket name "agent"', running: false } }),
    expect: [[/no tmux server yet; the agent's first create_session starts it/, "ok"]],
    status: 0,
  },
  {
    name: "no server on the person's socket is a warning",
    facts: facts({
      config: { ...OWN, socketSource: "default" },
      socket: { described: "tmux's default socket", running: false },
    }),
    expect: [[/^tmux's default socket: no tmux server is running/, "warning"]],
    status: 0,
  },
  {
    name: "a socket tmux cannot use is a problem",
    facts: facts({
      socket: {
        described: "socket /tmp/x",
        error: new ToolError("tmux_failed", "error connecting to /tmp/x (Permission denied)"),
      },
    }),
    expect: [[/^socket \/tmp\/x cannot be used: error connecting/, "problem"]],
    status: 1,
  },
  {
    name: "no permission to run tmux",
    facts: facts({ permissions: { ...START, run: { ...START.run, tmux: false } } }),
    expect: [[/^the server may not run tmux$/, "problem"]],
    status: 1,
  },
  {
    name: "--ssh without permission to run ssh",
    facts: facts({ config: { ...OWN, ssh: [{ name: "box", destination: "me@box" }] } }),
    expect: [[/^--ssh needs permission to run ssh/, "problem"]],
    status: 1,
  },
  {
    name: "--http without permission to listen",
    facts: facts({ config: { ...OWN, http: "127.0.0.1:8765" } }),
    expect: [[/^--http needs permission to listen on 127\.0\.0\.1:8765$/, "problem"]],
    status: 1,
  },
  {
    name: "--http with its permission",
    facts: facts({
      config: { ...OWN, http: "127.0.0.1:8765" },
      permissions: { ...START, net: { any: false, http: true } },
    }),
    expect: [[/; listen on 127\.0\.0\.1:8765 only; no files, no other programs$/, "ok"]],
    status: 0,
  },
  {
    name: "a variable it may not read",
    facts: facts({ permissions: { ...START, env: { ...START.env, missing: ["TMUX_PANE"] } } }),
    expect: [[/^the server may not read TMUX_PANE$/, "warning"]],
    status: 0,
  },
  {
    name: "everything granted (-A)",
    facts: facts({
      permissions: {
        run: { tmux: true, ssh: true, any: true },
        env: { ...START.env, any: true },
        read: true,
        write: true,
        net: { any: true, http: false },
        ffi: true,
        sys: true,
      },
    }),
    expect: [[
      /more than it needs: any program, every file \(read\), every file \(write\), the whole network, every variable, native libraries \(ffi\), system information \(sys\)$/,
      "warning",
    ]],
    status: 0,
  },
  {
    name: "each ssh host: answering, too old, unreachable",
    facts: facts({
      config: {
        ...OWN,
        ssh: [{ name: "a", destination: "a" }, { name: "b", destination: "b" }, {
          name: "c",
          destination: "u@c",
        }],
      },
      permissions: { ...START, run: { ...START.run, ssh: true } },
      hosts: [
        { name: "a", destination: "a", version: "tmux 3.4" },
        { name: "b", destination: "b", version: "tmux 2.9" },
        {
          name: "c",
          destination: "u@c",
          error: new ToolError("host_denied", "ssh could not log in", { hint: "Add a key." }),
        },
      ],
    }),
    expect: [
      [/^host a \(ssh a\): tmux 3\.4 answers in BatchMode$/, "ok"],
      [/^host b \(ssh b\): tmux 2\.9 is older than tmux 3\.2$/, "problem"],
      [/^host c \(ssh u@c\): ssh could not log in$/, "problem"],
    ],
    status: 1,
  },
];

for (const c of CASES) {
  Deno.test(`doctor: ${c.name}`, () => {
    const all = findings(c.facts);
    for (const [pattern, level] of c.expect) {
      const found = all.find((f) => pattern.test(f.text));
      assert(found, `${pattern} among ${all.map((f) => f.text).join(" | ")}`);
      assertEquals(found.level, level, found.text);
    }
    for (const f of all.filter((f) => f.level !== "ok")) assert(f.fix, `${f.text}: no fix`);
    const { lines, status } = report(all);
    assertEquals(status, c.status);
    // One line per finding, its fix on it, and the count last.
    assertEquals(lines.length, all.length + 1);
    for (const line of lines) assert(!line.includes("\n"), line);
    assert(/^(no problems|\d+ problems?)/.test(lines.at(-1)!), lines.at(-1));
  });
}
