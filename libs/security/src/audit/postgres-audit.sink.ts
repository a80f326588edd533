import { Pool, type PoolClient, type PoolConfig } from 'pg';
import type { AuditRecord } from './audit-record';
import type { AuditChainTail, AuditSink } from './audit-sink';
import { batchText, canonicalJson, hashRecord } from './audit-chain';

export interface PostgresAuditSinkOptions {
  /** `postgres://user:password@host:5432/db` (or give `pool`). */
  connectionString?: string;
  /**
   * Any `pg` pool setting; wins over the defaults: `connectionTimeoutMillis` 2 000, `query_timeout`
   * 5 000, `max` 4, `idleTimeoutMillis` 10 000 (short, so that a dead server is noticed quickly).
   */
  pool?: PoolConfig;
  /** The records' table (a plain identifier). @default 'mcp_audit_records' */
  table?: string;
  /** The schema of both tables, created by `open()` when missing. @default the connection's search path (usually `public`) */
  schema?: string;
}

const IDENTIFIER = /^[A-Za-z_][A-Za-z0-9_]{0,62}$/;

/**
 * How each field of a record is kept in its query column:
 * - `text`: as is, but NUL characters and lone surrogates (which PostgreSQL text cannot hold) as U+FFFD;
 * - `json`: `jsonb`, with the same replacements in every string and key;
 * - `uuid`: `uuid` (PostgreSQL writes it in lower case); `time`: `timestamptz`; `seq`: `bigint`; `number`: as is.
 */
type ColumnKind = 'uuid' | 'text' | 'json' | 'time' | 'seq' | 'number';

/** The query columns, in table order; `record` (the exact text) follows them. */
const COLUMNS: ReadonlyArray<readonly [column: string, field: keyof AuditRecord, kind: ColumnKind]> = [
  ['id', 'id', 'uuid'],
  ['chain', 'chain', 'text'],
  ['seq', 'seq', 'seq'],
  ['time', 'time', 'time'],
  ['principal', 'principal', 'text'],
  ['transport', 'transport', 'text'],
  ['session_id', 'sessionId', 'text'],
  ['client', 'client', 'json'],
  ['method', 'method', 'text'],
  ['target', 'target', 'text'],
  ['arguments', 'arguments', 'json'],
  ['arguments_digest', 'argumentsDigest', 'text'],
  ['outcome', 'outcome', 'text'],
  ['error_code', 'errorCode', 'number'],
  ['error', 'error', 'text'],
  ['latency_ms', 'latencyMs', 'number'],
  ['trace_id', 'traceId', 'text'],
  ['remote_address', 'remoteAddress', 'text'],
  ['count', 'count', 'number'],
  ['protocol_version', 'protocolVersion', 'text'],
  ['route', 'route', 'text'],
  ['origin', 'origin', 'text'],
  ['governance', 'governance', 'json'],
  ['downstream', 'downstream', 'json'],
  ['prev_hash', 'prevHash', 'text'],
  ['hash', 'hash', 'text'],
];
const COLUMN_LIST = [...COLUMNS.map(([column]) => column), 'record'].join(', ');
const PER_ROW = COLUMNS.length + 1;
/** Rows per INSERT: 25 parameters each, 25 000 per statement, well below PostgreSQL's 65 535. */
const ROWS_PER_INSERT = 1_000;
const READ_PAGE = 1_000;

/**
 * The audit sink for deployments: PostgreSQL through `pg`. `open()` runs the migrations (once,
 * under an advisory lock, so replicas starting together are safe). Each batch is one transaction
 * of multi-row `INSERT … ON CONFLICT (id) DO NOTHING`, so a retried batch stores each record once.
 *
 * Each row keeps the exact record as JSON text (`record`, what verification reads: `jsonb` would
 * refuse `\u0000` in arguments) beside a column per field to query by (`arguments` and `client`
 * as `jsonb`). `read()` checks those columns against `record`: a row whose columns were edited
 * comes back with the edited values, so its hash no longer verifies and `verifyChain` names it.
 *
 * A server that goes away (or is killed) makes `append` reject; it never crashes the process.
 *
 * @example
 * ```ts
 * McpModule.forRoot({ ..., audit: { sink: new PostgresAuditSink({ connectionString: process.env.DATABASE_URL }) } })
 * ```
 * ```sql
 * SELECT time, principal, target, outcome FROM mcp_audit_records WHERE principal = 'agent-7' ORDER BY time DESC LIMIT 20;
 * SELECT time, arguments ->> 'ticketId' FROM mcp_audit_records WHERE target = 'close_ticket';
 * ```
 * @throws Error at construction when `table` or `schema` is not a plain identifier, or no server is given.
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
    for (const [option, value] of [
      ['table', table],
      ['schema', options.schema],
    ] as const) {
      if (value !== undefined && !IDENTIFIER.test(value)) {
        throw new Error(
          `PostgresAuditSink option "${option}": "${value}" is not a plain SQL identifier; use letters, digits and _ (not starting with a digit), at most 63`,
        );
      }
    }
    if (!options.connectionString && !options.pool)
      throw new Error(
        'PostgresAuditSink needs connectionString (postgres://user:password@host:5432/db) or pool settings',
      );
    const qualify = (name: string) => (options.schema ? `"${options.schema}"."${name}"` : `"${name}"`);
    this.schema = options.schema;
    this.tableName = table;
    this.table = qualify(table);
    // One migrations table per records table: two sinks on different tables keep their own versions.
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

  /** Creates the schema (when named and missing) and applies the migrations not applied yet. */
  async open(): Promise<void> {
    await this.transaction(async (client) => {
      await client.query('SELECT pg_advisory_xact_lock(hashtext($1))', [
        `${this.schema ?? ''}.${this.tableName}:migrations`,
      ]);
      // Only when missing: CREATE SCHEMA IF NOT EXISTS needs the CREATE privilege even when it exists.
      if (
        this.schema &&
        (await client.query('SELECT 1 FROM pg_namespace WHERE nspname = $1', [this.schema])).rowCount === 0
      ) {
        await client.query(`CREATE SCHEMA IF NOT EXISTS "${this.schema}"`);
      }
      await client.query(
        `CREATE TABLE IF NOT EXISTS ${this.migrations} (version integer PRIMARY KEY, applied_at timestamptz NOT NULL DEFAULT now())`,
      );
      const applied = new Set(
        (await client.query<{ version: number }>(`SELECT version FROM ${this.migrations}`)).rows.map(
          (row) => row.version,
        ),
      );
      for (const [index, statements] of this.steps().entries()) {
        const version = index + 1;
        if (applied.has(version)) continue;
        for (const statement of statements) await client.query(statement);
        await client.query(`INSERT INTO ${this.migrations} (version) VALUES ($1)`, [version]);
      }
    });
  }

  /** Stores the batch in one transaction; records already stored (same id) are skipped. */
  async append(records: readonly AuditRecord[]): Promise<void> {
    if (records.length === 0) return;
    const lines = batchText(records).split('\n');
    await this.transaction(async (client) => {
      for (let start = 0; start < records.length; start += ROWS_PER_INSERT) {
        const rows = records.slice(start, start + ROWS_PER_INSERT);
        const values: unknown[] = [];
        const tuples = rows.map((record, offset) => {
          const base = values.length;
          for (const [, field, kind] of COLUMNS) values.push(parameter(kind, record[field]));
          values.push(lines[start + offset]);
          return `(${Array.from({ length: PER_ROW }, (_, i) => `$${base + i + 1}`).join(',')})`;
        });
        await client.query(
          `INSERT INTO ${this.table} (${COLUMN_LIST}) VALUES ${tuples.join(',')} ON CONFLICT (id) DO NOTHING`,
          values,
        );
      }
    });
  }

  async tail(chain: string): Promise<AuditChainTail | undefined> {
    const { rows } = await this.pool.query<{ seq: string; hash: string }>(
      `SELECT seq, hash FROM ${this.table} WHERE chain = $1 ORDER BY seq DESC LIMIT 1`,
      [chain],
    );
    return rows[0] && { seq: Number(rows[0].seq), hash: rows[0].hash };
  }

  /**
   * Every record (of one chain, or all), in chain then sequence order, exactly as appended, for
   * verification. A row whose query columns disagree with its record is yielded with the
   * columns' values, so that its hash fails.
   */
  async *read(chain?: string): AsyncGenerator<AuditRecord> {
    let after: { chain: string; seq: string } | undefined;
    for (;;) {
      const { rows } = await this.pool.query<Record<string, unknown> & { chain: string; seq: string; record: string }>(
        `SELECT ${COLUMN_LIST} FROM ${this.table} WHERE ($1::text IS NULL OR chain = $1) AND ($2::text IS NULL OR (chain, seq) > ($2::text, $3::bigint)) ` +
          `ORDER BY chain, seq LIMIT ${READ_PAGE}`,
        [chain ?? null, after?.chain ?? null, after?.seq ?? null],
      );
      for (const row of rows) yield asStored(JSON.parse(row.record) as AuditRecord, row);
      if (rows.length < READ_PAGE) return;
      const last = rows[rows.length - 1];
      after = { chain: last.chain, seq: last.seq };
    }
  }

  /** Resolves when the server answers (readiness). */
  async ping(): Promise<void> {
    await this.pool.query('SELECT 1');
  }

  /** Ends the pool's connections. */
  async close(): Promise<void> {
    await this.pool.end();
  }

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
          transport text NOT NULL,
          session_id text,
          client jsonb,
          method text,
          target text,
          arguments jsonb,
          arguments_digest text,
          outcome text NOT NULL,
          error_code integer,
          error text,
          latency_ms double precision NOT NULL,
          trace_id text,
          remote_address text,
          prev_hash text NOT NULL,
          hash text NOT NULL,
          record text NOT NULL,
          UNIQUE (chain, seq)
        )`,
        `CREATE INDEX IF NOT EXISTS ${index('time_idx')} ON ${this.table} (time)`,
        `CREATE INDEX IF NOT EXISTS ${index('principal_time_idx')} ON ${this.table} (principal, time)`,
        `CREATE INDEX IF NOT EXISTS ${index('target_time_idx')} ON ${this.table} (target, time)`,
      ],
      // How many refusals a record sums up (absent, NULL, on every record of one request).
      [`ALTER TABLE ${this.table} ADD COLUMN IF NOT EXISTS count integer`],
      // The MCP revision of the request (NULL on refusals and on records written before).
      [`ALTER TABLE ${this.table} ADD COLUMN IF NOT EXISTS protocol_version text`],
      // The HTTP route of a tool made from a REST route (NULL for every other record).
      [`ALTER TABLE ${this.table} ADD COLUMN IF NOT EXISTS route text`],
      // `view` for a call made from an MCP Apps view (NULL for every other record).
      [`ALTER TABLE ${this.table} ADD COLUMN IF NOT EXISTS origin text`],
      // What governance policies and guardrails decided (NULL when none applied).
      [`ALTER TABLE ${this.table} ADD COLUMN IF NOT EXISTS governance jsonb`],
      // The identity a call used downstream (NULL when it went nowhere as someone).
      [`ALTER TABLE ${this.table} ADD COLUMN IF NOT EXISTS downstream jsonb`],
    ];
  }
}

/** NUL characters and lone surrogates: PostgreSQL text and jsonb cannot hold them. */
// eslint-disable-next-line no-control-regex -- matching NUL is the point: PostgreSQL rejects it.
const UNSTORABLE = /\u0000|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;
/** The same, as `JSON.stringify` writes them. */
const UNSTORABLE_JSON = /\\u0000|\\ud[89a-f]/i;

function storable(text: string): string {
  return text.replace(UNSTORABLE, '\uFFFD');
}

/** A JSON value with every string and key storable (copied only where that changes something). */
function storableJson(value: unknown): unknown {
  if (typeof value === 'string') return storable(value);
  if (value === null || typeof value !== 'object') return value;
  if (Array.isArray(value)) return value.map(storableJson);
  return Object.fromEntries(Object.entries(value).map(([key, item]) => [storable(key), storableJson(item)]));
}

/** The `jsonb` parameter: JSON text (never an object: `pg` would send an array as a PostgreSQL array). */
function jsonbText(value: unknown): string | null {
  const json = value === null || value === undefined ? undefined : JSON.stringify(value);
  if (json === undefined) return null;
  return UNSTORABLE_JSON.test(json) ? JSON.stringify(storableJson(value)) : json;
}

function parameter(kind: ColumnKind, value: unknown): unknown {
  if (kind === 'json') return jsonbText(value);
  if (kind === 'text') return typeof value === 'string' ? storable(value) : (value ?? null);
  return value ?? null;
}

/** What a column should hold for a record's field, and what it does hold, comparably. */
function expected(kind: ColumnKind, value: unknown): unknown {
  if (kind === 'json') {
    const json = jsonbText(value);
    return json === null ? null : JSON.parse(json);
  }
  if (kind === 'time') return Date.parse(String(value));
  if (kind === 'uuid') return String(value).toLowerCase();
  return parameter(kind, value);
}
function held(kind: ColumnKind, value: unknown): unknown {
  if (kind === 'time') return value instanceof Date ? value.getTime() : value;
  if (kind === 'seq') return value === null ? null : Number(value);
  return value;
}

/**
 * The record as stored, made to fail verification when its query columns disagree with it: with
 * the columns' values when its text is intact (the columns were edited), else as its text says
 * (the text was edited; the columns must not make it look intact again).
 */
function asStored(record: AuditRecord, row: Record<string, unknown>): AuditRecord {
  let edited: AuditRecord | undefined;
  for (const [column, field, kind] of COLUMNS) {
    const actual = held(kind, row[column]);
    if (canonicalJson(actual) === canonicalJson(expected(kind, record[field]))) continue;
    const value = kind === 'time' && typeof actual === 'number' ? new Date(actual).toISOString() : actual;
    edited = { ...(edited ?? record), [field]: value };
  }
  return edited && hashRecord(record) === record.hash ? edited : record;
}
