/**
 * The `tmux://capabilities` resource (docs/design.md §4): what this session serves and may reach,
 * for a person or client auditing it.
 */
import { GRANT_MINUTES, type GrantBook } from "../guard/ask.ts";
import { capabilityRow } from "../catalog.ts";
import type { Config } from "../config.ts";
import { ToolError } from "../errors.ts";
import type { TmuxHost } from "../host.ts";
import { describeSocket } from "../tmux/core/argv.ts";
import { readOnly } from "../tmux/core/context.ts";
import { snapshot } from "../tmux/read/queries.ts";
import type { ToolSpec } from "../tool_types.ts";
import { CAPABILITIES_URI } from "./instructions.ts";

/** The resources/list entry of the capabilities resource. */
export const CAPABILITIES_RESOURCE = {
  uri: CAPABILITIES_URI,
  name: "capabilities",
  title: "tmux-mcp capabilities",
  description: "Version, socket, enabled toolsets and tools, and what each tool can reach.",
  mimeType: "application/json",
};

/** What one session's capabilities document is made of. */
interface CapabilitiesSource {
  host: TmuxHost;
  config: Config;
  version: string;
  grants: GrantBook;
  /** Whether the connected client answers elicitation (forms). */
  clientAnswers: boolean;
  tools: readonly ToolSpec[];
  apps: readonly ToolSpec[];
}

/** The capabilities document, as the resource's text. */
export async function capabilitiesText(source: CapabilitiesSource): Promise<string> {
  const { host, config, tools, apps } = source;
  let tmuxVersion: string | null = null;
  try {
    tmuxVersion = await host.tmuxVersion();
  } catch {
    tmuxVersion = null;
  }
  const document = {
    version: source.version,
    tmuxVersion,
    socket: describeSocket(config.socket),
    socketSource: config.socketSource,
    toolsets: [...config.toolsets],
    live: config.live,
    allowWatchedPanes: config.allowWatchedPanes,
    ask: {
      enabled: config.ask,
      clientAnswers: source.clientAnswers,
      timeoutMs: config.askTimeoutMs,
      grantMinutes: GRANT_MINUTES,
    },
    grants: await currentGrants(host, source.grants),
    waitMaxMs: config.waitMaxMs,
    tools: tools.map((t) => ({ name: t.name, ...capabilityRow(t) })),
    // Callable by anyone, though listed only to view hosts (§10.2): shown for audit.
    appTools: apps.map((t) => ({ name: t.name, ...capabilityRow(t), visibility: ["app"] })),
  };
  return JSON.stringify(document, null, 2);
}

/** A session's grants, after ending those whose pane is gone or was replaced. */
async function currentGrants(host: TmuxHost, grants: GrantBook) {
  try {
    grants.prune((await snapshot(readOnly(host.tmux), { panes: { all: true } })).panes);
  } catch (error) {
    // No server: no pane is left for a grant. Another failure: grants are checked at use.
    if (error instanceof ToolError && error.code === "server_not_running") grants.prune([]);
  }
  return grants.list();
}
