/**
 * What the process was granted, as the doctor reports it (docs/design.md §4.1): the grants the
 * server needs (tmux; ssh with `--ssh`; the network address of `--http`; its variables) and the
 * whole-kind grants it does not need. Deno answers only for what is asked, so a grant of some
 * other single path or program is not seen; the documented launch lines grant none.
 */
import { ENV_VARIABLES, SSH_WIDENING } from "../config/permissions.ts";

/** Deno.permissions.querySync, or a test's table. */
export type PermissionQuery = (descriptor: Deno.PermissionDescriptor) => Deno.PermissionState;

/** The grants that matter to the server. */
export interface PermissionFacts {
  run: { tmux: boolean; ssh: boolean; any: boolean };
  /** The variables it reads (with `--ssh`, SSH_AUTH_SOCK too), those it may not, and any at all. */
  env: { wanted: readonly string[]; missing: readonly string[]; any: boolean };
  read: boolean;
  write: boolean;
  /** `http`: the `--http` address may be listened on. */
  net: { any: boolean; http: boolean };
  ffi: boolean;
  sys: boolean;
}

/** A variable a wildcard entry of the list covers, to ask about it. */
function sample(name: string): string {
  return name.endsWith("*") ? `${name.slice(0, -1)}SOCKET` : name;
}

/** Read the grants; `ssh` and `http` say which options need more than the base list. */
export function readPermissions(
  query: PermissionQuery,
  wants: { ssh: boolean; http?: { host: string; port: number } },
): PermissionFacts {
  const granted = (descriptor: Deno.PermissionDescriptor) => query(descriptor) === "granted";
  const wanted = [...ENV_VARIABLES, ...(wants.ssh ? SSH_WIDENING.env : [])];
  return {
    run: {
      tmux: granted({ name: "run", command: "tmux" }),
      ssh: granted({ name: "run", command: SSH_WIDENING.run[0] }),
      any: granted({ name: "run" }),
    },
    env: {
      wanted,
      missing: wanted.filter((name) => !granted({ name: "env", variable: sample(name) })),
      any: granted({ name: "env" }),
    },
    read: granted({ name: "read" }),
    write: granted({ name: "write" }),
    net: {
      any: granted({ name: "net" }),
      http: wants.http !== undefined &&
        granted({ name: "net", host: `${wants.http.host}:${wants.http.port}` }),
    },
    ffi: granted({ name: "ffi" }),
    sys: granted({ name: "sys" }),
  };
}
