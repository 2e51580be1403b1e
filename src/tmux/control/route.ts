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
import { classifyTmuxFailure, ToolError } from "../../errors.ts";
import type { TmuxCommand } from "../core/argv.ts";
import type { ControlPath, PartialResult, RunOptions, TmuxRunner } from "../core/runner.ts";
import { ControlClient } from "./client.ts";
import { FramingError } from "./syntax.ts";
import { planRoute } from "./route_plan.ts";
import { RoutedReply } from "./route_reply.ts";
import { CLOSE_GRACE_MS, settlesWithin } from "../../base/timing.ts";

/** Timing knobs of the route (the live engine's, docs/design.md §7.4). */
interface RouteOptions {
  /** How long the connection stays open without calls. */
  idleCloseMs: number;
  /** How often idleness is checked. */
  sweepMs: number;
}

/** What {@link ControlRoute.stats} reports. */
interface RouteStats {
  /** Whether a control connection is open for routing. */
  connected: boolean;
  /** Why routing is off for good, if it is. */
  off?: string;
  /** Pid of the routing client, while connected. */
  pid?: number;
}

/** After a failed attach, how long calls are spawned before attaching is tried again. */
const RETRY_MS = 1_000;

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
    if (this.#opening !== undefined) await settlesWithin(this.#opening, CLOSE_GRACE_MS);
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
