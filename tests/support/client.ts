/** MCP client helpers: in-process (InMemoryTransport) and end-to-end over stdio (main.ts). */
import { Client } from "@modelcontextprotocol/sdk/client";
// @ts-types="npm:@modelcontextprotocol/sdk@^1.32.2/inMemory"
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
// @ts-types="npm:@modelcontextprotocol/sdk@^1.32.2/client/stdio"
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
// @ts-types="npm:@modelcontextprotocol/sdk@^1.32.2/types"
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
// @ts-types="npm:@modelcontextprotocol/sdk@^1.32.2/types"
import { ElicitRequestSchema, type ElicitResult } from "@modelcontextprotocol/sdk/types.js";
import { SURFACE } from "../../src/catalog.ts";
import { parseConfig } from "../../src/config.ts";
import { createMcpSession, createTmuxMcpServer, type TmuxMcpServer } from "../../src/server.ts";
import { TmuxHost } from "../../src/host.ts";
import type { LiveOptions } from "../../src/tmux/live/options.ts";
import { assert } from "./assert.ts";
import { cleanEnv, eventually } from "./fixture.ts";

export type { CallToolResult };

/** A connected client plus a way to close both ends. */
export interface Connected {
  client: Client;
  stderr: () => string;
  close: () => Promise<void>;
  /** The server process's pid, for a stdio server. */
  pid?: number | null;
}

/**
 * The toolsets a test server gets when the test names none: the whole surface tests were written
 * against (the default before the core preset, docs/design.md §4). tests/server/catalog_test.ts checks
 * the real default; every other test says which tools it needs by naming toolsets or using these.
 */
export const TEST_TOOLSETS = "inspect,manage,execute";

/** `args` with `--toolsets` {@link TEST_TOOLSETS} first, unless the flag or a variable names some. */
export function withTestToolsets(args: string[], env: Record<string, string> = {}): string[] {
  const named = args.some((a) => a === "--toolsets" || a.startsWith("--toolsets=")) ||
    "TMUX_MCP_TOOLSETS" in env || "LIBTMUX_TOOLSETS" in env;
  return named ? args : ["--toolsets", TEST_TOOLSETS, ...args];
}

/**
 * Connect an SDK client (`client`, e.g. an {@link askingClient}, or a plain one) to an in-process
 * server configured from `args` and `env`. Tools are listed once so the client validates every
 * structuredContent against its outputSchema.
 */
export async function connectInProcess(
  args: string[],
  env: Record<string, string> = {},
  liveOptions?: Partial<LiveOptions>,
  client: Client = new Client({ name: "tmux-mcp-tests", version: "1" }),
): Promise<Connected & { built: TmuxMcpServer }> {
  const reader = (name: string) => env[name];
  const outcome = parseConfig(withTestToolsets(args, env), reader, SURFACE);
  if (outcome.kind !== "run") throw new Error("expected a run configuration");
  const logs: string[] = [];
  const built = createTmuxMcpServer({
    config: outcome.config,
    env: reader,
    version: "test",
    log: (m) => logs.push(m),
    liveOptions,
  });
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await built.connect(serverSide);
  await client.connect(clientSide);
  await client.listTools();
  return {
    client,
    built,
    stderr: () => logs.join("\n"),
    close: async () => {
      await client.close();
      await built.close();
    },
  };
}

/**
 * One host configured from `args` and `env` (its log lines kept in `logs`) and `count` MCP sessions
 * on it, each with its own in-memory client.
 */
export async function sessionsOnOneHost(
  args: string[],
  count: number,
  liveOptions?: Partial<LiveOptions>,
  env: Record<string, string> = {},
): Promise<{ host: TmuxHost; sessions: Connected[]; logs: string[] }> {
  const reader = (name: string) => env[name];
  const outcome = parseConfig(withTestToolsets(args, env), reader, SURFACE);
  if (outcome.kind !== "run") throw new Error("expected a run configuration");
  const config = outcome.config;
  const logs: string[] = [];
  const host = new TmuxHost({ config, env: reader, liveOptions, log: (m) => logs.push(m) });
  const sessions: Connected[] = [];
  for (let i = 0; i < count; i++) {
    const session = createMcpSession(host, { config, version: "test" });
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
    const client = new Client({ name: `tmux-mcp-session-${i}`, version: "1" });
    await session.connect(serverSide);
    await client.connect(clientSide);
    await client.listTools();
    sessions.push({
      client,
      stderr: () => "",
      close: async () => {
        await client.close();
        await session.close();
      },
    });
  }
  return { host, sessions, logs };
}

/**
 * The permission flags of `deno task start` (or `task`), read from deno.json so tests use exactly
 * those; a `$VARIABLE` in them is replaced from `env`, as the task's shell would.
 */
export async function startPermissions(
  task = "start",
  env: Record<string, string> = {},
): Promise<string[]> {
  const manifest = JSON.parse(await Deno.readTextFile(new URL("../../deno.json", import.meta.url)));
  const words: string[] = manifest.tasks[task].split(/\s+/);
  const from = words.indexOf("run") + 1;
  const to = words.indexOf("main.ts");
  return words.slice(from, to).map((w) => w.replace(/\$([A-Z_]+)/g, (_, name) => env[name] ?? ""));
}

/** Absolute path of main.ts. */
export const MAIN = new URL("../../main.ts", import.meta.url).pathname;

/** What a scripted person gets: the question's text and the call's abort signal. */
export interface Question {
  message: string;
  requestedSchema: unknown;
  /** Aborted when the server cancels the question (its ask timeout, or the call's cancel). */
  signal: AbortSignal;
}

/**
 * A client declaring the `elicitation` capability whose person is `answer`: it is called for
 * each elicitation request the server sends and returns the MCP answer.
 */
export function askingClient(
  name: string,
  answer: (question: Question) => Promise<ElicitResult> | ElicitResult,
): Client {
  const client = new Client({ name, version: "1" }, { capabilities: { elicitation: {} } });
  client.setRequestHandler(ElicitRequestSchema, async (request, extra) => {
    const params = request.params as { message: string; requestedSchema?: unknown };
    return await answer({
      message: params.message,
      requestedSchema: params.requestedSchema,
      signal: extra.signal,
    });
  });
  return client;
}

/**
 * Spawn main.ts with the start permissions and connect an SDK client over stdio (`client`, e.g.
 * an {@link askingClient}, or a plain one).
 */
export async function connectStdio(
  args: string[],
  env: Record<string, string> = {},
  entry: string = MAIN,
  client: Client = new Client({ name: "tmux-mcp-e2e", version: "1" }),
  task = "start",
): Promise<Connected> {
  const transport = new StdioClientTransport({
    command: Deno.execPath(),
    args: ["run", ...await startPermissions(task, env), entry, ...withTestToolsets(args, env)],
    env: cleanEnv({ NO_COLOR: "1", ...env }),
    stderr: "pipe",
  });
  let stderr = "";
  transport.stderr?.on("data", (chunk: Uint8Array) => stderr += new TextDecoder().decode(chunk));
  await client.connect(transport);
  await client.listTools();
  return { client, stderr: () => stderr, close: () => client.close(), pid: transport.pid };
}

/**
 * Run main.ts to completion (for config errors, --help, --version), with the start permissions
 * or the `permissions` given.
 */
export async function runMain(
  args: string[],
  env: Record<string, string> = {},
  permissions?: string[],
): Promise<{ code: number; stdout: string; stderr: string }> {
  const out = await new Deno.Command(Deno.execPath(), {
    args: ["run", ...permissions ?? await startPermissions(), MAIN, ...args],
    clearEnv: true,
    env: cleanEnv({ NO_COLOR: "1", ...env }),
    stdin: "null",
  }).output();
  const dec = new TextDecoder();
  return { code: out.code, stdout: dec.decode(out.stdout), stderr: dec.decode(out.stderr) };
}

/** Call a tool and return its result (validated by the client against the outputSchema). */
export async function call(
  client: Client,
  name: string,
  args: Record<string, unknown> = {},
): Promise<CallToolResult> {
  return await client.callTool({ name, arguments: args }) as CallToolResult;
}

/** structuredContent of a successful call; fails the test on an error result. */
export async function ok<T = Record<string, unknown>>(
  client: Client,
  name: string,
  args: Record<string, unknown> = {},
): Promise<T> {
  const result = await call(client, name, args);
  if (result.isError) {
    throw new Error(`${name} failed: ${JSON.stringify(result.content)}`);
  }
  return result.structuredContent as T;
}

/** The error object of a failed call; fails the test on success. */
export async function fails(
  client: Client,
  name: string,
  args: Record<string, unknown> = {},
): Promise<{ code: string; message: string; effects: string; retryable: boolean; text: string }> {
  const result = await call(client, name, args);
  if (!result.isError) {
    throw new Error(`${name} unexpectedly succeeded: ${JSON.stringify(args).slice(0, 200)}`);
  }
  const error = (result.structuredContent as { error: Record<string, unknown> }).error;
  const text = (result.content[0] as { text: string }).text;
  return {
    ...(error as { code: string; message: string; effects: string; retryable: boolean }),
    text,
  };
}

/**
 * Call a waiting tool whose matching is heavy and show that the server still answers meanwhile:
 * once its first progress notification says it is under way, `list_sessions` is answered while
 * the wait still runs (a loop held by the matching would send no progress, and answer only after
 * the wait). Returns the wait's structured result and how many progress notifications came.
 */
export async function answeredWhileWaiting<T>(
  client: Client,
  name: string,
  args: Record<string, unknown>,
): Promise<{ result: T; notified: number }> {
  let settled = false;
  let notified = 0;
  const heavy = client.callTool({ name, arguments: args }, undefined, {
    onprogress: () => notified++,
  }).finally(() => settled = true);
  // Should an assertion below fail first, closing the client rejects it: not an uncaught error.
  heavy.catch(() => {});
  assert(await eventually(() => notified > 0 || settled, 20_000), `${name}: progress`);
  await ok(client, "list_sessions");
  assert(!settled, `list_sessions answered while ${name} was still matching`);
  const result = (await heavy as unknown as { structuredContent: T }).structuredContent;
  return { result, notified };
}
