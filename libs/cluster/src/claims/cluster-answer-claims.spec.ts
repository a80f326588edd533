import { McpCluster } from '../replicas/mcp-cluster';
import { MapBackplane } from '../testing/map-backplane';
import { ClusterAnswerClaims } from './cluster-answer-claims';

const IN_A_MINUTE = () => Date.now() + 60_000;

describe('ClusterAnswerClaims', () => {
  describe('on a cluster backplane', () => {
    let backplane: MapBackplane;
    let replicas: ClusterAnswerClaims[];
    beforeEach(async () => {
      backplane = new MapBackplane();
      replicas = ['r1', 'r2'].map(
        (replica) => new ClusterAnswerClaims(new McpCluster({ backplane, replica, namespace: 'desk' })),
      );
      for (const claims of replicas) await claims.onApplicationBootstrap();
    });

    it('shares one generation and one use between replicas, and across a restart of one of them', async () => {
      const [r1, r2] = replicas;
      expect(r1.generation).toBe(r2.generation);
      expect(await r1.claim('s1:ok', IN_A_MINUTE(), r1.generation)).toBe(true);
      expect(await r2.claim('s1:ok', IN_A_MINUTE(), r1.generation)).toBe(false);
      const restarted = new ClusterAnswerClaims(new McpCluster({ backplane, replica: 'r1', namespace: 'desk' }));
      await restarted.onApplicationBootstrap();
      expect(restarted.generation).toBe(r1.generation);
      expect(await restarted.claim('s1:ok', IN_A_MINUTE(), r1.generation)).toBe(false);
    });

    it('claims nothing of a state older than the store, once it came back empty', async () => {
      const [r1, r2] = replicas;
      const before = r1.generation;
      backplane.flush();
      // The retry that was used before the store lost its claims.
      expect(await r2.claim('s1:ok', IN_A_MINUTE(), before)).toBe(false);
      expect(r2.generation).not.toBe(before);
      expect(await r1.claim('s2:ok', IN_A_MINUTE(), before)).toBe(false);
      expect(r1.generation).toBe(r2.generation);
      // States sealed from now on are claimed as before.
      expect(await r1.claim('s3:ok', IN_A_MINUTE(), r1.generation)).toBe(true);
    });

    it('fails closed, saying to retry shortly, while the store cannot be reached', async () => {
      backplane.down = true;
      await expect(replicas[0].claim('s1:ok', IN_A_MINUTE(), replicas[0].generation)).rejects.toThrow(
        "The shared state of the host's replicas (confirmations used) cannot be reached; retry shortly.",
      );
    });
  });
});
