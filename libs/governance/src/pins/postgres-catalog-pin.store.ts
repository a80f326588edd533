import { PostgresTable, type PostgresTableOptions } from '#libs/core';
import type { CatalogPin } from './catalog-pin';
import type { CatalogPinStore } from './catalog-pin.store';

/** Options of `PostgresCatalogPinStore`. */
export interface PostgresCatalogPinStoreOptions extends PostgresTableOptions {
  /** The table, created by `open()` when missing. @default 'mcp_catalog_pins' */
  table?: string;
}

/**
 * The pins of pinned catalogs in PostgreSQL, shared by the replicas: one row per pin (`id`, `pin`
 * jsonb, `updated_at`), each written over the one with its id. An approval made on one replica is
 * read by the others at once when they are told (the `cluster` option's backplane) or at their
 * next `governance.pinning.resyncMs`.
 *
 * @example
 * ```ts
 * import { PostgresCatalogPinStore } from 'nest-mcp-host/postgres';
 * governance: { pinning: { store: new PostgresCatalogPinStore({ connectionString: process.env.DATABASE_URL }) } }
 * ```
 * @throws Error when `table` is not a plain identifier, or no server is given
 */
export class PostgresCatalogPinStore implements CatalogPinStore {
  readonly name = 'postgres';
  readonly shared = true;
  private readonly table: PostgresTable;

  constructor(options: PostgresCatalogPinStoreOptions = {}) {
    this.table = new PostgresTable('PostgresCatalogPinStore', options, { table: 'mcp_catalog_pins', max: 2 });
  }

  /** Creates the table when missing; replicas starting together take turns (two CREATEs at once collide). */
  open(): Promise<void> {
    return this.table.create('id text PRIMARY KEY, pin jsonb NOT NULL, updated_at timestamptz NOT NULL DEFAULT now()');
  }

  async load(): Promise<CatalogPin[]> {
    const { rows } = await this.table.pool.query<{ pin: CatalogPin }>(`SELECT pin FROM ${this.table.name} ORDER BY id`);
    return rows.map((row) => row.pin);
  }

  async save(pins: readonly CatalogPin[]): Promise<void> {
    if (pins.length === 0) return;
    // One statement for the lot: a review's pins are kept together or not at all.
    await this.table.pool.query(
      `INSERT INTO ${this.table.name} (id, pin, updated_at)
         SELECT item->>'id', item, now() FROM jsonb_array_elements($1::jsonb) AS item
       ON CONFLICT (id) DO UPDATE SET pin = EXCLUDED.pin, updated_at = now()`,
      [JSON.stringify(pins)],
    );
  }

  async close(): Promise<void> {
    await this.table.pool.end();
  }
}
