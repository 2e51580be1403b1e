/** Read-only settings tools: show_option, show_environment, show_hooks. */
import { z } from "zod";
import {
  OPTION_NAME,
  OPTION_SCOPES,
  showEnvironment,
  showHooks,
  showOption,
} from "../tmux/settings.ts";
import { defineTool } from "../tool_spec.ts";
import { sessionRefSchema } from "./common.ts";

const META = { reach: "none", effects: "observe", output: ["configuration"] } as const;

/** Variable names whose values are withheld: they usually carry credentials. */
export const SECRET_NAME = /TOKEN|SECRET|PASSWORD|PASSWD|KEY|CREDENTIAL|AUTH|COOKIE/i;

/** Bounds of show_environment's answer. */
const ENV_LIMITS = { entries: 1000, valueChars: 4096 } as const;

/** The settings tools' manifest entries. */
export const settingsTools = [
  defineTool({
    name: "show_option",
    toolset: "inspect",
    title: "Read a tmux option",
    description: "Read one tmux option at one scope: server (default), session, " +
      "global-session, window, global-window or pane. `target` names the session ($N or exact " +
      "name), window (@N) or pane (%N) for the non-global scopes. `value` is what applies there " +
      "(inherited when not set locally; null when unset everywhere) and `set` says whether it is " +
      "set at exactly that scope. Names must be exact; user options start with @.",
    input: z.object({
      name: z.string().min(1).max(128).regex(OPTION_NAME).describe(
        'Option name, e.g. "status-left", "status-format[0]" or "@my-option".',
      ),
      scope: z.enum(OPTION_SCOPES).optional().describe("Default server."),
      target: z.string().min(1).max(256).optional().describe(
        "Session id/name (scope session), window id @N (scope window) or pane id %N (scope pane).",
      ),
    }).strict(),
    output: z.object({
      name: z.string(),
      scope: z.enum(OPTION_SCOPES),
      value: z.string().nullable(),
      set: z.boolean(),
    }).strict(),
    annotations: "inspect",
    capability: META,
    handler: async ({ name, scope = "server", target }, ctx) => ({
      name,
      scope,
      ...await showOption(ctx.tmux, name, scope, target, ctx.signal),
    }),
  }),
  defineTool({
    name: "show_environment",
    toolset: "inspect",
    title: "Read the tmux environment",
    description: "List the tmux global environment, or one session's (`session`: $N or exact " +
      "name). The tmux environment often carries credentials, so values of variables whose " +
      "names contain TOKEN, SECRET, PASSWORD, PASSWD, KEY, CREDENTIAL, AUTH or COOKIE (any case) " +
      "are withheld and their names listed in `withheld`. Other values are returned as they are " +
      "and may still be sensitive. Variables tmux marks as removed have `removed: true`.",
    input: z.object({
      session: sessionRefSchema.optional().describe(
        "Session id ($1) or exact name. Omit for the global environment.",
      ),
    }).strict(),
    output: z.object({
      variables: z.array(
        z.object({
          name: z.string(),
          value: z.string().optional(),
          removed: z.boolean().optional(),
        }).strict(),
      ),
      withheld: z.array(z.string()),
      truncated: z.boolean().optional().describe(
        `True when entries beyond ${ENV_LIMITS.entries} or value text beyond ` +
          `${ENV_LIMITS.valueChars} characters was dropped.`,
      ),
    }).strict(),
    annotations: "inspect",
    capability: { ...META, output: ["configuration", "environment"] },
    handler: async ({ session }, ctx) => {
      const entries = await showEnvironment(ctx.tmux, session, ctx.signal);
      let truncated = entries.length > ENV_LIMITS.entries;
      const withheld: string[] = [];
      const variables = entries.slice(0, ENV_LIMITS.entries).map((entry) => {
        if (entry.removed) return { name: entry.name, removed: true };
        if (SECRET_NAME.test(entry.name)) {
          withheld.push(entry.name);
          return { name: entry.name };
        }
        let value = entry.value ?? "";
        if (value.length > ENV_LIMITS.valueChars) {
          value = value.slice(0, ENV_LIMITS.valueChars);
          truncated = true;
        }
        return { name: entry.name, value };
      });
      return { variables, withheld, ...(truncated ? { truncated } : {}) };
    },
  }),
  defineTool({
    name: "show_hooks",
    toolset: "inspect",
    title: "Read tmux hooks",
    description: "List the hooks set globally, or on one session (`session`: $N or exact name): " +
      "each hook's name, array index and the tmux command it runs.",
    input: z.object({
      session: sessionRefSchema.optional().describe(
        "Session id ($1) or exact name. Omit for global hooks.",
      ),
    }).strict(),
    output: z.object({
      hooks: z.array(z.object({ name: z.string(), index: z.int(), command: z.string() }).strict()),
    }).strict(),
    annotations: "inspect",
    capability: META,
    handler: async ({ session }, ctx) => ({
      hooks: await showHooks(ctx.tmux, session, ctx.signal),
    }),
  }),
];
