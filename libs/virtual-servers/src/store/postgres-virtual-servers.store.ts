import { PostgresTable, type PostgresTableOptions } from '#libs/core';
import { DOCUMENT_NAME, type VirtualServersDocument } from '../document/virtual-servers.document';
import { VersionConflictError, type VirtualServersStore } from './virtual-servers.store';

/** Options of `PostgresVirtualServersStore`. */
export interface PostgresVirtualServersStoreOptions extends PostgresTableOptions {
  /** The table, created by `open()` when missing. @default 'mcp_virtual_servers' */
  table?: string;
}

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
  private readonly table: PostgresTable;

  constructor(options: PostgresVirtualServersStoreOptions = {}) {
    this.table = new PostgresTable('PostgresVirtualServersStore', options, { table: 'mcp_virtual_servers', max: 2 });
  }

  /** Creates the table when missing; replicas starting together take turns (two CREATEs at once collide). */
  open(): Promise<void> {
    return this.table.create(
      'name text PRIMARY KEY, version integer NOT NULL, document jsonb NOT NULL, updated_at timestamptz NOT NULL DEFAULT now()',
    );
  }

  async load(): Promise<VirtualServersDocument | undefined> {
    const { rows } = await this.table.pool.query<{ document: VirtualServersDocument }>(
      `SELECT document FROM ${this.table.name} WHERE name = $1`,
      [DOCUMENT_NAME],
    );
    return rows[0]?.document;
  }

  async save(document: VirtualServersDocument, expected: number): Promise<void> {
    const json = JSON.stringify(document);
    const { rowCount } =
      expected === 0
        ? await this.table.pool.query(
            `INSERT INTO ${this.table.name} (name, version, document) VALUES ($1, $2, $3) ON CONFLICT (name) DO NOTHING`,
            [DOCUMENT_NAME, document.version, json],
          )
        : await this.table.pool.query(
            `UPDATE ${this.table.name} SET version = $2, document = $3, updated_at = now() WHERE name = $1 AND version = $4`,
            [DOCUMENT_NAME, document.version, json, expected],
          );
    if (rowCount === 0) throw new VersionConflictError(expected, (await this.load())?.version ?? 0);
  }

  async close(): Promise<void> {
    await this.table.pool.end();
  }
}
