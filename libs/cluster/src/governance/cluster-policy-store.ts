import type { GovernancePolicyStore, PolicyReplacement } from '#libs/governance';
import type { McpClusterMessage } from '../backplane/cluster-backplane';
import type { McpCluster } from '../replicas/mcp-cluster';

/** The message telling every replica of a replacement. */
const REPLACED = 'governance-policies-replaced';

/**
 * Replicas sharing state (the `cluster` option): the newest replacement is kept on the backplane
 * (a replica started later loads it) and broadcast to the running replicas, each of which applies
 * it unless it has a newer one. A replacement the backplane cannot keep throws: it is applied
 * nowhere, and the admin API says so.
 */
export class ClusterPolicyStore implements GovernancePolicyStore {
  constructor(private readonly cluster: McpCluster) {}

  current(): Promise<PolicyReplacement | undefined> {
    return this.cluster.backplane.get<PolicyReplacement>(this.key());
  }

  async replace(replacement: PolicyReplacement): Promise<void> {
    await this.cluster.backplane.set(this.key(), replacement);
    await this.cluster.broadcast({ type: REPLACED, replacement } satisfies McpClusterMessage);
  }

  onReplaced(listener: (replacement: PolicyReplacement) => void): () => void {
    return this.cluster.on(REPLACED, (message) => listener(message.replacement as PolicyReplacement));
  }

  private key(): string {
    return this.cluster.key('governance', 'policies');
  }
}
