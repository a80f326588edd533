import { Logger } from '@nestjs/common';
import type { ResourceUpdates } from '#libs/resources';
import type { McpCluster } from '../replicas/mcp-cluster';

/** The message telling every replica that a resource changed. */
const UPDATED = 'resource-updated';

/**
 * The updates of a cluster (the `cluster` option): broadcast, and every replica (this one too)
 * tells the listeners of its own (`local`), whose clients' streams it holds. Should the
 * broadcast fail, this replica's clients are told all the same.
 */
export class ClusterResourceUpdates implements ResourceUpdates {
  private readonly logger = new Logger('McpResourceNotifier');

  constructor(
    private readonly local: ResourceUpdates,
    private readonly cluster: McpCluster,
  ) {
    cluster.on(UPDATED, ({ uri }) => {
      if (typeof uri === 'string') local.publish(uri);
    });
  }

  publish(uri: string): void {
    this.cluster.broadcast({ type: UPDATED, uri }).catch((error: Error) => {
      this.logger.warn(`cannot tell the other replicas that ${uri} changed: ${error.message}`);
      this.local.publish(uri);
    });
  }

  onUpdated(listener: (uri: string) => void): () => void {
    return this.local.onUpdated(listener);
  }
}
