// Operations: health, metrics, the admin dashboard, approvals. Imported by the hosting library.
export { ADMIN_ROLE, ADMIN_SCOPE, AdminAccess, refusalHeaders, type AdminAccessResult } from './access/admin-access';
export {
  MAX_AUDIT_LIMIT,
  AdminApi,
  type AdminHealth,
  type AdminAuditPage,
  type AdminSession,
  type AdminSessions,
  type AdminStats,
} from './admin/admin-api';
export { ADMIN_ASSETS_DIR, AdminAssets, type AdminAsset } from './admin/admin-assets';
export {
  AdminCatalogReader,
  type AdminThrottle,
  type AdminCatalogEntry,
  type AdminToolEntry,
  type AdminCatalog,
} from './admin/admin-catalog.reader';
export { escapeHtml, renderAdminPage, type AdminPageValues } from './admin/admin-page';
export { AdminEndpoint } from './admin/admin.endpoint';
export { AdminRoutes, type AdminAnswer, type AdminRequest, type AdminRoute } from './admin/admin-routes';
export { MCP_ADMIN_FEATURES, type AdminFeatures } from './admin/admin-features';
export { sendDashboardJson } from './admin/admin-http';
export { AdminMessages } from './access/admin.messages';
export { CALL_STATS_PROVIDER } from './admin/admin.providers';
export { catalogEntryOf } from './stats/catalog-entry';
export { LATENCY_BINS, latencyBin, binValue, quantile } from './stats/latency-histogram';
export { McpCallHistory, type McpHistorySeries, type McpHistorySnapshot } from './stats/mcp-call-history';
export {
  InjectReplicaHistories,
  LocalReplicaHistories,
  MCP_REPLICA_HISTORIES,
  type PublishedHistory,
  type ReplicaHistories,
} from './stats/replica-histories';
export {
  OTHER_ENTRY,
  McpCallStats,
  type McpCallStatsOptions,
  type McpLatencySummary,
  type McpWindowStats,
  type McpEntryStats,
  type McpStatsSnapshot,
} from './stats/mcp-call-stats';
export { WEBHOOK_SIGNATURE_HEADER, ApprovalEvents } from './approvals/approval-events';
export { approvalPageOf } from './approvals/approval-page';
export { McpApprovals } from './approvals/mcp-approvals';
export { DependencyHealth, type McpHealthCheck, type DependencyStatus } from './health/dependency-health';
export { MCP_DURATION_BUCKETS, OTHER_LABEL, McpMetrics, type McpMetricsOptions } from './metrics/mcp-metrics';
export { McpMetricsEndpoint } from './metrics/metrics.endpoint';
export { OUTCOME_INDEX, OUTCOMES } from './stats/outcome-index';
export { METRICS_PROVIDER } from './metrics/mcp-metrics.provider';
export {
  MCP_OPERATIONS_OPTIONS,
  InjectOperationsOptions,
  OPERATIONS_OPTION_KEYS,
  resolveOperationsOptions,
  type OperationsOptions,
  type ApprovalPolicy,
  type OperationsContext,
} from './options/operations.options';
export { MAX_REPLICA_NAME_LENGTH, defaultReplicaName } from './options/replica-name';
export { operationsParts, type OperationsSwitches, type OperationsParts } from './operations.parts';
export { OperationsMessages } from './operations.messages';
export {
  MCP_CONFIG_CHANGES,
  InjectConfigChanges,
  LocalConfigChanges,
  type ConfigChanges,
} from './config/config-changes';
