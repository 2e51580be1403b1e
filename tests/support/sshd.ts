/**
 * SshRig: a private sshd on 127.0.0.1 for the ssh layer's tests, standing for two remote machines.
 *
 * Everything lives in one temporary directory named with this run's {@link FIXTURE_PREFIX} (so the
 * leftover check sees any process of ours that survives): the host key, the client key, the
 * authorized keys, sshd's own config and pid file, the client's ssh_config (`ssh -F`), the pinned
 * known_hosts, and the remote tmux sockets. Logging in as root would run root's start-up files, so
 * the rig logs in as a dedicated user with `/bin/sh` as login shell ({@link TEST_USER}; the suite
 * runs as root). That user is a system account: the rig creates it (`useradd --system`) only when
 * asked with {@link CREATE_USER}`=1`, as .ci/run does; without it and without the user, the ssh
 * tests are skipped and say how to ask. The machines `m1` and `m2` are Host
 * aliases of the same sshd with different remote tmux sockets. Never touches the system's sshd,
 * its config or the user's ~/.ssh.
 *
 * A host that goes silent mid-session (a network that drops packets) is played by a second sshd of
 * the rig's, serving machine `s1` alone (`stoppable`): {@link SshRig.stopSshd} SIGSTOPs it and every
 * sshd process it forked (the connections already made), so `s1` answers nothing, not even TCP
 * keep-alives' replies at the SSH level, while `m1` and `m2` go on.
 */
import { FIXTURE_PREFIX } from "./fixture.ts";

/** The unprivileged user the tests log in as. */
export const TEST_USER = "tmuxmcptest";

/** The variable that lets the rig create {@link TEST_USER} when it is missing (`1`). */
export const CREATE_USER = "TMUX_MCP_TEST_CREATE_USER";

/** One "machine": an ssh_config alias and the remote tmux socket its tests use. */
export interface Machine {
  alias: string;
  socket: string;
}

/** Why the rig cannot run here, or undefined when it can. */
export async function sshdMissing(): Promise<string | undefined> {
  if (Deno.build.os !== "linux") return "the sshd rig runs on Linux only";
  for (const [program, pkg] of [["/usr/sbin/sshd", "openssh-server"], ["ssh", "openssh-client"]]) {
    try {
      await new Deno.Command(program, { args: ["-V"], stdout: "null", stderr: "null" }).output();
    } catch {
      return `${program} is not installed (apt-get install ${pkg})`;
    }
  }
  const id = await run("id", ["-u"]);
  if (id.trim() !== "0") return "the sshd rig needs root (it starts sshd as a test user's host)";
  if (!await userExists() && Deno.env.get(CREATE_USER) !== "1") {
    return `the ssh tests log in as the system user ${TEST_USER}, which does not exist: ` +
      `run them with ${CREATE_USER}=1 to let them create it (useradd --system), as .ci/run does`;
  }
  return undefined;
}

/** Whether {@link TEST_USER} exists on this machine. */
async function userExists(): Promise<boolean> {
  const known = await new Deno.Command("id", {
    args: ["-u", TEST_USER],
    stdout: "null",
    stderr: "null",
  }).output();
  return known.success;
}

/** A private sshd with two machines, removed on dispose. */
export class SshRig {
  readonly dir: string;
  readonly port: number;
  /** The client's ssh_config: pass it as `ssh -F`. */
  readonly config: string;
  /** Where the tests' ssh masters put their sockets (`ControlPath`): only root can enter it. */
  readonly controlDir: string;
  /**
   * `m1`, `m2`, then `s1` (the stoppable sshd's) when asked for, then the extra aliases `h1`…
   * (on the first sshd, each with its own remote tmux socket).
   */
  readonly machines: Machine[];
  readonly #sshd: Deno.ChildProcess;
  #second: { sshd: Deno.ChildProcess; port: number } | undefined;
  #stopped: number[] = [];
  #log = "";

  private constructor(dir: string, port: number, sshd: Deno.ChildProcess) {
    this.dir = dir;
    this.port = port;
    this.config = `${dir}/ssh_config`;
    this.controlDir = `${dir}/cm`;
    this.machines = [
      { alias: "m1", socket: `${dir}/remote/m1.sock` },
      { alias: "m2", socket: `${dir}/remote/m2.sock` },
    ];
    this.#sshd = sshd;
    void this.#drain(sshd.stderr);
  }

  /**
   * Start sshd and write the client config. Extra Host aliases: `unknown-key` (a known_hosts that
   * lacks the host key), `denied` (a user sshd refuses), `refused` (a port nothing listens on), and `silent` when `silentPort` is
   * given (a listener of the test's that accepts TCP and never speaks SSH). `sshdLines`, given the
   * rig's directory, come first in sshd's config (its first value of a keyword wins), e.g. a
   * `ForceCommand` standing for the login shell's start-up files, or a smaller `MaxSessions`.
   * `stoppable` adds machine `s1` on a second sshd ({@link stopSshd}); `aliases` adds that many
   * machines `h1`, `h2`… on the first one.
   */
  static async start(
    options: {
      silentPort?: number;
      sshdLines?: (dir: string) => string[];
      stoppable?: boolean;
      aliases?: number;
    } = {},
  ): Promise<SshRig> {
    await ensureTestUser();
    // sshd refuses to start without its privilege separation directory (an empty dir it never
    // writes to); the package creates it at boot, a container may lack it.
    await Deno.mkdir("/run/sshd", { recursive: true, mode: 0o755 });
    const dir = await Deno.makeTempDir({ prefix: `${FIXTURE_PREFIX}rig-` });
    // The test user must reach authorized_keys (sshd reads it as that user) and its own subdir.
    await Deno.chmod(dir, 0o711);
    await Deno.mkdir(`${dir}/cm`, { mode: 0o700 });
    await Deno.mkdir(`${dir}/remote`, { mode: 0o700 });
    const uid = Number((await run("id", ["-u", TEST_USER])).trim());
    await Deno.chown(`${dir}/remote`, uid, null);
    await keygen(`${dir}/host_key`);
    await keygen(`${dir}/client_key`);
    await Deno.copyFile(`${dir}/client_key.pub`, `${dir}/authorized_keys`);
    await Deno.chmod(`${dir}/authorized_keys`, 0o644);
    for (let attempt = 0;; attempt++) {
      const port = freePort();
      await Deno.writeTextFile(
        `${dir}/sshd_config`,
        sshdConfig(dir, port, options.sshdLines?.(dir) ?? []),
      );
      const sshd = new Deno.Command("/usr/sbin/sshd", {
        args: ["-D", "-e", "-f", `${dir}/sshd_config`],
        stdin: "null",
        stdout: "null",
        stderr: "piped",
      }).spawn();
      const rig = new SshRig(dir, port, sshd);
      if (await rig.#listening()) {
        if (options.stoppable) await rig.#startSecond(options.sshdLines?.(dir) ?? []);
        for (let i = 1; i <= (options.aliases ?? 0); i++) {
          rig.machines.push({ alias: `h${i}`, socket: `${dir}/remote/h${i}.sock` });
        }
        await rig.#writeClientConfig(options.silentPort);
        return rig;
      }
      await rig.close();
      if (attempt === 2) throw new Error(`sshd did not start: ${rig.#log}`);
    }
  }

  /** The second sshd, serving `s1`: same keys and users, its own port and pid file. */
  async #startSecond(first: string[]): Promise<void> {
    for (let attempt = 0;; attempt++) {
      const port = freePort();
      const config = sshdConfig(this.dir, port, first)
        .replace(`PidFile ${this.dir}/sshd.pid`, `PidFile ${this.dir}/sshd2.pid`);
      await Deno.writeTextFile(`${this.dir}/sshd2_config`, config);
      const sshd = new Deno.Command("/usr/sbin/sshd", {
        args: ["-D", "-e", "-f", `${this.dir}/sshd2_config`],
        stdin: "null",
        stdout: "null",
        stderr: "piped",
      }).spawn();
      void this.#drain(sshd.stderr);
      if (await listening(sshd, port)) {
        this.#second = { sshd, port };
        this.machines.push({ alias: "s1", socket: `${this.dir}/remote/s1.sock` });
        return;
      }
      sshd.kill("SIGTERM");
      await sshd.status;
      if (attempt === 2) throw new Error(`the second sshd did not start: ${this.#log}`);
    }
  }

  /**
   * Stop (SIGSTOP) the second sshd and every sshd process it forked: `s1` goes silent, as behind a
   * network that drops packets. {@link resumeSshd} (and {@link close}) continue them.
   */
  async stopSshd(): Promise<void> {
    const root = this.#second?.sshd.pid;
    if (root === undefined) {
      throw new Error("the rig has no stoppable sshd (start it with stoppable)");
    }
    const pids = await sshdTree(root);
    for (const pid of pids) Deno.kill(pid, "SIGSTOP");
    this.#stopped.push(...pids);
  }

  /** Continue (SIGCONT) what {@link stopSshd} stopped. */
  resumeSshd(): void {
    for (const pid of this.#stopped.splice(0)) {
      try {
        Deno.kill(pid, "SIGCONT");
      } catch {
        // gone meanwhile
      }
    }
  }

  /** The pinned host key line, the ssh_config with every alias. */
  async #writeClientConfig(silentPort: number | undefined): Promise<void> {
    const hostKey = (await Deno.readTextFile(`${this.dir}/host_key.pub`)).trim();
    const second = this.#second ? `[127.0.0.1]:${this.#second.port} ${hostKey}\n` : "";
    await Deno.writeTextFile(
      `${this.dir}/known_hosts`,
      `[127.0.0.1]:${this.port} ${hostKey}\n${second}`,
    );
    await Deno.writeTextFile(`${this.dir}/other_known_hosts`, "");
    const common = [
      "  HostName 127.0.0.1",
      `  User ${TEST_USER}`,
      `  IdentityFile ${this.dir}/client_key`,
      "  IdentitiesOnly yes",
      "  GlobalKnownHostsFile /dev/null",
      "  LogLevel ERROR",
    ];
    const host = (alias: string, port: number, knownHosts = "known_hosts") =>
      [
        `Host ${alias}`,
        `  Port ${port}`,
        `  UserKnownHostsFile ${this.dir}/${knownHosts}`,
        ...common,
      ].join("\n");
    const hosts = [
      host("m1", this.port),
      host("m2", this.port),
      host("unknown-key", this.port, "other_known_hosts"),
      // sshd allows only the test user: any other is refused after the key exchange.
      host("denied", this.port).replace(`User ${TEST_USER}`, "User root"),
      host("refused", freePort()),
      ...(silentPort ? [host("silent", silentPort)] : []),
      ...(this.#second ? [host("s1", this.#second.port)] : []),
      ...this.machines.filter((m) => /^h\d+$/.test(m.alias)).map((m) => host(m.alias, this.port)),
    ];
    await Deno.writeTextFile(this.config, hosts.join("\n\n") + "\n");
  }

  /** Wait until sshd accepts connections, or has exited (a port taken meanwhile). */
  #listening(): Promise<boolean> {
    return listening(this.#sshd, this.port);
  }

  async #drain(stream: ReadableStream<Uint8Array>): Promise<void> {
    const decoder = new TextDecoder();
    for await (const chunk of stream) this.#log += decoder.decode(chunk, { stream: true });
  }

  /** What sshd logged (errors only), for failure messages. */
  get log(): string {
    return this.#log;
  }

  /**
   * The flags that give a server the machines `indexes` as hosts `m1`, `m2` (each with its remote
   * tmux socket), this rig's ssh_config and its control directory.
   */
  sshArgs(indexes: readonly number[] = [0, 1]): string[] {
    return [
      ...indexes.flatMap((i) => {
        const { alias, socket } = this.machines[i];
        return ["--ssh", `${alias}=${alias},socket-path=${socket}`];
      }),
      "--ssh-config",
      this.config,
      "--ssh-control-dir",
      this.controlDir,
    ];
  }

  /**
   * This rig's processes of ours (`pid args` lines): ssh clients and masters, and with
   * `remoteTmux` also the tmux clients on its machines (control clients, `wait-for` waiters).
   * sshd and the remote tmux servers are not counted.
   */
  async ours(remoteTmux = false): Promise<string[]> {
    const out = await new Deno.Command("ps", { args: ["-eo", "pid=,args="] }).output();
    return new TextDecoder().decode(out.stdout).split("\n").filter((line) =>
      line.includes(this.dir) &&
      (/^\s*\d+\s+(\S*\/)?ssh\s/.test(line) ||
        remoteTmux && /^\s*\d+\s+tmux .* (-C|wait-for)/.test(line))
    );
  }

  /** Kill the ssh masters (the connection drops; the remote tmux and its panes go on). */
  async killMasters(): Promise<number> {
    const masters = (await this.ours()).filter((line) => line.includes("ControlMaster=yes"));
    for (const line of masters) Deno.kill(Number(line.trim().split(/\s+/)[0]), "SIGKILL");
    return masters.length;
  }

  /** Run tmux on machine `index`'s socket as the test user (the remote person's own tmux). */
  async tmux(index: number, ...args: string[]): Promise<string> {
    const socket = this.machines[index].socket;
    return await run("runuser", ["-u", TEST_USER, "--", "tmux", "-u", "-S", socket, ...args]);
  }

  /**
   * A person attached to `session` on machine `index` (a terminal client under `script`, as the
   * test user). Resolves once tmux lists a non-control client; the returned function detaches it.
   */
  async attachPerson(index: number, session: string): Promise<() => Promise<void>> {
    const socket = this.machines[index].socket;
    const child = new Deno.Command("runuser", {
      args: [
        "-u",
        TEST_USER,
        "--",
        "script",
        "-q",
        "-c",
        // Read-only: the end-of-file `script` types as it attaches (its stdin is /dev/null) must not
        // reach the pane, whose shell would exit.
        `exec tmux -S ${socket} attach -r -t =${session}`,
        "/dev/null",
      ],
      env: { TERM: "xterm" },
      stdin: "null",
      stdout: "null",
      stderr: "null",
    }).spawn();
    const people = async () =>
      (await this.tmux(index, "list-clients", "-F", "#{client_control_mode} #{client_name}"))
        .split("\n").filter((line) => line.startsWith("0 ")).map((line) => line.slice(2));
    for (let i = 0; i < 500 && (await people()).length === 0; i++) {
      await new Promise((r) => setTimeout(r, 20));
    }
    const [name] = await people();
    if (!name) throw new Error("the remote person did not attach");
    return async () => {
      await this.tmux(index, "detach-client", "-t", name).catch(() => {});
      const fallback = setTimeout(() => child.kill("SIGKILL"), 3000);
      await child.status;
      clearTimeout(fallback);
    };
  }

  /**
   * Continue anything stopped, kill the remote tmux servers and the sshds (and their sessions) and
   * remove the directory.
   */
  async close(): Promise<void> {
    this.resumeSshd();
    for (const machine of this.machines) {
      await run("runuser", ["-u", TEST_USER, "--", "tmux", "-S", machine.socket, "kill-server"])
        .catch(() => {});
    }
    for (const sshd of [this.#sshd, this.#second?.sshd]) {
      if (!sshd) continue;
      try {
        sshd.kill("SIGTERM");
      } catch {
        // already gone
      }
      await sshd.status;
    }
    await Deno.remove(this.dir, { recursive: true }).catch(() => {});
  }

  async [Symbol.asyncDispose](): Promise<void> {
    await this.close();
  }
}

function sshdConfig(dir: string, port: number, first: string[]): string {
  return [
    ...first,
    `Port ${port}`,
    "ListenAddress 127.0.0.1",
    `HostKey ${dir}/host_key`,
    `PidFile ${dir}/sshd.pid`,
    `AuthorizedKeysFile ${dir}/authorized_keys`,
    "StrictModes no",
    "UsePAM no",
    "PubkeyAuthentication yes",
    "PasswordAuthentication no",
    "KbdInteractiveAuthentication no",
    `AllowUsers ${TEST_USER}`,
    "PermitRootLogin no",
    "PrintMotd no",
    "PrintLastLog no",
    // Enough concurrent sessions for a master carrying commands and control clients.
    "MaxSessions 64",
    "MaxStartups 64",
    "LogLevel ERROR",
    "",
  ].join("\n");
}

/** Wait until `sshd` accepts connections on `port`, or has exited (a port taken meanwhile). */
async function listening(sshd: Deno.ChildProcess, port: number): Promise<boolean> {
  let exited = false;
  sshd.status.then(() => exited = true);
  while (!exited) {
    try {
      const conn = await Deno.connect({ hostname: "127.0.0.1", port });
      conn.close();
      return true;
    } catch {
      await new Promise((r) => setTimeout(r, 20));
    }
  }
  return false;
}

/** `root` and every sshd process under it (the connections it forked and their privsep children). */
async function sshdTree(root: number): Promise<number[]> {
  const children = new Map<number, number[]>();
  for (const line of (await run("ps", ["-eo", "pid=,ppid=,comm="])).split("\n")) {
    const [pid, ppid, comm] = line.trim().split(/\s+/);
    if (!comm?.startsWith("sshd")) continue;
    children.set(Number(ppid), [...children.get(Number(ppid)) ?? [], Number(pid)]);
  }
  const tree = [root];
  for (let i = 0; i < tree.length; i++) tree.push(...children.get(tree[i]) ?? []);
  return tree;
}

/** A port nothing listens on right now (the kernel's choice). */
function freePort(): number {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const { port } = listener.addr as Deno.NetAddr;
  listener.close();
  return port;
}

async function keygen(file: string): Promise<void> {
  await run("ssh-keygen", ["-q", "-t", "ed25519", "-N", "", "-C", "tmux-mcp-test", "-f", file]);
}

/**
 * The test user with a plain POSIX login shell, so no start-up file of root's runs: created only
 * when asked ({@link CREATE_USER}; {@link sshdMissing} skips the tests otherwise).
 */
async function ensureTestUser(): Promise<void> {
  if (await userExists()) return;
  if (Deno.env.get(CREATE_USER) !== "1") {
    throw new Error(`${TEST_USER} does not exist and ${CREATE_USER}=1 was not given`);
  }
  // `*`: no password, yet not locked (sshd without PAM refuses a locked account's keys too).
  const flags = ["--system", "--no-create-home", "--shell", "/bin/sh", "--password", "*"];
  await run("useradd", [...flags, TEST_USER])
    .catch(async (error) => {
      // Another test file may have created it meanwhile.
      if (!await userExists()) throw error;
    });
}

async function run(program: string, args: string[]): Promise<string> {
  const out = await new Deno.Command(program, { args, stdin: "null" }).output();
  const decoder = new TextDecoder();
  if (!out.success) {
    throw new Error(`${program} ${args.join(" ")}: ${decoder.decode(out.stderr).trim()}`);
  }
  return decoder.decode(out.stdout);
}

/**
 * A TCP port on 127.0.0.1 that accepts connections and never says a word: ssh waits there for the
 * server's banner until its connect timeout. Disposing closes it and every connection it took.
 */
export function silentListener(): { port: number } & AsyncDisposable {
  const silent = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const held: Deno.Conn[] = [];
  const accepting = (async () => {
    for await (const conn of silent) held.push(conn);
  })();
  return {
    port: (silent.addr as Deno.NetAddr).port,
    async [Symbol.asyncDispose]() {
      silent.close();
      for (const conn of held) conn.close();
      await accepting.catch(() => {});
    },
  };
}
