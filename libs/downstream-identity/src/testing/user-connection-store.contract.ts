import type { UserConnectionStore } from '../store/user-connection.store';

/**
 * The `UserConnectionStore` contract as checks any implementation must pass (the in-process
 * store's unit spec and the PostgreSQL store's e2e spec run them): values kept until their TTL,
 * `take` once, `list` by prefix with live entries only.
 */
export function userConnectionStoreContract(make: () => UserConnectionStore): void {
  let store: UserConnectionStore;
  beforeEach(() => {
    store = make();
  });

  it('keeps a value until its TTL, and replaces it', async () => {
    await store.put('conn|api crm|alice', 'v1', 60_000);
    expect(await store.get('conn|api crm|alice')).toBe('v1');
    await store.put('conn|api crm|alice', 'v2', 60_000);
    expect(await store.get('conn|api crm|alice')).toBe('v2');
    await store.put('short', 'gone', 1);
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(await store.get('short')).toBeUndefined();
  });

  it('takes a value once', async () => {
    await store.put('state|abc', 'pending', 60_000);
    const [first, second] = await Promise.all([store.take('state|abc'), store.take('state|abc')]);
    expect([first, second].sort()).toEqual(['pending', undefined]);
    expect(await store.get('state|abc')).toBeUndefined();
  });

  it('lists the live entries of a prefix, and deletes', async () => {
    await store.put('conn|api crm|alice', 'a', 60_000);
    await store.put('conn|api crm|bob|x', 'b', 60_000);
    await store.put('conn|api ledger|alice', 'c', 60_000);
    await store.put('conn|api crm|expired', 'd', 1);
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect((await store.list('conn|api crm|')).sort()).toEqual([
      ['conn|api crm|alice', 'a'],
      ['conn|api crm|bob|x', 'b'],
    ]);
    await store.delete('conn|api crm|alice');
    expect(await store.list('conn|api crm|')).toEqual([['conn|api crm|bob|x', 'b']]);
  });
}
