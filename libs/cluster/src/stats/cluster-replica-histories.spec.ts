import { MapBackplane } from '../testing/map-backplane';
import { McpCluster } from '../replicas/mcp-cluster';
import { ClusterReplicaHistories } from './cluster-replica-histories';

const history = (calls: number) => ({
  minutes: [0],
  total: { calls: [calls], errors: [0], p50: [1], p95: [2] },
  tools: [],
});

describe('ClusterReplicaHistories', () => {
  it('gives every replica the last hour each published, and forgets a replica that stopped publishing', async () => {
    jest.useFakeTimers({ now: 1_000_000, doNotFake: ['setImmediate', 'nextTick'] });
    try {
      const backplane = new MapBackplane();
      const clusterOf = async (replica: string) => {
        const cluster = new McpCluster({ backplane, replica, namespace: 'desk' });
        await cluster.onModuleInit();
        return cluster;
      };
      const [r1, r2] = await Promise.all([clusterOf('r1'), clusterOf('r2')]);
      const [h1, h2] = [new ClusterReplicaHistories(r1), new ClusterReplicaHistories(r2)];
      await h1.publish({ replica: 'r1', publishedAt: Date.now(), history: history(3) }, 15_000);
      await h2.publish({ replica: 'r2', publishedAt: Date.now(), history: history(5) }, 15_000);
      expect(await h1.replicas()).toEqual(['r1', 'r2']);
      expect(await h1.get('r2')).toEqual({ replica: 'r2', publishedAt: 1_000_000, history: history(5) });
      jest.setSystemTime(1_010_000);
      await h1.publish({ replica: 'r1', publishedAt: Date.now(), history: history(4) }, 15_000);
      jest.setSystemTime(1_020_000);
      // r2 published nothing for 20 s: gone from the choice.
      expect(await h2.replicas()).toEqual(['r1']);
      expect((await h2.get('r1'))?.history.total.calls).toEqual([4]);
      await Promise.all([r1, r2].map((cluster) => cluster.onApplicationShutdown()));
    } finally {
      jest.useRealTimers();
    }
  });
});
