/** Hints fitted to the session's surface: pure checks over the configurations that matter. */
import { assert, assertEquals } from "../../tests/support/assert.ts";
import { effectiveTools, SURFACE } from "../catalog.ts";
import { parseConfig } from "../config.ts";
import { ToolError } from "../errors.ts";
import { errorResult, successResult } from "../results.ts";
import { hintForSurface, resultForSurface } from "./hints.ts";

/** A configuration and the names it serves. */
function surface(args: string[]) {
  const outcome = parseConfig(args, () => undefined, SURFACE);
  if (outcome.kind !== "run") throw new Error("not a run configuration");
  const config = outcome.config;
  return { config, enabled: new Set(effectiveTools(config).map((t) => t.name)) };
}

Deno.test("a hint naming only enabled tools is kept as it is", () => {
  const { config, enabled } = surface(["--toolsets", "core"]);
  const hint = "Call list_panes and use a paneId from it; send_keys or paste_text then.";
  assert(hintForSurface(hint, enabled, config) === hint);
});

Deno.test("each tool the session does not serve gets the flag that enables it, once", () => {
  const cases: Array<[string[], string, string]> = [
    [
      ["--toolsets", "core"],
      "Pick a live pane from list_panes, or restart this one with respawn_pane (respawn_pane).",
      " respawn_pane is not enabled here: a person can enable it with --toolsets core,execute " +
      "or --tools respawn_pane.",
    ],
    [
      ["--toolsets", "core", "--exclude-tools", "list_panes"],
      "Call list_panes.",
      " list_panes is removed by --exclude-tools (or TMUX_MCP_EXCLUDE_TOOLS / " +
      "LIBTMUX_EXCLUDE_TOOLS); a person can take it off that list.",
    ],
    [
      ["--toolsets", "execute"],
      "Use send_keys_batch, then capture_pane.",
      " capture_pane is not enabled here: a person can enable it with --toolsets " +
      "inspect,execute or --tools capture_pane.",
    ],
  ];
  for (const [args, hint, added] of cases) {
    const { config, enabled } = surface(args);
    assertEquals(hintForSurface(hint, enabled, config), hint + added, args.join(" "));
  }
});

Deno.test("an error result's hint is fitted; a success and a tool_denied are left alone", () => {
  const { config, enabled } = surface(["--toolsets", "core"]);
  const refused = errorResult(
    new ToolError("target_denied", "pane %1 is in a mode", { hint: "See snapshot_pane." }),
  );
  const fitted = resultForSurface(refused, enabled, config);
  assertEquals(
    fitted.content[0],
    {
      type: "text",
      text: "target_denied: pane %1 is in a mode\nHint: See snapshot_pane. snapshot_pane is " +
        "not enabled here: a person can enable it with --toolsets core,inspect or --tools " +
        "snapshot_pane.",
    },
  );
  assertEquals(fitted.structuredContent, refused.structuredContent);
  const success = successResult({ note: "see snapshot_pane" });
  assert(resultForSurface(success, enabled, config) === success);
  const denied = errorResult(
    new ToolError("tool_denied", "snapshot_pane is not enabled", { hint: "snapshot_pane off" }),
  );
  assert(resultForSurface(denied, enabled, config) === denied);
});
