import type { ConfigChanges } from '#libs/operations';
import type { McpCluster } from '../replicas/mcp-cluster';

const CHANGED = 'config-changed';

/** Configuration changes told to every replica by broadcast on the backplane (the store holds the configuration). */
export class ClusterConfigChanges implements ConfigChanges {
  constructor(private readonly cluster: McpCluster) {}

  announce(document: string, version: number): Promise<void> {
    return this.cluster.broadcast({ type: CHANGED, document, version });
  }

  onChange(listener: (document: string, version: number) => void): () => void {
    return this.cluster.on(CHANGED, (message) => {
      // This replica applied its own change before announcing it.
      if (message.from === this.cluster.replica) return;
      if (typeof message.document === 'string' && typeof message.version === 'number')
        listener(message.document, message.version);
    });
  }
}
