// The replicas of a host and the state they share: the backplane, McpCluster, and the cluster
// implementation of every shared piece, built together by ClusterState. Loaded only by the
// hosting module's shared-state factory, and only with the `cluster` option.
export type { McpClusterBackplane, McpClusterMessage, McpClusterEntry } from './backplane/cluster-backplane';
export { McpCluster, type ClusterOptions } from './replicas/mcp-cluster';
export { ClusterState, type ClusterStateDeps } from './cluster-state';
