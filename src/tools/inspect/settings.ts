/** Read-only settings tools: show_option, show_environment, show_hooks. */
import { z } from "zod";
import {
  OPTION_NAME,
  OPTION_SCOPES,
  showEnvironment,
  showHooks,
  showOption,
} from "../../tmux/read/settings.ts";
import {
  boundList,
  clipText,
  FIELD_LIMITS,
  LIST_BYTES,
  LIST_LIMIT,
  truncatedFlag,
} from "../../results.ts";
import { defineTool } from "../../tool_types.ts";
import { sessionRefSchema, tmuxId } from "../schemas.ts";
import { SECRET_NAME } from "../../tmux/read/environment.ts";

const META = { reach: "none", effects: "observe", output: ["configuration"] } as const;

/** Bounds of show_environment's answer. */
const ENV_LIMITS = { entries: LIST_LIMIT, valueChars: 4096, bytes: LIST_BYTES } as const;

/** Characters of one option value or hook command returned at most (marked by "…" when cut). */
const VALUE_CHARS = 16_384;

/** The settings tools' manifest entries. */
export const settingsTools = [
  defineTool({
    name: "show_option",
    toolset: "inspect",
    batchable: true,
    title: "Read a tmux option",
    description: "Read a tmux option at a scope: the value that applies there, inherited or not.",
    input: z.object({
      name: z.string().min(1).max(128).regex(OPTION_NAME).describe(
        "Exact, like status-left or @mine.",
      ),
      scope: z.enum(OPTION_SCOPES).optional().describe("Default server."),
      target: tmuxId("target", z.string().min(1).max(256)).optional().describe(
        "The session, @N or %N.",
      ),
    }).strict(),
    output: z.object({
      name: z.string(),
      scope: z.enum(OPTION_SCOPES),
      value: z.string().nullable().describe(
        "What applies at the scope, maybe inherited from a wider one; null when unset everywhere.",
      ),
      set: z.boolean().describe("Whether the option is set at this very scope."),
      truncated: z.boolean().optional().describe(
        `True when the value was cut at ${VALUE_CHARS} characters (marked by …).`,
      ),
    }).strict(),
    annotations: "inspect",
    capability: META,
    handler: async ({ name, scope = "server", target }, ctx) => {
      const { value, set } = await showOption(ctx.tmux, name, scope, target, ctx.signal);
      const shown = value === null ? null : clipText(value, VALUE_CHARS);
      return { name, scope, value: shown, set, ...truncatedFlag(shown !== value) };
    },
  }),
  defineTool({
    name: "show_environment",
    toolset: "inspect",
    batchable: true,
    title: "Read the tmux environment",
    description: "The tmux global environment or one session's. Secret-looking names are " +
      "withheld.",
    input: z.object({
      session: sessionRefSchema.optional(),
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
        `True when entries beyond ${ENV_LIMITS.entries} or ${ENV_LIMITS.bytes} bytes were left ` +
          `out, or a value was cut at ${ENV_LIMITS.valueChars} characters (marked by …).`,
      ),
    }).strict(),
    annotations: "inspect",
    capability: { ...META, output: ["configuration", "environment"] },
    handler: async ({ session }, ctx) => {
      const entries = await showEnvironment(ctx.tmux, session, ctx.signal);
      let truncated = false;
      const withheld: string[] = [];
      const all = entries.map((entry) => {
        const name = clipText(entry.name, FIELD_LIMITS.name);
        if (entry.removed) return { name, removed: true };
        if (SECRET_NAME.test(entry.name)) {
          withheld.push(name);
          return { name };
        }
        const value = clipText(entry.value ?? "", ENV_LIMITS.valueChars);
        if (value !== entry.value) truncated = true;
        return { name, value };
      });
      const bounded = boundList(all);
      truncated ||= bounded.dropped > 0;
      const kept = new Set(bounded.rows.map((v) => v.name));
      return {
        variables: bounded.rows,
        withheld: withheld.filter((name) => kept.has(name)),
        ...truncatedFlag(truncated),
      };
    },
  }),
  defineTool({
    name: "show_hooks",
    toolset: "inspect",
    batchable: true,
    title: "Read tmux hooks",
    description: "The hooks set globally or on one session.",
    input: z.object({
      session: sessionRefSchema.optional(),
    }).strict(),
    output: z.object({
      hooks: z.array(z.object({ name: z.string(), index: z.int(), command: z.string() }).strict()),
      truncated: z.boolean().optional().describe(
        `True when hooks were left out (over ${LIST_LIMIT} or ${LIST_BYTES} bytes) or a command ` +
          `was cut at ${VALUE_CHARS} characters (marked by …).`,
      ),
    }).strict(),
    annotations: "inspect",
    capability: META,
    handler: async ({ session }, ctx) => {
      const raw = await showHooks(ctx.tmux, session, ctx.signal);
      const hooks = raw.map((hook) => ({
        ...hook,
        command: clipText(hook.command, VALUE_CHARS),
      }));
      const bounded = boundList(hooks);
      const cut = hooks.some((h, i) => h.command !== raw[i].command);
      const truncated = bounded.dropped > 0 || cut;
      return { hooks: bounded.rows, ...truncatedFlag(truncated) };
    },
  }),
];
