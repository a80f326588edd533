import { MapBackplane } from '../testing/map-backplane';
import { McpCluster } from '../replicas/mcp-cluster';
import { ClusterConfigChanges } from './cluster-config-changes';

describe('ClusterConfigChanges', () => {
  it('tells every other replica which document changed to which version, and not the replica that changed it', async () => {
    const backplane = new MapBackplane();
    const replicas = await Promise.all(
      ['r1', 'r2', 'r3'].map(async (replica) => {
        const cluster = new McpCluster({ backplane, replica, namespace: 'desk' });
        await cluster.onModuleInit();
        const heard: string[] = [];
        new ClusterConfigChanges(cluster).onChange((document, version) => heard.push(`${document}@${version}`));
        return { cluster, heard, changes: new ClusterConfigChanges(cluster) };
      }),
    );
    await replicas[0].changes.announce('virtual-servers', 4);
    await new Promise((resolve) => setImmediate(resolve));
    expect(replicas.map((replica) => replica.heard)).toEqual([[], ['virtual-servers@4'], ['virtual-servers@4']]);
    await Promise.all(replicas.map((replica) => replica.cluster.onApplicationShutdown()));
  });
});
