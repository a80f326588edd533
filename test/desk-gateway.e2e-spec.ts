import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { DESK_KEYS, auditRecords, startDeskHost, type DeskHost } from './support/desk-host';
import { connectHttpClient } from './support/fixture-app';

// Upstream processes start, restart and are killed here: on a busy CI machine that takes longer
// than jest's 5 s default, which is a limit for a hung test, not a timing goal.
jest.setTimeout(30_000);

/** The support desk with its example gateway configuration: server-everything beside its own tools. */
describe('the support desk federating server-everything (GATEWAY_UPSTREAMS_FILE=config/upstreams.example.json)', () => {
  let desk: DeskHost;
  let reader: Client;

  beforeAll(async () => {
    desk = await startDeskHost({
      AUTH_MODE: 'apiKey',
      MCP_API_KEYS_FILE: 'config/api-keys.example.json',
      GATEWAY_UPSTREAMS_FILE: 'config/upstreams.example.json',
    });
    reader = await connectHttpClient(desk.url, { 'x-api-key': DESK_KEYS.reader });
  });
  afterAll(async () => {
    await reader?.close();
    await desk?.close();
  });

  it("lists the upstream's tools, filtered, beside the desk's own", async () => {
    const names = (await reader.listTools()).tools.map((tool) => tool.name);
    const upstream = names.filter((name) => name.startsWith('everything__'));
    expect(upstream).toEqual(expect.arrayContaining(['everything__echo', 'everything__get-sum']));
    expect(upstream).not.toContain('everything__get-env');
    expect(upstream.filter((name) => name.startsWith('everything__toggle-'))).toEqual([]);
    // The desk's own tools are all still there.
    expect(names).toEqual(expect.arrayContaining(['get_ticket', 'search_customers', 'getTicket']));
  });

  it('calls an upstream tool behind the desk’s own keys, audit and readiness', async () => {
    const sum = (await reader.callTool({ name: 'everything__get-sum', arguments: { a: 20, b: 22 } })) as CallToolResult;
    expect((sum.content[0] as { text: string }).text).toContain('42');
    const [record] = await auditRecords(desk.auditFile, (r) => r.target === 'everything__get-sum');
    expect(record).toMatchObject({ principal: 'desk-reader', outcome: 'ok', route: 'upstream everything: get-sum' });
    const ready = (await (await fetch(`${desk.base}/health/ready`)).json()) as { details: Record<string, unknown> };
    expect(ready.details['upstream:everything']).toMatchObject({ status: 'up' });
  });

  it('pins the upstream\'s catalog ("pin": true): its definitions accepted on first use, nothing waiting for review', async () => {
    const pins = await fetch(`${desk.base}/admin/api/pins`, { headers: { 'x-api-key': DESK_KEYS.admin } });
    expect(pins.status).toBe(200);
    const body = (await pins.json()) as { quarantined: unknown[]; accepted: number };
    expect(body.quarantined).toEqual([]);
    expect(body.accepted).toBeGreaterThanOrEqual(2);
  });
});
