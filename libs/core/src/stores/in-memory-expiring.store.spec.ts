import { InMemoryExpiringStore } from './in-memory-expiring.store';

describe('InMemoryExpiringStore', () => {
  afterEach(() => jest.useRealTimers());

  it('gives a value to one taker only, and a key to its first claim only', async () => {
    const store = new InMemoryExpiringStore();
    await store.put('code:1', 'grant', 60_000);
    await expect(store.take('code:1')).resolves.toBe('grant');
    await expect(store.take('code:1')).resolves.toBeUndefined();
    await expect(store.claim('jti:a', 60_000)).resolves.toBe(true);
    await expect(store.claim('jti:a', 60_000)).resolves.toBe(false);
  });

  it('forgets what expired, lists the live entries of a prefix, deletes', async () => {
    jest.useFakeTimers({ now: 1_000_000 });
    const store = new InMemoryExpiringStore();
    await store.put('grant:alice:1', 'a1', 1_000);
    await store.put('grant:alice:2', 'a2', 10_000);
    await store.put('grant:bob:1', 'b1', 10_000);
    jest.setSystemTime(1_002_000);
    await expect(store.get('grant:alice:1')).resolves.toBeUndefined();
    await expect(store.list('grant:alice:')).resolves.toEqual([['grant:alice:2', 'a2']]);
    await expect(store.claim('grant:alice:1', 1_000)).resolves.toBe(true);
    await store.delete('grant:bob:1');
    await expect(store.list('grant:bob:')).resolves.toEqual([]);
  });
});
