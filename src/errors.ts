/**
 * Typed tool errors (docs/design.md §3.2, §3.3) and the mapping from tmux's stderr to error codes.
 *
 * Every refusal and failure a tool reports is a {@link ToolError}: a stable `code`, a message that
 * never echoes a rejected value in full, whether anything may have reached tmux (`effects`),
 * whether retrying can help, and a hint telling the agent what to do next.
 */

/** Stable error codes; never renamed once shipped. */
export type ErrorCode =
  | "invalid_arguments"
  | "target_not_found"
  | "stale_target"
  | "stale_cursor"
  | "server_not_running"
  | "server_gone"
  | "tmux_not_found"
  | "tool_denied"
  | "target_denied"
  | "busy"
  | "timeout"
  | "cancelled"
  | "output_limit"
  | "tmux_failed"
  | "unsupported"
  | "host_unreachable"
  | "host_denied"
  | "internal_error";

/** Whether anything that could change state reached tmux before the failure. */
export type Effects = "none" | "possible";

/** Codes where the same call may succeed later without changing its arguments. */
const RETRYABLE: ReadonlySet<ErrorCode> = new Set<ErrorCode>([
  "busy",
  "timeout",
  "server_not_running",
  "server_gone",
  "host_unreachable",
]);

/** Default next step per code, used when the thrower gives no specific hint. */
const DEFAULT_HINTS: Record<ErrorCode, string> = {
  invalid_arguments: "Fix the arguments to match the tool's input schema and call again.",
  target_not_found:
    "Call list_panes (its rows carry session, window and pane ids) and use an id from it.",
  stale_target:
    "The pane was replaced since you read its generation; call list_panes again for fresh ids.",
  stale_cursor: "Call capture_since again without a cursor to start a new stream.",
  server_not_running:
    "No tmux server is running on the configured socket; start one or check --socket-name/--socket-path.",
  server_gone: "The tmux server exited during the call; list sessions again before retrying.",
  tmux_not_found: "Install tmux (e.g. apt-get install tmux) and make sure it is on PATH.",
  tool_denied: "This tool is not enabled on this server; a person can enable it with a flag.",
  target_denied: "The target is protected; pick another pane or ask a person.",
  busy: "Another operation holds this target; retry shortly.",
  timeout: "tmux did not answer in time; retry, or check that the server is responsive.",
  cancelled: "The call was cancelled before it finished.",
  output_limit: "Ask for less output (smaller maxLines/maxBytes or a narrower range).",
  tmux_failed: "tmux rejected the command; check the arguments against the listings.",
  unsupported: "This tmux or this server build does not support the request.",
  host_unreachable:
    "A remote host could not be reached over ssh; retry later, or ask the person to check it.",
  host_denied:
    "ssh could not log in to a remote host without a prompt; ask the person to check its keys.",
  internal_error: "This is a bug in tmux-mcp; please report it with the server's stderr.",
};

/** Options of a {@link ToolError}. */
export interface ToolErrorOptions {
  /** Whether anything that could change state reached tmux (default `none`). */
  effects?: Effects;
  /** Whether the same call may succeed later (default: by code). */
  retryable?: boolean;
  /** The next step for the agent (default: by code). */
  hint?: string;
  /** The underlying error, for diagnostics. */
  cause?: unknown;
  /** The remote host the failure is about (docs/design.md §5.15); absent for this machine. */
  host?: string;
}

/** A failure a tool reports to the agent as a typed error result. */
export class ToolError extends Error {
  /** Stable error code. */
  readonly code: ErrorCode;
  /** Whether anything that could change state reached tmux before the failure. */
  readonly effects: Effects;
  /** Whether the same call may succeed later without changing its arguments. */
  readonly retryable: boolean;
  /** What the agent should do next. */
  readonly hint: string;
  /**
   * The remote host the failure is about; absent for this machine. The message never names it:
   * {@link errorMessage} says it once, before the message.
   */
  readonly host: string | undefined;

  /** A typed failure; `message` must not echo a rejected value in full (see {@link preview}). */
  constructor(code: ErrorCode, message: string, options: ToolErrorOptions = {}) {
    super(message, { cause: options.cause });
    this.name = "ToolError";
    this.code = code;
    this.effects = options.effects ?? "none";
    this.retryable = options.retryable ?? RETRYABLE.has(code);
    this.hint = options.hint ?? DEFAULT_HINTS[code];
    this.host = options.host;
  }

  /** The same error with `effects` widened (e.g. once a mutating command was sent). */
  withEffects(effects: Effects): ToolError {
    if (effects === this.effects) return this;
    return new ToolError(this.code, this.message, { ...this.#options(), effects });
  }

  /** The same error about remote `host` (none: this machine); one that names its host keeps it. */
  onHost(host: string | undefined): ToolError {
    if (host === undefined || this.host !== undefined) return this;
    return new ToolError(this.code, this.message, { ...this.#options(), host });
  }

  #options(): ToolErrorOptions {
    const { effects, retryable, hint, cause, host } = this;
    return { effects, retryable, hint, cause, host };
  }
}

/**
 * `text` said of remote `host` (none: this machine): `host NAME: text`. The one place that writes
 * the prefix, for error messages ({@link errorMessage}) and a listing's notes alike.
 */
export function onHostText(text: string, host?: string): string {
  return host === undefined ? text : `host ${host}: ${text}`;
}

/** An error's message as the agent reads it: its host, if remote, said once before it. */
export function errorMessage(error: ToolError): string {
  return onHostText(error.message, error.host);
}

/**
 * Quote at most a short prefix of an agent-supplied value for an error message, so that a secret
 * passed by mistake is never echoed back in full.
 */
export function preview(value: string, max = 24): string {
  const shown = [...value].slice(0, max).join("");
  return JSON.stringify(shown) + (shown.length < value.length ? "…" : "");
}

/** Classification of a failed tmux invocation from its stderr. */
export function classifyTmuxFailure(stderr: string): { code: ErrorCode; message: string } {
  const line = stderr.trim().split("\n").filter((l) => l.trim() !== "").pop() ?? "";
  const text = line ? quietTmuxMessage(line) : "tmux exited with an error and printed nothing";
  if (/^no server running on /.test(line) || /^error connecting to .*\(No such file/.test(line)) {
    return { code: "server_not_running", message: text };
  }
  if (/^error connecting to .*\(Connection refused\)/.test(line)) {
    return { code: "server_not_running", message: text };
  }
  if (/^no sessions$/.test(line)) return { code: "server_not_running", message: text };
  if (/^(server exited unexpectedly|lost server)/.test(line)) {
    return { code: "server_gone", message: text };
  }
  if (
    /^(can't find|no such) (session|window|pane|client)/.test(line) ||
    /^session not found/.test(line)
  ) {
    return { code: "target_not_found", message: text };
  }
  return { code: "tmux_failed", message: text };
}

/**
 * tmux repeats the target it could not find ("can't find session: <what you sent>"); show only a
 * short prefix of it, and cap the whole line, so an error never echoes a value in full.
 */
function quietTmuxMessage(line: string): string {
  const m = /^((?:can't find|no such) \w+|invalid option|unknown option|ambiguous option): (.*)$/s
    .exec(line);
  const text = m ? `${m[1]}: ${preview(m[2], 32)}` : line;
  return text.length > 200 ? `${text.slice(0, 200)}…` : text;
}
