import { execFile } from 'node:child_process';
import { mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import type { INestApplication } from '@nestjs/common';
import { Test } from '@nestjs/testing';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { CallToolResultSchema, CreateTaskResultSchema, type CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { hashApiKey, verifyChain, type AuditRecord } from '#libs/security';
import { AuditFixtureModule, RAN } from './fixtures/audit.fixtures';
import { connectHttpClient } from './support/fixture-app';

const run = promisify(execFile);
const VERIFY = join(__dirname, '..', 'dist', 'apps', 'audit-verify', 'src', 'main.js');
const KEYS = { agent: 'ak_agent_0123456789', admin: 'ak_admin_0123456789' };

async function readRecords(file: string): Promise<AuditRecord[]> {
  return (await readFile(file, 'utf8'))
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line) as AuditRecord);
}

/**
 * The audit trail over the real HTTP transport with the SDK client: one record per call and per
 * refusal, with the caller, the client, the outcome and redacted arguments, chained by hash;
 * `npm run audit:verify` accepts the file and names the record someone altered.
 */
describe('audit trail (JSON-lines sink)', () => {
  let app: INestApplication;
  let url: string;
  let file: string;
  let records: AuditRecord[];
  let taskId: string;
  let refused: CallToolResult;

  beforeAll(async () => {
    file = join(await mkdtemp(join(tmpdir(), 'mcp-audit-')), 'audit.jsonl');
    const moduleRef = await Test.createTestingModule({
      imports: [
        AuditFixtureModule.register({
          audit: { file, chain: 'e2e-host', flushIntervalMs: 20 },
          auth: {
            mode: 'apiKey',
            keys: [
              { hash: hashApiKey(KEYS.agent), principal: 'agent-7', scopes: [] },
              { hash: hashApiKey(KEYS.admin), principal: 'root', scopes: ['admin'] },
            ],
          },
        }),
      ],
    }).compile();
    app = moduleRef.createNestApplication({ logger: false });
    await app.listen(0, '127.0.0.1');
    url = `${(await app.getUrl()).replace('[::1]', '127.0.0.1')}/mcp`;

    const agent: Client = await connectHttpClient(url, { authorization: `Bearer ${KEYS.agent}` });
    const call = (name: string, args: Record<string, unknown> = {}) =>
      agent.callTool({ name, arguments: args }) as Promise<CallToolResult>;
    await call('resetPassword', { login: 'ada', newPassword: 'correct horse battery' });
    await call('connect', { account: 'acme', pin: 'pin-zyxw' });
    await call('resetPassword', { login: 'ada', newPassword: 'short' });
    refused = await call('refuse');
    await call('forbidden');
    await call('rare');
    await call('rare');
    await expect(call('purge')).rejects.toThrow(/Unknown tool: purge/);
    await expect(call('doesNotExist')).rejects.toThrow(/Unknown tool/);
    const created = (await agent.request(
      { method: 'tools/call', params: { name: 'digest', arguments: { token: 'tk-secret-value' }, task: {} } } as never,
      CreateTaskResultSchema,
    )) as { task: { taskId: string } };
    taskId = created.task.taskId;
    await agent.request({ method: 'tasks/result', params: { taskId } } as never, CallToolResultSchema);
    await agent.getPrompt({ name: 'summary' });
    await agent.readResource({ uri: 'desk://status' });
    await agent.close();
    const anonymous = await fetch(url, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        authorization: 'Bearer wrong-key',
      },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'purge' } }),
    });
    expect(anonymous.status).toBe(401);
    // Bodies that are no JSON-RPC request are refused before any method runs, and recorded so.
    for (const body of ['{"jsonrpc": "2.0", "id": 1, "method": ', '{"jsonrpc": "2.0", "id": 9, "method": 42}']) {
      const malformed = await fetch(url, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          authorization: `Bearer ${KEYS.agent}`,
        },
        body,
      });
      expect(malformed.status).toBe(400);
    }
    // Closing the app drains calls and flushes the trail.
    await app.close();
    records = await readRecords(file);
  });

  const find = (method: string, target: string | null, outcome?: string) =>
    records.filter(
      (record) =>
        record.method === method && record.target === target && (outcome === undefined || record.outcome === outcome),
    );

  it('records every call with who, from which client, what, the outcome and the latency', () => {
    const [reset] = find('tools/call', 'resetPassword', 'ok');
    expect(reset).toMatchObject({
      principal: 'agent-7',
      transport: 'http',
      client: { name: 'e2e-client', version: '0.0.1' },
      outcome: 'ok',
      errorCode: null,
      chain: 'e2e-host',
      remoteAddress: expect.stringMatching(/127\.0\.0\.1/),
    });
    expect(reset.sessionId).toEqual(expect.any(String));
    expect(reset.latencyMs).toBeGreaterThanOrEqual(0);
    expect(Date.parse(reset.time)).not.toBeNaN();
    expect(find('prompts/get', 'summary', 'ok')).toHaveLength(1);
    expect(find('resources/read', 'desk://status', 'ok')).toHaveLength(1);
    // Who the client is comes with the initialize request itself, as docs/audit.md says.
    expect(find('initialize', null, 'ok')).toMatchObject([
      { principal: 'agent-7', client: { name: 'e2e-client', version: '0.0.1' } },
    ]);
  });

  it('records a body that is not JSON, or no JSON-RPC request, as a refusal of its caller', () => {
    // As every refusal before any method ran: the HTTP status is the code, like ones summed up per window.
    expect(records.filter((record) => record.method === null && record.outcome === 'invalid')).toMatchObject([
      { principal: 'agent-7', errorCode: 400, error: 'Parse error: the body is not valid JSON' },
      { principal: 'agent-7', errorCode: 400, error: expect.stringMatching(/^Invalid Request: /) },
    ]);
  });

  it('records a task three times: its creation, its background run (tasks/run) and the fetch of its result', () => {
    expect(find('tools/call', 'digest', 'ok')).toMatchObject([
      { principal: 'agent-7', arguments: { token: '[REDACTED]' } },
    ]);
    expect(find('tasks/run', 'digest', 'ok')).toMatchObject([
      { principal: 'agent-7', arguments: { token: '[REDACTED]' } },
    ]);
    expect(find('tasks/run', 'digest')[0].latencyMs).toBeGreaterThanOrEqual(15);
    expect(find('tasks/result', taskId, 'ok')).toHaveLength(1);
  });

  it('removes sensitive fields (DTO @Sensitive, schema x-sensitive) but digests the arguments as sent', () => {
    const [reset] = find('tools/call', 'resetPassword', 'ok');
    expect(reset.arguments).toEqual({ login: 'ada', newPassword: '[REDACTED]' });
    expect(reset.argumentsDigest).toMatch(/^sha256:[0-9a-f]{64}$/);
    const [connect] = find('tools/call', 'connect', 'ok');
    expect(connect.arguments).toEqual({ account: 'acme', pin: '[REDACTED]' });
    expect(JSON.stringify(records)).not.toContain('correct horse battery');
    expect(JSON.stringify(records)).not.toContain('pin-zyxw');
  });

  it('records each kind of failure and refusal with its own outcome, and refused calls never ran', () => {
    // A failed call's record says what the caller was told, secrets redacted as for the caller.
    expect(find('tools/call', 'resetPassword', 'invalid')).toMatchObject([
      {
        errorCode: null,
        error: expect.stringMatching(
          /^Invalid arguments for tool "resetPassword": - newPassword: newPassword must be longer than or equal to 8 characters/,
        ),
      },
    ]);
    expect(find('tools/call', 'refuse', 'tool_error')).toMatchObject([
      { errorCode: null, error: 'the ticket is locked (tried postgres://desk:[REDACTED]@db/tickets)' },
    ]);
    expect(refused).toMatchObject({
      isError: true,
      content: [{ type: 'text', text: 'the ticket is locked\n(tried postgres://desk:[REDACTED]@db/tickets)' }],
    });
    expect(JSON.stringify(records)).not.toContain('hunter2');
    expect(find('tools/call', 'forbidden', 'denied')).toMatchObject([
      { error: expect.stringContaining('not on weekends') },
    ]);
    expect(find('tools/call', 'rare', 'ok')).toHaveLength(1);
    expect(find('tools/call', 'rare', 'throttled')).toHaveLength(1);
    // Hidden from the caller (missing scope): the client saw "Unknown tool", the trail says denied.
    expect(find('tools/call', 'purge', 'denied')).toMatchObject([{ errorCode: -32602, error: 'Unknown tool: purge' }]);
    expect(find('tools/call', 'doesNotExist', 'invalid')).toHaveLength(1);
    expect(records.filter((record) => record.outcome === 'unauthenticated')).toMatchObject([
      { method: null, errorCode: 401, principal: null },
    ]);
    expect(RAN.filter((name) => name === 'purge')).toHaveLength(0);
    expect(RAN.filter((name) => name === 'rare')).toHaveLength(1);
  });

  it('chains the records: verification passes, and names the record that was altered', async () => {
    expect(records.map((record) => record.seq)).toEqual(records.map((_, index) => index + 1));
    expect(await verifyChain(records)).toEqual({ ok: true, count: records.length, chains: 1 });

    const intact = await run(process.execPath, [VERIFY, file]);
    expect(intact.stdout).toContain(`OK: ${records.length} record(s) in 1 chain(s)`);

    const tampered = records.map((record) => (record.seq === 3 ? { ...record, principal: 'someone-else' } : record));
    await writeFile(file, tampered.map((record) => JSON.stringify(record)).join('\n') + '\n');
    const broken = await run(process.execPath, [VERIFY, file]).then(
      () => ({ code: 0, stderr: '' }),
      (error: { code: number; stderr: string }) => error,
    );
    expect(broken.code).toBe(1);
    expect(broken.stderr).toContain(`BROKEN at record #3 (id ${records[2].id}, chain e2e-host, seq 3) in ${file}:3`);
  });

  it.each([
    [['--table', 'x', 'trail.jsonl'], '--table only apply with --postgres'],
    [['--postgres', '--schema'], '--schema needs a name'],
    [['--verbose', 'trail.jsonl'], 'unknown option --verbose'],
    [['a.jsonl', 'b.jsonl'], 'one trail file at a time'],
  ])('audit:verify %j is a usage error (exit 2) that says what is wrong', async (args, message) => {
    const failed = await run(process.execPath, [VERIFY, ...args]).then(
      () => ({ code: 0, stderr: '' }),
      (error: { code: number; stderr: string }) => error,
    );
    expect(failed.code).toBe(2);
    expect(failed.stderr).toContain(message);
    expect(failed.stderr).toContain('usage: npm run audit:verify');
  });
});

/**
 * A stranger without credentials floods the endpoint: every request is refused, every refusal is
 * accounted for in the trail, but as a few records with counts rather than one record each.
 */
describe('audit trail under a flood of unauthenticated requests', () => {
  let app: INestApplication | undefined;
  let base: string;
  let file: string;
  /** Stops the host: it writes the sums of the window still open. */
  const stop = async () => {
    await app?.close();
    app = undefined;
  };

  beforeEach(async () => {
    file = join(await mkdtemp(join(tmpdir(), 'mcp-flood-')), 'audit.jsonl');
    const moduleRef = await Test.createTestingModule({
      imports: [
        AuditFixtureModule.register({
          audit: { file, chain: 'flood', flushIntervalMs: 20 },
          authFailureLimit: { limit: 1_000_000, windowMs: 60_000 },
          auth: {
            mode: 'apiKey',
            keys: [
              { hash: hashApiKey(KEYS.agent), principal: 'agent-7' },
              { hash: hashApiKey(KEYS.admin), principal: 'root', roles: ['admin'] },
            ],
          },
        }),
      ],
    }).compile();
    const started = moduleRef.createNestApplication({ logger: false });
    await started.listen(0, '127.0.0.1');
    base = (await started.getUrl()).replace('[::1]', '127.0.0.1');
    app = started;
  });
  afterEach(stop);

  /** `rounds` × 80 requests at once, each with the headers `headersOf(round, i)` gives; their statuses. */
  const flood = async (rounds: number, headersOf: (round: number, i: number) => Record<string, string>) => {
    const statuses: number[] = [];
    for (let round = 0; round < rounds; round++) {
      const sent = Array.from({ length: 80 }, (_, i) =>
        fetch(`${base}/mcp`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', accept: 'application/json', ...headersOf(round, i) },
          body: '{"jsonrpc":"2.0","id":1,"method":"tools/list"}',
        }).then((response) => (void response.body?.cancel(), response.status)),
      );
      statuses.push(...(await Promise.all(sent)));
    }
    return statuses;
  };

  it('sums up like refusals per address and reason, so the trail stays small and complete', async () => {
    const statuses = await flood(50, (round, i): Record<string, string> =>
      i % 4 === 0 ? { 'x-api-key': `guess-${round}-${i}` } : {},
    );
    // Metrics still count every refusal: only the trail sums them up.
    const metrics = await (await fetch(`${base}/metrics`, { headers: { 'x-api-key': KEYS.admin } })).text();
    await stop();
    expect(statuses.filter((status) => status === 401)).toHaveLength(4_000);
    expect(Number(/^mcp_unauthenticated_total\{transport="http",replica="[^"]+"\} (\d+)$/m.exec(metrics)?.[1])).toBe(
      4_000,
    );
    const records = await readRecords(file);
    const refusals = records.filter((record) => record.method === null);
    // No key and a bad key are two reasons: two records each (the first at once, then the sum).
    const summary = refusals.map(
      (record) => [record.outcome, record.error, record.count ?? 1] as [string, string, number],
    );
    // The two first ones (in whichever order they arrived), then the two sums at the window's end.
    expect([...summary.slice(0, 2).sort(), ...summary.slice(2).sort()]).toEqual([
      ['unauthenticated', 'Unauthorized: No API key: send Authorization: Bearer <key> or X-API-Key: <key>', 1],
      ['unauthenticated', 'Unauthorized: The API key is not valid', 1],
      ['unauthenticated', 'Unauthorized: No API key: send Authorization: Bearer <key> or X-API-Key: <key>', 2_999],
      ['unauthenticated', 'Unauthorized: The API key is not valid', 999],
    ]);
    expect(refusals.every((record) => record.remoteAddress === '127.0.0.1')).toBe(true);
    expect(await verifyChain(records)).toMatchObject({ ok: true, count: 4 });
    expect((await readFile(file)).length).toBeLessThan(4_000);
  }, 60_000);

  it('sums up refusals that differ only in a header the sender chose (a new Origin each time, 4 KB long)', async () => {
    const statuses = await flood(25, (round, i) => ({ origin: `http://${round}-${i}.${'x'.repeat(4_000)}.example` }));
    await stop();
    expect(statuses.filter((status) => status === 403)).toHaveLength(2_000);
    const records = await readRecords(file);
    expect(records.map((record) => [record.outcome, record.errorCode, record.count ?? 1])).toEqual([
      ['denied', 403, 1],
      ['denied', 403, 1_999],
    ]);
    expect(records[0].error).toMatch(/^Forbidden: Origin "http:\/\/0-0\.x+…$/);
    expect(await verifyChain(records)).toMatchObject({ ok: true, count: 2 });
    expect((await readFile(file)).length).toBeLessThan(4_000);
  }, 60_000);
});
