/**
 * The processes a test started, seen from outside (`ps`, /proc): for waiting until a child is
 * there, blocked or gone instead of waiting for time. Callers match only command lines naming
 * their own fixture (its socket or directory), so other tests and users are never looked at.
 */
const decoder = new TextDecoder();

/** Every process on the machine: pid and command line. */
export async function processList(): Promise<{ pid: number; args: string }[]> {
  const out = await new Deno.Command("ps", { args: ["-eo", "pid=,args="] }).output();
  return decoder.decode(out.stdout).split("\n")
    .map((line) => line.trim().match(/^(\d+) (.*)$/))
    .filter((m): m is RegExpMatchArray => m !== null)
    .map((m) => ({ pid: Number(m[1]), args: m[2] }));
}

/** Pids of the processes whose command line passes `match`. */
export async function pidsWhere(match: (args: string) => boolean): Promise<number[]> {
  return (await processList()).filter((p) => match(p.args)).map((p) => p.pid);
}

/**
 * Pids of `tmux … wait-for CHANNEL` clients on `socket` (signals excluded), of `channel` only
 * when given.
 */
export function tmuxWaiters(socket: string, channel?: string): Promise<number[]> {
  return pidsWhere((args) =>
    args.includes(socket) && / wait-for (?!-S)/.test(args) &&
    (channel === undefined || args.endsWith(` ${channel}`))
  );
}

/** Whether `pid` still runs (a zombie does not). */
export async function running(pid: number): Promise<boolean> {
  const out = await new Deno.Command("ps", { args: ["-o", "stat=", "-p", String(pid)] }).output();
  const stat = decoder.decode(out.stdout).trim();
  return stat !== "" && !stat.startsWith("Z");
}

/**
 * Whether `pid` has exited or sits in poll(2): a tmux client does so only after it has sent its
 * command, so from then on the command has reached the server (or the client waits for it to
 * answer), and a kill or an abort cannot beat it there.
 */
export async function blockedOrGone(pid: number): Promise<boolean> {
  const stat = await Deno.readTextFile(`/proc/${pid}/stat`).catch(() => "");
  if (stat === "" || stat.slice(stat.lastIndexOf(")") + 2).startsWith("Z")) return true;
  return (await Deno.readTextFile(`/proc/${pid}/wchan`).catch(() => "")).includes("poll");
}

/**
 * The pid of a tmux client on `socket` whose command line holds `words` and that waits for its
 * answer (see {@link blockedOrGone}); undefined while there is none.
 */
export async function waitingTmuxClient(
  socket: string,
  words: string,
): Promise<number | undefined> {
  for (const pid of await pidsWhere((args) => args.includes(socket) && args.includes(words))) {
    if (await blockedOrGone(pid)) return pid;
  }
  return undefined;
}
