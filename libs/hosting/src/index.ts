export { McpModule } from './mcp.module';
export { MCP_MODULE_OPTIONS, type McpModuleExtras } from './mcp.module-definition';
export type {
  McpModuleOptions,
  McpApprovalOptions,
  McpRequestStateOptions,
} from './interfaces/mcp-module-options.interface';
export type { McpClusterOptions } from './interfaces/mcp-cluster-options.interface';
export { WEBHOOK_SIGNATURE_HEADER } from '#libs/operations';
export { McpApprovals } from '#libs/operations';
export { StderrConsoleLogger } from './logging/stderr-console.logger';
export { StdioTransport } from './stdio/stdio.transport';
export { HostState, type HostPhase } from '#libs/protocol';
export {
  MCP_TASK_STORE,
  InjectTaskStore,
  InMemoryTaskStore,
  ownsTask,
  type McpTaskStore,
  type McpTaskOwner,
  type StoredTask,
} from '#libs/protocol';
export {
  TASKS_EXTENSION,
  TaskStatusEvents,
  taskStatusNotification,
  type TaskStatusChange,
  type TaskStatusListener,
} from '#libs/protocol';
export { type McpRequestEvent, type McpRequestObserver, type McpEntryKind } from '#libs/protocol';
export { McpRequestObservers } from '#libs/protocol';
export { McpMetrics, MCP_DURATION_BUCKETS, type McpMetricsOptions } from '#libs/operations';
export { McpTracing, MCP_TRACER_NAME } from '#libs/protocol';
export { DependencyHealth, type McpHealthCheck, type DependencyStatus } from '#libs/operations';
export {
  McpCallStats,
  type McpCallStatsOptions,
  type McpEntryStats,
  type McpLatencySummary,
  type McpStatsSnapshot,
  type McpWindowStats,
} from '#libs/operations';
export { resolveMcpOptions } from './options/mcp-options.resolver';
export { McpEndpoints, type McpEndpointRef } from './endpoints/mcp-endpoints';
export { McpEndpointsModule } from './endpoints/mcp-endpoints.module';
export { McpInvoker, type McpInvokableMethod } from './in-process/mcp-invoker';
export { McpInvocationError } from './in-process/mcp-invocation.error';
export type { McpInvokeOptions, McpInvokeProgress, McpInvocation } from './in-process/mcp-invoke.options';
export { McpToolSearch } from './tool-search/mcp-tool-search';
export type { McpToolSearchOptions } from './tool-search/tool-search.options';
