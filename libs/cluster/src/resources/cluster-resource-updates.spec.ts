import { LocalResourceUpdates } from '#libs/resources';
import { McpCluster } from '../replicas/mcp-cluster';
import { MapBackplane } from '../testing/map-backplane';
import { ClusterResourceUpdates } from './cluster-resource-updates';

const delivered = () => new Promise((resolve) => setImmediate(resolve));

describe('ClusterResourceUpdates', () => {
  const clusters: McpCluster[] = [];
  async function replica(name: string, backplane: MapBackplane) {
    const cluster = new McpCluster({ backplane, replica: name, namespace: 'desk' });
    await cluster.onModuleInit();
    clusters.push(cluster);
    const updates = new ClusterResourceUpdates(new LocalResourceUpdates(), cluster);
    const heard: string[] = [];
    updates.onUpdated((uri) => heard.push(uri));
    return { updates, heard };
  }
  afterEach(async () => {
    for (const cluster of clusters.splice(0)) await cluster.onApplicationShutdown();
  });

  it('tells the listeners of every replica, the one it was published on too, once each', async () => {
    const backplane = new MapBackplane();
    const [r1, r2] = [await replica('r1', backplane), await replica('r2', backplane)];
    r1.updates.publish('desk://tickets/1');
    expect(r1.heard).toEqual([]);
    await delivered();
    expect([r1.heard, r2.heard]).toEqual([['desk://tickets/1'], ['desk://tickets/1']]);
  });

  it("tells this replica's listeners when the others cannot be told", async () => {
    const backplane = new MapBackplane();
    const r1 = await replica('r1', backplane);
    backplane.down = true;
    r1.updates.publish('desk://tickets/1');
    await delivered();
    expect(r1.heard).toEqual(['desk://tickets/1']);
  });
});
