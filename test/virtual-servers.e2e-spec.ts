import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client as PgClient } from 'pg';
import { ToolListChangedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { connectSdkV1, type ConnectedV1 } from './support/era-clients';
import { DESK_KEYS, readAuditTrail } from './support/desk-host';
import { startDeskProcess, type DeskProcess } from './support/desk-process';
import { startHaproxy, type Haproxy } from './support/haproxy';
import { PostgresServer } from './support/postgres-server';
import { startRedisServer, type RedisServer } from './support/redis-server';
import { waitFor, waitForAsync } from './support/wait-for';

jest.setTimeout(60_000);

const REPLICAS = ['desk-1', 'desk-2', 'desk-3'] as const;
const ADMIN = { 'x-api-key': DESK_KEYS.admin, 'content-type': 'application/json' };

/**
 * Virtual servers managed at run time, on three support-desk replicas behind HAProxy (round
 * robin), sharing Redis and PostgreSQL: an upstream added through the admin API of whichever
 * replica the balancer picks is stored in PostgreSQL, served by every replica without a restart
 * (the time measured), its clients told `list_changed`, the change audited; a removed one leaves
 * every replica. And the attacks: a non-administrator, an upstream on the host's own admin API or
 * on a private address, an import with a duplicate name.
 */
describe('virtual servers at run time, on three replicas', () => {
  const auditDir = mkdtempSync(join(tmpdir(), 'virtual-servers-'));
  const replicas = new Map<string, DeskProcess>();
  let postgres: PostgresServer;
  let redis: RedisServer;
  let proxy: Haproxy;
  let upstream: DeskProcess;
  let base: string;
  let session: ConnectedV1;
  let listChanged = 0;
  /** Per change: the time from the admin API's answer to every replica serving it. */
  const propagation: string[] = [];

  const api = (path: string, init: RequestInit = {}) =>
    fetch(`${base}/admin/api/servers${path}`, { ...init, headers: { ...ADMIN, ...(init.headers as object) } });
  const toolsOf = async (replica: string): Promise<string[]> => {
    const response = await fetch(`http://127.0.0.1:${replicas.get(replica)!.port}/admin/api/catalog`, {
      headers: ADMIN,
    });
    const body = (await response.json()) as { tools: { name: string; enabled?: boolean }[] };
    return body.tools.map((tool) => tool.name);
  };
  /** The status of a request to one replica's `path`: an `initialize` (POST), or a GET (which counts no call). */
  const requestAt = (replica: string, path: string, method: 'GET' | 'POST') =>
    fetch(`http://127.0.0.1:${replicas.get(replica)!.port}${path}`, {
      method,
      headers: { ...ADMIN, accept: 'application/json, text/event-stream' },
      ...(method === 'POST' && {
        body: JSON.stringify({
          jsonrpc: '2.0',
          id: 1,
          method: 'initialize',
          params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'probe', version: '1' } },
        }),
      }),
    }).then((response) => response.status);
  const everyReplicaLists = async (tool: string, present: boolean) =>
    (await Promise.all(REPLICAS.map(toolsOf))).every((tools) => tools.includes(tool) === present);
  const crm = (extra: Record<string, unknown> = {}) => ({
    name: 'crm',
    transport: { type: 'http', url: `http://127.0.0.1:${upstream.port}/mcp`, bearer: 'crm-secret-token' },
    prefix: 'crm',
    tools: { allow: ['get_ticket', 'search_tickets'] },
    scopes: ['tickets:read'],
    ...extra,
  });

  beforeAll(async () => {
    [postgres, redis] = await Promise.all([PostgresServer.create(), startRedisServer()]);
    // The upstream: another desk, on loopback, without authentication (loopback callers only).
    upstream = await startDeskProcess({ VIRTUAL_SERVERS: 'off', AUDIT_SINK: 'off' });
    for (const replica of REPLICAS)
      replicas.set(
        replica,
        await startDeskProcess({
          AUTH_MODE: 'apiKey',
          MCP_API_KEYS_FILE: 'config/api-keys.example.json',
          REDIS_URL: redis.url,
          DATABASE_URL: postgres.url,
          MCP_REPLICA: replica,
          AUDIT_FILE: join(auditDir, `${replica}.jsonl`),
          AUDIT_CHAIN: replica,
          VIRTUAL_SERVERS_ALLOW_HOSTS: '127.0.0.1',
        }),
      );
    proxy = await startHaproxy(Object.fromEntries(REPLICAS.map((name) => [name, replicas.get(name)!.port])));
    base = `http://127.0.0.1:${proxy.port}`;
    session = await connectSdkV1(`${base}/mcp`, 'virtual-servers', { headers: { 'x-api-key': DESK_KEYS.admin } });
    session.client.setNotificationHandler(ToolListChangedNotificationSchema, async () => void listChanged++);
  }, 120_000);

  afterAll(async () => {
    await session?.client.close();
    await proxy?.stop();
    await Promise.all([...replicas.values()].map((replica) => replica.stop()));
    await upstream?.stop();
    await redis?.stop();
    await postgres?.stop();
  });

  it('adds an upstream through one replica: stored in PostgreSQL, served by every replica, clients told, audited', async () => {
    const response = await api('/upstreams', { method: 'POST', body: JSON.stringify(crm()) });
    const answeredAt = Date.now();
    expect(response.status).toBe(200);
    const document = (await response.json()) as { version: number; updatedBy: string; upstreams: unknown[] };
    // Version 1 is the desk's seed (its read-only composed server), stored by the first replica up.
    expect(document).toMatchObject({ version: 2, updatedBy: 'desk-admin' });
    // Secrets never leave the host.
    expect(document.upstreams).toEqual([
      expect.objectContaining({ transport: expect.objectContaining({ bearer: '[REDACTED]' }) }),
    ]);
    await waitForAsync(async () => {
      const seen = await Promise.all(REPLICAS.map(toolsOf));
      return seen.every((tools) => tools.includes('crm__get_ticket'));
    }, 10_000);
    propagation.push(`upstream added ${Date.now() - answeredAt} ms`);
    expect(await toolsOf('desk-2')).toEqual(expect.arrayContaining(['crm__get_ticket', 'crm__search_tickets']));
    expect(await toolsOf('desk-2')).not.toContain('crm__close_ticket');
    // A call through the balancer reaches the upstream, whichever replica serves it.
    const result = await session.client.callTool({ name: 'crm__get_ticket', arguments: { ticketId: 'T-2001' } });
    expect(result.isError).toBeFalsy();
    await waitFor(() => listChanged > 0, 5_000);

    const pg = new PgClient({ connectionString: postgres.url });
    await pg.connect();
    const { rows } = await pg.query('SELECT version, document FROM mcp_virtual_servers');
    await pg.end();
    expect(rows).toEqual([
      {
        version: 2,
        document: expect.objectContaining({
          upstreams: [expect.objectContaining({ transport: expect.objectContaining({ bearer: 'crm-secret-token' }) })],
        }),
      },
    ]);
    const records = (
      await Promise.all(REPLICAS.map((replica) => readAuditTrail(join(auditDir, `${replica}.jsonl`)).catch(() => [])))
    ).flat();
    expect(records.filter((record) => record.method === 'admin/servers.upsert')).toMatchObject([
      { principal: 'desk-admin', target: 'crm', outcome: 'ok', arguments: { version: 2 } },
    ]);
    expect(JSON.stringify(records)).not.toContain('crm-secret-token');
  });

  it('refuses a change by a non-administrator, an upstream on the host itself or a private address, and a duplicate import', async () => {
    const reader = await fetch(`${base}/admin/api/servers/upstreams`, {
      method: 'POST',
      headers: { 'x-api-key': DESK_KEYS.reader, 'content-type': 'application/json' },
      body: JSON.stringify(crm({ name: 'evil' })),
    });
    expect(reader.status).toBe(403);
    const own = replicas.get('desk-1')!.port;
    // Every replica refuses a private address it was not told to allow.
    const privateAddress = await api('/upstreams', {
      method: 'POST',
      body: JSON.stringify(
        crm({ name: 'metadata', prefix: 'meta', transport: { type: 'http', url: 'http://169.254.169.254/latest' } }),
      ),
    });
    expect(privateAddress.status).toBe(422);
    expect(await privateAddress.json()).toEqual({
      error: 'invalid',
      problems: [
        {
          where: 'upstreams[1].transport.url',
          problem: '169.254.169.254 is a cloud metadata address, which a run-time upstream or API may not reach',
          fix: "a cloud metadata address is reached only when named by address: virtualServers.allowHosts: ['169.254.169.254']",
        },
      ],
    });
    // And its own address (its admin API, metrics, MCP endpoint) whatever it allows.
    const direct = await fetch(`http://127.0.0.1:${own}/admin/api/servers/upstreams`, {
      method: 'POST',
      headers: ADMIN,
      body: JSON.stringify(
        crm({
          name: 'loop',
          prefix: 'loop',
          transport: { type: 'http', url: `http://127.0.0.1:${own}/admin/api/servers/upstreams` },
        }),
      ),
    });
    expect(direct.status).toBe(422);
    expect(JSON.stringify(await direct.json())).toContain('is this host itself');

    const exported = (await (await api('/document')).json()) as { version: number; upstreams: { name: string }[] };
    const duplicate = await api('/document', {
      method: 'POST',
      body: JSON.stringify({ ...exported, upstreams: [...exported.upstreams, { ...exported.upstreams[0] }], extra: 1 }),
    });
    expect(duplicate.status).toBe(422);
    const problems = ((await duplicate.json()) as { problems: { where: string; problem: string }[] }).problems;
    expect(problems.map((problem) => `${problem.where}: ${problem.problem}`)).toEqual([
      'extra: is not a field of the document',
      'upstreams[1].name: "crm" names another upstream too',
      expect.stringMatching(/^upstreams\[1\]\.prefix: /),
    ]);
    // Nothing of it applied: every replica still has exactly crm.
    expect(await everyReplicaLists('crm__get_ticket', true)).toBe(true);
  });

  it('composes a virtual server through one replica: every replica serves its path, and none once it is removed', async () => {
    const initializeAt = (replica: string) => requestAt(replica, '/mcp/crm-desk', 'POST');
    const everyReplicaAnswers = async (status: number) =>
      (await Promise.all(REPLICAS.map(initializeAt))).every((answered) => answered === status);
    expect(await everyReplicaAnswers(404)).toBe(true);
    const composed = await api('/composed', {
      method: 'POST',
      body: JSON.stringify({
        name: 'crm-desk',
        path: '/mcp/crm-desk',
        select: [
          { from: 'upstream', name: 'crm' },
          { from: 'local', entries: ['search_customers'] },
        ],
      }),
    });
    const answeredAt = Date.now();
    expect(composed.status).toBe(200);
    await waitForAsync(() => everyReplicaAnswers(200), 10_000);
    propagation.push(`composed server added ${Date.now() - answeredAt} ms`);
    // Through the balancer, a session of it spans the replicas (its record in Redis).
    const crmDesk = await connectSdkV1(`${base}/mcp/crm-desk`, 'crm-desk', {
      headers: { 'x-api-key': DESK_KEYS.admin },
    });
    expect((await crmDesk.client.listTools()).tools.map((tool) => tool.name).sort()).toEqual([
      'crm__get_ticket',
      'crm__search_tickets',
      'search_customers',
    ]);
    await crmDesk.client.close();
    const removed = await api('/composed/crm-desk', { method: 'DELETE' });
    const removedAt = Date.now();
    expect(removed.status).toBe(200);
    await waitForAsync(() => everyReplicaAnswers(404), 10_000);
    propagation.push(`composed server removed ${Date.now() - removedAt} ms`);
  });

  it('counts a composed server’s limit of calls per caller across the replicas (the throttler storage on Redis)', async () => {
    const limited = await api('/composed', {
      method: 'POST',
      body: JSON.stringify({
        name: 'limited',
        path: '/mcp/limited',
        select: [{ from: 'local', entries: ['search_customers'] }],
        limits: { callsPerMinute: 3 },
      }),
    });
    expect(limited.status).toBe(200);
    const at = (replica: string, method: 'GET' | 'POST') => requestAt(replica, '/mcp/limited', method);
    // Served everywhere (a GET counts no call), then three calls on three replicas, and a fourth refused.
    await waitForAsync(async () =>
      (await Promise.all(REPLICAS.map((replica) => at(replica, 'GET')))).every((s) => s !== 404),
    );
    expect([await at('desk-1', 'POST'), await at('desk-2', 'POST'), await at('desk-3', 'POST')]).toEqual([
      200, 200, 200,
    ]);
    expect(await at('desk-1', 'POST')).toBe(429);
    expect((await api('/composed/limited', { method: 'DELETE' })).status).toBe(200);
  });

  it('adds a REST API through one replica: every replica serves its operations, and none once it is removed', async () => {
    const added = await api('/apis', {
      method: 'POST',
      body: JSON.stringify({
        name: 'deskb',
        document: `http://127.0.0.1:${upstream.port}/docs-json`,
        baseUrl: `http://127.0.0.1:${upstream.port}`,
        prefix: 'deskb_',
        operations: { operationIds: ['getCustomer', 'getTicket'] },
      }),
    });
    const answeredAt = Date.now();
    expect(added.status).toBe(200);
    await waitForAsync(() => everyReplicaLists('deskb_getCustomer', true), 10_000);
    propagation.push(`API added ${Date.now() - answeredAt} ms`);
    const result = await session.client.callTool({ name: 'deskb_getTicket', arguments: { ticketId: 'T-2001' } });
    expect(result.isError).toBeFalsy();
    expect(await toolsOf('desk-3')).not.toContain('deskb_createTicket');
    const removed = await api('/apis/deskb', { method: 'DELETE' });
    const removedAt = Date.now();
    expect(removed.status).toBe(200);
    await waitForAsync(() => everyReplicaLists('deskb_getCustomer', false), 10_000);
    propagation.push(`API removed ${Date.now() - removedAt} ms`);
  });

  it('exports the document and imports it again (credentials kept), refuses a stale version, and removes an upstream everywhere', async () => {
    const exported = (await (await api('/document')).json()) as { version: number };
    const again = await api('/document', { method: 'POST', body: JSON.stringify(exported) });
    expect(again.status).toBe(200);
    expect(((await again.json()) as { version: number }).version).toBe(exported.version + 1);
    const stale = await api('/document', { method: 'POST', body: JSON.stringify(exported) });
    expect(stale.status).toBe(409);
    // The redacted bearer of the export was kept: the upstream still answers.
    const result = await session.client.callTool({ name: 'crm__search_tickets', arguments: { status: 'open' } });
    expect(result.isError).toBeFalsy();

    const before = listChanged;
    const removed = await api('/upstreams/crm', { method: 'DELETE' });
    const answeredAt = Date.now();
    expect(removed.status).toBe(200);
    await waitForAsync(() => everyReplicaLists('crm__get_ticket', false), 10_000);
    propagation.push(`upstream removed ${Date.now() - answeredAt} ms`);
    await waitFor(() => listChanged > before, 5_000);
    await expect(
      session.client.callTool({ name: 'crm__get_ticket', arguments: { ticketId: 'T-2001' } }),
    ).rejects.toThrow(/Unknown tool/);
    expect((await api('/upstreams/crm', { method: 'DELETE' })).status).toBe(404);
    console.log(
      `virtual servers: from the admin API's answer to every replica serving the change: ${propagation.join(', ')}`,
    );
  });
});
