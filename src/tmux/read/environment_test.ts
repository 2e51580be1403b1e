/** Our own variables read off `show-environment -s` output (docs/design.md §4), on their own. */
import { assertEquals } from "../../../tests/support/assert.ts";
import { ownVariables } from "./environment.ts";

Deno.test("ownVariables: only set TMUX_MCP_*/LIBTMUX_* names, never one forged inside a value", () => {
  const cases: [string, string[]][] = [
    ['TMUX_MCP_HTTP_TOKEN="t"; export TMUX_MCP_HTTP_TOKEN;\n', ["TMUX_MCP_HTTP_TOKEN"]],
    ['PATH="/bin"; export PATH;\nLIBTMUX_X="1"; export LIBTMUX_X;\n', ["LIBTMUX_X"]],
    ["unset TMUX_MCP_GONE;\n", []],
    ['MY_TMUX_MCP_X="1"; export MY_TMUX_MCP_X;\nTMUX_MCPX="1"; export TMUX_MCPX;\n', []],
    // As tmux 3.3a prints a value holding a newline and quotes (checked).
    ['X="a\nTMUX_MCP_FAKE=\\"1\\"; export TMUX_MCP_FAKE;\nz"; export X;\n', []],
    ["", []],
  ];
  for (const [out, names] of cases) assertEquals(ownVariables(out), names, out);
});
