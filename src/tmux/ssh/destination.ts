/**
 * A remote host as the person names it: `--ssh NAME=DESTINATION[,socket-name=N|,socket-path=P]`.
 * Pure parsing: the configuration layer turns a {@link SshSpecError} into its own error and exit.
 *
 * NAME is how tools and listings call the host; DESTINATION is passed to ssh as one argument after
 * `--` (so ssh never reads it as an option; a leading `-` is refused anyway), and is anything ssh
 * accepts there (`box`, `user@box`, an alias of the ssh config, `ssh://user@box:2222`). It cannot
 * hold whitespace, control characters or a comma (the comma starts the socket option). The socket
 * picks the remote tmux server and is checked like the local `--socket-name`/`--socket-path`.
 */
import type { SocketSpec } from "../core/argv.ts";

/** One remote host of the configuration. */
export interface SshHostSpec {
  /** How tools and listings call it (`box1`). */
  readonly name: string;
  /** What ssh connects to. */
  readonly destination: string;
  /** The remote tmux server (`default`: tmux's default socket there). */
  readonly socket: SocketSpec;
}

/** A `--ssh` value that cannot be used; the message names the rule it breaks. */
export class SshSpecError extends Error {
  /** A refusal of one `--ssh` value. */
  constructor(message: string) {
    super(message);
    this.name = "SshSpecError";
  }
}

const NAME = /^[a-z][a-z0-9-]{0,31}$/;
/** Whitespace or a control character (C0, DEL, C1). */
const UNPRINTABLE = /[\s\p{Cc}]/u;

/** Parse one `--ssh` value. */
export function parseSshSpec(text: string): SshHostSpec {
  const eq = text.indexOf("=");
  if (eq < 0) {
    throw new SshSpecError(
      "--ssh takes NAME=DESTINATION[,socket-name=N|,socket-path=P], e.g. box1=user@box",
    );
  }
  const name = text.slice(0, eq);
  if (!NAME.test(name)) {
    throw new SshSpecError(
      `--ssh host name ${JSON.stringify(name)} must be 1-32 lowercase letters, digits or '-', ` +
        "starting with a letter",
    );
  }
  if (name === "local") throw new SshSpecError('--ssh host name "local" is reserved');
  const rest = text.slice(eq + 1);
  const comma = rest.indexOf(",");
  const destination = comma < 0 ? rest : rest.slice(0, comma);
  checkDestination(name, destination);
  const socket = comma < 0
    ? { kind: "default" as const }
    : parseSocket(name, rest.slice(comma + 1));
  return { name, destination, socket };
}

/** Parse every `--ssh` value, refusing a name given twice. */
export function parseSshSpecs(texts: readonly string[]): SshHostSpec[] {
  const specs = texts.map(parseSshSpec);
  const seen = new Set<string>();
  for (const spec of specs) {
    if (seen.has(spec.name)) throw new SshSpecError(`--ssh host ${spec.name} is given twice`);
    seen.add(spec.name);
  }
  return specs;
}

function checkDestination(name: string, destination: string): void {
  const where = `--ssh ${name}: the destination`;
  if (destination === "") throw new SshSpecError(`${where} is empty`);
  if (destination.startsWith("-")) {
    throw new SshSpecError(`${where} must not start with "-" (ssh would read it as an option)`);
  }
  if (UNPRINTABLE.test(destination)) {
    throw new SshSpecError(`${where} must not hold whitespace or control characters`);
  }
}

/** `socket-name=N` or `socket-path=P`: the value runs to the end, so a path may hold commas. */
function parseSocket(name: string, option: string): SocketSpec {
  const eq = option.indexOf("=");
  const key = eq < 0 ? option : option.slice(0, eq);
  const value = option.slice(eq + 1);
  if (eq < 0 || (key !== "socket-name" && key !== "socket-path")) {
    throw new SshSpecError(
      `--ssh ${name}: after the destination comes only socket-name=N or socket-path=P`,
    );
  }
  if (UNPRINTABLE.test(value.replaceAll(" ", ""))) {
    throw new SshSpecError(`--ssh ${name}: the ${key} must not hold control characters`);
  }
  if (key === "socket-name") {
    if (value === "" || value.includes("/")) {
      throw new SshSpecError(
        `--ssh ${name}: socket name must be non-empty and contain no '/'; use socket-path for a path`,
      );
    }
    return { kind: "name", name: value };
  }
  if (value === "") throw new SshSpecError(`--ssh ${name}: socket path must not be empty`);
  return { kind: "path", path: value };
}
