/** The MCP Apps extension's identifier (SEP-1865), in `capabilities.extensions` of both sides. */
export const MCP_APPS_EXTENSION = 'io.modelcontextprotocol/ui';

/** The MIME type of a view: HTML for the MCP Apps host's sandboxed frame. */
export const MCP_APP_MIME_TYPE = 'text/html;profile=mcp-app';

/** Metadata key of `@McpView()` options on a provider method. */
export const MCP_VIEW_METADATA = 'mcp:view';
