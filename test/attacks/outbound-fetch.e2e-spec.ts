import { randomUUID } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { INestApplication } from '@nestjs/common';
import { Test } from '@nestjs/testing';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { McpModule } from '#libs/hosting';
import { AuditTrail } from '#libs/security';
import { baseUrlOf, connectHttpClient, createTestApplication, startTestApp } from '../support/fixture-app';
import { freePort } from '../support/free-port';
import { waitFor } from '../support/wait-for';

// The trickling document is cut at its 5 s deadline; a host that had only an idle timeout would hang here.
jest.setTimeout(60_000);

/** A server on 127.0.0.1 that counts the connections it is given. */
async function countingServer(handle: (path: string, res: import('node:http').ServerResponse) => void) {
  let connections = 0;
  const server: Server = createServer((req, res) => handle(req.url ?? '', res));
  server.on('connection', () => connections++);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as AddressInfo).port,
    connections: () => connections,
    close: () => {
      server.closeAllConnections();
      return new Promise((resolve) => server.close(resolve));
    },
  };
}

const json = (res: import('node:http').ServerResponse, body: unknown) =>
  res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(body));

/** An OpenAPI document of one read operation, served at `server`. */
const inventoryDocument = (server: string) => ({
  openapi: '3.1.0',
  info: { title: 'Inventory', version: '1.0.0' },
  servers: [{ url: server }],
  paths: { '/stock': { get: { operationId: 'getStock', responses: { '200': { description: 'the stock' } } } } },
});

/**
 * Server-side request forgery through every outbound fetch of the host, on loopback only: a
 * loopback-only "internal" service (which counts its connections) that an administrator's
 * upstream or API, or a stranger's client ID metadata document URL, must not reach in any
 * spelling of its address (`[::ffff:127.0.0.1]`, `[::ffff:7f00:1]`, `2130706433`); the cloud
 * metadata address and the host's own port; a document that changes between validation and
 * use (refused at the connection); and metadata documents that trickle in or are too large.
 * Two hosts, each started once: one with virtual servers (its admin API on loopback, no
 * authentication), one running the authorization server.
 */
describe('outbound fetches under attack', () => {
  let internal: Awaited<ReturnType<typeof countingServer>>;
  let documents: Awaited<ReturnType<typeof countingServer>>;
  let admin: INestApplication;
  let adminBase: string;
  let facade: INestApplication;
  let issuer: string;
  const trickles = new Set<NodeJS.Timeout>();
  let inventoryReads = 0;
  let senderHits = 0;

  beforeAll(async () => {
    internal = await countingServer((_path, res) => json(res, { secret: 'internal only' }));
    documents = await countingServer((path, res) => {
      const base = `http://localhost:${documents.port}`;
      if (path === '/inventory.json')
        // Validation reads a document whose server is allowed; the next read names the internal service.
        return json(
          res,
          inventoryDocument(inventoryReads++ === 0 ? `${base}/api` : `http://[::ffff:127.0.0.1]:${internal.port}/api`),
        );
      if (path === '/mcp-401') {
        senderHits++;
        // An upstream that sends the gateway to "its" authorization server, on the internal service.
        const metadata = `http://[::ffff:127.0.0.1]:${internal.port}/.well-known/oauth-protected-resource`;
        return void res.writeHead(401, { 'www-authenticate': `Bearer resource_metadata="${metadata}"` }).end();
      }
      if (path === '/internal-server.json')
        return json(res, inventoryDocument(`http://[::ffff:127.0.0.1]:${internal.port}/api`));
      if (path === '/clients/large.json')
        return json(res, { client_id: `${base}${path}`, redirect_uris: ['x'.repeat(100_000)] });
      if (path === '/clients/trickle.json') {
        // A byte a second, for as long as the host listens: never idle for long, never done.
        res.writeHead(200, { 'content-type': 'application/json' });
        const timer = setInterval(() => res.write(' '), 1_000);
        trickles.add(timer);
        res.on('close', () => clearInterval(timer));
        return;
      }
      res.writeHead(404).end();
    });
    admin = await startTestApp({
      imports: [
        McpModule.forRoot({
          name: 'outbound-admin',
          version: '1.0.0',
          auth: { mode: 'none' },
          admin: {},
          gateway: {},
          rest: {},
          audit: { file: join(tmpdir(), `outbound-audit-${randomUUID()}.jsonl`), flushIntervalMs: 10 },
          // The documents' server is allowed by name; 127.0.0.1 itself is not.
          virtualServers: { file: join(tmpdir(), `outbound-servers-${randomUUID()}.json`), allowHosts: ['localhost'] },
        }),
      ],
    });
    adminBase = await baseUrlOf(admin);
    const port = await freePort();
    issuer = `http://127.0.0.1:${port}`;
    const facadeModule = await Test.createTestingModule({
      imports: [
        McpModule.forRoot({
          name: 'outbound-facade',
          version: '1.0.0',
          auth: { mode: 'oauth', resource: `${issuer}/mcp` } as never,
          authorizationServer: {
            issuer,
            // Never reached: every request here stops at the client.
            idp: { issuer: 'http://127.0.0.1:9/idp', clientId: 'host', clientSecret: 'secret' },
            clientMetadataDocuments: { allowHosts: ['localhost'] },
          },
        }),
      ],
    }).compile();
    facade = createTestApplication(facadeModule);
    await facade.listen(port, '127.0.0.1');
  });

  afterAll(async () => {
    for (const timer of trickles) clearInterval(timer);
    await admin?.close();
    await facade?.close();
    await internal?.close();
    await documents?.close();
  });

  const post = (path: string, body: unknown) =>
    fetch(`${adminBase}/admin/api/servers/${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
  const upstream = (url: string) => ({ name: 'evil', prefix: 'evil', transport: { type: 'http', url } });

  it.each([
    ['the IPv4-mapped loopback', () => `http://[::ffff:127.0.0.1]:${internal.port}/mcp`, 'a loopback address'],
    ['the IPv4-mapped loopback in hexadecimal', () => `http://[::ffff:7f00:1]:${internal.port}/mcp`, 'a loopback'],
    ['a decimal loopback', () => `http://2130706433:${internal.port}/mcp`, 'a loopback address'],
    ['the cloud metadata address', () => 'http://169.254.169.254/latest/meta-data/', 'a cloud metadata address'],
    ['the metadata address IPv4-mapped', () => 'http://[::ffff:a9fe:a9fe]/latest/meta-data/', 'a cloud metadata'],
    ['its own port, IPv4-mapped', () => `http://[::ffff:127.0.0.1]:${new URL(adminBase).port}/mcp`, 'this host itself'],
  ])('refuses an upstream at %s through the admin API, and connects to nothing', async (_label, url, problem) => {
    const before = internal.connections();
    const answer = await post('upstreams', upstream(url()));
    expect(answer.status).toBe(422);
    expect(await answer.json()).toMatchObject({
      problems: [{ where: 'upstreams[0].transport.url', problem: expect.stringContaining(problem) }],
    });
    expect(internal.connections()).toBe(before);
  });

  it('follows no OAuth metadata URL an upstream names (its token endpoint is configured, never discovered)', async () => {
    const before = internal.connections();
    const answer = await post('upstreams', {
      name: 'sender',
      prefix: 'sender',
      transport: { type: 'http', url: `http://localhost:${documents.port}/mcp-401` },
    });
    // Stored and tried once before the answer: the upstream refused the gateway, which went nowhere else.
    expect(answer.status).toBe(200);
    expect(senderHits).toBeGreaterThan(0);
    expect(internal.connections()).toBe(before);
    expect((await fetch(`${adminBase}/admin/api/servers/upstreams/sender`, { method: 'DELETE' })).status).toBe(200);
  });

  it('refuses a REST API whose OpenAPI document is on the loopback-only service, without fetching it', async () => {
    const before = internal.connections();
    const answer = await post('apis', {
      name: 'internal',
      document: `http://[::ffff:7f00:1]:${internal.port}/openapi.json`,
      prefix: 'internal_',
    });
    expect(answer.status).toBe(422);
    expect(JSON.stringify(await answer.json())).toContain('::ffff:7f00:1 is a loopback address');
    expect(internal.connections()).toBe(before);
  });

  it('refuses a REST API whose document names the internal service as its server', async () => {
    const answer = await post('apis', {
      name: 'pointer',
      document: `http://localhost:${documents.port}/internal-server.json`,
      prefix: 'pointer_',
    });
    expect(answer.status).toBe(422);
    expect(await answer.json()).toMatchObject({
      problems: [
        {
          where: 'apis[0].baseUrl',
          problem: expect.stringContaining("the document's server http://[::ffff:7f00:1]:"),
          fix: "allow it with virtualServers.allowHosts: ['::ffff:7f00:1'] if it is meant",
        },
      ],
    });
  });

  it('refuses at the connection what validation let through: a document that names the internal service once stored', async () => {
    const answer = await post('apis', {
      name: 'inventory',
      document: `http://localhost:${documents.port}/inventory.json`,
      prefix: 'inventory_',
    });
    expect(answer.status).toBe(200);
    expect(inventoryReads).toBe(2); // read to validate, and again to apply
    const client: Client = await connectHttpClient(`${adminBase}/mcp`);
    try {
      const before = internal.connections();
      const result = (await client.callTool({ name: 'inventory_getStock', arguments: {} })) as CallToolResult;
      expect(result.isError).toBe(true);
      expect((result.content[0] as { text: string }).text).toBe(
        'The REST API inventory could not be reached; the operation may be retried later.',
      );
      expect(internal.connections()).toBe(before);
    } finally {
      await client.close();
    }
    const trail = admin.get(AuditTrail);
    await waitFor(() => trail.recent({ method: 'outbound/refused' }).length > 0);
    expect(trail.recent({ method: 'outbound/refused' })).toEqual([
      expect.objectContaining({
        principal: null,
        target: `::ffff:7f00:1:${internal.port}`,
        outcome: 'denied',
        arguments: expect.objectContaining({ address: '::ffff:7f00:1', class: 'loopback', reason: 'class' }),
      }),
    ]);
  });

  /** The authorization endpoint's answer to a client whose `client_id` is `clientId` (a metadata document URL). */
  const authorize = async (clientId: string) => {
    const query = new URLSearchParams({
      client_id: clientId,
      redirect_uri: 'http://127.0.0.1:1/callback',
      response_type: 'code',
      code_challenge: 'x'.repeat(43),
      code_challenge_method: 'S256',
    });
    const answer = await fetch(`${issuer}/oauth/authorize?${query}`, { redirect: 'manual' });
    return { status: answer.status, text: await answer.text() };
  };

  it('refuses a client metadata document on loopback in its IPv4-mapped spelling before connecting', async () => {
    const before = internal.connections();
    for (const host of ['[::ffff:127.0.0.1]', '[::ffff:7f00:1]']) {
      const answer = await authorize(`https://${host}:${internal.port}/clients/desk.json`);
      expect(answer.status).toBe(400);
      expect(answer.text).toContain('the document&#39;s host resolves to a non-public address (::ffff:7f00:1)');
    }
    expect(internal.connections()).toBe(before);
  });

  it('tells a stranger nothing of why a host could not be reached: the fetch is no port scanner', async () => {
    const closed = await freePort();
    const answers = await Promise.all([
      authorize(`http://localhost:${closed}/clients/desk.json`),
      authorize(`https://no-such-host.invalid/clients/desk.json`),
    ]);
    for (const answer of answers) {
      expect(answer.status).toBe(400);
      expect(answer.text).toContain('client metadata document refused: the document could not be fetched</p>');
    }
    expect(answers[0].text).not.toMatch(/ECONNREFUSED|127\.0\.0\.1/);
    expect(answers[1].text).not.toMatch(/ENOTFOUND|EAI_AGAIN/);
  });

  it('cuts a client metadata document that trickles in at its 5 s deadline', async () => {
    const answer = await authorize(`http://localhost:${documents.port}/clients/trickle.json`);
    expect(answer.status).toBe(400);
    expect(answer.text).toContain('the document URL gave no whole answer within 5 s');
  });

  it('stops reading a client metadata document at its 64 KiB cap', async () => {
    const answer = await authorize(`http://localhost:${documents.port}/clients/large.json`);
    expect(answer.status).toBe(400);
    expect(answer.text).toContain('the document is larger than 64 KiB');
  });
});
