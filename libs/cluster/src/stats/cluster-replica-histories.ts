import type { PublishedHistory, ReplicaHistories } from '#libs/operations';
import type { McpCluster } from '../replicas/mcp-cluster';

const INDEX = 'histories';
const keyOf = (replica: string) => `history:${replica}`;

/**
 * The replicas' last hours of tool calls on the cluster's backplane: each a key of its own that
 * expires, listed by an index whose members expire with them, so a replica that went away drops
 * out of the dashboard's choice by itself.
 * @internal
 */
export class ClusterReplicaHistories implements ReplicaHistories {
  readonly shared = true;

  constructor(private readonly cluster: McpCluster) {}

  async publish(published: PublishedHistory, ttlMs: number): Promise<void> {
    const backplane = this.cluster.backplane;
    await backplane.set(keyOf(published.replica), published, ttlMs);
    await backplane.indexAdd(INDEX, published.replica, Date.now() + ttlMs);
  }

  async replicas(): Promise<string[]> {
    return (await this.cluster.backplane.indexMembers(INDEX, Date.now())).sort();
  }

  get(replica: string): Promise<PublishedHistory | undefined> {
    return this.cluster.backplane.get<PublishedHistory>(keyOf(replica));
  }
}
