/**
 * The pane view's names and metadata as the MCP Apps extension (`io.modelcontextprotocol/ui`,
 * protocol 2026-01-26) wants them (docs/design.md §10). The page itself is generated into
 * src/generated/page_html.ts; only the server imports that.
 */

/** The extension's id in a client's `capabilities.extensions`. */
export const UI_EXTENSION_ID = "io.modelcontextprotocol/ui";

/** The MIME type of an MCP Apps HTML view. */
export const VIEW_MIME_TYPE = "text/html;profile=mcp-app";

/** The `ui://` resource show_pane's result is shown with. */
export const PANE_VIEW_URI = "ui://tmux-mcp/pane-view";

/**
 * `_meta.ui` of the view's resource: no network origin of any kind (the page is self-contained
 * and follows the pane through the host's tool calls), and a border from the host.
 */
export const PANE_VIEW_META = {
  ui: {
    csp: { connectDomains: [], resourceDomains: [], frameDomains: [], baseUriDomains: [] },
    prefersBorder: true,
  },
} as const;

/** The pane view as resources/list shows it (docs/design.md §10.1). */
export const PANE_VIEW_RESOURCE = {
  uri: PANE_VIEW_URI,
  name: "pane-view",
  title: "Pane view",
  description: "show_pane's live view of a pane (MCP Apps).",
  mimeType: VIEW_MIME_TYPE,
  _meta: PANE_VIEW_META,
};

/** Whether a client's capabilities advertise the extension with HTML views. */
export function rendersViews(capabilities: { extensions?: Record<string, unknown> } | undefined) {
  const ui = capabilities?.extensions?.[UI_EXTENSION_ID] as { mimeTypes?: unknown } | undefined;
  if (ui === undefined || ui === null || typeof ui !== "object") return false;
  // The spec makes mimeTypes required; a client that leaves it out still asked for the extension.
  return !Array.isArray(ui.mimeTypes) || ui.mimeTypes.includes(VIEW_MIME_TYPE);
}
