import { execFile } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { Client as PgClient } from 'pg';
import { Test } from '@nestjs/testing';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { AuditTrail, canonicalJson, GENESIS_HASH, hashRecord, PostgresAuditSink, verifyChain, type AuditRecord } from '#libs/security';
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
      const { rows } = await db.query('SELECT version FROM mcp_audit_records_migrations');
      expect(rows).toEqual([{ version: 1 }]);
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

  it('stores a retried batch once, and keeps chains apart', async () => {
    const b = chainOf(1_500, 'host-b');
    await sink.append(b);
    await sink.append(b);
    expect(await collect(sink, 'host-b')).toHaveLength(1_500);
    const all = await collect(sink);
    expect(await verifyChain(all)).toEqual({ ok: true, count: 1_525, chains: 2 });
  });

  it('rejects (never crashes) while the server is down, and works again once it is back', async () => {
    const tail = await sink.tail('host-a');
    const later = chainOf(3, 'host-a', tail!.seq + 1, tail!.hash);
    await server.stop();
    await expect(sink.append(later)).rejects.toThrow();
    await expect(sink.ping()).rejects.toThrow();
    await server.start();
    await sink.append(later);
    expect(await verifyChain(await collect(sink, 'host-a'))).toEqual({ ok: true, count: 28, chains: 1 });
  }, 60_000);

  it('names a row altered in the database (and so does npm run audit:verify -- --postgres)', async () => {
    const intact = await run(process.execPath, [VERIFY, '--postgres', server.url]);
    expect(intact.stdout).toContain('OK: 1528 record(s) in 2 chain(s)');
    const db = new PgClient({ connectionString: server.url });
    await db.connect();
    try {
      await db.query(`UPDATE mcp_audit_records SET record = replace(record, '"outcome":"ok"', '"outcome":"denied"') WHERE chain = 'host-a' AND seq = 7`);
    } finally {
      await db.end();
    }
    expect(await verifyChain(sink.read('host-a'))).toMatchObject({ ok: false, brokenAt: { chain: 'host-a', seq: 7 }, reason: expect.stringContaining('altered') });
    const broken = await run(process.execPath, [VERIFY, '--postgres', server.url]).then(
      () => ({ code: 0, stderr: '' }),
      (error: { code: number; stderr: string }) => error,
    );
    expect(broken.code).toBe(1);
    expect(broken.stderr).toMatch(/^BROKEN at record #7 \(id [0-9a-f-]{36}, chain host-a, seq 7\) in table mcp_audit_records: its hash does not match its contents/);
  });

  it('refuses table names that are not plain identifiers, saying how to fix them', () => {
    expect(() => new PostgresAuditSink({ connectionString: server.url, table: 'audit; DROP TABLE x' })).toThrow(/option "table": "audit; DROP TABLE x" is not a plain SQL identifier/);
  });
});

/**
 * The host under load with the PostgreSQL sink, and the server killed mid-load and restarted:
 * `buffered` loses no record; `fail-closed` runs no call without its record.
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
    const moduleRef = await Test.createTestingModule({
      imports: [AuditFixtureModule.register({ audit: { sink, policy, chain: `load-${policy}`, flushIntervalMs: 10 } })],
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
      await server.start();
      // Back: the trail catches up (its retry back-off is at most 2 s) and takes calls again.
      const deadline = Date.now() + 15_000;
      while (trail.health().state !== 'ok' && Date.now() < deadline) await pause(50);
      expect(trail.health().state).toBe('ok');
      const answeredBefore = answered.length;
      await pause(500);
      expect(answered.length).toBeGreaterThan(answeredBefore);
      expect(duringOutage.state).toBe('failing');
      if (policy === 'fail-closed') expect(refused.length).toBeGreaterThan(0);
      else expect(refused).toEqual([]);
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
      const audited = records.filter((record) => record.method === 'tools/call' && record.outcome === 'ok').map((record) => (record.arguments as { n: number }).n);
      // Every call that ran has exactly one record: none lost, none twice.
      expect([...audited].sort((a, b) => a - b)).toEqual([...COUNTED].sort((a, b) => a - b));
      expect(trail.health().dropped).toBe(0);
      if (policy === 'fail-closed') {
        const unavailable = records.filter((record) => record.outcome === 'unavailable').map((record) => (record.arguments as { n: number }).n);
        expect(unavailable.sort((a, b) => a - b)).toEqual([...refused].sort((a, b) => a - b));
        expect(COUNTED.filter((n) => refused.includes(n))).toEqual([]);
      }
      expect(COUNTED.length).toBeGreaterThan(100);
    } finally {
      await reader.close();
    }
  }, 90_000);
});
