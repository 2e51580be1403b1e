/**
 * The control route: ordinary tmux commands over one control-mode connection instead of one tmux
 * process each (docs/design.md §5.14). The runner asks it first (`TmuxRunner.useControlPath`);
 * what it declines is spawned as before, so tool and funnel code do not know which path ran.
 *
 * tmux prints command output raw between `%begin T N F` and `%end T N F` lines whose fields are
 * predictable, so a pane, path or value holding such a line must not be able to end a reply. The
 * rules, in the order a call meets them:
 *
 * 1. Only chains whose every command has a known output shape are routed ({@link planRoute}):
 *    `-F` listings and `display-message -p` rows (each row wrapped in a per-call nonce prefix and
 *    suffix), `capture-pane -p` without `-J` (its row count is read, in the same pass, by a header
 *    of ours placed right before it), and commands that print nothing (`send-keys`, `has-session`).
 *    Input from stdin (`load-buffer -`), options, environments, hooks, joined captures and every
 *    other command are spawned. No argument but `send-keys` text may hold a newline.
 * 2. The chain goes as one line, followed by a sentinel `display-message` printing the nonce; tmux
 *    runs the line in one pass, so its blocks arrive back to back, each flagged as ours.
 * 3. A block ends only at the `%end`/`%error` line repeating its `%begin`, and only where its shape
 *    says the output is complete: a rows block after a line ending in the nonce suffix (a forged
 *    line sits inside a row, before its suffix); a capture after exactly the rows counted; a silent
 *    command at once. Anywhere else such a line is output.
 * 4. Anything else (a block not flagged as ours, a line between blocks, a row not wrapped in the
 *    nonce, a capture longer than counted, a missing sentinel) is a framing error: the connection
 *    is dropped and routing is off for this host from then on, said once on stderr.
 * 5. A call that lost its connection (server killed, session closed, framing error) is spawned
 *    again if it only reads or never reached tmux; otherwise it fails `server_gone` with
 *    `effects: possible`. Timeouts and cancellations fail as on the spawn path.
 *
 * The connection is opened in the background on first use (that call is spawned), attached with
 * `-f no-output,ignore-size` so pane output never queues ahead of replies, registered as ours
 * before it attaches (§7.5), and detached after `idleCloseMs` without calls.
 */
import { classifyTmuxFailure, ToolError } from "../errors.ts";
import type { ControlPath, PartialResult, RunOptions, TmuxCommand, TmuxRunner } from "./command.ts";
import { ControlClient, FramingError, quoteControlArgument, type ReplyReader } from "./control.ts";
import { nonce } from "./format.ts";

/** Timing knobs of the route (the live engine's, docs/design.md §7.4). */
export interface RouteOptions {
  /** How long the connection stays open without calls. */
  idleCloseMs: number;
  /** How often idleness is checked. */
  sweepMs: number;
}

/** What {@link ControlRoute.stats} reports. */
export interface RouteStats {
  /** Whether a control connection is open for routing. */
  connected: boolean;
  /** Why routing is off for good, if it is. */
  off?: string;
  /** Pid of the routing client, while connected. */
  pid?: number;
}

/** After a failed attach, how long calls are spawned before attaching is tried again. */
const RETRY_MS = 1_000;
/** How long closing waits for an attach in flight. */
const OPENING_GRACE_MS = 1_000;

const ID = /^[%@$]\d+$/;
const PANE_ID = /^%\d+$/;
/** Format variables whose value depends on the client asking (ours is attached; a spawned one is not). */
const CLIENT_DEPENDENT =
  /^(client_|session_attached|session_many_attached|session_last_attached|window_active_clients)/;
/** Variables that need no target: the server's own. */
const SERVER_LEVEL = new Set(["version", "socket_path", "pid", "start_time"]);

/** What one block of a routed reply is, and so where it may end. */
export type Shape =
  /** `-F`/`display-message -p` rows, each wrapped in the call's prefix and suffix. */
  | { kind: "rows" }
  /** Ours, right before a capture: the pane's id, history size and height. */
  | { kind: "header" }
  /** `capture-pane -p` without `-J`: exactly as many lines as its range has rows. */
  | { kind: "screen"; start?: string; end?: string }
  /** Prints nothing unless it fails. */
  | { kind: "silent" }
  /** Ours, last: the call's nonce, proving the whole line ran. */
  | { kind: "sentinel" };

/** A routed call: the control line and the shape of each block it answers with. */
export interface RoutePlan {
  line: string;
  shapes: Shape[];
  /** Starts every row of this call's rows blocks. */
  open: string;
  /** Ends every row of this call's rows blocks. */
  close: string;
}

/**
 * The plan for routing `commands`, or undefined when any of them has no shape this route can frame
 * (docs/design.md §5.14): those are spawned.
 */
export function planRoute(
  commands: readonly TmuxCommand[],
  token: string = nonce() + nonce(),
): RoutePlan | undefined {
  const open = `\x1d${token}\x1d`;
  const close = `\x1c${token}\x1c`;
  const wrap = (template: string) => `${open}${template}${close}`;
  const sent: string[][] = [];
  const shapes: Shape[] = [];
  for (const command of commands) {
    const planned = planOne(command, wrap);
    if (!planned) return undefined;
    for (const [args, shape] of planned) {
      sent.push(args);
      shapes.push(shape);
    }
  }
  if (sent.length === 0) return undefined;
  sent.push(["display-message", "-p", wrap("")]);
  shapes.push({ kind: "sentinel" });
  let line: string;
  try {
    line = sent.map((args) => args.map(quoteControlArgument).join(" ")).join(" ; ");
  } catch {
    return undefined; // a NUL or lone surrogate: the spawn path refuses it with its own error
  }
  return { line, shapes, open, close };
}

type Planned = Array<[string[], Shape]>;

/** One command's control arguments and shapes (a capture gets its header first). */
function planOne(command: TmuxCommand, wrap: (t: string) => string): Planned | undefined {
  const [name, ...args] = command;
  if (name === "send-keys") return planSendKeys(args);
  // Only send-keys text may span lines: every other argument could be echoed in an error.
  if (args.some((a) => a.includes("\n") || a.includes("\x1c") || a.includes("\x1d"))) {
    return undefined;
  }
  const opts = getopt(args, "aepsl", "tFSE");
  if (!opts) return undefined;
  const { flags, values, rest } = opts;
  const only = (allowed: string) => [...flags, ...values.keys()].every((f) => allowed.includes(f));
  const target = values.get("t");
  const format = values.get("F");
  switch (name) {
    case "display-message": {
      if (!only("pt") || !flags.has("p") || rest.length !== 1) return undefined;
      if (target !== undefined && !ID.test(target)) return undefined;
      const variables = templateVariables(rest[0]);
      if (!variables || variables.some((v) => CLIENT_DEPENDENT.test(v))) return undefined;
      // Without a target tmux answers for the asking client's session, which differs by path.
      if (target === undefined && variables.some((v) => !SERVER_LEVEL.has(v))) return undefined;
      return [[["display-message", "-p", ...(target ? ["-t", target] : []), wrap(rest[0])], {
        kind: "rows",
      }]];
    }
    case "list-sessions":
    case "list-windows":
    case "list-panes":
    case "list-clients": {
      if (format === undefined || rest.length !== 0) return undefined;
      const scope = name === "list-panes" ? "aFst" : name === "list-windows" ? "aFt" : "F";
      if (!only(scope)) return undefined;
      if (flags.has("a") === (target !== undefined) && scope !== "F") return undefined;
      if (flags.has("s") && target === undefined) return undefined;
      if (target !== undefined && !ID.test(target)) return undefined;
      const variables = templateVariables(format);
      if (!variables) return undefined;
      if (name !== "list-clients" && variables.some((v) => CLIENT_DEPENDENT.test(v))) {
        return undefined;
      }
      const scopeArgs = [
        ...(flags.has("a") ? ["-a"] : []),
        ...(flags.has("s") ? ["-s"] : []),
        ...(target ? ["-t", target] : []),
      ];
      return [[[name, ...scopeArgs, "-F", wrap(format)], { kind: "rows" }]];
    }
    case "capture-pane": {
      if (!only("petSE") || !flags.has("p") || rest.length !== 0) return undefined;
      if (target === undefined || !PANE_ID.test(target)) return undefined;
      const start = values.get("S");
      const end = values.get("E");
      if (![start, end].every((v) => v === undefined || v === "-" || lineNumber(v) !== undefined)) {
        return undefined;
      }
      const header = ["display-message", "-p", "-t", target, wrap(HEADER)];
      const capture = ["capture-pane", "-p", ...(flags.has("e") ? ["-e"] : []), "-t", target];
      if (start !== undefined) capture.push("-S", start);
      if (end !== undefined) capture.push("-E", end);
      return [[header, { kind: "header" }], [capture, { kind: "screen", start, end }]];
    }
    case "has-session":
      if (!only("t") || rest.length !== 0 || target === undefined) return undefined;
      // deno-lint-ignore no-control-regex
      if (!ID.test(target) && !/^=[^\x00-\x1f]*$/.test(target)) return undefined;
      return [[["has-session", "-t", target], { kind: "silent" }]];
    default:
      return undefined;
  }
}

/** `send-keys [-l] -t %N -- text`, or `send-keys -t %N KEY`: prints nothing, echoes no text. */
function planSendKeys(args: readonly string[]): Planned | undefined {
  const dashes = args.indexOf("--");
  const head = dashes < 0 ? args.slice(0, -1) : args.slice(0, dashes);
  const tail = dashes < 0 ? args.slice(-1) : args.slice(dashes + 1);
  const opts = getopt(head, "l", "t");
  if (!opts || opts.rest.length !== 0 || tail.length !== 1) return undefined;
  const target = opts.values.get("t");
  if (target === undefined || !PANE_ID.test(target) || opts.values.size !== 1) return undefined;
  // A key name without `--` must look like one: a flag or a line break would change its meaning.
  if (dashes < 0 && (opts.flags.size > 0 || !KEY_NAME.test(tail[0]))) return undefined;
  const literal = opts.flags.has("l") ? ["-l"] : [];
  const sent = dashes < 0
    ? ["send-keys", "-t", target, tail[0]]
    : ["send-keys", ...literal, "-t", target, "--", tail[0]];
  return [[sent, { kind: "silent" }]];
}

// deno-lint-ignore no-control-regex
const KEY_NAME = /^[^\x00-\x20\x7f-][^\x00-\x20\x7f]*$/;

/** Single-letter flags (`booleans`) and flags with a value (`valued`), each its own argument. */
function getopt(
  args: readonly string[],
  booleans: string,
  valued: string,
): { flags: Set<string>; values: Map<string, string>; rest: string[] } | undefined {
  const flags = new Set<string>();
  const values = new Map<string, string>();
  let i = 0;
  for (; i < args.length; i++) {
    const arg = args[i];
    if (!/^-[A-Za-z]$/.test(arg)) break;
    const letter = arg[1];
    if (flags.has(letter) || values.has(letter)) return undefined;
    if (booleans.includes(letter)) flags.add(letter);
    else if (valued.includes(letter) && i + 1 < args.length) values.set(letter, args[++i]);
    else return undefined;
  }
  const rest = args.slice(i);
  if (rest.some((a) => a.startsWith("-"))) return undefined;
  return { flags, values, rest };
}

/** The `#{name}` variables of a format made of plain text, `##` and `#{name}` only. */
export function templateVariables(template: string): string[] | undefined {
  const names: string[] = [];
  for (let i = 0; i < template.length; i++) {
    if (template[i] !== "#") continue;
    if (template[i + 1] === "#") {
      i++;
      continue;
    }
    const m = /^#\{([A-Za-z@][A-Za-z0-9_-]*)\}/.exec(template.slice(i, i + 80));
    if (!m) return undefined;
    names.push(m[1]);
    i += m[0].length - 1;
  }
  return names;
}

/** A capture line number tmux takes as one (`-S`/`-E`): an integer in [INT_MIN, SHRT_MAX]. */
function lineNumber(value: string): number | undefined {
  if (!/^-?\d{1,10}$/.test(value)) return undefined;
  const n = Number(value);
  return n >= -2_147_483_648 && n <= 32_767 ? n : undefined;
}

/** Ours, before each capture: only ids and numbers. */
const HEADER = "#{pane_id} #{history_size} #{pane_height}";

/**
 * How many lines `capture-pane -p` (without `-J`) prints for a pane with `history` rows of history
 * and `height` rows of screen: tmux 3.3a's clamping of `-S`/`-E` (cmd-capture-pane.c), one line
 * per row of the range.
 */
export function captureRows(
  start: string | undefined,
  end: string | undefined,
  history: number,
  height: number,
): number {
  const last = history + height - 1;
  const row = (value: string | undefined, dash: number, missing: number) => {
    if (value === "-") return dash;
    const n = value === undefined ? undefined : lineNumber(value);
    if (n === undefined) return missing;
    const at = n < 0 && -n > history ? 0 : history + n;
    return Math.min(at, last);
  };
  const top = row(start, 0, history);
  const bottom = row(end, last, last);
  return Math.abs(bottom - top) + 1;
}

/**
 * Reads one routed reply (docs/design.md §5.14 rule 3): blocks in the planned order, each ending
 * only where its shape allows; everything else is a {@link FramingError}.
 */
export class RoutedReply implements ReplyReader {
  /** Whether the line was (being) written: from then on tmux may have run it. */
  wasSent = false;
  /** What the caller's commands printed, as the spawn path would have. */
  readonly stdout: string[] = [];
  /** tmux's message, when one of the caller's commands failed (the chain stopped there). */
  failure: string | undefined;
  readonly #plan: RoutePlan;
  #index = 0;
  #key: string | undefined;
  #lines: string[] = [];
  /** Rows the next capture prints; null when its pane does not exist (it can only fail). */
  #rows: number | null | undefined;

  constructor(plan: RoutePlan) {
    this.#plan = plan;
  }

  sent(): void {
    this.wasSent = true;
  }

  line(text: string): boolean {
    const shape = this.#plan.shapes[this.#index];
    if (this.#key === undefined) {
      const begin = /^%begin (\d+ \d+ (\d+))$/.exec(text);
      if (!begin) throw new FramingError("a line that is not a reply block where one was due");
      if ((Number(begin[2]) & 1) !== 1) {
        throw new FramingError("output that is not a reply to our commands (a hook?)");
      }
      this.#key = begin[1];
      this.#lines = [];
      return false;
    }
    const end = text.startsWith("%") ? /^%(end|error) (\d+ \d+ \d+)$/.exec(text) : null;
    if (end && end[2] === this.#key) {
      const failed = end[1] === "error";
      if (this.#ends(shape, failed)) return this.#finish(shape, failed);
    }
    if (shape.kind === "screen" && this.#rows !== null && this.#lines.length === this.#rows) {
      throw new FramingError("a capture went on past the rows its pane has");
    }
    this.#lines.push(text);
    return false;
  }

  /** Whether an `%end`/`%error` line with this block's key is tmux's own, here. */
  #ends(shape: Shape, failed: boolean): boolean {
    const lines = this.#lines;
    switch (shape.kind) {
      case "rows":
      case "header":
      case "sentinel":
        // A forged line sits inside a row: after its prefix, before its suffix.
        return failed
          ? lines.length === 0 || !lines[0].startsWith(this.#plan.open)
          : lines.length === 0 || lines[lines.length - 1].endsWith(this.#plan.close);
      case "screen":
        // A pane that does not exist prints no row; one that does cannot fail a capture.
        return this.#rows === null || (!failed && lines.length === this.#rows);
      case "silent":
        return failed || lines.length === 0;
    }
  }

  #finish(shape: Shape, failed: boolean): boolean {
    const lines = this.#lines;
    this.#key = undefined;
    this.#lines = [];
    if (failed) {
      if (shape.kind === "header" || shape.kind === "sentinel") {
        throw new FramingError("a command of ours that cannot fail failed");
      }
      this.failure = lines.join("\n");
      return true;
    }
    switch (shape.kind) {
      case "rows":
        this.stdout.push(this.#unwrap(lines));
        break;
      case "header": {
        const m = /^(%\d+) (\d+) (\d+)\n$/.exec(this.#unwrap(lines));
        const next = this.#plan.shapes[this.#index + 1];
        this.#rows = m && next?.kind === "screen"
          ? captureRows(next.start, next.end, Number(m[2]), Number(m[3]))
          : null;
        break;
      }
      case "screen":
        this.stdout.push(lines.map((l) => l + "\n").join(""));
        this.#rows = undefined;
        break;
      case "silent":
        break;
      case "sentinel":
        if (this.#unwrap(lines) !== "\n") throw new FramingError("the closing sentinel was wrong");
        break;
    }
    this.#index++;
    return this.#index === this.#plan.shapes.length;
  }

  /** A rows block's output without the call's prefix and suffix: exactly what tmux printed. */
  #unwrap(lines: string[]): string {
    if (lines.length === 0) return "";
    const { open, close } = this.#plan;
    const text = lines.join("\n");
    if (!text.startsWith(open) || !text.endsWith(close)) {
      throw new FramingError("a row without the call's prefix or suffix");
    }
    const rows = text.slice(open.length, text.length - close.length).split(`${close}\n${open}`);
    if (rows.some((r) => r.includes(open) || r.includes(close))) {
      throw new FramingError("a row holding the call's prefix or suffix");
    }
    return rows.map((r) => r + "\n").join("");
  }
}

/**
 * One control connection for ordinary commands, owned by the tmux host; see the header for the
 * rules. Installed on the host's runner with `useControlPath`.
 */
export class ControlRoute implements ControlPath {
  readonly #runner: TmuxRunner;
  readonly #ownPids: Set<number>;
  readonly #options: RouteOptions;
  readonly #log: (message: string) => void;
  #client: ControlClient | undefined;
  #opening: Promise<void> | undefined;
  #retryAt = 0;
  #off: string | undefined;
  #closed = false;
  #inFlight = 0;
  #lastUsed = 0;
  #sweeper: ReturnType<typeof setInterval> | undefined;

  constructor(
    runner: TmuxRunner,
    ownPids: Set<number>,
    options: RouteOptions,
    log: (message: string) => void,
  ) {
    this.#runner = runner;
    this.#ownPids = ownPids;
    this.#options = options;
    this.#log = log;
  }

  /** Whether routing is connected, or off and why (for tests and diagnostics). */
  stats(): RouteStats {
    const client = this.#client && !this.#client.closed ? this.#client : undefined;
    return {
      connected: client !== undefined,
      ...(this.#off ? { off: this.#off } : {}),
      ...(client ? { pid: client.pid } : {}),
    };
  }

  /**
   * Open the connection now (if routing can, without waiting out a failed attempt's pause) and
   * wait for it: true once calls are routed. Calls never wait for this; tests and the bench do.
   */
  async ready(): Promise<boolean> {
    this.#retryAt = 0;
    this.#connected();
    await this.#opening;
    return this.#connected() !== undefined;
  }

  async runPartial(
    commands: readonly TmuxCommand[],
    options: RunOptions,
  ): Promise<PartialResult | string> {
    if (this.#off) return "routing is off";
    const plan = planRoute(commands);
    if (!plan) return "not routable";
    const client = this.#connected();
    if (!client) return "not connected";
    const effects = options.effects ?? "none";
    if (options.signal?.aborted) {
      throw new ToolError("cancelled", "the call was cancelled before it reached tmux");
    }
    const reply = new RoutedReply(plan);
    this.#inFlight++;
    try {
      await client.send(
        plan.line,
        reply,
        options.signal,
        options.timeoutMs ?? this.#runner.defaultTimeoutMs,
      );
    } catch (error) {
      if (error instanceof ToolError && (error.code === "cancelled" || error.code === "timeout")) {
        throw error.withEffects(effects);
      }
      // Lost with the connection: running a read again is harmless, and so is running a command
      // that never reached tmux; anything else may have happened.
      if (effects === "none" || !reply.wasSent) {
        return error instanceof FramingError ? "framing error" : "connection lost";
      }
      throw new ToolError(
        "server_gone",
        "the tmux server or the control connection went away during the call",
        { effects, cause: error },
      );
    } finally {
      this.#inFlight--;
      this.#lastUsed = Date.now();
    }
    const stdout = reply.stdout.join("");
    if (reply.failure === undefined) return { stdout };
    const { code, message } = classifyTmuxFailure(reply.failure);
    return { stdout, error: new ToolError(code, message, { effects }) };
  }

  /** Detach the connection (bounded); calls after this are spawned. */
  async close(): Promise<void> {
    this.#closed = true;
    if (this.#sweeper !== undefined) clearInterval(this.#sweeper);
    this.#sweeper = undefined;
    let timer: ReturnType<typeof setTimeout> | undefined;
    await Promise.race([
      this.#opening,
      new Promise((r) => timer = setTimeout(r, OPENING_GRACE_MS)),
    ]);
    clearTimeout(timer);
    const client = this.#client;
    this.#client = undefined;
    await client?.close();
  }

  /** The open connection, or undefined (then an attach is started in the background). */
  #connected(): ControlClient | undefined {
    if (this.#client && !this.#client.closed) return this.#client;
    this.#client = undefined;
    if (!this.#opening && !this.#closed && !this.#off && Date.now() >= this.#retryAt) {
      this.#opening = this.#open().finally(() => this.#opening = undefined);
    }
    return undefined;
  }

  /**
   * Attach to a session the listing shows (one with people attached first, so that a detached
   * session does not start looking attached); never to a server that is not running, which an
   * attach would start.
   */
  async #open(): Promise<void> {
    try {
      const listing = await this.#runner.spawnPartial([
        "list-sessions",
        "-F",
        "#{session_id} #{session_attached}",
      ]);
      const sessions = listing.error ? [] : [...listing.stdout.matchAll(/^(\$\d+) (\d+)$/gm)];
      sessions.sort((a, b) => Number(b[2] !== "0") - Number(a[2] !== "0"));
      if (sessions.length === 0 || this.#closed) throw new Error("no session to attach to");
      const client = await ControlClient.open(this.#runner, sessions[0][1], {
        onSpawn: (pid) => this.#ownPids.add(pid),
        onExit: (pid) => this.#ownPids.delete(pid),
        onOutput: () => {},
        onClose: (closed, reason) => this.#lost(closed, reason),
      }, { clientFlags: ["no-output", "ignore-size"], strict: true });
      if (this.#closed || this.#off) {
        await client.close();
        return;
      }
      this.#client = client;
      this.#lastUsed = Date.now();
      this.#sweep();
    } catch {
      this.#retryAt = Date.now() + RETRY_MS;
    }
  }

  #lost(client: ControlClient, reason: string): void {
    if (this.#client === client) this.#client = undefined;
    if (reason.startsWith("framing: ") && !this.#off) {
      this.#off = reason;
      this.#log(
        `tmux: the control connection's output broke its framing (${reason.slice(9)}); ` +
          "tmux commands are spawned from now on",
      );
    }
  }

  /** Detach after `idleCloseMs` without calls; the timer never keeps the process alive. */
  #sweep(): void {
    if (this.#sweeper !== undefined) return;
    const sweeper = setInterval(() => {
      const client = this.#client;
      if (!client || client.closed) {
        clearInterval(sweeper);
        this.#sweeper = undefined;
        return;
      }
      if (this.#inFlight === 0 && Date.now() - this.#lastUsed >= this.#options.idleCloseMs) {
        this.#client = undefined;
        client.close().catch(() => {});
      }
    }, this.#options.sweepMs);
    Deno.unrefTimer(sweeper);
    this.#sweeper = sweeper;
  }
}
