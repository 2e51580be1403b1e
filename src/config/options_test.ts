/**
 * The option table (src/config/options.ts) is the one place an option is spelled: every entry has
 * help and its variables, and each form of an option (flag, variable, alias) gives the same Config.
 * Table-driven; no tmux.
 */
import { assert, assertEquals, assertThrows } from "../../tests/support/assert.ts";
import { SURFACE } from "../catalog.ts";
import { type Config, ConfigError, helpText, parseConfig } from "../config.ts";
import { OPTIONS } from "./options.ts";
import { CONFIG_VARIABLES } from "../tmux/execute/server_scrub.ts";

function outcome(args: string[], env: Record<string, string> = {}) {
  return parseConfig(args, (n) => env[n], SURFACE);
}

function parse(args: string[], env: Record<string, string> = {}): Config {
  const parsed = outcome(args, env);
  if (parsed.kind !== "run") throw new Error(parsed.kind);
  return parsed.config;
}

function refused(args: string[], env: Record<string, string> = {}): string {
  return assertThrows(() => parse(args, env), ConfigError).message;
}

/**
 * Per option: a valid value unlike the default, another valid one (for precedence), and an invalid
 * one. A switch's `value` is what its variable says when the flag is given.
 */
const SAMPLES: Record<string, { value: string; other: string; bad: string }> = {
  "socket-name": { value: "agent", other: "other", bad: "a/b" },
  "socket-path": { value: "/tmp/agent.sock", other: "/tmp/other.sock", bad: "x\x01" },
  toolsets: { value: "inspect,teardown", other: "manage", bad: "bogus" },
  tools: { value: "kill_pane,list_panes", other: "send_keys", bad: "no_such_tool" },
  "exclude-tools": { value: "capture_pane", other: "send_keys", bad: "no_such_tool" },
  "wait-max-ms": { value: "5000", other: "6000", bad: "1" },
  "no-live": { value: "0", other: "1", bad: "maybe" },
  "allow-watched-panes": { value: "1", other: "0", bad: "2" },
  "no-ask": { value: "0", other: "1", bad: "perhaps" },
  "ask-timeout-ms": { value: "5000", other: "6000", bad: "12" },
  "http-token": { value: "0123456789abcdefXYZ", other: "another-token-0123", bad: "short" },
  "http-allowed-hosts": { value: "mcp.example.com", other: "b.example", bad: "bad host" },
  "http-allowed-origins": { value: "https://a.example", other: "http://b:1", bad: "ftp://x" },
  "http-idle-ms": { value: "20000", other: "30000", bad: "5" },
  "http-max-sessions": { value: "4", other: "5", bad: "0" },
  ssh: { value: "box1=user@box", other: "box2=other", bad: "Box=x" },
  "ssh-config": { value: "/tmp/agent_ssh_config", other: "/tmp/other", bad: "x\x01" },
  "ssh-control-dir": { value: "/run/user/0", other: "/tmp", bad: "x\x01" },
  record: { value: "/tmp/records", other: "/tmp/other-records", bad: "" },
  "record-file-bytes": { value: "1048576", other: "2097152", bad: "100" },
  "record-dir-bytes": { value: "10485760", other: "20971520", bad: "1k" },
};

/** The options a variable can set, with the argv both forms share (HTTP options need --http). */
const WITH_ENV = OPTIONS.filter((o) => o.env.length > 0).map((option) => ({
  option,
  base: option.scope === "http"
    ? ["--http", "8765"]
    : option.scope === "ssh"
    ? ["--ssh", "box9=box9"]
    : option.scope === "record"
    ? ["--record", "/tmp/records"]
    : [],
  flagArgs: (value: string) =>
    option.type === "boolean" ? [`--${option.name}`] : [
      `--${option.name}`,
      value,
    ],
}));

Deno.test("option table: every option has help, a unique name, and its variables named after it", () => {
  const names = new Set(OPTIONS.map((o) => o.name));
  assertEquals(names.size, OPTIONS.length);
  const shorts = OPTIONS.flatMap((o) => o.short ? [o.short] : []);
  assertEquals(new Set(shorts).size, shorts.length);
  for (const option of OPTIONS) {
    assert(option.help.length > 0 && option.help.every((l) => l.trim() !== ""), option.name);
    assertEquals(option.arg !== undefined, option.type === "string", `${option.name}: arg`);
    const applied = ["setting", "http", "ssh", "record"].includes(option.scope);
    assertEquals(option.apply !== undefined, applied, `${option.name}: apply`);
    // Only --http and the actions have no variable: everything else can be set from a client
    // configuration's environment.
    const flagOnly = option.scope === "action" || option.name === "http";
    assertEquals(option.env.length === 0, flagOnly, `${option.name}: env`);
    if (flagOnly) continue;
    const [primary, ...aliases] = option.env;
    const stem = option.name.replace(/^no-/, "").replaceAll("-", "_").toUpperCase();
    assertEquals(primary, `TMUX_MCP_${stem}`);
    for (const alias of aliases) assert(alias.startsWith("LIBTMUX_"), alias);
    if (option.type === "boolean") assert(option.envHelp?.startsWith(`${primary}=`), option.name);
  }
});

Deno.test("option table: --help names every flag and variable; servers we start lose every variable", () => {
  const help = helpText("0.0.0-test");
  for (const option of OPTIONS) {
    assert(help.includes(`--${option.name}`), option.name);
    if (option.short) assert(help.includes(`-${option.short}, --${option.name}`), option.name);
    for (const name of option.env) {
      assert(help.includes(name), name);
      assert((CONFIG_VARIABLES as readonly string[]).includes(name), `${name} not scrubbed`);
    }
  }
});

Deno.test("option table: every option with a variable has samples here", () => {
  assertEquals(WITH_ENV.map(({ option }) => option.name).sort(), Object.keys(SAMPLES).sort());
});

Deno.test("option table: flag, variable and alias give the same Config", () => {
  for (const { option, base, flagArgs } of WITH_ENV) {
    const { value } = SAMPLES[option.name];
    const { socketSource: flagSource, ...fromFlag } = parse([...base, ...flagArgs(value)]);
    const { socketSource: _, ...unset } = parse(base);
    assert(JSON.stringify(fromFlag) !== JSON.stringify(unset), `${option.name} changes nothing`);
    for (const name of option.env) {
      const { socketSource: envSource, ...fromEnv } = parse(base, { [name]: value });
      assertEquals(fromEnv, fromFlag, name);
      if (option.scope === "socket") assertEquals([flagSource, envSource], ["flag", "env"]);
    }
  }
});

Deno.test("option table: the flag wins over the variable, which wins over the alias", () => {
  for (const { option, base, flagArgs } of WITH_ENV) {
    const { value, other } = SAMPLES[option.name];
    const [primary, ...aliases] = option.env;
    const expected = parse([...base, ...flagArgs(value)]);
    // A switch's flag says one thing; the variable saying the other must not win.
    assertEquals(parse([...base, ...flagArgs(value)], { [primary]: other }), expected, primary);
    for (const alias of aliases) {
      const { socketSource: _, ...fromPrimary } = parse(base, { [primary]: value, [alias]: other });
      const { socketSource: __, ...fromFlag } = expected;
      assertEquals(fromPrimary, fromFlag, alias);
    }
  }
});

Deno.test("option table: an invalid value is refused the same way in every form, naming its source", () => {
  for (const { option, base, flagArgs } of WITH_ENV) {
    const { bad } = SAMPLES[option.name];
    const messages = option.env.map((name) => refused(base, { [name]: bad }));
    if (option.type === "string") messages.unshift(refused([...base, ...flagArgs(bad)]));
    const sources = option.type === "string" ? [`--${option.name}`, ...option.env] : option.env;
    // The same sentence, whatever the source; and where it names one, the right one.
    const unsourced = messages.map((m, i) => m.replace(sources[i], "SOURCE"));
    assertEquals(new Set(unsourced).size, 1, `${option.name}: ${messages.join(" | ")}`);
    if (unsourced[0].includes("SOURCE")) {
      messages.forEach((m, i) => assert(m.includes(sources[i]), m));
    }
  }
});

Deno.test("option table: short flags and actions come from the table too", () => {
  for (const option of OPTIONS.filter((o) => o.short && o.type === "string")) {
    const { value } = SAMPLES[option.name];
    assertEquals(parse([`-${option.short}`, value]), parse([`--${option.name}`, value]));
  }
  assertEquals(outcome(["-h"]), { kind: "help" });
  assertEquals(outcome(["-V"]), { kind: "version" });
  // --check parses the rest as a start would, and refuses what a start refuses.
  const checked = outcome(["--check", "-L", "agent"]);
  assertEquals(checked.kind, "check");
  assertEquals(checked.kind === "check" && checked.config, parse(["-L", "agent"]));
  assertThrows(() => outcome(["--check", "--toolsets", "bogus"]), ConfigError);
  const unknown = refused(["--no-such-option"]);
  assert(OPTIONS.every((o) => unknown.includes(`--${o.name}`)), unknown);
});
