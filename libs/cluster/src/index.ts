// The replicas of a host and the state they share: the backplane, McpCluster, and the cluster
// implementation of every shared piece.
export type { McpClusterBackplane, McpClusterMessage, McpClusterEntry } from './backplane/cluster-backplane';
export { McpCluster, MCP_CLUSTER_OPTIONS, type ClusterOptions } from './replicas/mcp-cluster';
export { ClusterMessages } from './replicas/cluster.messages';
