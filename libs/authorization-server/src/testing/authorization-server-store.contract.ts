import type { AuthorizationServerStore } from '../state/authorization-server.store';

const later = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * The `AuthorizationServerStore` contract as checks any implementation must pass (the in-process
 * store's and the cluster store's unit specs, the PostgreSQL store's e2e spec run them): values kept
 * until their TTL, `take` and `claim` once however many ask at the same time, `list` and `count` of
 * the live entries of a prefix, `increment` counting each caller once.
 */
export function authorizationServerStoreContract(make: () => AuthorizationServerStore): void {
  let store: AuthorizationServerStore;
  beforeEach(() => {
    store = make();
  });

  it('keeps a value until its TTL, and replaces it', async () => {
    await store.put('client:a', '{"clientId":"a"}', 60_000);
    await store.put('code:b', 'x', 1);
    await later(20);
    expect(await store.get('client:a')).toBe('{"clientId":"a"}');
    expect(await store.get('code:b')).toBeUndefined();
    await store.put('client:a', '{"clientId":"a","usedAt":1}', 60_000);
    expect(await store.get('client:a')).toBe('{"clientId":"a","usedAt":1}');
  });

  it('takes a code once, however many ask at the same time', async () => {
    await store.put('code:a', 'v', 60_000);
    const taken = await Promise.all([store.take('code:a'), store.take('code:a'), store.take('code:a')]);
    expect(taken.filter(Boolean)).toEqual(['v']);
    expect(await store.get('code:a')).toBeUndefined();
  });

  it('claims a jti once however many ask at the same time, and again once it expired', async () => {
    const claims = await Promise.all([store.claim('jti:idp:1', 60_000), store.claim('jti:idp:1', 60_000)]);
    expect(claims.sort()).toEqual([false, true]);
    expect(await store.claim('jti:idp:2', 1)).toBe(true);
    await later(20);
    expect(await store.claim('jti:idp:2', 60_000)).toBe(true);
    expect(await store.claim('jti:idp:2', 60_000)).toBe(false);
  });

  it('lists and counts the live entries of a prefix, and deletes', async () => {
    await store.put('grant:1', 'a', 60_000);
    await store.put('grant:2', 'b', 1);
    await store.put('grant:3', 'c', 60_000);
    await store.put('refresh:x', '1', 60_000);
    await later(20);
    expect((await store.list('grant:')).sort()).toEqual([
      ['grant:1', 'a'],
      ['grant:3', 'c'],
    ]);
    expect(await store.count('grant:')).toBe(2);
    await store.delete('grant:1');
    expect(await store.list('grant:')).toEqual([['grant:3', 'c']]);
    expect(await store.count('grant:')).toBe(1);
    expect(await store.count('nothing:')).toBe(0);
  });

  it('counts each increment once, however many come at the same time, and starts again once the counter expired', async () => {
    const counts = await Promise.all(Array.from({ length: 5 }, () => store.increment('regrate:203.0.113.7:1', 60_000)));
    expect(counts.sort()).toEqual([1, 2, 3, 4, 5]);
    expect(await store.increment('regrate:203.0.113.8:1', 60_000)).toBe(1);
    expect(await store.increment('regrate:203.0.113.9:1', 1)).toBe(1);
    await later(20);
    expect(await store.increment('regrate:203.0.113.9:1', 60_000)).toBe(1);
  });
}
