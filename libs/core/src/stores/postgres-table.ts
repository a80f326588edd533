import type { Pool, PoolClient, PoolConfig } from 'pg';
import { optionalDependency } from '../optional/optional-dependency';

// Required by the first store made: only the `nest-mcp-host/postgres` entry's stores make one.
const pg = optionalDependency(
  'pg',
  'the PostgreSQL stores (nest-mcp-host/postgres)',
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  (): typeof import('pg') => require('pg'),
);

/** Where a PostgreSQL store keeps its rows: the server, and its table's name. */
export interface PostgresTableOptions {
  /** `postgres://user:password@host:5432/db` (or give `pool`). */
  connectionString?: string;
  /** Any `pg` pool setting; wins over the defaults (`connectionTimeoutMillis` 2 000, `query_timeout` 5 000). */
  pool?: PoolConfig;
  /** The table, a plain SQL identifier. */
  table?: string;
}

/** A plain SQL identifier: quoted as it is, it can neither inject nor collide with a keyword. */
export const SQL_IDENTIFIER = /^[A-Za-z_][A-Za-z0-9_]{0,62}$/;

/**
 * The table of one PostgreSQL store and its pool: the options checked (a plain identifier, a
 * server given), the pool made with short timeouts (a server that goes away fails the next query
 * and never crashes the process), the table created once, replicas starting together taking
 * turns, and transactions rolled back on failure.
 */
export class PostgresTable {
  readonly pool: Pool;
  /** The table's quoted name, for SQL text. */
  readonly name: string;

  /**
   * @param store the store's class name, for messages
   * @throws Error when `table` is not a plain identifier, or no server is given
   */
  constructor(store: string, options: PostgresTableOptions, defaults: { table: string; max: number }) {
    const table = options.table ?? defaults.table;
    if (!SQL_IDENTIFIER.test(table))
      throw new Error(`${store} option "table": "${table}" is not a plain SQL identifier`);
    if (!options.connectionString && !options.pool)
      throw new Error(`${store} needs connectionString (postgres://user:password@host:5432/db) or pool settings`);
    this.name = `"${table}"`;
    this.pool = new (pg().Pool)({
      connectionString: options.connectionString,
      connectionTimeoutMillis: 2_000,
      query_timeout: 5_000,
      max: defaults.max,
      ...options.pool,
    });
    this.pool.on('error', () => undefined);
  }

  /** Creates the table (`columns`: its definition) when missing; replicas starting together take turns (two CREATEs at once collide). */
  create(columns: string): Promise<void> {
    return this.transaction(async (client) => {
      await client.query('SELECT pg_advisory_xact_lock(hashtext($1))', [`${this.name}:create`]);
      await client.query(`CREATE TABLE IF NOT EXISTS ${this.name} (${columns})`);
    });
  }

  /** Runs `work` in a transaction on one connection: committed, or rolled back when it throws. */
  async transaction<T>(work: (client: PoolClient) => Promise<T>): Promise<T> {
    const client = await this.pool.connect();
    try {
      await client.query('BEGIN');
      const result = await work(client);
      await client.query('COMMIT');
      return result;
    } catch (error) {
      await client.query('ROLLBACK').catch(() => undefined);
      throw error;
    } finally {
      client.release();
    }
  }
}
