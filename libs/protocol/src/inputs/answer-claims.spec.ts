import { McpCluster } from '#libs/cluster';
import { MapBackplane } from '../../../cluster/src/testing/map-backplane';
import { AnswerClaims } from './answer-claims';

const IN_A_MINUTE = () => Date.now() + 60_000;

describe('AnswerClaims', () => {
  it('claims an answer once, and none of a state issued under another generation (another process)', async () => {
    const claims = new AnswerClaims();
    const { generation } = claims;
    expect(await claims.claim('s1:ok', IN_A_MINUTE(), generation)).toBe(true);
    expect(await claims.claim('s1:ok', IN_A_MINUTE(), generation)).toBe(false);
    // The same secret in a restarted process: this one's claims never saw s2's use.
    const restarted = new AnswerClaims();
    expect(restarted.generation).not.toBe(generation);
    expect(await restarted.claim('s2:ok', IN_A_MINUTE(), generation)).toBe(false);
    // A state sealed before generations were recorded counts as another generation.
    expect(await restarted.claim('s3:ok', IN_A_MINUTE(), undefined)).toBe(false);
  });

  describe('on a cluster backplane', () => {
    let backplane: MapBackplane;
    let replicas: AnswerClaims[];
    beforeEach(async () => {
      backplane = new MapBackplane();
      replicas = ['r1', 'r2'].map(
        (replica) => new AnswerClaims(new McpCluster({ backplane, replica, namespace: 'desk' })),
      );
      for (const claims of replicas) await claims.onApplicationBootstrap();
    });

    it('shares one generation and one use between replicas, and across a restart of one of them', async () => {
      const [r1, r2] = replicas;
      expect(r1.generation).toBe(r2.generation);
      expect(await r1.claim('s1:ok', IN_A_MINUTE(), r1.generation)).toBe(true);
      expect(await r2.claim('s1:ok', IN_A_MINUTE(), r1.generation)).toBe(false);
      const restarted = new AnswerClaims(new McpCluster({ backplane, replica: 'r1', namespace: 'desk' }));
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
