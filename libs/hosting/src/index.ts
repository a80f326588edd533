export { McpModule } from './mcp.module';
export { MCP_MODULE_OPTIONS, type McpModuleExtras } from './mcp.module-definition';
export type { McpModuleOptions, McpApprovalOptions } from './interfaces/mcp-module-options.interface';
export { WEBHOOK_SIGNATURE_HEADER } from './approvals/approval-events';
export { McpApprovals } from './approvals/mcp-approvals';
export { StderrConsoleLogger } from './logging/stderr-console.logger';
export { StdioTransport } from './stdio/stdio.transport';
export { HostState, type HostPhase } from './lifecycle/host-state';
export { MCP_TASK_STORE, InjectTaskStore, InMemoryTaskStore, ownsTask, type McpTaskStore, type McpTaskOwner, type StoredTask } from './tasks/task.store';
export { type McpRequestEvent, type McpRequestObserver, type McpEntryKind } from './telemetry/mcp-request-event';
export { McpRequestObservers } from './telemetry/request-observers';
export { McpMetrics, MCP_DURATION_BUCKETS, type McpMetricsOptions } from './telemetry/mcp-metrics';
export { McpTracing, MCP_TRACER_NAME } from './telemetry/mcp-tracing';
export { DependencyHealth, type McpHealthCheck, type DependencyStatus } from './health/dependency-health';
export {
  McpCallStats,
  type McpCallStatsOptions,
  type McpEntryStats,
  type McpLatencySummary,
  type McpStatsSnapshot,
  type McpWindowStats,
} from './admin/mcp-call-stats';
