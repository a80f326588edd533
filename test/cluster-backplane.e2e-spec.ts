import { RedisClusterBackplane } from 'nest-mcp-host/redis';
import type { McpClusterMessage } from 'nest-mcp-host';
import { startRedisServer, type RedisServer } from './support/redis-server';
import { waitFor, waitForAsync } from './support/wait-for';

/** The Redis backplane against a real redis-server: what the replicas' shared state is built on. */
describe('RedisClusterBackplane', () => {
  let redis: RedisServer;
  let a: RedisClusterBackplane;
  let b: RedisClusterBackplane;
  const heardByB: McpClusterMessage[] = [];

  beforeAll(async () => {
    redis = await startRedisServer();
    a = new RedisClusterBackplane(redis.url, 'test:cluster');
    b = new RedisClusterBackplane(redis.url, 'test:cluster');
    await a.subscribe(() => undefined);
    await b.subscribe((message) => heardByB.push(message));
  });
  afterAll(async () => {
    await a?.close();
    await b?.close();
    await redis?.stop();
  });

  it('shares JSON values, with expiry', async () => {
    await a.set('k:1', { session: 's1', level: 'info' }, 10_000);
    expect(await b.get('k:1')).toEqual({ session: 's1', level: 'info' });
    await a.set('k:short', 1, 50);
    await waitForAsync(async () => (await b.get('k:short')) === undefined, 2_000);
    expect(await b.expire('k:1', 60_000)).toBe(true);
    expect(await b.expire('k:none', 60_000)).toBe(false);
    await b.delete('k:1');
    expect(await a.get('k:1')).toBeUndefined();
  });

  it('lets one replica only set a key first, and one only take it', async () => {
    const set = await Promise.all([a.setIfAbsent('once', 'a', 10_000), b.setIfAbsent('once', 'b', 10_000)]);
    expect(set.filter(Boolean)).toHaveLength(1);
    const taken = await Promise.all([a.take('once'), b.take('once'), a.take('once')]);
    expect(taken.filter((value) => value !== undefined)).toHaveLength(1);
    expect(['a', 'b']).toContain(taken.find((value) => value !== undefined));
  });

  it('appends to a capped list whose entries keep their numbers', async () => {
    for (let i = 1; i <= 5; i++) expect(await a.append('events', `e${i}`, 3, 10_000)).toBe(i);
    expect(await b.readAfter('events', 0)).toEqual([
      { seq: 3, value: 'e3' },
      { seq: 4, value: 'e4' },
      { seq: 5, value: 'e5' },
    ]);
    expect(await b.readAfter('events', 4)).toEqual([{ seq: 5, value: 'e5' }]);
    // A value with newlines survives.
    const seq = await a.append('events', 'line one\nline two', 3, 10_000);
    expect(await b.readAfter('events', seq - 1)).toEqual([{ seq, value: 'line one\nline two' }]);
  });

  it('keeps an index of live members', async () => {
    const now = Date.now();
    await a.indexAdd('live', 'm1', now + 60_000);
    await b.indexAdd('live', 'm2', now + 60_000);
    await a.indexAdd('live', 'gone', now - 1);
    expect((await b.indexMembers('live', Date.now())).sort()).toEqual(['m1', 'm2']);
    await b.indexRemove('live', 'm1');
    expect(await a.indexMembers('live', Date.now())).toEqual(['m2']);
  });

  it('tells every subscriber what one publishes', async () => {
    await a.publish({ type: 'hello', n: 1 });
    await waitFor(() => heardByB.some((message) => message.type === 'hello'));
    expect(heardByB.find((message) => message.type === 'hello')).toEqual({ type: 'hello', n: 1 });
  });

  it('fails at once while Redis is down, and works again (subscription included) once it is back', async () => {
    await redis.stop();
    await expect(a.get('k:1')).rejects.toBeDefined();
    await expect(a.publish({ type: 'lost' })).rejects.toBeDefined();
    await redis.start();
    await waitForAsync(
      () =>
        a.ping().then(
          () => true,
          () => false,
        ),
      10_000,
    );
    await waitForAsync(async () => {
      await a.publish({ type: 'back' }).catch(() => undefined);
      return heardByB.some((message) => message.type === 'back');
    }, 10_000);
    await a.set('k:2', 'ok', 10_000);
    expect(await b.get('k:2')).toBe('ok');
  });
});
