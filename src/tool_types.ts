/** The shape of one manifest entry and the context its handler receives. */
import type { z } from "zod";
import type { Config, Toolset } from "./config.ts";
import type { TmuxContext, TmuxReadContext } from "./tmux/core/context.ts";
import type { LiveEngine } from "./tmux/live/engine.ts";
import type { ShotGate } from "./render/gate.ts";
import type { ChannelWaiters } from "./tmux/manage/channels.ts";
import type { ToolResult } from "./results.ts";
import type { CallConsent } from "./guard/ask.ts";
import type { CallAudit } from "./record/audit.ts";

/** Rows of the annotation table (docs/design.md §1.7). */
export type AnnotationClass = "inspect" | "batch" | "setter" | "ordered" | "execute" | "teardown";

/** Capability facts advertised in `_meta` and `tmux://capabilities`. */
interface Capability {
  /** What the tool can reach beyond tmux's own state. */
  reach: "none" | "pane-input" | "pane-command" | "configured-process";
  /** What it does to tmux state. */
  effects: "observe" | "change" | "delete";
  /** Classes of output it returns, e.g. `metadata`, `terminal-text`. */
  output: readonly string[];
}

/**
 * What an inspect handler gets besides its validated arguments: enough to read, nothing to act
 * with (no input queue; the funnel's acting functions take a {@link TmuxContext}).
 */
export interface InspectContext {
  readonly tmux: TmuxReadContext;
  readonly config: Config;
  /** Aborted when the client cancels the request. */
  readonly signal: AbortSignal;
  /** The control-mode engine; undefined with `--no-live`. */
  readonly live?: LiveEngine;
  /** The host's bound on screenshots drawn at once (docs/design.md §9.5). */
  readonly shots: ShotGate;
  /** The JSON-RPC id of the request (the batch sizes its whole response with it). */
  readonly requestId?: string | number;
  /**
   * Send the client an MCP progress notification for this request; present only when the client
   * asked for progress (sent a progress token). `progress` must grow from one call to the next.
   */
  readonly progress?: (update: { progress: number; total?: number; message: string }) => void;
  /**
   * Run another enabled tool through the same validation, handler and error mapping as a direct
   * call (used by the read batch, docs/design.md §1.3).
   */
  readonly invoke: (name: string, args: unknown) => Promise<ToolResult>;
  /** Every tool this version has, enabled or not (the batch reads which ones are batchable). */
  readonly manifest: readonly ToolSpec[];
  /** The MCP session calling, by identity: what it started (a runId) is found only by it. */
  readonly session?: object;
  /** What the recorder learns of this call (docs/design.md §11.5); absent without `--record`. */
  readonly audit?: CallAudit;
}

/** What a manage, execute or teardown handler gets: the read context plus the input queue. */
export interface ActingContext extends InspectContext {
  readonly tmux: TmuxContext;
  /** The host's `tmux wait-for` waiters (docs/design.md §7.8). */
  readonly channels: ChannelWaiters;
  /**
   * What this call may do without asking and how the guard asks the person (docs/design.md
   * §6.11); absent outside an MCP session (then nobody is asked and no grant applies).
   */
  readonly consent?: CallConsent;
}

/** The context a handler of toolset `T` receives (docs/design.md §2.3). */
type ContextFor<T extends Toolset> = T extends "inspect" ? InspectContext : ActingContext;

/** One tool: its whole contract and its handler. */
export interface ToolSpec<
  I extends z.ZodObject = z.ZodObject,
  O extends z.ZodType = z.ZodType,
  T extends Toolset = Toolset,
> {
  name: string;
  toolset: T;
  title: string;
  description: string;
  /** Strict input schema; no `.default()` (defaults are applied in the handler). */
  input: I;
  /**
   * The input schema tools/list advertises, when it must be built from the effective surface
   * (the batch: a union of per-tool shapes). `input` still enforces the call's outer shape and
   * each nested row is checked against its own tool's schema.
   */
  advertisedInput?: (effective: readonly ToolSpec[]) => z.ZodType;
  /** Success schema; the advertised outputSchema adds the error variant. */
  output: O;
  /**
   * Result fields kept whatever their value, because a seed contract requires them; any other
   * field that says nothing is left out of results (src/lean.ts, docs/design.md §3.1).
   */
  keeps?: readonly string[];
  annotations: AnnotationClass;
  capability: Capability;
  /** May run inside the read batch (docs/design.md §1.3); only read-only tools may. */
  batchable?: true;
  /**
   * A listing: called without an object or `host`, it runs on every host and joins the rows
   * (docs/design.md §5.15).
   */
  acrossHosts?: true;
  /** Set by the host surface when remote hosts are configured: results may hold `box1:%3`. */
  remoteIds?: true;
  /** In the `core` preset, the default surface (docs/design.md §4). */
  core?: true;
  /**
   * MCP Apps (docs/design.md §10): the `ui://` view a host that renders views mounts with this
   * tool's result, and who may call it: `["app"]` for a tool only that view calls, which is
   * listed only to clients advertising the extension and enabled with the tool whose view it serves.
   */
  ui?: { resourceUri: string; visibility?: readonly ("model" | "app")[] };
  /** The text block of a success, when compact JSON of the data is not wanted (the batch). */
  summarize?: (data: unknown) => string;
  /** Runs the call; its context is narrowed to what the tool's toolset may do. */
  handler: (args: z.infer<I>, ctx: ContextFor<T>) => Promise<z.infer<O>>;
}

/** Define a tool with its handler's types inferred from its schemas and toolset. */
export function defineTool<I extends z.ZodObject, O extends z.ZodType, T extends Toolset>(
  spec: ToolSpec<I, O, T>,
): ToolSpec {
  return spec as unknown as ToolSpec;
}
