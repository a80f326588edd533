import { randomBytes } from 'node:crypto';
import { Client as PgClient } from 'pg';
import { PostgresUserConnectionStore } from 'nest-mcp-host/postgres';
import { SealedBox } from '#libs/downstream-identity';
import { userConnectionStoreContract } from '../libs/downstream-identity/src/testing/user-connection-store.contract';
import { postgresStores } from './support/postgres-server';

/** The connected accounts' PostgreSQL store on a real server: the store contract, and no token in the clear. */
describe('PostgresUserConnectionStore', () => {
  const { make, url } = postgresStores(
    (connectionString, table) => new PostgresUserConnectionStore({ connectionString, table }),
    'connections',
  );

  describe('the contract', () => {
    userConnectionStoreContract(() => make());
  });

  it('holds sealed values only: the token is nowhere in the table', async () => {
    const store = make('sealed');
    const box = new SealedBox(randomBytes(32));
    const token = `crm-access-${randomBytes(8).toString('hex')}`;
    await store.put('conn|api crm|alice', box.seal(JSON.stringify({ accessToken: token }), 'alice\napi crm'), 60_000);
    const db = new PgClient({ connectionString: url() });
    await db.connect();
    try {
      const { rows } = await db.query<{ value: string }>('SELECT value FROM sealed');
      expect(rows).toHaveLength(1);
      expect(rows[0].value).not.toContain(token);
      expect(box.open(rows[0].value, 'alice\napi crm')).toContain(token);
    } finally {
      await db.end();
    }
  });

  it('refuses a table name that is not a plain identifier', () => {
    expect(() => new PostgresUserConnectionStore({ connectionString: 'postgres://x', table: 'a; DROP' })).toThrow(
      /not a plain SQL identifier/,
    );
  });
});
