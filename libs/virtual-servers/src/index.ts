// Virtual servers managed at run time: upstreams stored and changed through the admin API and
// applied on every replica. Every export here is public API (re-exported by name from
// libs/index.ts and libs/postgres.ts) or marked @internal.
export { McpVirtualServers, MCP_RESERVED_PATHS, type VirtualServersChange } from './servers/mcp-virtual-servers';
export { MCP_HTTP_SERVING, type McpHttpServing } from './composed/mcp-http-serving';
export type { ComposedServer, ComposedServerCredentials, ComposedServerSelection } from './document/composed-server';
export type { HostRoute, ReservedPaths } from './validation/server.validator';
export { VIRTUAL_SERVERS_PROVIDERS } from './virtual-servers.providers';
export {
  MCP_VIRTUAL_SERVERS_OPTIONS,
  InjectVirtualServersOptions,
  VIRTUAL_SERVERS_OPTION_KEYS,
  resolveVirtualServersOptions,
  type McpVirtualServersOptions,
  type VirtualServersOptions,
} from './options/virtual-servers.options';
export { EMPTY_DOCUMENT, REDACTED, type VirtualServersDocument } from './document/virtual-servers.document';
export { VersionConflictError, type VirtualServersStore } from './store/virtual-servers.store';
export { FileVirtualServersStore } from './store/file-virtual-servers.store';
export { upstreamTargetProblems } from './validation/upstream-target.policy';
export { validateDocument, type DocumentValidation } from './validation/document.validator';
