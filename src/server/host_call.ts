/**
 * One tool call across the configured hosts (docs/design.md §5.15): the host its arguments name
 * gets it, a listing that names none goes to every host and its rows are joined, and a remote
 * host's ids come back qualified. Without `--ssh` a call goes straight to the local host.
 */
import { z } from "zod";
import { ToolError } from "../errors.ts";
import { errorResult, successResult, type ToolResult } from "../results.ts";
import type { ActingContext, ToolSpec } from "../tool_types.ts";
import { callTool, runTool } from "./call.ts";
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

/** What a call needs to reach the hosts of a session. */
export interface HostCalls {
  /** The remote hosts' names, in configuration order. */
  readonly remotes: readonly string[];
  /** The context of a call of `tool` on `host` with these (unqualified) arguments. */
  context(host: string, args: unknown, tool: string): ActingContext;
}

/**
 * The surface with `host` added to each tool that names no object, when there are remote hosts:
 * an optional string (the instructions name the hosts once, and an unknown name is refused with
 * the list; an enum per tool would cost the catalog its names in every schema).
 */
export function hostSurface(tools: readonly ToolSpec[], remotes: readonly string[]): ToolSpec[] {
  if (remotes.length === 0) return [...tools];
  const host = z.string().optional();
  return tools.map((spec) => {
    const shape = spec.input.shape as Record<string, z.ZodType>;
    const required = Object.keys(shape).filter((key) => !shape[key].safeParse(undefined).success);
    const hosted: ToolSpec = { ...spec, remoteIds: true };
    if (!namesNoObject(Object.keys(shape), required)) return hosted;
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
    plan = planHost(rawArgs, new Set(hosts.remotes));
  } catch (error) {
    if (error instanceof ToolError) return errorResult(error);
    throw error;
  }
  const { args } = plan;
  if (plan.host === undefined && spec.acrossHosts) return await across(spec, args, hosts, log);
  const host = plan.host ?? LOCAL;
  const ctx = hosts.context(host, args, spec.name);
  if (host === LOCAL) return await callTool(spec, args, ctx, log);
  const outcome = await runTool(spec, args, ctx, log);
  if ("error" in outcome) return errorResult(onHost(outcome.error, host));
  const data = lostNote(spec, qualifyResult(outcome.data, host), host);
  return successResult(data, spec.summarize?.(data));
}

/**
 * A remote `server_gone` outcome may be a dropped ssh connection rather than an exited tmux: what
 * was typed there may still run, so a result that has a `note` says so.
 */
function lostNote<T>(spec: ToolSpec, data: T, host: string): T {
  const shape = (spec.output as { shape?: Record<string, unknown> }).shape;
  const record = data as Record<string, unknown>;
  if (record?.outcome !== "server_gone" || shape === undefined || !("note" in shape)) return data;
  const lost =
    `host ${host}: the ssh connection or its tmux server was lost; what was typed there ` +
    "may still be running (look again once the host answers)";
  return { ...record, note: record.note === undefined ? lost : `${record.note}; ${lost}` } as T;
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
    const outcome = await runTool(spec, args, hosts.context(host, args, spec.name), log);
    if ("error" in outcome) return { host, error: outcome.error };
    return { host, data: host === LOCAL ? outcome.data : qualifyResult(outcome.data, host) };
  }));
  const failed = results.filter((r) => r.error);
  // Wrong arguments fail alike everywhere: say it once, as a local call would.
  const local = results[0].error;
  if (failed.length === results.length || local?.code === "invalid_arguments") {
    return errorResult(local ?? onHost(failed[0].error!, failed[0].host));
  }
  const shape = (spec.output as { shape?: Record<string, unknown> }).shape;
  const data = boundMerged(mergeListings(results), shape !== undefined && "truncated" in shape);
  return successResult(data, spec.summarize?.(data));
}

/** A remote host's error, saying which host. */
function onHost(error: ToolError, host: string): ToolError {
  if (error.message.startsWith(`host ${host}`)) return error;
  return new ToolError(error.code, `host ${host}: ${error.message}`, {
    effects: error.effects,
    retryable: error.retryable,
    hint: error.hint,
    cause: error.cause,
  });
}
