/** The errors the live engine ends streams with, and what a late cursor answers; no tmux. */
import { assertEquals } from "../../../tests/support/assert.ts";
import { ToolError } from "../../errors.ts";
import { connectionLost, discontinuity, dropped, endedAnswer, NoRoom } from "./endings.ts";

Deno.test("a late cursor of a stream that ended with server_gone is stale_cursor; others stay", () => {
  const cases: [ToolError | undefined, string | undefined][] = [
    [undefined, undefined],
    [connectionLost("exited"), "stale_cursor"],
    [new ToolError("target_not_found", "pane %3 not found"), "target_not_found"],
    [dropped("it was not used for too long"), "stale_cursor"],
    [new ToolError("unsupported", "too large"), "unsupported"],
  ];
  for (const [why, code] of cases) {
    const answer = endedAnswer(why);
    assertEquals(answer?.code, code, why?.message);
    if (why && why.code !== "server_gone") assertEquals(answer, why, "passed on as it is");
  }
  const late = endedAnswer(connectionLost("exited"))!;
  assertEquals(late.message, "the stream ended: the tmux session or server went away (exited)");
  assertEquals(late.hint?.includes("without a cursor"), true);
});

Deno.test("a pane that changed under its stream names what happened", () => {
  const cases: [Parameters<typeof discontinuity>[1], string, string][] = [
    ["gone", "target_not_found", "%7"],
    ["replaced", "stale_cursor", "pane %7 was replaced since this cursor was issued"],
    ["moved", "stale_cursor", "pane %7 moved to another session since this cursor was issued"],
  ];
  for (const [state, code, message] of cases) {
    const error = discontinuity("%7", state);
    assertEquals(error.code, code, state);
    assertEquals(error.message.includes(message), true, `${state}: ${error.message}`);
  }
});

Deno.test("room and connection errors carry the cap and the reason", () => {
  const cases: [ToolError, string, string][] = [
    [new NoRoom(32), "busy", "this server already follows 32 sessions live, each with streams"],
    [connectionLost("server exited"), "server_gone", "went away (server exited)"],
    [dropped("the server is closing"), "stale_cursor", "the stream ended: the server is closing"],
  ];
  for (const [error, code, words] of cases) {
    assertEquals(error.code, code, words);
    assertEquals(error.message.includes(words), true, error.message);
  }
  assertEquals(new NoRoom(32).hint?.startsWith("Retry"), true);
  assertEquals(new NoRoom(32).note.includes("follows 32 sessions live (its cap)"), true);
});
