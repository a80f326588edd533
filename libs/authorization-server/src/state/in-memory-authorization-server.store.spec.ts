import { InMemoryAuthorizationServerStore } from './in-memory-authorization-server.store';

describe('InMemoryAuthorizationServerStore', () => {
  let store: InMemoryAuthorizationServerStore;
  beforeEach(() => (store = new InMemoryAuthorizationServerStore()));
  const later = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

  it('keeps a value until its TTL', async () => {
    await store.put('code:a', '{"clientId":"c"}', 60_000);
    await store.put('code:b', 'x', 1);
    await later(10);
    expect(await store.get('code:a')).toBe('{"clientId":"c"}');
    expect(await store.get('code:b')).toBeUndefined();
  });

  it('takes a code once, however many ask at the same time', async () => {
    await store.put('code:a', 'v', 60_000);
    const taken = await Promise.all([store.take('code:a'), store.take('code:a'), store.take('code:a')]);
    expect(taken.filter(Boolean)).toEqual(['v']);
  });

  it('claims a jti once until it expires, then again', async () => {
    expect(await store.claim('jti:idp:1', 20)).toBe(true);
    expect(await store.claim('jti:idp:1', 20)).toBe(false);
    await later(30);
    expect(await store.claim('jti:idp:1', 20)).toBe(true);
  });

  it('lists the live entries of a prefix, and deletes', async () => {
    await store.put('grant:1', 'a', 60_000);
    await store.put('grant:2', 'b', 1);
    await store.put('refresh:x', '1', 60_000);
    await later(10);
    expect(await store.list('grant:')).toEqual([['grant:1', 'a']]);
    await store.delete('grant:1');
    expect(await store.list('grant:')).toEqual([]);
  });
});
