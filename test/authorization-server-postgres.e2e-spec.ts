import { PostgresAuthorizationServerStore } from 'nest-mcp-host/postgres';
import { authorizationServerStoreContract } from '../libs/authorization-server/src/testing/authorization-server-store.contract';
import { postgresStores } from './support/postgres-server';

/** The authorization server's PostgreSQL store on a real server: the store contract, and two replicas on one table. */
describe('PostgresAuthorizationServerStore', () => {
  const { make } = postgresStores(
    (connectionString, table) => new PostgresAuthorizationServerStore({ connectionString, table }),
    'facade',
  );

  describe('the contract', () => {
    authorizationServerStoreContract(() => make());
  });

  it('answers two replicas on one table once each: a code taken once, a jti claimed once, every registration counted', async () => {
    const [one, two] = [make('shared'), make('shared')];
    await one.put('code:c', 'grant', 60_000);
    expect((await Promise.all([one.take('code:c'), two.take('code:c')])).sort()).toEqual(['grant', undefined]);
    expect((await Promise.all([one.claim('jti:x', 60_000), two.claim('jti:x', 60_000)])).sort()).toEqual([false, true]);
    const counts = await Promise.all(
      Array.from({ length: 6 }, (_, i) => (i % 2 ? one : two).increment('regrate:203.0.113.9:1', 60_000)),
    );
    expect(counts.sort()).toEqual([1, 2, 3, 4, 5, 6]);
    await one.put('client:a', '{}', 60_000);
    expect(await two.get('client:a')).toBe('{}');
    expect(await two.count('client:')).toBe(1);
  });

  it('refuses a table name that is not a plain identifier', () => {
    expect(() => new PostgresAuthorizationServerStore({ connectionString: 'postgres://x', table: 'a; DROP' })).toThrow(
      /not a plain SQL identifier/,
    );
  });
});
