// The replicas of a host and the state they share: the backplane, McpCluster, and the cluster
// implementation of every shared piece.
export type { McpClusterBackplane, McpClusterMessage, McpClusterEntry } from './backplane/cluster-backplane';
export { McpCluster, MCP_CLUSTER_OPTIONS, type ClusterOptions } from './replicas/mcp-cluster';
export { ClusterMessages } from './replicas/cluster.messages';
export { ClusterSessionStore } from './sessions/cluster-session.store';
export { ClusterSessionRelay } from './sessions/cluster-session.relay';
export { ClusterStreams } from './sessions/cluster-streams';
export { ClusterAnswerClaims } from './claims/cluster-answer-claims';
export { ClusterTaskStore } from './tasks/cluster-task.store';
export { ClusterTaskReplicas } from './tasks/cluster-task-replicas';
export { ClusterApprovalLedger } from './approvals/cluster-approval.ledger';
export { ClusterCatalogToggles } from './catalog/cluster-catalog-toggles';
export { ClusterResourceUpdates } from './resources/cluster-resource-updates';
