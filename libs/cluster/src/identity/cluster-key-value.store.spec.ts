import { authorizationServerStoreContract } from '../../../authorization-server/src/testing/authorization-server-store.contract';
import { userConnectionStoreContract } from '../../../downstream-identity/src/testing/user-connection-store.contract';
import { McpCluster } from '../replicas/mcp-cluster';
import { MapBackplane } from '../testing/map-backplane';
import { ClusterKeyValueStore } from './cluster-key-value.store';

/** Two replicas' stores of one area on one backplane. */
function replicas(area = 'oauth') {
  const backplane = new MapBackplane();
  const [r1, r2] = ['r1', 'r2'].map(
    (replica) => new ClusterKeyValueStore(new McpCluster({ backplane, replica, namespace: 'desk' }), area),
  );
  return { backplane, r1, r2 };
}

describe('ClusterKeyValueStore', () => {
  describe('the connections store contract', () => {
    userConnectionStoreContract(() => replicas('connections').r1);
  });

  describe('the authorization server store contract', () => {
    authorizationServerStoreContract(() => replicas().r1);
  });

  it('lets a code issued on one replica be taken on another, once', async () => {
    const { r1, r2 } = replicas();
    await r1.put('code:abc', '{"clientId":"c"}', 60_000);
    expect(await Promise.all([r2.take('code:abc'), r1.take('code:abc')])).toEqual(['{"clientId":"c"}', undefined]);
    expect(await r1.list('code:')).toEqual([]);
  });

  it('claims an ID-JAG jti once across replicas', async () => {
    const { r1, r2 } = replicas();
    expect(await r1.claim('jti:https://idp:1', 60_000)).toBe(true);
    expect(await r2.claim('jti:https://idp:1', 60_000)).toBe(false);
  });

  it('lists what any replica put, by group, and keeps areas apart', async () => {
    const { backplane, r1, r2 } = replicas();
    const connections = new ClusterKeyValueStore(
      new McpCluster({ backplane, replica: 'r1', namespace: 'desk' }),
      'connections',
    );
    await r1.put('grant:1', 'a', 60_000);
    await r2.put('grant:2', 'b', 60_000);
    await connections.put('grant:3', 'c', 60_000);
    expect((await r2.list('grant:')).sort()).toEqual([
      ['grant:1', 'a'],
      ['grant:2', 'b'],
    ]);
    await r2.delete('grant:1');
    expect(await r1.list('grant:')).toEqual([['grant:2', 'b']]);
  });

  it('rejects while the backplane cannot be reached (the facade then refuses)', async () => {
    const { backplane, r1 } = replicas();
    backplane.down = true;
    await expect(r1.get('keys')).rejects.toThrow();
    await expect(r1.claim('jti:x', 1_000)).rejects.toThrow();
  });
});
