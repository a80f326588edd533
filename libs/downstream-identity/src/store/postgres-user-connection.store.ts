import { PostgresTable, type PostgresTableOptions } from '#libs/core';
import type { UserConnectionStore } from './user-connection.store';

export interface PostgresUserConnectionStoreOptions extends PostgresTableOptions {
  /** The table (a plain identifier), created on first use. @default 'mcp_user_connections' */
  table?: string;
}

/**
 * The accounts people connected, in PostgreSQL (`pg`), for hosts of several replicas: one row
 * per key, the value sealed by the host (AES-256-GCM; the database never holds a token in the
 * clear), its expiry a column. The table is created on first use. `take` is one
 * `DELETE … RETURNING`, so two replicas taking one key: one gets it.
 *
 * @example
 * ```ts
 * downstream: { connections: { encryptionKey: process.env.CONNECTIONS_KEY!, store: new PostgresUserConnectionStore({ connectionString: process.env.DATABASE_URL }) } }
 * ```
 * @throws Error at construction when `table` is not a plain identifier, or no server is given.
 */
export class PostgresUserConnectionStore implements UserConnectionStore {
  private readonly table: PostgresTable;
  private ready: Promise<void> | undefined;

  constructor(options: PostgresUserConnectionStoreOptions) {
    this.table = new PostgresTable('PostgresUserConnectionStore', options, { table: 'mcp_user_connections', max: 4 });
  }

  async put(key: string, value: string, ttlMs: number): Promise<void> {
    await this.query(
      `INSERT INTO ${this.table.name} (key, value, expires_at) VALUES ($1, $2, now() + $3 * interval '1 millisecond')
       ON CONFLICT (key) DO UPDATE SET value = EXCLUDED.value, expires_at = EXCLUDED.expires_at`,
      [key, value, ttlMs],
    );
  }

  async get(key: string): Promise<string | undefined> {
    const rows = await this.query(`SELECT value FROM ${this.table.name} WHERE key = $1 AND expires_at > now()`, [key]);
    return rows[0]?.value;
  }

  async take(key: string): Promise<string | undefined> {
    const rows = await this.query(
      `DELETE FROM ${this.table.name} WHERE key = $1 RETURNING value, expires_at > now() AS live`,
      [key],
    );
    return rows[0]?.live ? rows[0].value : undefined;
  }

  async delete(key: string): Promise<void> {
    await this.query(`DELETE FROM ${this.table.name} WHERE key = $1`, [key]);
  }

  async list(prefix: string): Promise<[string, string][]> {
    const rows = await this.query(
      `SELECT key, value FROM ${this.table.name} WHERE left(key, length($1)) = $1 AND expires_at > now() ORDER BY key`,
      [prefix],
    );
    return rows.map((row) => [row.key!, row.value]);
  }

  /** Ends the pool's connections. */
  async close(): Promise<void> {
    await this.table.pool.end();
  }

  private async query(text: string, values: unknown[]): Promise<{ key?: string; value: string; live?: boolean }[]> {
    this.ready ??= this.table
      .create('key text PRIMARY KEY, value text NOT NULL, expires_at timestamptz NOT NULL')
      .catch((error: unknown) => {
        this.ready = undefined;
        throw error;
      });
    await this.ready;
    return (await this.table.pool.query(text, values)).rows as { key?: string; value: string; live?: boolean }[];
  }
}
