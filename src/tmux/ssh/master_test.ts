/** The ssh master's argv and ssh's failures, typed (src/tmux/ssh/master.ts); no ssh is started. */
import { assert, assertEquals, assertMatch } from "../../../tests/support/assert.ts";
import {
  checkCommand,
  classifySshFailure,
  defaultControlPath,
  masterControlArgs,
  masterStartArgs,
  remoteArgs,
  sshCommonArgs,
  type SshMasterOptions,
} from "./master.ts";

const OPTIONS: SshMasterOptions = {
  host: { name: "box1", destination: "user@box", socket: { kind: "default" } },
  controlPath: "~/.ssh/tmcp-42-box1",
};

/** The `-o NAME=VALUE` pairs of an argv, as a map. */
function options(args: string[]): Map<string, string> {
  const map = new Map<string, string>();
  args.forEach((arg, i) => {
    if (arg === "-o") {
      const [name, value] = args[i + 1].split(/=(.*)/s);
      map.set(name, value);
    }
  });
  return map;
}

Deno.test("every ssh of ours: no prompt, the master's socket, short persistence, nothing forwarded", () => {
  const common = options(sshCommonArgs(OPTIONS));
  assertEquals(Object.fromEntries(common), {
    BatchMode: "yes",
    ControlPath: "~/.ssh/tmcp-42-box1",
    ControlPersist: "30s",
    ConnectTimeout: "10",
    ServerAliveInterval: "3",
    ServerAliveCountMax: "3",
    ClearAllForwardings: "yes",
    ForwardAgent: "no",
    ForwardX11: "no",
    PermitLocalCommand: "no",
    EscapeChar: "none",
  });
  assertEquals(sshCommonArgs(OPTIONS).includes("-F"), false);
  const withConfig = sshCommonArgs({ ...OPTIONS, configFile: "/etc/agent_ssh_config" });
  assertEquals(withConfig.slice(0, 2), ["-F", "/etc/agent_ssh_config"]);
  assertEquals(defaultControlPath(42, "box1"), "~/.ssh/tmcp-42-box1");
});

Deno.test("the destination always follows `--`, and the remote command is one last argument", () => {
  const start = masterStartArgs(OPTIONS);
  assertEquals(start.slice(-4), ["-N", "-f", "--", "user@box"]);
  assertEquals(options(start).get("ControlMaster"), "yes");
  assertEquals(masterControlArgs(OPTIONS, "check").slice(-4), ["-O", "check", "--", "user@box"]);
  assertEquals(masterControlArgs(OPTIONS, "exit").slice(-4), ["-O", "exit", "--", "user@box"]);
  const run = remoteArgs(OPTIONS, "exec sh -c 'x' sh 'ltmux'");
  assertEquals(run.slice(-4), ["-T", "--", "user@box", "exec sh -c 'x' sh 'ltmux'"]);
  assertEquals(options(run).get("ControlMaster"), "auto");
});

const FAILURES: Array<[string, boolean, string, string, boolean]> = [
  [
    "ssh: connect to host 127.0.0.1 port 1: Connection refused",
    false,
    "unreachable",
    "host_unreachable",
    true,
  ],
  [
    "Connection timed out during banner exchange\r\nConnection to 127.0.0.1 port 9 timed out",
    false,
    "unreachable",
    "host_unreachable",
    true,
  ],
  [
    "ssh: Could not resolve hostname nowhere: Name or service not known",
    false,
    "unreachable",
    "host_unreachable",
    false,
  ],
  [
    "ssh: Could not resolve hostname box: Temporary failure in name resolution",
    false,
    "unreachable",
    "host_unreachable",
    true,
  ],
  [
    "kex_exchange_identification: read: Connection reset by peer",
    false,
    "unreachable",
    "host_unreachable",
    true,
  ],
  ["Host key verification failed.", false, "host_key", "host_denied", false],
  [
    "No ED25519 host key is known for [127.0.0.1]:22 and you have requested strict checking.\nHost key verification failed.",
    false,
    "host_key",
    "host_denied",
    false,
  ],
  ["root@127.0.0.1: Permission denied (publickey).", false, "auth", "host_denied", false],
  [
    'unix_listener: path "/x" too long for Unix domain socket',
    false,
    "setup",
    "host_denied",
    false,
  ],
  [
    "/c:1: Bad configuration option: nonsense\n/c: terminating, 1 bad configuration options",
    false,
    "setup",
    "host_denied",
    false,
  ],
  ["Connection to 127.0.0.1 closed by remote host.", true, "dropped", "server_gone", true],
  ["client_loop: send disconnect: Broken pipe", true, "dropped", "server_gone", true],
  ["", true, "dropped", "server_gone", true],
  [
    "ssh: connect to host 127.0.0.1 port 1: Connection refused",
    true,
    "unreachable",
    "host_unreachable",
    true,
  ],
];

Deno.test("ssh's failures are typed from its stderr, each with a hint that says how to check", () => {
  for (const [stderr, contacted, kind, code, retryable] of FAILURES) {
    const error = classifySshFailure(OPTIONS, stderr, contacted, "possible");
    assertEquals([error.kind, error.code, error.retryable], [kind, code, retryable], stderr);
    assert(error.hint.length > 20, error.hint);
    if (kind !== "dropped") assert(error.hint.includes("`ssh user@box tmux -V`"), error.hint);
    assertEquals(error.effects, kind === "dropped" ? "possible" : "none", stderr);
    assert(error.message.length <= 300, error.message);
  }
});

Deno.test("hints name the check a person runs: with -F when --ssh-config is set, quoted", () => {
  assertEquals(checkCommand(OPTIONS), "ssh user@box tmux -V");
  const configured = { ...OPTIONS, configFile: "/etc/agent ssh/config" };
  assertEquals(checkCommand(configured), "ssh -F '/etc/agent ssh/config' user@box tmux -V");
  const refused = "ssh: connect to host 127.0.0.1 port 1: Connection refused";
  for (const stderr of [refused, "Host key verification failed.", "u@h: Permission denied (x)."]) {
    const error = classifySshFailure(configured, stderr, false);
    assert(
      error.hint.includes("`ssh -F '/etc/agent ssh/config' user@box tmux -V`"),
      error.hint,
    );
  }
});

Deno.test("a name that does not resolve says to check the name, not to try again later", () => {
  const error = classifySshFailure(
    OPTIONS,
    "ssh: Could not resolve hostname nowhere: Name or service not known",
    false,
  );
  assertMatch(error.hint, /check the name/);
  assert(!/try again later/i.test(error.hint), error.hint);
  assertEquals(error.retryable, false);
  // A DNS server that is down is a passing fault: that one is retried.
  const passing = classifySshFailure(
    OPTIONS,
    "ssh: Could not resolve hostname box: Temporary failure in name resolution",
    false,
  );
  assertMatch(passing.hint, /^Try again later/);
});
