// Hosting: module assembly (McpModule), its options, the transports and the endpoints. Exports only
// what this library owns; libs/index.ts names where every other public name comes from.
export { McpModule } from './mcp.module';
export { MCP_MODULE_OPTIONS, type McpModuleExtras } from './mcp.module-definition';
export type {
  McpModuleOptions,
  McpApprovalOptions,
  McpRequestStateOptions,
} from './interfaces/mcp-module-options.interface';
export type { McpClusterOptions } from './interfaces/mcp-cluster-options.interface';
export { StderrConsoleLogger } from './logging/stderr-console.logger';
export { StdioTransport } from './stdio/stdio.transport';
export { resolveMcpOptions } from './options/mcp-options.resolver';
export { McpEndpoints, type McpEndpointRef } from './endpoints/mcp-endpoints';
export { McpEndpointsModule } from './endpoints/mcp-endpoints.module';
export { McpInvoker, type McpInvokableMethod } from './in-process/mcp-invoker';
export { McpInvocationError } from './in-process/mcp-invocation.error';
export type { McpInvokeOptions, McpInvokeProgress, McpInvocation } from './in-process/mcp-invoke.options';
export { DRAIN_LIMIT, DRAIN_MS } from './http/body-drain';
