import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { CreateTaskResultSchema, type CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { Client as ClientV2, StreamableHTTPClientTransport as TransportV2 } from '@modelcontextprotocol/client';
import { Client as PgClient } from 'pg';
import type { AuditRecord } from '#libs/security';
import { startDeskProcess } from './support/desk-process';
import { PostgresServer } from './support/postgres-server';
import { post2026 } from './support/stateless-request';

const run = promisify(execFile);
const DIST = join(__dirname, '..', 'dist');
const VERIFY = join(DIST, 'apps', 'audit-verify', 'src', 'main.js');
const STDIO_MAIN = join(DIST, 'src', 'main.stdio.js');
const TASKS = 'io.modelcontextprotocol/tasks';
/** The desk's twenty seed tickets, four per step of `export_ticket_report`: five steps. */
const REPORT = /^Report of 20 ticket\(s\): \d+ open, \d+ pending, \d+ closed\.$/;
const CANCELLED =
  'Call to tool "export_ticket_report" was cancelled: the host is shutting down and the call did not finish in time. It may have done part of its work; check before you retry it.';

/**
 * How long the calls take against how long the host waits for them at SIGTERM: calls that end
 * inside the drain are answered with their results; calls still running when it is over are
 * answered "cancelled: the host is shutting down". Either way every call has its record, and the
 * trail verifies.
 */
const CASES = [
  { name: 'calls that end inside the drain', env: { SUPPORT_REPORT_STEP_MS: '300', MCP_SHUTDOWN_TIMEOUT_MS: '8000' } },
  {
    name: 'calls that outlast the drain',
    env: { SUPPORT_REPORT_STEP_MS: '4000', MCP_SHUTDOWN_TIMEOUT_MS: '1000' },
  },
] as const;
type Case = (typeof CASES)[number];

const textOf = (result: unknown) => ((result as CallToolResult).content[0] as { text: string }).text;
const finishes = (kase: Case) => kase.name === 'calls that end inside the drain';

function expectAnswer(kase: Case, result: CallToolResult): void {
  if (finishes(kase)) {
    expect(textOf(result)).toMatch(REPORT);
    expect(result.isError).toBeFalsy();
  } else {
    expect({ isError: result.isError, text: textOf(result) }).toEqual({ isError: true, text: CANCELLED });
  }
}

/** Every record of the trail file; and the verifier's verdict on it. */
function readTrail(file: string): AuditRecord[] {
  return readFileSync(file, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line) as AuditRecord);
}

const callRecords = (records: AuditRecord[]) =>
  records
    .filter((record) => record.target === 'export_ticket_report')
    .map((record) => ({ method: record.method, outcome: record.outcome, transport: record.transport }))
    .sort((a, b) => `${a.method}${a.transport}`.localeCompare(`${b.method}${b.transport}`));

let dir: string;
beforeAll(() => (dir = mkdtempSync(join(tmpdir(), 'mcp-shutdown-'))));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/**
 * SIGTERM while calls run over Streamable HTTP: a 2025-11-25 session answered with JSON and one
 * answered on its SSE stream (progress), a 2026-07-28 request, and a task of each era. Nothing in
 * flight loses its answer or its record.
 */
describe.each(CASES)('SIGTERM over Streamable HTTP: $name', (kase) => {
  it('answers every call (JSON, SSE, 2026-07-28) and records every call and task run before the trail closes', async () => {
    const audit = join(dir, `http-${finishes(kase) ? 'in' : 'out'}.jsonl`);
    const desk = await startDeskProcess({ ...kase.env, AUDIT_FILE: audit, AUDIT_CHAIN: 'shutdown' });
    const url = new URL(`http://127.0.0.1:${desk.port}/mcp`);
    const json = new Client({ name: 'json-client', version: '1' });
    const sse = new Client({ name: 'sse-client', version: '1' });
    await json.connect(new StreamableHTTPClientTransport(url));
    await sse.connect(new StreamableHTTPClientTransport(url));
    const v2 = new ClientV2(
      { name: 'v2-client', version: '1' },
      { versionNegotiation: { mode: { pin: '2026-07-28' } } },
    );
    await v2.connect(new TransportV2(url));
    const options = { timeout: 60_000 };
    const progress: number[] = [];
    const calls = [
      json.callTool({ name: 'export_ticket_report', arguments: {} }, undefined, options),
      sse.callTool({ name: 'export_ticket_report', arguments: {} }, undefined, {
        ...options,
        onprogress: ({ progress: done }) => progress.push(done),
      }),
      v2.callTool({ name: 'export_ticket_report', arguments: {} }, options),
    ] as Promise<CallToolResult>[];
    // A task of each era: answered at once, its run goes on in the background.
    const task2025 = await json.request(
      { method: 'tools/call', params: { name: 'export_ticket_report', arguments: {}, task: {} } } as never,
      CreateTaskResultSchema,
    );
    expect(task2025.task.status).toBe('working');
    const task2026 = await post2026(
      url.href,
      'tools/call',
      { name: 'export_ticket_report', arguments: {} },
      {},
      { capabilities: { extensions: { [TASKS]: {} } } },
    );
    expect(((await task2026.json()) as { result: { resultType: string } }).result.resultType).toBe('task');

    await new Promise((resolve) => setTimeout(resolve, 200));
    const stopped = desk.stop(); // SIGTERM
    // While it drains, readiness says so (503, terminus's `shutting_down`), and a normal drain logs no error.
    const ready = () => fetch(`http://127.0.0.1:${desk.port}/health/ready`);
    let probe = await ready();
    for (let tries = 0; probe.status === 200 && tries < 100; tries++) {
      await probe.arrayBuffer();
      await new Promise((resolve) => setTimeout(resolve, 10));
      probe = await ready();
    }
    expect({ status: probe.status, body: await probe.json() }).toMatchObject({
      status: 503,
      body: { status: 'shutting_down', error: { mcp: { status: 'down', phase: 'draining' } } },
    });
    const results = await Promise.all(calls);
    for (const result of results) expectAnswer(kase, result);
    if (finishes(kase)) expect(progress.length).toBeGreaterThan(0);
    await stopped;
    await Promise.allSettled([json.close(), sse.close(), v2.close()]);

    const records = readTrail(audit);
    const outcome = finishes(kase) ? 'ok' : 'cancelled';
    expect(callRecords(records)).toEqual([
      { method: 'tasks/run', outcome, transport: 'http' },
      { method: 'tasks/run', outcome, transport: 'http' },
      { method: 'tools/call', outcome: 'ok', transport: 'http' }, // the two calls that created the tasks
      { method: 'tools/call', outcome: 'ok', transport: 'http' },
      { method: 'tools/call', outcome, transport: 'http' },
      { method: 'tools/call', outcome, transport: 'http' },
      { method: 'tools/call', outcome, transport: 'http' },
    ]);
    expect(desk.output()).not.toMatch(/Audit record dropped|\bERROR\b/);
    const verified = await run(process.execPath, [VERIFY, audit]);
    expect(verified.stdout).toMatch(/OK/i);
  });
});

/** The same over stdio: the desk as a desktop client spawns it, stopped with SIGTERM mid-call. */
describe.each(CASES)('SIGTERM over stdio: $name', (kase) => {
  it('answers both calls on stdout and records them before exiting', async () => {
    const audit = join(dir, `stdio-${finishes(kase) ? 'in' : 'out'}.jsonl`);
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [STDIO_MAIN],
      env: { ...(process.env as Record<string, string>), ...kase.env, AUDIT_FILE: audit, AUDIT_CHAIN: 'stdio' },
      stderr: 'pipe',
    });
    let stderr = '';
    transport.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const client = new Client({ name: 'stdio-client', version: '1' });
    await client.connect(transport);
    const calls = [1, 2].map(
      () =>
        client.callTool({ name: 'export_ticket_report', arguments: {} }, undefined, {
          timeout: 60_000,
        }) as Promise<CallToolResult>,
    );
    await new Promise((resolve) => setTimeout(resolve, 200));
    process.kill(transport.pid!, 'SIGTERM');
    for (const result of await Promise.all(calls)) expectAnswer(kase, result);
    await client.close();

    const outcome = finishes(kase) ? 'ok' : 'cancelled';
    expect(callRecords(readTrail(audit))).toEqual([
      { method: 'tools/call', outcome, transport: 'stdio' },
      { method: 'tools/call', outcome, transport: 'stdio' },
    ]);
    expect(stderr).not.toMatch(/Audit record dropped/);
    await run(process.execPath, [VERIFY, audit]);
  });
});

/** The audit trail on PostgreSQL (the desk's AUDIT_SINK=postgres): the records of a drain are in the table. */
describe('SIGTERM with the audit trail on PostgreSQL', () => {
  let server: PostgresServer;
  beforeAll(async () => (server = await PostgresServer.create()), 60_000);
  afterAll(() => server?.dispose());

  it('writes the records of the calls it drained and cancelled before closing the pool, and the chain verifies', async () => {
    const kase = CASES[1];
    const desk = await startDeskProcess({
      ...kase.env,
      AUDIT_SINK: 'postgres',
      DATABASE_URL: server.url,
      AUDIT_CHAIN: 'pg-shutdown',
    });
    const client = new Client({ name: 'pg-client', version: '1' });
    await client.connect(new StreamableHTTPClientTransport(new URL(`http://127.0.0.1:${desk.port}/mcp`)));
    const call = client.callTool({ name: 'export_ticket_report', arguments: {} }, undefined, { timeout: 60_000 });
    await new Promise((resolve) => setTimeout(resolve, 200));
    const stopped = desk.stop();
    expectAnswer(kase, (await call) as CallToolResult);
    await stopped;
    await client.close();

    const pg = new PgClient({ connectionString: server.url });
    await pg.connect();
    try {
      const { rows } = await pg.query(
        `SELECT method, outcome FROM mcp_audit_records WHERE chain = 'pg-shutdown' AND target = 'export_ticket_report'`,
      );
      expect(rows).toEqual([{ method: 'tools/call', outcome: 'cancelled' }]);
    } finally {
      await pg.end();
    }
    await run(process.execPath, [VERIFY, '--postgres', server.url]);
    expect(desk.output()).not.toMatch(/Audit record dropped|could not be written/);
  });
});
