/**
 * What run_shell_command checks of a pane before it types (docs/design.md §7.9): that the
 * foreground program is, by name, the pane's own shell (a POSIX shell or fish), and the socket the
 * pane's shell reaches this tmux server by.
 */
import { preview, ToolError } from "../../errors.ts";
import type { TmuxReadContext } from "../core/context.ts";
import { parseRows, rowFormat, separators } from "../core/format.ts";
import { paneShell } from "./shell_words.ts";
import { paneArg } from "../core/ids.ts";

/** The POSIX-family shells run_shell_command types into (fish is the other: {@link RUN_SHELLS}). */
export const POSIX_SHELLS: ReadonlySet<string> = new Set([
  "sh",
  "bash",
  "dash",
  "zsh",
  "ksh",
  "mksh",
  "ash",
]);

/**
 * Foreground programs run_shell_command types into: the POSIX shells and fish (3.1 or later, whose
 * `string collect` reads the script back; src/tmux/execute/run_script.ts).
 */
export const RUN_SHELLS: ReadonlySet<string> = new Set([...POSIX_SHELLS, "fish"]);

/** What launching reads of the pane: its program, its own shell, and the server's socket. */
const LAUNCH_FACTS = rowFormat("L", {
  paneId: "pane_id",
  currentCommand: "pane_current_command",
  startCommand: "pane_start_command",
  defaultShell: "default-shell",
  socketPath: "socket_path",
});

/** The pane's foreground program and own shell, and the socket its shell reaches tmux by. */
interface LaunchFacts {
  currentCommand: string;
  /** The shell the pane runs as its own (its start command's, or default-shell). */
  ownShell: string | undefined;
  startCommand: string;
  socketPath: string;
}

/**
 * Read what launching decides on, in one invocation. The socket: our own `-S` path when we were
 * given one (made absolute at startup, src/config.ts), since a server started with a relative
 * `-S` reports that relative `#{socket_path}`, which the pane's shell would resolve in its own
 * directory; otherwise tmux's `#{socket_path}` (whatever `-L` or `$TMUX` chose).
 */
export async function launchFacts(
  ctx: TmuxReadContext,
  paneId: string,
  signal?: AbortSignal,
): Promise<LaunchFacts> {
  const sep = separators();
  const out = await ctx.runner.run(
    ["display-message", "-p", "-t", paneArg(paneId), LAUNCH_FACTS.template(sep)],
    { signal },
  );
  const row = LAUNCH_FACTS.decode(parseRows(out, sep))[0];
  if (!row || row.paneId !== paneId) {
    throw new ToolError("target_not_found", `pane ${paneId} no longer exists`, {
      hint: "Call list_panes and pick a pane that exists.",
    });
  }
  const socket = ctx.runner.socket;
  const own = socket.kind === "path" && socket.path.startsWith("/") ? socket.path : undefined;
  return {
    currentCommand: row.currentCommand,
    ownShell: paneShell(row.startCommand, row.defaultShell, RUN_SHELLS),
    startCommand: row.startCommand,
    socketPath: own ?? row.socketPath,
  };
}

/**
 * Refuse a pane whose foreground program is not its own shell at all, or not by name: a script
 * (`sh -c '…; read -r a'` under bash) or another shell would read the typed line instead
 * (docs/design.md §7.9).
 */
export function checkOwnShell(paneId: string, facts: LaunchFacts): void {
  const hint = "force does not change this. Wait for the program to end (capture_since with " +
    'waitMs), interrupt it with send_keys {keys: "C-c", enter: false}, or pick a pane whose ' +
    "shell is idle; to answer a prompt or drive a REPL, an editor or another shell (nushell…) use " +
    "send_keys or paste_text.";
  const running = preview(facts.currentCommand, 32);
  if (!RUN_SHELLS.has(facts.currentCommand)) {
    throw new ToolError(
      "target_denied",
      `pane ${paneId} is running ${running}, not a POSIX shell or fish: run_shell_command only ` +
        "types into an idle sh, bash, dash, zsh, ksh, mksh, ash or fish",
      { hint },
    );
  }
  if (facts.ownShell === undefined || !RUN_SHELLS.has(facts.ownShell)) {
    throw new ToolError(
      "target_denied",
      `pane ${paneId} was started with ${preview(facts.startCommand, 60)}, which names no ` +
        "shell, so run_shell_command cannot tell its own shell from a script it runs",
      { hint: "Use send_keys or paste_text in this pane, or a pane started with a shell." },
    );
  }
  if (facts.ownShell !== facts.currentCommand) {
    throw new ToolError(
      "target_denied",
      `pane ${paneId} is running ${running}, not its own shell ` +
        `${preview(facts.ownShell, 32)}: a script or another shell would read the typed line`,
      { hint },
    );
  }
}
