// MCP Apps (io.modelcontextprotocol/ui): views of tools, declared with @McpView, served as ui://
// resources with their policy, and the extension the engine announces and applies. Exports what
// hosting assembles, what the gateway needs and what libs/index.ts makes public.
export { McpView } from './mcp-view.decorator';
export { MCP_APPS_EXTENSION, MCP_APP_MIME_TYPE, MCP_VIEW_METADATA } from './apps.constants';
export type { McpViewOptions, McpViewCsp, McpViewPermission, McpViewScript } from './mcp-view-options.interface';
export type { McpViewMeta } from './view-meta';
export { ViewDocumentInterceptor } from './view-document.interceptor';
export { UiExtension } from './ui.extension';
export { AppsExplorer } from './apps.explorer';
export { APPS_PROVIDERS } from './apps.providers';
export { isAppOnly } from './ui-visibility';
