import { execFile } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { Client as PgClient } from 'pg';
import { Test } from '@nestjs/testing';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { AuditTrail, canonicalJson, GENESIS_HASH, hashRecord, verifyChain, type AuditRecord } from '#libs/security';
import { PostgresAuditSink } from 'nest-mcp-host/postgres';
import { AuditFixtureModule, COUNTED } from './fixtures/audit.fixtures';
import { connectHttpClient } from './support/fixture-app';
import { PostgresServer } from './support/postgres-server';

const run = promisify(execFile);
const VERIFY = join(__dirname, '..', 'dist', 'apps', 'audit-verify', 'src', 'main.js');

function chainOf(count: number, chain: string, from = 1, prevHash = GENESIS_HASH): AuditRecord[] {
  const records: AuditRecord[] = [];
  for (let seq = from; seq < from + count; seq++) {
    const fields = {
      id: randomUUID(),
      time: new Date(Date.UTC(2026, 10, 22, 12, 0, 0, seq)).toISOString(),
      chain,
      seq,
      prevHash,
      principal: seq % 2 ? 'agent-7' : null,
      transport: 'http' as const,
      sessionId: 'session-1',
      client: { name: 'claude', version: '2.0' },
      method: 'tools/call',
      target: 'reset_password',
      arguments: { login: 'ada', note: 'nul \u0000 inside', z: [3, { b: 1, a: 2 }], newPassword: '[REDACTED]' },
      argumentsDigest: `sha256:${'ab'.repeat(32)}`,
      outcome: 'ok' as const,
      errorCode: seq % 3 ? null : -32602,
      error: seq % 3 ? null : 'Unknown tool: "x"',
      latencyMs: 1.234 * seq,
      traceId: null,
      remoteAddress: '127.0.0.1',
      // Every fifth a call made from an MCP Apps view (the origin column).
      ...(seq % 5 === 0 && { origin: 'view' }),
      // Every seventh one governance decided about (the jsonb governance column).
      ...(seq % 7 === 0 && {
        governance: {
          allowed: ['tenant-matches'],
          findings: [{ detector: 'email', in: 'result' as const, path: '$.customer.email', action: 'redact' as const }],
        },
      }),
      // Every fourth one that went downstream as the caller (the jsonb downstream column).
      ...(seq % 4 === 0 && {
        downstream: {
          mode: 'token-exchange' as const,
          target: 'api crm',
          subject: 'agent-7',
          actor: 'desk-host',
          identity: 'agent-7',
          audience: 'https://crm.example',
        },
      }),
    };
    const record = { ...fields, hash: hashRecord(fields) };
    records.push(record);
    prevHash = record.hash;
  }
  return records;
}

async function collect(sink: PostgresAuditSink, chain?: string): Promise<AuditRecord[]> {
  const records: AuditRecord[] = [];
  for await (const record of sink.read(chain)) records.push(record);
  return records;
}

/** The PostgreSQL sink against a real server (Debian's postgresql, started privately for this file). */
describe('PostgresAuditSink on a real PostgreSQL', () => {
  let server: PostgresServer;
  let sink: PostgresAuditSink;

  beforeAll(async () => {
    server = await PostgresServer.create();
    sink = new PostgresAuditSink({ connectionString: server.url });
  }, 60_000);
  afterAll(async () => {
    await sink?.close();
    await server?.dispose();
  });

  it('creates its tables once, even when replicas open it at the same time', async () => {
    const others = [1, 2, 3].map(() => new PostgresAuditSink({ connectionString: server.url }));
    await Promise.all([sink.open(), ...others.map((other) => other.open())]);
    await sink.open();
    await Promise.all(others.map((other) => other.close()));
    const db = new PgClient({ connectionString: server.url });
    await db.connect();
    try {
      const { rows } = await db.query('SELECT version FROM mcp_audit_records_migrations ORDER BY version');
      expect(rows).toEqual([
        { version: 1 },
        { version: 2 },
        { version: 3 },
        { version: 4 },
        { version: 5 },
        { version: 6 },
        { version: 7 },
      ]);
    } finally {
      await db.end();
    }
  });

  it('stores records exactly (NUL characters, nested arguments, nulls) and reads them back in chain order', async () => {
    const records = chainOf(25, 'host-a');
    await sink.append(records.slice(0, 10));
    await sink.append(records.slice(10));
    const stored = await collect(sink, 'host-a');
    expect(stored).toEqual(records);
    expect(canonicalJson(stored[3])).toBe(canonicalJson(records[3]));
    expect(await verifyChain(stored)).toEqual({ ok: true, count: 25, chains: 1 });
    expect(await sink.tail('host-a')).toEqual({ seq: 25, hash: records[24].hash });
    expect(await sink.tail('nobody')).toBeUndefined();
  });

  it('stores a retried batch once (1 500 records: two INSERTs), and keeps chains apart', async () => {
    const b = chainOf(1_500, 'host-b');
    await sink.append(b);
    await sink.append(b);
    await sink.append(b.slice(700, 800));
    expect(await collect(sink, 'host-b')).toEqual(b);
    const all = await collect(sink);
    expect(all.map((record) => record.chain)).toEqual([...Array(25).fill('host-a'), ...Array(1_500).fill('host-b')]);
    expect(await verifyChain(all)).toEqual({ ok: true, count: 1_525, chains: 2 });
    expect(await sink.tail('host-a')).toEqual({ seq: 25, hash: all[24].hash });
    expect(await sink.tail('host-b')).toEqual({ seq: 1_500, hash: b[1_499].hash });
    // Another record at a taken place (say, two replicas configured with one chain) is refused, loudly.
    const fork = { ...b[9], id: randomUUID() };
    await expect(sink.append([fork])).rejects.toThrow(/duplicate key value violates unique constraint/);
    expect(await collect(sink, 'host-b')).toEqual(b);
  });

  it('keeps every field in a column to query by (arguments and client as jsonb, NUL characters as U+FFFD)', async () => {
    const db = new PgClient({ connectionString: server.url });
    await db.connect();
    try {
      const { rows } = await db.query(
        `SELECT principal, transport, session_id, client ->> 'name' AS client_name, method, target, arguments ->> 'note' AS note, arguments -> 'z' AS z,
                arguments_digest, outcome, error_code, error, latency_ms, trace_id, remote_address, prev_hash, hash, time
         FROM mcp_audit_records WHERE chain = 'host-a' AND seq = 3`,
      );
      const record = (await collect(sink, 'host-a'))[2];
      expect(rows).toEqual([
        {
          principal: 'agent-7',
          transport: 'http',
          session_id: 'session-1',
          client_name: 'claude',
          method: 'tools/call',
          target: 'reset_password',
          note: 'nul \uFFFD inside',
          z: [3, { a: 2, b: 1 }],
          arguments_digest: record.argumentsDigest,
          outcome: 'ok',
          error_code: -32602,
          error: 'Unknown tool: "x"',
          latency_ms: record.latencyMs,
          trace_id: null,
          remote_address: '127.0.0.1',
          prev_hash: record.prevHash,
          hash: record.hash,
          time: new Date(record.time),
        },
      ]);
      const { rows: lookups } = await db.query(
        `SELECT count(*)::int AS n FROM mcp_audit_records WHERE principal = 'agent-7' AND arguments @> '{"login":"ada"}'`,
      );
      expect(lookups).toEqual([{ n: 13 + 750 }]);
    } finally {
      await db.end();
    }
  });

  it('stores exactly what no PostgreSQL text can hold (lone surrogates, NUL in keys and in client)', async () => {
    const [plain] = chainOf(1, 'host-odd');
    const fields = {
      ...plain,
      arguments: { 'k\u0000': '\ud800 lone', list: ['\udc00', '😀'] },
      client: { name: 'x\u0000y', version: '1' },
      principal: 'p\u0000',
    };
    const record = { ...fields, hash: hashRecord(fields) };
    await sink.append([record]);
    expect(await collect(sink, 'host-odd')).toEqual([record]);
    expect(await verifyChain(sink.read('host-odd'))).toEqual({ ok: true, count: 1, chains: 1 });
  });

  it('uses the table and schema it is given (creating the schema)', async () => {
    const other = new PostgresAuditSink({ connectionString: server.url, schema: 'audit', table: 'desk_calls' });
    try {
      await other.open();
      await other.open();
      const records = chainOf(3, 'desk');
      await other.append(records);
      expect(await collect(other)).toEqual(records);
      expect(await other.tail('desk')).toEqual({ seq: 3, hash: records[2].hash });
      expect(await collect(sink, 'desk')).toEqual([]);
      const db = new PgClient({ connectionString: server.url });
      await db.connect();
      try {
        const { rows } = await db.query(
          `SELECT (SELECT count(*)::int FROM audit.desk_calls) AS n, (SELECT array_agg(version) FROM audit.desk_calls_migrations) AS versions`,
        );
        expect(rows).toEqual([{ n: 3, versions: [1, 2, 3, 4, 5, 6, 7] }]);
      } finally {
        await db.end();
      }
      const verified = await run(process.execPath, [
        VERIFY,
        '--postgres',
        server.url,
        '--schema',
        'audit',
        '--table',
        'desk_calls',
      ]);
      expect(verified.stdout).toContain('OK: 3 record(s) in 1 chain(s)');
      const elsewhere = await run(process.execPath, [VERIFY, '--postgres', '--table', 'desk_calls'], {
        env: { ...process.env, DATABASE_URL: server.url },
      }).then(
        () => ({ code: 0, stderr: '' }),
        (error: { code: number; stderr: string }) => error,
      );
      expect(elsewhere).toMatchObject({
        code: 2,
        stderr: expect.stringContaining('relation "desk_calls" does not exist'),
      });
    } finally {
      await other.close();
    }
  });

  it('rejects (never crashes) while the server is down, and works again with the same pool once it is back', async () => {
    const tail = await sink.tail('host-a');
    const later = chainOf(3, 'host-a', tail!.seq + 1, tail!.hash);
    // Idle pooled connections see the server die on their own: nothing may escape as an 'error' event.
    const escaped: unknown[] = [];
    const onEscape = (error: unknown) => escaped.push(error);
    process.on('uncaughtException', onEscape);
    process.on('unhandledRejection', onEscape);
    try {
      await Promise.all([1, 2, 3, 4].map(() => sink.ping()));
      await server.stop();
      await new Promise((resolve) => setTimeout(resolve, 300));
      const started = Date.now();
      await expect(sink.append(later)).rejects.toThrow();
      await expect(sink.ping()).rejects.toThrow();
      expect(Date.now() - started).toBeLessThan(5_000);
      await server.start();
      await sink.append(later);
    } finally {
      process.off('uncaughtException', onEscape);
      process.off('unhandledRejection', onEscape);
    }
    expect(escaped).toEqual([]);
    expect(await verifyChain(await collect(sink, 'host-a'))).toEqual({ ok: true, count: 28, chains: 1 });
  }, 60_000);

  it('names a row altered in the database (and so does npm run audit:verify -- --postgres)', async () => {
    const intact = await run(process.execPath, [VERIFY, '--postgres', server.url]);
    expect(intact.stdout).toContain('OK: 1529 record(s) in 3 chain(s)');
    const db = new PgClient({ connectionString: server.url });
    await db.connect();
    try {
      await db.query(
        `UPDATE mcp_audit_records SET record = replace(record, '"outcome":"ok"', '"outcome":"denied"') WHERE chain = 'host-a' AND seq = 7`,
      );
    } finally {
      await db.end();
    }
    expect(await verifyChain(sink.read('host-a'))).toMatchObject({
      ok: false,
      brokenAt: { chain: 'host-a', seq: 7 },
      reason: expect.stringContaining('altered'),
    });
    const broken = await run(process.execPath, [VERIFY, '--postgres', server.url]).then(
      () => ({ code: 0, stderr: '' }),
      (error: { code: number; stderr: string }) => error,
    );
    expect(broken.code).toBe(1);
    expect(broken.stderr).toMatch(
      /^BROKEN at record #7 \(id [0-9a-f-]{36}, chain host-a, seq 7\) in table mcp_audit_records: its hash does not match its contents/,
    );
  });

  it('names a row whose query columns were edited, though its record text was not', async () => {
    const db = new PgClient({ connectionString: server.url });
    await db.connect();
    try {
      await db.query(`UPDATE mcp_audit_records SET principal = 'someone-else' WHERE chain = 'host-b' AND seq = 42`);
      await db.query(
        `UPDATE mcp_audit_records SET arguments = jsonb_set(arguments, '{login}', '"eve"') WHERE chain = 'host-b' AND seq = 43`,
      );
    } finally {
      await db.end();
    }
    const records = await collect(sink, 'host-b');
    expect(records[41].principal).toBe('someone-else');
    expect(records[42].arguments).toMatchObject({ login: 'eve' });
    expect(await verifyChain(records)).toMatchObject({
      ok: false,
      brokenAt: { chain: 'host-b', seq: 42 },
      reason: expect.stringContaining('altered'),
    });
  });

  it('refuses table names that are not plain identifiers, saying how to fix them', () => {
    expect(() => new PostgresAuditSink({ connectionString: server.url, table: 'audit; DROP TABLE x' })).toThrow(
      /option "table": "audit; DROP TABLE x" is not a plain SQL identifier/,
    );
  });
});

/**
 * The host under load with the PostgreSQL sink, and the server killed mid-load and restarted:
 * `buffered` loses no record — its memory buffer (kept small here) overflows to the local spool,
 * replayed in chain order when the server is back; `fail-closed` runs no call without its record.
 */
describe.each(['buffered', 'fail-closed'] as const)('audit trail on PostgreSQL killed mid-load (%s)', (policy) => {
  let server: PostgresServer;

  beforeAll(async () => {
    server = await PostgresServer.create();
  }, 60_000);
  afterAll(() => server?.dispose());

  it('keeps every record of every call that ran', async () => {
    COUNTED.length = 0;
    const sink = new PostgresAuditSink({ connectionString: server.url });
    const spoolFile = join(await mkdtemp(join(tmpdir(), 'mcp-spool-')), 'spool', 'load.jsonl');
    const buffering = policy === 'buffered' ? { bufferSize: 200, spoolFile } : {};
    const moduleRef = await Test.createTestingModule({
      imports: [
        AuditFixtureModule.register({
          audit: { sink, policy, chain: `load-${policy}`, flushIntervalMs: 10, ...buffering },
        }),
      ],
    }).compile();
    const app = moduleRef.createNestApplication({ logger: false });
    await app.listen(0, '127.0.0.1');
    const url = `${(await app.getUrl()).replace('[::1]', '127.0.0.1')}/mcp`;
    const trail = app.get(AuditTrail);
    const clients = await Promise.all([0, 1, 2, 3].map(() => connectHttpClient(url)));
    const answered: number[] = [];
    const refused: number[] = [];
    let next = 0;
    let loading = true;
    const load = clients.map(async (client) => {
      while (loading) {
        const n = next++;
        try {
          const result = (await client.callTool({ name: 'count', arguments: { n } })) as CallToolResult;
          if (!result.isError) answered.push(n);
        } catch (error) {
          expect(String(error)).toContain('the audit trail cannot be written');
          refused.push(n);
          await new Promise((resolve) => setTimeout(resolve, 5));
        }
      }
    });
    const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
    try {
      await pause(700);
      await server.stop();
      await pause(1_000);
      const duringOutage = trail.health();
      // Readiness: fail-closed answers 503 (calls are refused); buffered stays ready, reporting degraded.
      const base = url.slice(0, -'/mcp'.length);
      const ready = await fetch(`${base}/health/ready`);
      const readiness = (await ready.json()) as { info?: Record<string, unknown>; error?: Record<string, unknown> };
      const live = await fetch(`${base}/health/live`);
      const metrics = await (await fetch(`${base}/metrics`)).text();
      await server.start();
      // Back: the trail catches up (its retry back-off is at most 2 s) and takes calls again.
      const deadline = Date.now() + 15_000;
      while (trail.health().state !== 'ok' && Date.now() < deadline) await pause(50);
      expect(trail.health().state).toBe('ok');
      const answeredBefore = answered.length;
      await pause(500);
      expect(answered.length).toBeGreaterThan(answeredBefore);
      expect(duringOutage.state).toBe('failing');
      expect(live.status).toBe(200);
      if (policy === 'fail-closed') {
        expect(refused.length).toBeGreaterThan(0);
        expect(ready.status).toBe(503);
        expect(readiness.error).toMatchObject({
          'audit:postgres': { status: 'down', required: true, state: 'failing', error: expect.any(String) },
        });
      } else {
        expect(refused).toEqual([]);
        expect(ready.status).toBe(200);
        expect(readiness.info).toMatchObject({
          'audit:postgres': {
            status: 'up',
            degraded: true,
            required: false,
            state: 'failing',
            error: expect.any(String),
          },
        });
        // The memory buffer overflowed: the rest waited in the spool, shown by readiness and metrics.
        expect(duringOutage.queued).toBeGreaterThan(0);
        expect(duringOutage.spooled).toBeGreaterThan(0);
        expect((readiness.info!['audit:postgres'] as { spooled: number }).spooled).toBeGreaterThan(0);
        expect(Number(/^mcp_audit_spooled_records\{replica="[^"]+"\} (\d+)$/m.exec(metrics)![1])).toBeGreaterThan(0);
      }
    } finally {
      loading = false;
      await Promise.all(load);
      await Promise.all(clients.map((client) => client.close()));
      await app.close();
    }

    const reader = new PostgresAuditSink({ connectionString: server.url });
    try {
      const records = await collect(reader, `load-${policy}`);
      expect(await verifyChain(records)).toMatchObject({ ok: true });
      const audited = records
        .filter((record) => record.method === 'tools/call' && record.outcome === 'ok')
        .map((record) => (record.arguments as { n: number }).n);
      // Every call that ran has exactly one record: none lost, none twice.
      expect([...audited].sort((a, b) => a - b)).toEqual([...COUNTED].sort((a, b) => a - b));
      expect(trail.health()).toMatchObject({ dropped: 0, spooled: 0 });
      if (policy === 'fail-closed') {
        const unavailable = records
          .filter((record) => record.outcome === 'unavailable')
          .map((record) => (record.arguments as { n: number }).n);
        expect(unavailable.sort((a, b) => a - b)).toEqual([...refused].sort((a, b) => a - b));
        expect(COUNTED.filter((n) => refused.includes(n))).toEqual([]);
      }
      expect(COUNTED.length).toBeGreaterThan(100);
    } finally {
      await reader.close();
    }
  }, 90_000);
});
