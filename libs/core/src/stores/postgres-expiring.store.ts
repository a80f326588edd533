import { PostgresTable, type PostgresTableOptions } from './postgres-table';

/** Expired rows are deleted by a write at most this often (reads already ignore them). */
const SWEEP_EVERY_MS = 60_000;

type Row = { key?: string; value: string; live?: boolean; count?: string };

/**
 * Strings under keys that expire, in a PostgreSQL table: the shared implementation of the
 * key-value stores features keep their state in (the authorization server's, the accounts people
 * connect), as `InMemoryExpiringStore` is for one process. One row per key, its expiry a column;
 * the table is created on first use (replicas starting together take turns) and expired rows are
 * swept by writes. `take` is one `DELETE … RETURNING`, `claim` and `increment` one
 * `INSERT … ON CONFLICT` each, so two replicas asking at once get one answer each.
 * @internal
 */
export class PostgresExpiringStore {
  private readonly table: PostgresTable;
  private ready: Promise<void> | undefined;
  private sweptAt = 0;

  /**
   * @param store the store's class name, for messages
   * @throws Error when `table` is not a plain identifier, or no server is given
   */
  constructor(store: string, options: PostgresTableOptions, defaultTable: string) {
    this.table = new PostgresTable(store, options, { table: defaultTable, max: 4 });
  }

  async put(key: string, value: string, ttlMs: number): Promise<void> {
    await this.query(
      `INSERT INTO ${this.table.name} (key, value, expires_at) VALUES ($1, $2, now() + $3 * interval '1 millisecond')
       ON CONFLICT (key) DO UPDATE SET value = EXCLUDED.value, expires_at = EXCLUDED.expires_at`,
      [key, value, ttlMs],
    );
    await this.sweep();
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

  async claim(key: string, ttlMs: number): Promise<boolean> {
    // An expired row is claimed over; a live one makes the statement change nothing (no row back).
    const rows = await this.query(
      `INSERT INTO ${this.table.name} AS t (key, value, expires_at) VALUES ($1, '1', now() + $2 * interval '1 millisecond')
       ON CONFLICT (key) DO UPDATE SET value = EXCLUDED.value, expires_at = EXCLUDED.expires_at
       WHERE t.expires_at <= now() RETURNING value`,
      [key, ttlMs],
    );
    return rows.length === 1;
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

  async increment(key: string, ttlMs: number): Promise<number> {
    const rows = await this.query(
      `INSERT INTO ${this.table.name} AS t (key, value, expires_at) VALUES ($1, '1', now() + $2 * interval '1 millisecond')
       ON CONFLICT (key) DO UPDATE SET
         value = CASE WHEN t.expires_at > now() THEN (t.value::bigint + 1)::text ELSE '1' END,
         expires_at = CASE WHEN t.expires_at > now() THEN t.expires_at ELSE EXCLUDED.expires_at END
       RETURNING value`,
      [key, ttlMs],
    );
    await this.sweep();
    return Number(rows[0].value);
  }

  async count(prefix: string): Promise<number> {
    const rows = await this.query(
      `SELECT count(*) AS count, '' AS value FROM ${this.table.name} WHERE left(key, length($1)) = $1 AND expires_at > now()`,
      [prefix],
    );
    return Number(rows[0].count);
  }

  /** Ends the pool's connections (the host calls it at shutdown). */
  async close(): Promise<void> {
    await this.table.pool.end();
  }

  /** Deletes the rows that expired, at most once a minute: unused registrations and spent codes do not pile up. */
  private async sweep(): Promise<void> {
    if (Date.now() - this.sweptAt < SWEEP_EVERY_MS) return;
    this.sweptAt = Date.now();
    await this.query(`DELETE FROM ${this.table.name} WHERE expires_at <= now()`, []);
  }

  private async query(text: string, values: unknown[]): Promise<Row[]> {
    this.ready ??= this.table
      .create('key text PRIMARY KEY, value text NOT NULL, expires_at timestamptz NOT NULL')
      .catch((error: unknown) => {
        this.ready = undefined;
        throw error;
      });
    await this.ready;
    return (await this.table.pool.query(text, values)).rows as Row[];
  }
}
