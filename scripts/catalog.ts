/**
 * The tool catalog's size, as clients send it to the model on every turn (`deno task catalog`).
 * Per tool and in total: the model-visible part (name, title, description, input schema,
 * annotations) and the whole `tools/list` entry (plus output schema and `_meta`), for the default
 * (the core preset), for the three toolsets that were the default before it, and for all four.
 *
 *   deno task catalog          # a table per configuration
 *   deno task catalog --json   # the same figures as JSON
 */
import { effectiveTools, SURFACE, toolListEntry } from "../src/catalog.ts";
import { DEFAULT_TOOLSETS, parseConfig, TOOLSETS } from "../src/config.ts";
import type { ToolSpec } from "../src/tool_types.ts";
import { hostSurface } from "../src/server/host_call.ts";

const encoder = new TextEncoder();

/** Bytes of a value as compact JSON. */
function bytes(value: unknown): number {
  return encoder.encode(JSON.stringify(value)).length;
}

/** One tool's sizes in a configuration. */
export interface ToolSize {
  name: string;
  /** What the model reads: name, title, description, input schema, annotations. */
  visible: number;
  /** The whole tools/list entry. */
  full: number;
}

/** The catalog of the tools `toolsets` (and `tools`, as with `--tools`) enable, sized. */
export function catalogSizes(
  toolsets: readonly string[],
  tools: readonly string[] = [],
  hosts: readonly string[] = [],
): { tools: ToolSize[]; visible: number; full: number } {
  const args = [
    "--toolsets",
    toolsets.join(","),
    ...(tools.length ? ["--tools", tools.join(",")] : []),
    ...hosts.flatMap((name) => ["--ssh", `${name}=${name}`]),
  ];
  const outcome = parseConfig(args, () => undefined, SURFACE);
  if (outcome.kind !== "run") throw new Error("internal: not a run configuration");
  // Remote hosts (`--ssh`) add `host` where a tool names no object (docs/design.md §5.15).
  const enabled: readonly ToolSpec[] = hostSurface(effectiveTools(outcome.config), hosts);
  const sizes = enabled.map((spec) => {
    const entry = toolListEntry(spec, enabled, outcome.config.waitMaxMs);
    const { name, title, description, inputSchema, annotations } = entry;
    return {
      name,
      visible: bytes({ name, title, description, inputSchema, annotations }),
      full: bytes(entry),
    };
  });
  return {
    tools: sizes,
    // The list's own framing is counted once, as in `{"tools":[…]}`.
    visible: bytes({ tools: [] }) + sizes.reduce((n, t) => n + t.visible + 1, -1),
    full: bytes({
      tools: enabled.map((spec) => toolListEntry(spec, enabled, outcome.config.waitMaxMs)),
    }),
  };
}

if (import.meta.main) {
  const configurations = {
    default: [...DEFAULT_TOOLSETS],
    wide: ["inspect", "manage", "execute"],
    all: [...TOOLSETS],
  };
  const report = Object.fromEntries(
    Object.entries(configurations).map(([label, sets]) => [label, catalogSizes(sets)]),
  );
  if (Deno.args.includes("--json")) {
    console.log(JSON.stringify(report, null, 2));
  } else {
    for (const [label, sizes] of Object.entries(report)) {
      console.log(`\n${label} (${configurations[label as keyof typeof configurations].join(",")})`);
      console.log("tool".padEnd(26) + "visible".padStart(9) + "full".padStart(9));
      for (const t of [...sizes.tools].sort((a, b) => b.visible - a.visible)) {
        console.log(t.name.padEnd(26) + String(t.visible).padStart(9) + String(t.full).padStart(9));
      }
      console.log(
        `${"total".padEnd(26)}${String(sizes.visible).padStart(9)}${
          String(sizes.full).padStart(9)
        }` +
          `  (${sizes.tools.length} tools)`,
      );
    }
  }
}
