import { Pool, type PoolConfig } from 'pg';
import { DOCUMENT_NAME, type VirtualServersDocument } from '../document/virtual-servers.document';
import { VersionConflictError, type VirtualServersStore } from './virtual-servers.store';

/** Options of `PostgresVirtualServersStore`. */
export interface PostgresVirtualServersStoreOptions {
  /** `postgres://user:password@host:5432/db` */
  connectionString?: string;
  /** Any `pg` pool setting. */
  pool?: PoolConfig;
  /** The table, created by `open()` when missing. @default 'mcp_virtual_servers' */
  table?: string;
}

const IDENTIFIER = /^[A-Za-z_][A-Za-z0-9_]{0,62}$/;

/**
 * The virtual servers in PostgreSQL, for replicas: one row per document (`name`, `version`,
 * `document` jsonb, `updated_at`), changed only over the version it was read at (an `UPDATE …
 * WHERE version = $expected`, or an `INSERT` that finds no row), so of two replicas changing it at
 * once one wins and the other is told to read it again.
 *
 * @example
 * ```ts
 * import { PostgresVirtualServersStore } from 'nest-mcp-host/postgres';
 * virtualServers: { store: new PostgresVirtualServersStore({ connectionString: process.env.DATABASE_URL }) }
 * ```
 * @throws Error when `table` is not a plain identifier, or no server is given
 */
export class PostgresVirtualServersStore implements VirtualServersStore {
  readonly name = 'postgres';
  private readonly pool: Pool;
  private readonly table: string;

  constructor(options: PostgresVirtualServersStoreOptions = {}) {
    const table = options.table ?? 'mcp_virtual_servers';
    if (!IDENTIFIER.test(table))
      throw new Error(`PostgresVirtualServersStore option "table": "${table}" is not a plain SQL identifier`);
    if (!options.connectionString && !options.pool)
      throw new Error('PostgresVirtualServersStore needs connectionString (postgres://user:password@host:5432/db)');
    this.table = `"${table}"`;
    this.pool = new Pool({
      connectionString: options.connectionString,
      connectionTimeoutMillis: 2_000,
      query_timeout: 5_000,
      max: 2,
      ...options.pool,
    });
    this.pool.on('error', () => undefined);
  }

  /** Creates the table when missing; replicas starting together take turns (two CREATEs at once collide). */
  async open(): Promise<void> {
    const client = await this.pool.connect();
    try {
      await client.query('BEGIN');
      await client.query('SELECT pg_advisory_xact_lock(hashtext($1))', [`${this.table}:create`]);
      await client.query(
        `CREATE TABLE IF NOT EXISTS ${this.table} (name text PRIMARY KEY, version integer NOT NULL, document jsonb NOT NULL, updated_at timestamptz NOT NULL DEFAULT now())`,
      );
      await client.query('COMMIT');
    } catch (error) {
      await client.query('ROLLBACK').catch(() => undefined);
      throw error;
    } finally {
      client.release();
    }
  }

  async load(): Promise<VirtualServersDocument | undefined> {
    const { rows } = await this.pool.query<{ document: VirtualServersDocument }>(
      `SELECT document FROM ${this.table} WHERE name = $1`,
      [DOCUMENT_NAME],
    );
    return rows[0]?.document;
  }

  async save(document: VirtualServersDocument, expected: number): Promise<void> {
    const json = JSON.stringify(document);
    const { rowCount } =
      expected === 0
        ? await this.pool.query(
            `INSERT INTO ${this.table} (name, version, document) VALUES ($1, $2, $3) ON CONFLICT (name) DO NOTHING`,
            [DOCUMENT_NAME, document.version, json],
          )
        : await this.pool.query(
            `UPDATE ${this.table} SET version = $2, document = $3, updated_at = now() WHERE name = $1 AND version = $4`,
            [DOCUMENT_NAME, document.version, json, expected],
          );
    if (rowCount === 0) throw new VersionConflictError(expected, (await this.load())?.version ?? 0);
  }

  async close(): Promise<void> {
    await this.pool.end();
  }
}
