import { Pool, type PoolConfig } from 'pg';
import type { CatalogPin } from './catalog-pin';
import type { CatalogPinStore } from './catalog-pin.store';

/** Options of `PostgresCatalogPinStore`. */
export interface PostgresCatalogPinStoreOptions {
  /** `postgres://user:password@host:5432/db` */
  connectionString?: string;
  /** Any `pg` pool setting. */
  pool?: PoolConfig;
  /** The table, created by `open()` when missing. @default 'mcp_catalog_pins' */
  table?: string;
}

const IDENTIFIER = /^[A-Za-z_][A-Za-z0-9_]{0,62}$/;

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
  private readonly pool: Pool;
  private readonly table: string;

  constructor(options: PostgresCatalogPinStoreOptions = {}) {
    const table = options.table ?? 'mcp_catalog_pins';
    if (!IDENTIFIER.test(table))
      throw new Error(`PostgresCatalogPinStore option "table": "${table}" is not a plain SQL identifier`);
    if (!options.connectionString && !options.pool)
      throw new Error('PostgresCatalogPinStore needs connectionString (postgres://user:password@host:5432/db)');
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
        `CREATE TABLE IF NOT EXISTS ${this.table} (id text PRIMARY KEY, pin jsonb NOT NULL, updated_at timestamptz NOT NULL DEFAULT now())`,
      );
      await client.query('COMMIT');
    } catch (error) {
      await client.query('ROLLBACK').catch(() => undefined);
      throw error;
    } finally {
      client.release();
    }
  }

  async load(): Promise<CatalogPin[]> {
    const { rows } = await this.pool.query<{ pin: CatalogPin }>(`SELECT pin FROM ${this.table} ORDER BY id`);
    return rows.map((row) => row.pin);
  }

  async save(pins: readonly CatalogPin[]): Promise<void> {
    if (pins.length === 0) return;
    // One statement for the lot: a review's pins are kept together or not at all.
    await this.pool.query(
      `INSERT INTO ${this.table} (id, pin, updated_at)
         SELECT item->>'id', item, now() FROM jsonb_array_elements($1::jsonb) AS item
       ON CONFLICT (id) DO UPDATE SET pin = EXCLUDED.pin, updated_at = now()`,
      [JSON.stringify(pins)],
    );
  }

  async close(): Promise<void> {
    await this.pool.end();
  }
}
