/**
 * wait_for_channel and signal_channel: tmux's `wait-for` channels, for scripts you control
 * (docs/design.md §7.8). The handlers call the host's waiter registry (src/tmux/manage/channels.ts),
 * which keeps one tmux waiter per channel, reuses it across calls, and bounds how many channels
 * have one.
 */
import { z } from "zod";
import { defineTool } from "../../tool_types.ts";
import { WAIT_DEFAULT_MS, waitBudget, waitShape } from "../../wait/ceiling.ts";

/** Channel names: tmux takes any string, this server a short, plain one. */
const channelSchema = z.string().regex(/^(?!-)[A-Za-z0-9_.-]{1,64}$/);

const WHEN = "For a script you control (`tmux wait-for -S NAME`) or another agent, not program " +
  "output.";

/** The channel tools' manifest entries. */
export const channelTools = [
  defineTool({
    name: "wait_for_channel",
    toolset: "manage",
    title: "Wait for a tmux channel",
    description: "Wait for a signal on a tmux wait-for channel. " + WHEN +
      // MAX_CHANNEL_WAITERS of src/tmux/manage/channels.ts (a manage tool may not import that module).
      " It stays watched until signalled, even after a timeout; at most 64 channels at once.",
    input: z.object({
      channel: channelSchema,
      timeoutMs: z.int().min(0).max(Number.MAX_SAFE_INTEGER).optional().describe("Default 30000."),
    }).strict(),
    output: z.object({
      channel: z.string(),
      outcome: z.enum(["signalled", "timeout", "server_gone"]).describe(
        "signalled: the channel was signalled (the server still runs); timeout: not within " +
          "timeoutMs; server_gone: the tmux server exited or restarted meanwhile.",
      ),
      ...waitShape,
    }).strict(),
    annotations: "ordered",
    capability: { reach: "none", effects: "change", output: ["metadata"] },
    handler: async (args, ctx) => {
      const started = Date.now();
      const budget = waitBudget(args.timeoutMs, WAIT_DEFAULT_MS, ctx.config.waitMaxMs);
      const outcome = await ctx.channels.wait(args.channel, budget.timeoutMs, ctx.signal);
      return { channel: args.channel, outcome, elapsedMs: Date.now() - started, ...budget };
    },
  }),
  defineTool({
    name: "signal_channel",
    toolset: "manage",
    title: "Signal a tmux channel",
    description:
      "Signal a tmux wait-for channel: its waiters wake, or the next one if none waits. " + WHEN,
    input: z.object({ channel: channelSchema }).strict(),
    output: z.object({
      channel: z.string(),
      waitersHere: z.int().describe(
        "wait_for_channel calls of this server that were waiting on the channel.",
      ),
    }).strict(),
    annotations: "ordered",
    capability: { reach: "none", effects: "change", output: ["metadata"] },
    handler: async (args, ctx) => ({
      channel: args.channel,
      ...await ctx.channels.signal(args.channel, ctx.signal),
    }),
  }),
];
