/**
 * Whether a remote host still answers (docs/design.md §5.15, "A host that hangs"). A host that goes
 * silent mid-session (a network that drops packets, a stopped sshd) answers nothing: no error, only
 * deadlines. So a call unanswered for {@link SUSPECT_AFTER_MS} makes the host suspect, and one
 * question is sent to it over its connection (`tmux -V`, which needs no tmux server: a hung tmux
 * server is not a silent host). No answer within {@link PROBE_MS}, and nothing else heard from the
 * host meanwhile: it is backed off like an unreachable one (src/tmux/ssh/remote_processes.ts) and its
 * master is closed, which ends every call and control client riding it. Any answer (a late one
 * included) marks the host as heard, which ends the suspicion.
 *
 * First contact (the master, `tmux -V`) has its own deadline, {@link FIRST_CONTACT_MS}, apart from
 * the deadlines of the call that made it.
 */
import { onHostText, ToolError } from "../../errors.ts";
import { checkCommand, SshError } from "./master.ts";
import type { RemoteHost } from "./remote_host.ts";

/** How long an across-host listing waits for a host it has reached before. */
export const HOST_BUDGET_MS = 1_500;
/** How long a call on a host goes unanswered before the host is asked whether it still answers. */
export const SUSPECT_AFTER_MS = HOST_BUDGET_MS;
/** How long that question goes unanswered before the host is taken for silent. */
export const PROBE_MS = 8_000;
/** How long a caller waits for first contact with a host (apart from its call's deadlines). */
export const FIRST_CONTACT_MS = 30_000;

/** Asks the host something cheap over its connection; rejects when it does not answer. */
export type Probe = (signal: AbortSignal) => Promise<unknown>;

/** One remote host's health, held by its TmuxHost. */
export class RemoteHealth {
  readonly #remote: RemoteHost;
  readonly #probe: Probe;
  readonly #log: (message: string) => void;
  #heardAt = -Infinity;
  #probing: Promise<void> | undefined;

  /** The health of `remote`, asked with `probe` when suspect; `log` says when it is backed off. */
  constructor(remote: RemoteHost, probe: Probe, log: (message: string) => void) {
    this.#remote = remote;
    this.#probe = probe;
    this.#log = log;
  }

  /** Whether first contact was made (or failed) once in this process. */
  get contacted(): boolean {
    return this.#remote.starter.contacted;
  }

  /** What a call fails with while the host is backed off or retried; undefined when it answers. */
  failure(): ToolError | undefined {
    return this.#remote.starter.failure();
  }

  /**
   * First contact, or the back-off's failure: wait for the shared attempt until `signal` (the
   * call's cancellation) or {@link FIRST_CONTACT_MS}, whichever comes first.
   */
  async connect(signal: AbortSignal): Promise<void> {
    const name = this.#remote.name;
    try {
      await this.#remote.starter.ready(
        AbortSignal.any([signal, AbortSignal.timeout(FIRST_CONTACT_MS)]),
      );
    } catch (error) {
      if (!(error instanceof ToolError) || error.code !== "timeout" || signal.aborted) throw error;
      throw new ToolError(
        "host_unreachable",
        `first contact over ssh did not finish within ${FIRST_CONTACT_MS / 1000} s`,
        {
          host: name,
          hint: `Retry: the connection goes on being made; check with ` +
            `\`${checkCommand(this.#remote.master.options)}\`.`,
          retryable: true,
        },
      );
    }
  }

  /** Something came back from the host: it answers. */
  heard(): void {
    this.#heardAt = performance.now();
  }

  /**
   * A call sent at `since` (performance.now()) is still unanswered: ask the host, once at a time,
   * unless it was heard from since then or is not in service (not yet reached, backed off).
   */
  suspect(since: number): void {
    if (this.#heardAt >= since || this.#probing) return;
    if (!this.contacted || this.failure() !== undefined) return;
    this.#probing = this.#ask().finally(() => this.#probing = undefined);
  }

  /** Whether the host is suspect: asked whether it still answers, and not answered yet. */
  get checking(): boolean {
    return this.#probing !== undefined;
  }

  async #ask(): Promise<void> {
    const asked = performance.now();
    try {
      await this.#probe(AbortSignal.timeout(PROBE_MS));
      this.heard();
      return;
    } catch (error) {
      // Heard meanwhile, or backed off meanwhile (a reconnect found it unreachable): not ours.
      if (this.#heardAt >= asked || !silent(error) || this.failure() !== undefined) return;
    }
    const name = this.#remote.name;
    const error = new SshError(
      "unreachable",
      `stopped answering over ssh (nothing within ${PROBE_MS / 1000} s)`,
      {
        host: name,
        hint: `Try again later; check with \`${checkCommand(this.#remote.master.options)}\`.`,
        retryable: true,
      },
    );
    this.#remote.starter.backOff(error);
    this.#log(
      onHostText(`no answer over ssh within ${PROBE_MS / 1000} s; closing its connection`, name),
    );
    // Every call and control client of ours on the host rides the master: they end with it.
    await this.#remote.master.close();
  }
}

/**
 * Whether a probe's failure says the host is silent: no answer in time, or unreachable now. A
 * refused login, a dropped connection (the next call reconnects) or any word of tmux's is an
 * answer.
 */
function silent(error: unknown): boolean {
  if (error instanceof SshError) return error.kind === "unreachable";
  if (!(error instanceof ToolError)) return false;
  return error.code === "timeout" || error.code === "cancelled" ||
    error.code === "host_unreachable";
}
