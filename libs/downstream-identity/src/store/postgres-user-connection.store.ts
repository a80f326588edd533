import { Pool, type PoolConfig } from 'pg';
import type { UserConnectionStore } from './user-connection.store';

export interface PostgresUserConnectionStoreOptions {
  /** `postgres://user:password@host:5432/db` (or give `pool`). */
  connectionString?: string;
  /** Any `pg` pool setting; wins over the defaults (`connectionTimeoutMillis` 2 000, `query_timeout` 5 000, `max` 4). */
  pool?: PoolConfig;
  /** The table (a plain identifier), created on first use. @default 'mcp_user_connections' */
  table?: string;
}

const IDENTIFIER = /^[A-Za-z_][A-Za-z0-9_]{0,62}$/;

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
  private readonly pool: Pool;
  private readonly table: string;
  private ready: Promise<void> | undefined;

  constructor(options: PostgresUserConnectionStoreOptions) {
    const table = options.table ?? 'mcp_user_connections';
    if (!IDENTIFIER.test(table))
      throw new Error(`PostgresUserConnectionStore option "table": "${table}" is not a plain SQL identifier`);
    if (!options.connectionString && !options.pool)
      throw new Error(
        'PostgresUserConnectionStore needs connectionString (postgres://user:password@host:5432/db) or pool settings',
      );
    this.table = `"${table}"`;
    this.pool = new Pool({
      connectionString: options.connectionString,
      connectionTimeoutMillis: 2_000,
      query_timeout: 5_000,
      max: 4,
      ...options.pool,
    });
    // A server that goes away fails the next query; it never crashes the process.
    this.pool.on('error', () => undefined);
  }

  async put(key: string, value: string, ttlMs: number): Promise<void> {
    await this.query(
      `INSERT INTO ${this.table} (key, value, expires_at) VALUES ($1, $2, now() + $3 * interval '1 millisecond')
       ON CONFLICT (key) DO UPDATE SET value = EXCLUDED.value, expires_at = EXCLUDED.expires_at`,
      [key, value, ttlMs],
    );
  }

  async get(key: string): Promise<string | undefined> {
    const rows = await this.query(`SELECT value FROM ${this.table} WHERE key = $1 AND expires_at > now()`, [key]);
    return rows[0]?.value;
  }

  async take(key: string): Promise<string | undefined> {
    const rows = await this.query(
      `DELETE FROM ${this.table} WHERE key = $1 RETURNING value, expires_at > now() AS live`,
      [key],
    );
    return rows[0]?.live ? rows[0].value : undefined;
  }

  async delete(key: string): Promise<void> {
    await this.query(`DELETE FROM ${this.table} WHERE key = $1`, [key]);
  }

  async list(prefix: string): Promise<[string, string][]> {
    const rows = await this.query(
      `SELECT key, value FROM ${this.table} WHERE left(key, length($1)) = $1 AND expires_at > now() ORDER BY key`,
      [prefix],
    );
    return rows.map((row) => [row.key!, row.value]);
  }

  /** Ends the pool's connections. */
  async close(): Promise<void> {
    await this.pool.end();
  }

  private async query(text: string, values: unknown[]): Promise<{ key?: string; value: string; live?: boolean }[]> {
    this.ready ??= this.pool
      .query(
        `CREATE TABLE IF NOT EXISTS ${this.table} (key text PRIMARY KEY, value text NOT NULL, expires_at timestamptz NOT NULL)`,
      )
      .then(() => undefined)
      .catch((error: unknown) => {
        this.ready = undefined;
        throw error;
      });
    await this.ready;
    return (await this.pool.query(text, values)).rows as { key?: string; value: string; live?: boolean }[];
  }
}
