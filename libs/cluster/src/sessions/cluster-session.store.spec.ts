import type { ProtocolOptions } from '#libs/protocol';
import { McpCluster } from '../replicas/mcp-cluster';
import { MapBackplane } from '../testing/map-backplane';
import { ClusterSessionStore } from './cluster-session.store';

const options = {
  sessions: { idleTtlMs: 60_000, max: 100, maxPerPrincipal: 10, maxSubscriptions: 10 },
} as ProtocolOptions;

/** Lets the backplane deliver what was published (as Redis does, a little later). */
const delivered = () => new Promise((resolve) => setImmediate(resolve));

describe('ClusterSessionStore', () => {
  const started: { cluster: McpCluster; store: ClusterSessionStore }[] = [];
  async function replica(name: string, backplane: MapBackplane) {
    const cluster = new McpCluster({ backplane, replica: name, namespace: 'desk' });
    await cluster.onModuleInit();
    const store = new ClusterSessionStore(options, cluster);
    started.push({ cluster, store });
    return store;
  }
  afterEach(async () => {
    for (const { cluster, store } of started.splice(0)) {
      store.onModuleDestroy();
      await cluster.onApplicationShutdown();
    }
  });

  it('serves a session opened on one replica on another, whose requests to the client name it', async () => {
    const backplane = new MapBackplane();
    const [r1, r2] = [await replica('r1', backplane), await replica('r2', backplane)];
    const opened = r1.create('alice');
    opened.logLevel = 'debug';
    await r1.commit(opened);
    const copy = await r2.resolve(opened.id!);
    expect(copy).not.toBe(opened);
    expect(copy).toMatchObject({ id: opened.id, principalId: 'alice', logLevel: 'debug' });
    expect([opened.clientRequests.idPrefix, copy!.clientRequests.idPrefix]).toEqual(['r1', 'r2']);
    expect(await r2.countOnEveryReplica()).toBe(1);
  });

  it("applies a change another replica committed to this one's copy at once, from the message", async () => {
    const backplane = new MapBackplane();
    const [r1, r2] = [await replica('r1', backplane), await replica('r2', backplane)];
    const opened = r1.create('alice');
    await r1.commit(opened);
    const copy = (await r2.resolve(opened.id!))!;
    opened.subscriptions.add('desk://tickets/1');
    await r1.commit(opened);
    await delivered();
    // r2 has not read the store again: the subscription came with the message.
    expect([...copy.subscriptions]).toEqual(['desk://tickets/1']);
  });

  it('ends a session on every replica, and a copy of an ended session resolves to nothing', async () => {
    const backplane = new MapBackplane();
    const [r1, r2] = [await replica('r1', backplane), await replica('r2', backplane)];
    const opened = r1.create('alice');
    await r1.commit(opened);
    await r2.resolve(opened.id!);
    const ended: string[] = [];
    r2.onClose((session) => ended.push(session.id!));
    await r1.end(opened.id!, 'session ended by the client');
    await delivered();
    expect(ended).toEqual([opened.id]);
    expect(await r2.resolve(opened.id!)).toBeUndefined();
    expect(await r1.countOnEveryReplica()).toBe(0);
  });

  it('has nothing to write for a session it does not hold, and fails closed while the store is down', async () => {
    const backplane = new MapBackplane();
    const r1 = await replica('r1', backplane);
    const opened = r1.create('alice');
    expect(r1.commit({ ...opened, id: 'elsewhere' } as typeof opened)).toBeUndefined();
    backplane.down = true;
    await expect(r1.commit(opened)).rejects.toThrow('ECONNREFUSED');
    await expect(r1.resolve(opened.id!)).rejects.toThrow('ECONNREFUSED');
    expect(await r1.countOnEveryReplica()).toBeNull();
  });
});
