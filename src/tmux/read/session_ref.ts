/**
 * Session references (docs/design.md §5.7): tmux resolves `-t name` by prefix and glob (`-t alp`
 * finds `alpha`); here a session is either its id `$N` or its exact name, resolved against a
 * fresh listing, and anything else is `target_not_found`.
 */
import { preview, ToolError } from "../../errors.ts";
import { SESSION_ID } from "../core/ids.ts";
import { sessionNotFound } from "./not_found.ts";

/** What a session reference resolves against: any rows carrying a session's id and name. */
interface SessionKey {
  sessionId: string;
  sessionName: string;
}

/**
 * Resolve a session reference — its id `$N` or its exact name — against listed sessions and
 * return the id. Never a prefix or pattern. tmux lets a session be *named* like an id (`$7`);
 * when such a name and a different session's id collide, the reference is ambiguous and refused.
 */
export function resolveSessionRef(rows: readonly SessionKey[], ref: string): string {
  const byName = rows.find((r) => r.sessionName === ref);
  const byId = SESSION_ID.test(ref) ? rows.find((r) => r.sessionId === ref) : undefined;
  if (byName && byId && byName.sessionId !== byId.sessionId) {
    throw new ToolError(
      "invalid_arguments",
      `${preview(ref)} is both a session id and another session's name`,
      {
        hint: `Pass the sessionId instead: ${byName.sessionId} is the session named ${
          preview(ref)
        }.`,
      },
    );
  }
  const found = byId ?? byName;
  if (!found) throw sessionNotFound(ref);
  return found.sessionId;
}
