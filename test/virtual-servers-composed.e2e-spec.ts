import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ToolListChangedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { hashApiKey, type AuditRecord } from '#libs/security';
import { connectSdkV1, connectSdkV2, MODERN, type ConnectedV1 } from './support/era-clients';
import { DESK_KEYS, readAuditTrail } from './support/desk-host';
import { startDeskProcess, type DeskProcess } from './support/desk-process';
import { waitFor, waitForAsync } from './support/wait-for';

jest.setTimeout(60_000);

const ADMIN = { 'x-api-key': DESK_KEYS.admin, 'content-type': 'application/json' };
const BOT_KEY = 'finance-bot-key-0123456789abcdef';

/**
 * Composed virtual servers: endpoints of their own (a path, a name, credentials, a selection of
 * local and upstream entries with scopes of their own, a limit), added, changed and removed
 * through the admin API of a support desk whose upstream (another desk) was added at run time
 * too; called with the SDK v1 (2025-11-25, sessions) and v2 (2026-07-28) clients. And the attacks:
 * a change by a non-administrator, paths that collide, a selection wider than the caller's
 * scopes, an import with duplicate names, keys of another server.
 */
describe('composed virtual servers', () => {
  const dir = mkdtempSync(join(tmpdir(), 'composed-'));
  const auditFile = join(dir, 'desk.jsonl');
  let upstream: DeskProcess;
  let desk: DeskProcess;
  let base: string;

  const api = (path: string, init: RequestInit = {}, headers: Record<string, string> = ADMIN) =>
    fetch(`${base}/admin/api/servers${path}`, { ...init, headers });
  const compose = (server: Record<string, unknown>, headers: Record<string, string> = ADMIN) =>
    api('/composed', { method: 'POST', body: JSON.stringify(server) }, headers);
  const finance = (extra: Record<string, unknown> = {}) => ({
    name: 'finance',
    path: '/mcp/finance',
    title: 'Finance desk',
    description: 'Customers and the ledger, nothing else.',
    select: [
      { from: 'upstream', name: 'ledger', entries: ['ledger__get_*'] },
      { from: 'local', entries: ['search_customers', 'create_ticket', 'triage_ticket'] },
    ],
    ...extra,
  });
  const problemsOf = async (response: Response) =>
    ((await response.json()) as { problems: { where: string; problem: string }[] }).problems.map(
      (problem) => `${problem.where}: ${problem.problem}`,
    );

  beforeAll(async () => {
    upstream = await startDeskProcess({ VIRTUAL_SERVERS: 'off', AUDIT_SINK: 'off' });
    desk = await startDeskProcess({
      AUTH_MODE: 'apiKey',
      MCP_API_KEYS_FILE: 'config/api-keys.example.json',
      AUDIT_FILE: auditFile,
      VIRTUAL_SERVERS_FILE: join(dir, 'virtual-servers.json'),
      VIRTUAL_SERVERS_ALLOW_HOSTS: '127.0.0.1',
    });
    base = `http://127.0.0.1:${desk.port}`;
    const added = await api('/upstreams', {
      method: 'POST',
      body: JSON.stringify({
        name: 'ledger',
        transport: { type: 'http', url: `http://127.0.0.1:${upstream.port}/mcp` },
        prefix: 'ledger',
      }),
    });
    expect(added.status).toBe(200);
    expect((await compose(finance())).status).toBe(200);
  }, 60_000);

  afterAll(async () => {
    await desk?.stop();
    await upstream?.stop();
  });

  it('serves its selection at its path, named and described as it says, to the SDK v1 and v2 clients alike', async () => {
    const v1 = await connectSdkV1(`${base}/mcp/finance`, 'finance-v1', { headers: { 'x-api-key': DESK_KEYS.admin } });
    const v2 = await connectSdkV2(
      `${base}/mcp/finance`,
      'finance-v2',
      { pin: MODERN },
      {
        headers: { 'x-api-key': DESK_KEYS.admin },
      },
    );
    try {
      expect(v1.client.getServerVersion()).toMatchObject({ name: 'finance', title: 'Finance desk' });
      expect(v1.client.getInstructions()).toBe('Customers and the ledger, nothing else.');
      const listed = (await v1.client.listTools()).tools.map((tool) => tool.name).sort();
      expect(listed).toEqual(['create_ticket', 'ledger__get_customer', 'ledger__get_ticket', 'search_customers']);
      expect((await v2.client.listTools()).tools.map((tool) => tool.name).sort()).toEqual(listed);
      // Prompts and resources are selected alike: the desk's triage prompt, none of its resources.
      expect((await v1.client.listPrompts()).prompts.map((prompt) => prompt.name)).toEqual(['triage_ticket']);
      expect((await v1.client.listResources()).resources).toEqual([]);
      await expect(v1.client.readResource({ uri: 'kb://articles' })).rejects.toThrow();
      const called = await v2.client.callTool({ name: 'ledger__get_ticket', arguments: { ticketId: 'T-2001' } });
      expect(called.isError).toBeFalsy();
      // What it does not select does not exist there, though the host's MCP path serves it.
      await expect(v1.client.callTool({ name: 'search_tickets', arguments: {} })).rejects.toThrow(/Unknown tool/);
      await expect(
        v2.client.callTool({ name: 'ledger__close_ticket', arguments: { ticketId: 'T-2001', resolution: 'x' } }),
      ).rejects.toThrow(/Unknown tool/);
    } finally {
      await v1.client.close();
      await v2.client.close();
    }
    const called = (records: AuditRecord[]) =>
      records.find((record) => record.target === 'ledger__get_ticket' && record.outcome === 'ok');
    await waitForAsync(async () => called(await readAuditTrail(auditFile)) !== undefined, 5_000);
    const records = await readAuditTrail(auditFile);
    expect(called(records)).toMatchObject({
      principal: 'desk-admin',
      server: 'finance',
      client: { name: 'finance-v2' },
    });
    // Each change is audited, with who made it and what it was.
    expect(records.filter((record) => record.method === 'admin/servers.upsert').map((r) => r.target)).toEqual([
      'ledger',
      'finance',
    ]);
  });

  it('never widens what a caller may use: a selected entry the caller’s scopes do not allow is hidden and refused', async () => {
    const reader = await connectSdkV1(`${base}/mcp/finance`, 'finance-reader', {
      headers: { 'x-api-key': DESK_KEYS.reader },
    });
    try {
      const listed = (await reader.client.listTools()).tools.map((tool) => tool.name);
      expect(listed).toContain('search_customers');
      expect(listed).not.toContain('create_ticket');
      await expect(
        reader.client.callTool({
          name: 'create_ticket',
          arguments: {
            customerId: 'C-1001',
            subject: 'Selected, not allowed',
            description: 'The reader lacks tickets:write.',
          },
        }),
      ).rejects.toThrow(/Unknown tool/);
    } finally {
      await reader.client.close();
    }
  });

  it('refuses a non-administrator, colliding paths and names, a selection of nothing there, a duplicate import', async () => {
    expect(
      (await compose(finance({ name: 'mine', path: '/mcp/mine' }), { ...ADMIN, 'x-api-key': DESK_KEYS.reader })).status,
    ).toBe(403);
    const colliding = await compose(finance({ name: 'admin', path: '/admin' }));
    expect(colliding.status).toBe(422);
    expect(await problemsOf(colliding)).toEqual(["servers[2].path: must be under the host's MCP path /mcp"]);
    const main = await compose(finance({ name: 'main', path: '/mcp' }));
    expect(await problemsOf(main)).toEqual(["servers[2].path: must be under the host's MCP path /mcp"]);
    const samePath = await compose(
      finance({ name: 'other', path: '/mcp/finance', select: [{ from: 'upstream', name: 'wiki' }] }),
    );
    expect(await problemsOf(samePath)).toEqual([
      'servers[2].path: /mcp/finance is taken by another server',
      'servers[2].select[0].name: no upstream is named "wiki" (the composed server "other" selects it)',
    ]);
    // The upstream a server selects cannot go while it does: the answer names the server.
    const selected = await api('/upstreams/ledger', { method: 'DELETE' });
    expect(selected.status).toBe(422);
    expect(await problemsOf(selected)).toEqual([
      'upstream "ledger": is selected by the composed server "finance" (servers[1].select[0]), so it stays while that server selects it',
    ]);
    const exported = (await (await api('/document')).json()) as { servers: unknown[] };
    const duplicate = await api('/document', {
      method: 'POST',
      body: JSON.stringify({ ...exported, servers: [...exported.servers, { ...finance(), path: '/mcp/finance2' }] }),
    });
    expect(duplicate.status).toBe(422);
    expect(await problemsOf(duplicate)).toEqual(['servers[2].name: "finance" is taken by another server']);
    // None of it applied: the desk's own (its seed) and finance.
    const composed = (await (await api('/composed')).json()) as { servers: { name: string }[] };
    expect(composed.servers.map((server) => server.name)).toEqual(['desk-readonly', 'finance']);
  });

  it('takes keys of its own, scopes of its own and a limit of calls per caller', async () => {
    const changed = await compose(
      finance({
        credentials: { apiKeys: [{ principal: 'finance-bot', hash: hashApiKey(BOT_KEY), scopes: ['tickets:read'] }] },
        limits: { callsPerMinute: 6 },
      }),
    );
    expect(changed.status).toBe(200);
    const initialize = (key: string) =>
      fetch(`${base}/mcp/finance`, {
        method: 'POST',
        headers: {
          'x-api-key': key,
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
        },
        body: JSON.stringify({
          jsonrpc: '2.0',
          id: 1,
          method: 'initialize',
          params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
        }),
      });
    // The host's keys are not its keys.
    const host = await initialize(DESK_KEYS.admin);
    expect(host.status).toBe(401);
    expect(host.headers.get('www-authenticate')).toContain('error="invalid_token"');
    const bot = await connectSdkV1(`${base}/mcp/finance`, 'finance-bot', { headers: { 'x-api-key': BOT_KEY } });
    try {
      // Its key's scopes apply as the host's would: tickets:read, no create_ticket.
      const listed = (await bot.client.listTools()).tools.map((tool) => tool.name).sort();
      expect(listed).toEqual(['ledger__get_customer', 'ledger__get_ticket', 'search_customers']);
    } finally {
      await bot.client.close();
    }
    // Over its limit: 429 with the time to wait (initialize, initialized, list and the close made some already).
    let last = 0;
    for (let i = 0; i < 8 && last !== 429; i++) last = (await initialize(BOT_KEY)).status;
    expect(last).toBe(429);
    // Scopes of its own, on the host's authentication: the reader lacks reports.
    expect((await compose(finance({ credentials: { scopes: ['reports'] } }))).status).toBe(200);
    const reader = await initialize(DESK_KEYS.reader);
    expect(reader.status).toBe(403);
    expect(reader.headers.get('www-authenticate')).toContain('error="insufficient_scope", scope="reports"');
    expect((await initialize(DESK_KEYS.admin)).status).toBe(200);
  });

  it('adds a REST API at run time (another desk’s OpenAPI document): its operations served, selected by a composed server, called, removed', async () => {
    const deskApi = {
      name: 'deskb',
      document: `http://127.0.0.1:${upstream.port}/docs-json`,
      prefix: 'deskb_',
      credentials: { headers: { 'x-desk-token': 'api-secret-value' } },
    };
    // Its document is read before anything is stored: the desk's names no server to call.
    const unlocated = await api('/apis', { method: 'POST', body: JSON.stringify(deskApi) });
    expect(unlocated.status).toBe(422);
    expect(await problemsOf(unlocated)).toEqual([
      "apis[0].baseUrl: is not set, and the document's first server gives no absolute http(s) URL",
    ]);
    const added = await api('/apis', {
      method: 'POST',
      body: JSON.stringify({ ...deskApi, baseUrl: `http://127.0.0.1:${upstream.port}` }),
    });
    expect(added.status).toBe(200);
    // Its credentials are stored, never shown.
    expect(JSON.stringify(await added.json())).not.toContain('api-secret-value');
    const listing = (await (await api('/apis')).json()) as {
      apis: { name: string; status: { tools: string[]; problems: string[] } }[];
    };
    expect(listing.apis).toEqual([
      expect.objectContaining({
        name: 'deskb',
        credentials: { headers: { 'x-desk-token': '[REDACTED]' } },
        status: { tools: expect.arrayContaining(['deskb_getCustomer', 'deskb_listTickets']), problems: [] },
      }),
    ]);
    const admin = await connectSdkV1(`${base}/mcp`, 'api-admin', { headers: { 'x-api-key': DESK_KEYS.admin } });
    try {
      const customer = await admin.client.callTool({ name: 'deskb_getCustomer', arguments: { customerId: 'C-1001' } });
      expect(customer.isError).toBeFalsy();
      expect(JSON.stringify(customer.structuredContent ?? customer.content)).toContain('C-1001');

      // A composed server of its reads only, for the SDK v2 client.
      const billing = await compose({
        name: 'billing',
        path: '/mcp/billing',
        select: [{ from: 'api', name: 'deskb', entries: ['deskb_get*'] }],
      });
      expect(billing.status).toBe(200);
      const v2 = await connectSdkV2(
        `${base}/mcp/billing`,
        'billing-v2',
        { pin: MODERN },
        {
          headers: { 'x-api-key': DESK_KEYS.admin },
        },
      );
      try {
        const tools = (await v2.client.listTools()).tools.map((tool) => tool.name);
        expect(tools.length).toBeGreaterThan(0);
        expect(tools.every((name) => name.startsWith('deskb_get'))).toBe(true);
        const ticket = await v2.client.callTool({ name: 'deskb_getTicket', arguments: { ticketId: 'T-2001' } });
        expect(ticket.isError).toBeFalsy();
      } finally {
        await v2.client.close();
      }
      // Not while a server selects it; and a document the host would read from its own disk, never.
      const selected = await api('/apis/deskb', { method: 'DELETE' });
      expect(selected.status).toBe(422);
      expect(await problemsOf(selected)).toEqual([
        expect.stringMatching(
          /^API "deskb": is selected by the composed server "billing" \(servers\[\d\]\.select\[0\]\)/,
        ),
      ]);
      const fromDisk = await api('/apis', {
        method: 'POST',
        body: JSON.stringify({ name: 'disk', document: '/etc/passwd' }),
      });
      expect(await problemsOf(fromDisk)).toEqual([
        'apis[1].document: must be an http(s) URL at run time (an admin API does not read the host’s files)',
      ]);

      expect((await api('/composed/billing', { method: 'DELETE' })).status).toBe(200);
      expect((await api('/apis/deskb', { method: 'DELETE' })).status).toBe(200);
      expect((await admin.client.listTools()).tools.map((tool) => tool.name)).not.toContain('deskb_getCustomer');
      await expect(
        admin.client.callTool({ name: 'deskb_getCustomer', arguments: { customerId: 'C-1001' } }),
      ).rejects.toThrow(/Unknown tool/);
    } finally {
      await admin.client.close();
    }
  });

  it('tells the clients of a changed server list_changed, and ends the sessions of a removed one (404)', async () => {
    const session: ConnectedV1 = await connectSdkV1(`${base}/mcp/finance`, 'finance-watcher', {
      headers: { 'x-api-key': DESK_KEYS.admin },
    });
    let listChanged = 0;
    session.client.setNotificationHandler(ToolListChangedNotificationSchema, async () => void listChanged++);
    // The standalone stream that carries list_changed is opened after initialize.
    await new Promise((resolve) => setTimeout(resolve, 300));
    const narrower = await compose(finance({ select: [{ from: 'local', entries: ['search_customers'] }] }));
    expect(narrower.status).toBe(200);
    await waitFor(() => listChanged > 0, 5_000);
    expect((await session.client.listTools()).tools.map((tool) => tool.name)).toEqual(['search_customers']);

    const removed = await api('/composed/finance', { method: 'DELETE' });
    expect(removed.status).toBe(200);
    await waitForAsync(async () => {
      const answer = await session.client.listTools().then(
        () => 'served',
        (error: Error) => error.message,
      );
      return /404/.test(answer);
    }, 5_000);
    await expect(
      connectSdkV1(`${base}/mcp/finance`, 'too-late', { headers: { 'x-api-key': DESK_KEYS.admin } }),
    ).rejects.toThrow(/404/);
    await session.client.close().catch(() => undefined);
    expect((await api('/composed/finance', { method: 'DELETE' })).status).toBe(404);
    // The trail is written off the request's path: read it once the record is there.
    const removal = async () =>
      (await readAuditTrail(auditFile)).filter(
        (record) => record.method === 'admin/servers.remove' && record.target === 'finance',
      );
    await waitForAsync(async () => (await removal()).length > 0, 5_000);
    expect(await removal()).toMatchObject([
      { principal: 'desk-admin', outcome: 'ok', arguments: { servers: [{ name: 'finance', path: '/mcp/finance' }] } },
    ]);
  });
});
