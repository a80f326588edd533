import type { INestApplication } from '@nestjs/common';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { fetchFrom } from './support/address-fetch';
import { auditRecords, DESK_KEYS, startDeskHost, type DeskHost } from './support/desk-host';
import { startFixtureApp } from './support/fixture-app';
import { startHaproxy, type Haproxy } from './support/haproxy';

// A desk, a fixture host and two HAProxy processes start here.
jest.setTimeout(60_000);

// Three clients on one machine: the loopback network answers every 127.x address, so each
// connects to the proxy from an address of its own, which HAProxy writes in X-Forwarded-For.
const STRANGER = '127.0.0.2';
const COLLEAGUE = '127.0.0.3';

const INITIALIZE = JSON.stringify({
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
});

/** An `initialize` POSTed from `address` with `key` (none: no credential); its status. */
async function initializeFrom(address: string, url: string, key?: string): Promise<number> {
  const response = await fetchFrom(address)(url, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      ...(key && { 'x-api-key': key }),
    },
    body: INITIALIZE,
  });
  await response.arrayBuffer();
  return response.status;
}

/** An SDK v1 client of `url` whose connections leave from `address`. */
async function sdkClientFrom(address: string, url: string, headers: Record<string, string> = {}): Promise<Client> {
  const client = new Client({ name: `client-at-${address}`, version: '1.0.0' });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(url), { fetch: fetchFrom(address), requestInit: { headers } }),
  );
  return client;
}

describe('the support desk behind HAProxy, with TRUST_PROXY naming the balancer', () => {
  let desk: DeskHost;
  let proxy: Haproxy;
  let url: string;
  const clients: Client[] = [];

  beforeAll(async () => {
    // HAProxy connects to the desk from 127.0.0.1: the address the desk is told to trust.
    desk = await startDeskHost({ AUTH_MODE: 'apiKey', TRUST_PROXY: '127.0.0.1', THROTTLE_LIMIT: '10000' });
    const port = Number(new URL(desk.base).port);
    proxy = await startHaproxy({ desk: port }, '/health/ready', { forwardFor: true });
    url = `http://127.0.0.1:${proxy.port}/mcp`;
  });
  afterAll(async () => {
    for (const client of clients) await client.close();
    await proxy?.stop();
    await desk?.close();
  });

  it('keeps serving a valid key while a stranger floods the desk with bad ones, and locks out only the stranger', async () => {
    const colleague = await sdkClientFrom(COLLEAGUE, url, { 'x-api-key': DESK_KEYS.admin });
    clients.push(colleague);
    const strangerStatuses: number[] = [];
    const validStatuses: number[] = [];
    // 60 bad keys (the lock-out comes after 20), each followed by a valid request of the colleague
    // over raw HTTP, and every tenth by a tool call of its SDK client.
    for (let attempt = 0; attempt < 60; attempt++) {
      strangerStatuses.push(await initializeFrom(STRANGER, url, `guess-${attempt}`));
      validStatuses.push(await initializeFrom(COLLEAGUE, url, DESK_KEYS.reader));
      if (attempt % 10 === 9) {
        const found = (await colleague.callTool({
          name: 'get_ticket',
          arguments: { ticketId: 'T-2001' },
        })) as CallToolResult;
        expect(found.structuredContent).toMatchObject({ id: 'T-2001' });
      }
    }
    expect(strangerStatuses).toEqual([...Array<number>(20).fill(401), ...Array<number>(40).fill(429)]);
    expect(validStatuses).toEqual(Array<number>(60).fill(200));
    // A valid key from the stranger's own address still gets in: others' failures never lock it out.
    expect(await initializeFrom(STRANGER, url, DESK_KEYS.reader)).toBe(200);
    const sameAddress = await sdkClientFrom(STRANGER, url, { 'x-api-key': DESK_KEYS.reader });
    clients.push(sameAddress);
    expect((await sameAddress.listTools()).tools.length).toBeGreaterThan(0);
    // Another address's bad key is judged on its own: 401, not the stranger's 429.
    expect(await initializeFrom(COLLEAGUE, url, 'a-typo')).toBe(401);
  });

  it('names each real client in the audit trail, and its REST API keys its own lock-out the same way', async () => {
    const [call] = await auditRecords(
      desk.auditFile,
      (record) => record.target === 'get_ticket' && record.principal === 'desk-admin',
    );
    expect(call.remoteAddress).toBe(COLLEAGUE);
    const [refused] = await auditRecords(
      desk.auditFile,
      (record) => record.outcome === 'throttled' && record.remoteAddress === STRANGER,
    );
    expect(refused).toMatchObject({ errorCode: 429 });
    expect(
      (await readAllAddresses(desk.auditFile)).filter((address) => address !== STRANGER && address !== COLLEAGUE),
    ).toEqual([]);

    // The desk's REST API shares the lock-out: the stranger is refused there too, the colleague is not.
    const restFrom = (address: string, key: string) =>
      fetchFrom(address)(`http://127.0.0.1:${proxy.port}/api/tickets/T-2001`, { headers: { 'x-api-key': key } });
    expect((await restFrom(STRANGER, 'guess')).status).toBe(429);
    expect((await restFrom(COLLEAGUE, 'another-typo')).status).toBe(401);
    expect((await restFrom(STRANGER, DESK_KEYS.reader)).status).toBe(200);
  });
});

/** The distinct `remoteAddress` of every record in a trail. */
async function readAllAddresses(file: string): Promise<string[]> {
  const records = await auditRecords(file, () => true);
  return [...new Set(records.map((record) => record.remoteAddress).filter((address) => address !== null))] as string[];
}

describe('per-address limits of a host without authentication, behind HAProxy', () => {
  let app: INestApplication;
  let proxy: Haproxy;
  let url: string;

  beforeAll(async () => {
    const started = await startFixtureApp({
      auth: { mode: 'none', principal: { id: 'local-dev' } },
      maxSessionsPerPrincipal: 2,
      trustProxy: ['127.0.0.1'],
    });
    app = started.app;
    proxy = await startHaproxy({ host: Number(new URL(started.url).port) }, '/health/ready', { forwardFor: true });
    url = `http://127.0.0.1:${proxy.port}/mcp`;
  });
  afterAll(async () => {
    await proxy?.stop();
    await app?.close();
  });

  it("counts sessions per real client: one client's full allowance leaves another its own", async () => {
    expect(await initializeFrom(STRANGER, url)).toBe(200);
    expect(await initializeFrom(STRANGER, url)).toBe(200);
    const third = await fetchFrom(STRANGER)(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json' },
      body: INITIALIZE,
    });
    expect(third.status).toBe(429);
    const { error } = (await third.json()) as { error: { message: string } };
    expect(error.message).toContain(`this address (${STRANGER})`);
    const colleague = await sdkClientFrom(COLLEAGUE, url);
    try {
      expect((await colleague.listTools()).tools.length).toBeGreaterThan(0);
    } finally {
      await colleague.close();
    }
  });
});
