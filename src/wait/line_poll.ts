/**
 * wait_for_text without a stream (docs/design.md §7.7 rule 8): the screen (wrapped lines joined)
 * is looked at every 250 ms (src/wait/poll.ts) and the lines new since the previous look are
 * matched, by the same rules as the live wait (src/wait/match.ts). Lines that scroll past between
 * two looks are not seen.
 */
import { checkGeneration } from "../tmux/read/generation.ts";
import type { InspectContext } from "../tool_types.ts";
import { fateAtTimeout, goneOrThrow, type PaneGone } from "./fate.ts";
import { type LineTest, MatchPace, tryLine } from "./match.ts";
import { pollUntil, screenLines } from "./poll.ts";
import { newScreenLines } from "./screen_lines.ts";

/** What {@link pollForLine} is given. */
interface PolledLineWait<T> {
  paneId: string;
  /** Refuse the wait (`stale_target`) when the pane no longer runs this generation. */
  generation?: string;
  /** Match the screen as it is when the wait begins too. */
  includeScreen?: boolean;
  /** Tried in order on each new line (see src/wait/scan.ts). */
  tests: readonly LineTest<T>[];
  deadline: number;
  /** Told the newest non-empty line of each look that matched nothing. */
  onLine: (line: string) => void;
}

/** How a {@link pollForLine} ended: the lines it looked at, down to the one found. */
interface PolledLines<T> {
  outcome: "found" | "timeout" | PaneGone;
  found?: { line: string; value: T; atEntry: boolean };
  /** The lines matched, each ending with a newline. */
  text: string;
  paneId: string;
  generation: string;
}

/** Poll the pane's screen until a new line passes `wait.tests` (see the header). */
export async function pollForLine<T>(
  ctx: InspectContext,
  wait: PolledLineWait<T>,
): Promise<PolledLines<T>> {
  let prev = await screenLines(ctx, wait.paneId);
  checkGeneration(prev.capture, wait.generation);
  const pane = { paneId: prev.capture.paneId, generation: prev.capture.generation };
  const bounds = { signal: ctx.signal, deadline: wait.deadline };
  const pace = new MatchPace();
  const seen: string[] = [];
  const scan = async (lines: readonly string[], atEntry: boolean) => {
    for (const line of lines) {
      seen.push(line);
      const tried = await tryLine(wait.tests, line, bounds, pace);
      // A long line still being matched at the deadline: the wait timed out on it.
      if (tried === "late") return "late";
      if (tried !== "ended" && tried.value !== undefined) {
        return { found: { line, value: tried.value, atEntry } };
      }
    }
    const last = lines.findLast((l) => l !== "");
    if (last !== undefined) wait.onLine(last);
    return undefined;
  };
  const end = (outcome: PolledLines<T>["outcome"], found?: PolledLines<T>["found"]) => ({
    outcome,
    found,
    text: seen.join("\n") + (seen.length > 0 ? "\n" : ""),
    ...pane,
  });

  const entry = wait.includeScreen ? await scan(prev.lines, true) : undefined;
  const polled = entry ?? await pollUntil(wait.deadline, ctx.signal, async () => {
    let next;
    try {
      next = await screenLines(ctx, wait.paneId);
    } catch (error) {
      return { gone: await goneOrThrow(ctx, pane, error) };
    }
    if (next.capture.generation !== pane.generation) return { gone: "pane_died" as const };
    const fresh = newScreenLines(prev.lines, next.lines);
    prev = next;
    return await scan(fresh, false);
  });
  if (polled !== undefined && polled !== "late") {
    return "gone" in polled ? end(polled.gone) : end("found", polled.found);
  }
  return end(await fateAtTimeout(ctx, pane));
}
