import { Pool, type PoolClient, type PoolConfig } from 'pg';
import type { AuditRecord } from './audit-record';
import type { AuditChainTail, AuditSink } from './audit-sink';
import { batchText } from './audit-chain';

export interface PostgresAuditSinkOptions {
  /** `postgres://user:password@host:5432/db` (or give `pool`). */
  connectionString?: string;
  /** Any `pg` pool setting; wins over the defaults (2 s to connect, 5 s per query, 4 connections). */
  pool?: PoolConfig;
  /** The records' table. @default 'mcp_audit_records' */
  table?: string;
  /** The schema of both tables. @default the connection's search path (usually `public`) */
  schema?: string;
}

const IDENTIFIER = /^[A-Za-z_][A-Za-z0-9_]{0,62}$/;
/** Rows per INSERT: 13 parameters each stays far below PostgreSQL's 65 535. */
const ROWS_PER_INSERT = 1_000;
const READ_PAGE = 1_000;

/**
 * The audit sink for deployments: PostgreSQL through `pg`. `open()` runs the migrations (once,
 * under an advisory lock, so replicas starting together are safe). Each batch is one transaction
 * of multi-row `INSERT … ON CONFLICT (id) DO NOTHING`, so a retried batch stores each record once.
 *
 * Each row keeps the exact record as JSON text (`record`, what verification reads: PostgreSQL's
 * `jsonb` would reject `\u0000` in arguments and reorder keys) beside indexed columns to query by.
 *
 * @example
 * ```ts
 * McpModule.forRoot({ ..., audit: { sink: new PostgresAuditSink({ connectionString: process.env.DATABASE_URL }) } })
 * ```
 * ```sql
 * SELECT time, principal, target, outcome FROM mcp_audit_records WHERE principal = 'agent-7' ORDER BY time DESC LIMIT 20;
 * SELECT record::jsonb -> 'arguments' FROM mcp_audit_records WHERE target = 'close_ticket';
 * ```
 */
export class PostgresAuditSink implements AuditSink {
  readonly name = 'postgres';
  private readonly pool: Pool;
  private readonly table: string;
  private readonly migrations: string;
  private readonly schema: string | undefined;
  private readonly tableName: string;

  constructor(options: PostgresAuditSinkOptions = {}) {
    const table = options.table ?? 'mcp_audit_records';
    for (const [option, value] of [['table', table], ['schema', options.schema]] as const) {
      if (value !== undefined && !IDENTIFIER.test(value)) {
        throw new Error(`PostgresAuditSink option "${option}": "${value}" is not a plain SQL identifier; use letters, digits and _ (not starting with a digit), at most 63`);
      }
    }
    if (!options.connectionString && !options.pool) throw new Error('PostgresAuditSink needs connectionString (postgres://user:password@host:5432/db) or pool settings');
    const qualify = (name: string) => (options.schema ? `"${options.schema}"."${name}"` : `"${name}"`);
    this.schema = options.schema;
    this.tableName = table;
    this.table = qualify(table);
    this.migrations = qualify(`${table}_migrations`);
    this.pool = new Pool({
      connectionString: options.connectionString,
      connectionTimeoutMillis: 2_000,
      query_timeout: 5_000,
      max: 4,
      idleTimeoutMillis: 10_000,
      ...options.pool,
    });
    // A server that goes away must fail the next query, never crash the process: idle clients
    // report to the pool, and clients in use get a listener of their own (their query rejects).
    this.pool.on('error', () => undefined);
    this.pool.on('connect', (client) => client.on('error', () => undefined));
  }

  async open(): Promise<void> {
    await this.transaction(async (client) => {
      await client.query('SELECT pg_advisory_xact_lock(hashtext($1))', [`${this.schema ?? ''}.${this.tableName}:migrations`]);
      await client.query(`CREATE TABLE IF NOT EXISTS ${this.migrations} (version integer PRIMARY KEY, applied_at timestamptz NOT NULL DEFAULT now())`);
      const applied = new Set((await client.query<{ version: number }>(`SELECT version FROM ${this.migrations}`)).rows.map((row) => row.version));
      for (const [index, statements] of this.steps().entries()) {
        const version = index + 1;
        if (applied.has(version)) continue;
        for (const statement of statements) await client.query(statement);
        await client.query(`INSERT INTO ${this.migrations} (version) VALUES ($1)`, [version]);
      }
    });
  }

  async append(records: readonly AuditRecord[]): Promise<void> {
    if (records.length === 0) return;
    const lines = batchText(records).split('\n');
    await this.transaction(async (client) => {
      for (let start = 0; start < records.length; start += ROWS_PER_INSERT) {
        const rows = records.slice(start, start + ROWS_PER_INSERT);
        const values: unknown[] = [];
        const tuples = rows.map((record, offset) => {
          const base = values.length;
          values.push(
            record.id,
            record.chain,
            record.seq,
            record.time,
            clean(record.principal),
            clean(record.method),
            clean(record.target),
            record.outcome,
            record.errorCode,
            record.latencyMs,
            clean(record.sessionId),
            clean(record.traceId),
            lines[start + offset],
          );
          return `(${Array.from({ length: 13 }, (_, i) => `$${base + i + 1}`).join(',')})`;
        });
        await client.query(
          `INSERT INTO ${this.table} (id, chain, seq, time, principal, method, target, outcome, error_code, latency_ms, session_id, trace_id, record) ` +
            `VALUES ${tuples.join(',')} ON CONFLICT (id) DO NOTHING`,
          values,
        );
      }
    });
  }

  async tail(chain: string): Promise<AuditChainTail | undefined> {
    const { rows } = await this.pool.query<{ seq: string; record: string }>(`SELECT seq, record FROM ${this.table} WHERE chain = $1 ORDER BY seq DESC LIMIT 1`, [chain]);
    return rows[0] && { seq: Number(rows[0].seq), hash: (JSON.parse(rows[0].record) as AuditRecord).hash };
  }

  /** Every record (of one chain, or all), in chain then sequence order, for verification. */
  async *read(chain?: string): AsyncGenerator<AuditRecord> {
    let after: { chain: string; seq: number } | undefined;
    for (;;) {
      const { rows } = await this.pool.query<{ chain: string; seq: string; record: string }>(
        `SELECT chain, seq, record FROM ${this.table} WHERE ($1::text IS NULL OR chain = $1) AND ($2::text IS NULL OR (chain, seq) > ($2::text, $3::bigint)) ` +
          `ORDER BY chain, seq LIMIT ${READ_PAGE}`,
        [chain ?? null, after?.chain ?? null, after?.seq ?? null],
      );
      for (const row of rows) yield JSON.parse(row.record) as AuditRecord;
      if (rows.length < READ_PAGE) return;
      const last = rows[rows.length - 1];
      after = { chain: last.chain, seq: Number(last.seq) };
    }
  }

  /** Resolves when the server answers (readiness). */
  async ping(): Promise<void> {
    await this.pool.query('SELECT 1');
  }

  async close(): Promise<void> {
    await this.pool.end();
  }

  /** Runs `work` in one transaction on one pooled connection (rolled back if it throws). */
  private async transaction(work: (client: PoolClient) => Promise<void>): Promise<void> {
    const client = await this.pool.connect();
    try {
      await client.query('BEGIN');
      await work(client);
      await client.query('COMMIT');
    } catch (error) {
      await client.query('ROLLBACK').catch(() => undefined);
      throw error;
    } finally {
      client.release();
    }
  }

  /** The migrations, in order; each runs once. */
  private steps(): string[][] {
    // Index names take no schema: an index lives in its table's schema.
    const index = (name: string) => `"${this.tableName}_${name}"`;
    return [
      [
        `CREATE TABLE IF NOT EXISTS ${this.table} (
          id uuid PRIMARY KEY,
          chain text NOT NULL,
          seq bigint NOT NULL,
          time timestamptz NOT NULL,
          principal text,
          method text,
          target text,
          outcome text NOT NULL,
          error_code integer,
          latency_ms double precision NOT NULL,
          session_id text,
          trace_id text,
          record text NOT NULL,
          UNIQUE (chain, seq)
        )`,
        `CREATE INDEX IF NOT EXISTS ${index('time_idx')} ON ${this.table} (time)`,
        `CREATE INDEX IF NOT EXISTS ${index('principal_time_idx')} ON ${this.table} (principal, time)`,
        `CREATE INDEX IF NOT EXISTS ${index('target_time_idx')} ON ${this.table} (target, time)`,
      ],
    ];
  }
}

/** PostgreSQL text cannot hold NUL characters; the exact value stays in `record`. */
function clean(value: string | null): string | null {
  return value === null || !value.includes('\u0000') ? value : value.replace(/\u0000/g, '\uFFFD');
}
