/**
 * tmux's command line, built purely: the socket flags, one chain of commands with each argument
 * escaped so tmux cannot read a trailing `;` as a separator (docs/design.md §5.1–§5.2), and the
 * control-mode attach. Only {@link TmuxRunner} (src/tmux/core/runner.ts) starts what these describe.
 */
import { preview, ToolError } from "../../errors.ts";

/** Which tmux server this process talks to. */
export type SocketSpec =
  | { kind: "default" }
  | { kind: "name"; name: string }
  | { kind: "path"; path: string };

/** One tmux command: its name followed by its arguments (unescaped). */
export type TmuxCommand = readonly string[];

/** Escape one argument so tmux cannot read its trailing `;` as a command separator. */
export function escapeArgument(arg: string): string {
  if (arg.includes("\0")) {
    throw new ToolError("invalid_arguments", "a value contains a NUL byte, which tmux cannot take");
  }
  // tmux strips a trailing `;` (separator) and turns a trailing `\;` into `;`; inserting one
  // backslash before the final `;` therefore always yields the original text.
  return arg.endsWith(";") ? `${arg.slice(0, -1)}\\;` : arg;
}

/** Refuse an agent value that tmux would read as a flag where it is placed positionally. */
export function refuseFlagLike(value: string, what: string): string {
  if (value.startsWith("-")) {
    throw new ToolError("invalid_arguments", `${what} must not start with "-": ${preview(value)}`, {
      hint: `tmux would read it as an option; choose a ${what} that does not begin with "-".`,
    });
  }
  return value;
}

/** The full argv (after `tmux`) for these commands: global flags, escaped args, bare `;`. */
export function chainArgs(socket: SocketSpec, commands: readonly TmuxCommand[]): string[] {
  const args = ["-u", ...socketArgs(socket)];
  commands.forEach((command, i) => {
    if (i > 0) args.push(";");
    args.push(...command.map(escapeArgument));
  });
  return args;
}

/**
 * The argv of a control-mode client (`tmux -C attach -E -t $N`). `-E`: without it the attach
 * copies the `update-environment` variables from our environment into the session's, marking
 * those we lack as removed (checked: a person's `SSH_AUTH_SOCK` became `-SSH_AUTH_SOCK`).
 */
export function controlArgs(
  socket: SocketSpec,
  sessionId: string,
  clientFlags: readonly string[],
): string[] {
  if (!/^\$\d+$/.test(sessionId)) throw new Error("internal: control attach needs a session id");
  if (clientFlags.some((f) => !/^[a-z-]+$/.test(f))) throw new Error("internal: bad client flag");
  return [
    "-u",
    ...socketArgs(socket),
    "-C",
    "attach",
    "-E",
    ...(clientFlags.length ? ["-f", clientFlags.join(",")] : []),
    "-t",
    sessionId,
  ];
}

/** One command or a chain of them, as a chain. */
export function commandList(
  commands: TmuxCommand | readonly TmuxCommand[],
): readonly TmuxCommand[] {
  return isCommandList(commands) ? commands : [commands as TmuxCommand];
}

function isCommandList(
  commands: TmuxCommand | readonly TmuxCommand[],
): commands is readonly TmuxCommand[] {
  return commands.length > 0 && Array.isArray(commands[0]);
}

function socketArgs(socket: SocketSpec): string[] {
  switch (socket.kind) {
    case "name":
      return ["-L", socket.name];
    case "path":
      return ["-S", socket.path];
    default:
      return [];
  }
}

/** Human-readable name of a socket choice, for notes and the startup line. */
export function describeSocket(socket: SocketSpec): string {
  switch (socket.kind) {
    case "name":
      return `socket name "${socket.name}"`;
    case "path":
      return `socket ${socket.path}`;
    default:
      return "tmux's default socket";
  }
}
