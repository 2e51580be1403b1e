/**
 * Remote hosts that hang or are slow (docs/design.md §5.15, "A host that hangs"): a host that goes
 * silent mid-session is backed off and its connection closed, a listing stops waiting for it, and
 * first contact has its own deadline. main.ts over stdio with the ssh-widened permissions, a
 * private sshd rig (tests/support/sshd.ts) whose second sshd can be stopped. These tests assert what
 * the server says and what is left running, never how fast: every bound is generous. Skipped, with
 * the reason, where sshd or root is missing.
 */
import { assert, assertEquals, assertMatch } from "../../support/assert.ts";
import { fails, ok } from "../../support/client.ts";
import { eventually } from "../../support/fixture.ts";
import { silentListener, sshdMissing, type SshRig } from "../../support/sshd.ts";
import { remoteStack } from "../../support/remote.ts";

const missing = await sshdMissing();
const name = (title: string) => missing ? `${title} (skipped: ${missing})` : title;

interface Listing {
  panes: { paneId: string; host?: string }[];
  note?: string;
}

/** The rig, a local server, a session on each of `indexes`' machines, and our server on them. */
function setUp(
  rigOptions: Parameters<typeof SshRig.start>[0],
  indexes: number[],
  extra: (rig: SshRig) => string[] = () => [],
) {
  return remoteStack({
    rig: rigOptions,
    sessions: indexes.map((index) => [index, "s"] as const),
    hosts: indexes,
    args: extra,
  });
}

/** The hosts a listing has rows of. */
function hostsOf(listing: Listing): string[] {
  return [...new Set(listing.panes.map((p) => p.host ?? "local"))].sort();
}

Deno.test({
  name: name("remote health: a host that stops answering is backed off and its connection closed"),
  ignore: missing !== undefined,
  fn: async () => {
    // m1 on the rig's sshd, s1 on the second one, which is stopped mid-session.
    await using env = await setUp({ stoppable: true }, [0, 2]);
    const { client } = env.server;
    const warm = await ok<Listing>(client, "list_panes");
    assertEquals([hostsOf(warm), warm.note], [["local", "m1", "s1"], undefined]);
    const master = (line: string) => line.includes("ControlMaster=yes") && line.endsWith(" s1");
    assert((await env.rig.ours()).some(master), "s1's master runs");

    await env.rig.stopSshd();
    // Listings go on answering with the other hosts' rows, s1 being a note; soon s1 is taken for
    // unreachable, and says so.
    let listed: Listing = warm;
    const backedOff = await eventually(async () => {
      listed = await ok<Listing>(client, "list_panes");
      assertEquals(hostsOf(listed), ["local", "m1"]);
      // Not answered within the listing's budget for it, suspect, or backed off.
      assertMatch(
        listed.note ?? "",
        /^host s1: (did not answer within \d+ ms|not answering|stopped answering over ssh)/,
      );
      return /^host s1: stopped answering over ssh/.test(listed.note ?? "");
    }, 40_000);
    assert(backedOff, `s1 never backed off: ${listed.note}`);
    // A call to it fails as unreachable (with when it was tried), not after its deadline.
    const direct = await fails(client, "get_server_info", { host: "s1" });
    assertEquals([direct.code, direct.retryable], ["host_unreachable", true]);
    assertMatch(direct.message, /^host s1: stopped answering over ssh .*tried \d+ s ago/);
    // Its connection is gone: the master was closed, and nothing of ours waits on s1.
    const onS1 = (line: string) => line.includes(" -- s1 ") || line.endsWith(" -- s1");
    assert(
      await eventually(async () => !(await env.rig.ours()).some(onS1)),
      (await env.rig.ours()).join("\n"),
    );
    assert(
      !(await Array.fromAsync(Deno.readDir(env.rig.controlDir))).some((e) =>
        e.name.endsWith("-s1")
      ),
      "s1's master socket is gone",
    );
    // The other host is served as before.
    const text = await ok<{ text: string }>(client, "capture_pane", { paneId: "m1:%0" });
    assertEquals(typeof text.text, "string");
  },
});

Deno.test({
  name: name("remote health: a host silent from the start is host_unreachable, not a timeout"),
  ignore: missing !== undefined,
  fn: async () => {
    // Accepts TCP and never says a word: ssh waits for the banner until its connect timeout (10 s),
    // as long as a call's own deadline.
    await using silent = silentListener();
    await using env = await setUp({ silentPort: silent.port }, [0], () => ["--ssh", "dead=silent"]);
    const { client } = env.server;
    const listed = await ok<Listing>(client, "list_panes");
    assertEquals(hostsOf(listed), ["local", "m1"]);
    assertMatch(listed.note ?? "", /^host dead: cannot be reached over ssh/);
    const direct = await fails(client, "get_server_info", { host: "dead" });
    assertEquals(direct.code, "host_unreachable");
  },
});

Deno.test({
  name: name("remote health: first contact has its own deadline, so a cold listing is whole"),
  ignore: missing !== undefined,
  fn: async () => {
    // The remote login's start-up takes 11 s once (longer than a call's 10 s deadline): the first
    // command over ssh, first contact's `tmux -V`, waits for it.
    const slowOnce = (dir: string) => [`ForceCommand . ${dir}/force.sh`];
    await using env = await setUp({ sshdLines: slowOnce }, [0, 1], (rig) => {
      Deno.writeTextFileSync(
        `${rig.dir}/force.sh`,
        `if mkdir ${rig.dir}/remote/slow 2>/dev/null; then sleep 11; fi\n` +
          'eval "$SSH_ORIGINAL_COMMAND"\n',
      );
      return [];
    });
    const listed = await ok<Listing>(env.server.client, "list_panes");
    assertEquals([hostsOf(listed), listed.note], [["local", "m1", "m2"], undefined]);
    assert(await Deno.stat(`${env.rig.dir}/remote/slow`).then(() => true), "a login was slow");
  },
});
