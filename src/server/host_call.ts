/**
 * One tool call across the configured hosts (docs/design.md §5.15): the host its arguments name
 * gets it, a listing that names none goes to every host and its rows are joined, and a remote
 * host's ids come back qualified. Without `--ssh` a call goes straight to the local host.
 *
 * A remote call first waits for the host's first contact, on that contact's own deadline, so a cold
 * host never costs a call its own deadline. Then it is watched: unanswered after a moment, the host
 * is suspect and asked whether it still answers (src/tmux/ssh/health.ts). A listing across hosts
 * waits for a host it reached before {@link HOST_BUDGET_MS} at most: a host that has not answered
 * by then is a note, and its late answer is never shown (it only tells the host's health).
 */
import { z } from "zod";
import { onHostText, ToolError } from "../errors.ts";
import { errorResult, type ToolResult } from "../results.ts";
import type { ActingContext, ToolSpec } from "../tool_types.ts";
import { HOST_BUDGET_MS, SUSPECT_AFTER_MS } from "../tmux/ssh/health.ts";
import { callTool, runTool, succeed } from "./call.ts";
import {
  boundMerged,
  HOST_ARG,
  mergeListings,
  namesNoObject,
  planHost,
  qualifyResult,
} from "./host_ids.ts";

/** The local host's name. */
const LOCAL = "local";

/** A remote host's health, as calls see it (src/tmux/ssh/health.ts). */
export interface HostHealth {
  /** Whether first contact was made (or failed) once in this process. */
  readonly contacted: boolean;
  /** First contact (or the back-off's failure), on its own deadline; `signal` cancels the wait. */
  connect(signal: AbortSignal): Promise<void>;
  /** What calls fail with while the host is backed off or retried. */
  failure(): ToolError | undefined;
  /** Whether the host is suspect: asked whether it still answers, and not answered yet. */
  readonly checking: boolean;
  /** An answer came back from the host. */
  heard(): void;
  /** A call sent at `since` (performance.now()) is still unanswered. */
  suspect(since: number): void;
}

/** What a call needs to reach the hosts of a session. */
export interface HostCalls {
  /** The remote hosts' names, in configuration order. */
  readonly remotes: readonly string[];
  /** The context of a call of `tool` on `host` with these (unqualified) arguments. */
  context(host: string, args: unknown, tool: string): ActingContext;
  /** A remote host's health (undefined for the local host). */
  health(host: string): HostHealth | undefined;
}

/** What one call on one host came to. */
type Outcome = { data: Record<string, unknown> } | { error: ToolError };

/**
 * The surface with `host` added to each tool that names no object, when there are remote hosts:
 * an optional string (the instructions name the hosts once, and an unknown name is refused with
 * the list; an enum per tool would cost the catalog its names in every schema).
 */
export function hostSurface(tools: readonly ToolSpec[], remotes: readonly string[]): ToolSpec[] {
  if (remotes.length === 0) return [...tools];
  const host = z.string().optional();
  return tools.map((spec) => {
    const hosted: ToolSpec = { ...spec, remoteIds: true };
    if (!namesNoObject(spec.input)) return hosted;
    return { ...hosted, input: spec.input.extend({ [HOST_ARG]: host }) };
  });
}

/** Run one call on the host its arguments name, or across hosts (see the module comment). */
export async function callOnHosts(
  spec: ToolSpec,
  rawArgs: unknown,
  hosts: HostCalls,
  log: (message: string) => void,
): Promise<ToolResult> {
  if (hosts.remotes.length === 0) {
    return await callTool(spec, rawArgs, hosts.context(LOCAL, rawArgs, spec.name), log);
  }
  let plan;
  try {
    plan = planHost(spec.input, rawArgs, new Set(hosts.remotes));
  } catch (error) {
    if (error instanceof ToolError) return errorResult(error);
    throw error;
  }
  const { args } = plan;
  if (plan.host === undefined && spec.acrossHosts) return await across(spec, args, hosts, log);
  const host = plan.host ?? LOCAL;
  if (host === LOCAL) return await callTool(spec, args, hosts.context(host, args, spec.name), log);
  const outcome = await runRemote(spec, args, hosts, host, log);
  if ("error" in outcome) return errorResult(outcome.error.onHost(host));
  const data = lostNote(spec, qualifyResult(spec.output, outcome.data, host), host);
  return succeed(spec, data);
}

/**
 * A remote `server_gone` outcome may be a dropped ssh connection rather than an exited tmux: what
 * was typed there may still run, so a result that has a `note` says so.
 */
function lostNote<T>(spec: ToolSpec, data: T, host: string): T {
  const shape = (spec.output as { shape?: Record<string, unknown> }).shape;
  const record = data as Record<string, unknown>;
  if (record?.outcome !== "server_gone" || shape === undefined || !("note" in shape)) return data;
  const lost = onHostText(
    "the ssh connection or its tmux server was lost; what was typed there may still be " +
      "running (look again once the host answers)",
    host,
  );
  return { ...record, note: record.note === undefined ? lost : `${record.note}; ${lost}` } as T;
}

/**
 * One call on a remote host: first contact first (on its own deadline), then the call, watched (see
 * the module comment). Within a listing (`listing`), a host reached before gets
 * {@link HOST_BUDGET_MS}, then it is a note (its late answer goes on only to tell its health);
 * first contact is waited for. A host backed off, or suspect (being asked whether it still
 * answers), gets no time at all: the call goes on in the background (and starts a backed-off
 * host's retry when its back-off is over). The host's health is read here, once per call.
 */
async function runRemote(
  spec: ToolSpec,
  args: unknown,
  hosts: HostCalls,
  host: string,
  log: (message: string) => void,
  listing = false,
): Promise<Outcome> {
  const health = hosts.health(host);
  // Decided before the call starts: the call's own silence must not count against it.
  const budget = health?.failure() || health?.checking ? 0 : HOST_BUDGET_MS;
  const call = watched(spec, args, hosts.context(host, args, spec.name), health, log);
  if (!listing || !health?.contacted) return await call;
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<Outcome>((resolve) => {
    timer = setTimeout(
      () => resolve({ error: health.failure() ?? slowHost(host, budget === 0) }),
      budget,
    );
  });
  try {
    return await Promise.race([call, late]);
  } finally {
    clearTimeout(timer);
  }
}

/** The call on a remote host, after first contact, with `health` told what it hears. */
async function watched(
  spec: ToolSpec,
  args: unknown,
  ctx: ActingContext,
  health: HostHealth | undefined,
  log: (message: string) => void,
): Promise<Outcome> {
  if (health && !health.contacted) {
    try {
      await health.connect(ctx.signal);
    } catch (error) {
      if (error instanceof ToolError) return { error };
      throw error;
    }
  }
  const sent = performance.now();
  const suspect = setTimeout(() => health?.suspect(sent), SUSPECT_AFTER_MS);
  try {
    const outcome = await runTool(spec, args, ctx, log);
    if ("data" in outcome || !UNANSWERED.has(outcome.error.code)) health?.heard();
    return outcome;
  } finally {
    clearTimeout(suspect);
  }
}

/** Codes that say nothing came back from the host. */
const UNANSWERED: ReadonlySet<string> = new Set([
  "timeout",
  "cancelled",
  "server_gone",
  "host_unreachable",
  "host_denied",
  "internal_error",
]);

/** A host reached before that did not answer a listing within its budget (or is suspect). */
function slowHost(host: string, suspect: boolean): ToolError {
  const said = suspect
    ? "not answering (it is being checked)"
    : `did not answer within ${HOST_BUDGET_MS} ms`;
  return new ToolError("timeout", `${said}; its rows are left out`, {
    hint: `Call again with host: "${host}" to wait for that host alone.`,
    retryable: true,
    host,
  });
}

/** A listing on every host at once, joined; a host that fails is a note, unless all do. */
async function across(
  spec: ToolSpec,
  args: unknown,
  hosts: HostCalls,
  log: (message: string) => void,
): Promise<ToolResult> {
  const names = [LOCAL, ...hosts.remotes];
  const results = await Promise.all(names.map(async (host) => {
    const outcome = host === LOCAL
      ? await runTool(spec, args, hosts.context(host, args, spec.name), log)
      : await runRemote(spec, args, hosts, host, log, true);
    if ("error" in outcome) return { host, error: outcome.error };
    const data = host === LOCAL ? outcome.data : qualifyResult(spec.output, outcome.data, host);
    return { host, data };
  }));
  const failed = results.filter((r) => r.error);
  // Wrong arguments fail alike everywhere: say it once, as a local call would.
  const local = results[0].error;
  if (failed.length === results.length || local?.code === "invalid_arguments") {
    return errorResult(local ?? failed[0].error!.onHost(failed[0].host));
  }
  const shape = (spec.output as { shape?: Record<string, unknown> }).shape;
  const data = boundMerged(mergeListings(results), shape !== undefined && "truncated" in shape);
  return succeed(spec, data);
}
