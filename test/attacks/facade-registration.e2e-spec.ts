import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Injectable, type INestApplication } from '@nestjs/common';
import { FastifyAdapter } from '@nestjs/platform-fastify';
import { Test } from '@nestjs/testing';
import { Client as ClientV1 } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as TransportV1 } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { Client as ClientV2, StreamableHTTPClientTransport as TransportV2 } from '@modelcontextprotocol/client';
import type { Browser } from 'playwright-core';
import { Client as PgClient } from 'pg';
import { McpCaller, McpModule, McpTool, type McpAuthorizationServerOptions, type McpPrincipal } from 'nest-mcp-host';
import { PostgresAuthorizationServerStore } from 'nest-mcp-host/postgres';
import { McpStartupError } from '#libs/core';
import { AuditTrail } from '#libs/security';
import { launchChromium, signInInBrowser, startCompanyIdp, type CompanyIdp } from '../support/company-idp';
import { freePort } from '../support/free-port';
import { startDocumentServer, TestOAuthProvider } from '../support/oauth-test-client';
import { PostgresServer } from '../support/postgres-server';
import { waitFor } from '../support/wait-for';

jest.setTimeout(120_000);

const HOST_SECRET = 'desk-host-secret-0123456789abcdefghijkl';
/** Registrations one address may make in the window, and registered clients kept in all, on the PostgreSQL host. */
const PER_ADDRESS = 3;
const MAX_CLIENTS = 12;
/** Requests one address may make of the facade's other endpoints per hour, on the PostgreSQL host (the browser's sign-ins from loopback among them). */
const REQUESTS_PER_ADDRESS = 60;
const TABLE = 'facade_state';

@Injectable()
class WhoAmI {
  @McpTool({ description: 'Says who calls' })
  whoami(@McpCaller() caller: McpPrincipal) {
    return { caller: caller.id };
  }
}

/** An MCP client's OAuth state that drops what the SDK tells it to (`invalidateCredentials`), as Claude Code's and VS Code's do. */
class RecoveringOAuthProvider extends TestOAuthProvider {
  invalidateCredentials(scope: 'all' | 'client' | 'tokens' | 'verifier' | 'discovery') {
    if (scope === 'all' || scope === 'client') this.information = undefined;
    if (scope === 'all' || scope === 'tokens') this.saved = undefined;
  }

  /** What a client restarted with its saved registration still has: the registration, no tokens. */
  keepRegistrationOnly() {
    this.saved = undefined;
  }
}

interface Host {
  app: INestApplication;
  trail: AuditTrail;
  issuer: string;
  resource: string;
}

/**
 * The facade's clients under attack, on a host keeping its state in a real PostgreSQL server
 * (Express, behind a trusted proxy so that each request can come from an address of its own) and
 * on one keeping it in memory (Fastify): a registration flood, oversize bodies on both platforms,
 * fragments in redirect URIs, a metadata document from a host the trust list leaves out; and the
 * SDK client after a restart of each, signing in with its saved registration (PostgreSQL) or
 * registering again when the host forgot it (memory). A person signs in at the company IdP
 * (oidc-provider) in Debian's chromium.
 */
describe('the facade: registrations and metadata documents under attack, and across restarts', () => {
  let idp: CompanyIdp;
  let browser: Browser;
  let postgres: PostgresServer;
  let documents: Awaited<ReturnType<typeof startDocumentServer>>;
  let callbackUrl: string;
  const ports = { express: 0, fastify: 0 };
  const hosts: Partial<Record<'express' | 'fastify', Host>> = {};
  const stores: PostgresAuthorizationServerStore[] = [];

  /** The options each host runs with: PostgreSQL and tight limits on Express; memory and the defaults on Fastify. */
  const authorizationServer = (platform: 'express' | 'fastify'): McpAuthorizationServerOptions => {
    const common = { idp: { issuer: idp.issuer, clientId: 'desk-host', clientSecret: HOST_SECRET } };
    if (platform === 'fastify')
      return { ...common, clientMetadataDocuments: { allowHosts: ['127.0.0.1'], ca: documents.ca } };
    const store = new PostgresAuthorizationServerStore({ connectionString: postgres.url, table: TABLE });
    stores.push(store);
    return {
      ...common,
      store,
      dynamicRegistration: { maxClients: MAX_CLIENTS, perAddress: { limit: PER_ADDRESS, windowSec: 3_600 } },
      perAddress: { limit: REQUESTS_PER_ADDRESS, windowSec: 3_600 },
      // The document server is reachable (allowHosts, its CA) but not trusted.
      clientMetadataDocuments: { trustedHosts: ['clients.desk.example'], allowHosts: ['127.0.0.1'], ca: documents.ca },
    };
  };

  async function start(platform: 'express' | 'fastify'): Promise<Host> {
    const issuer = `http://127.0.0.1:${ports[platform]}`;
    const moduleRef = await Test.createTestingModule({
      imports: [
        McpModule.forRoot({
          name: 'desk',
          version: '1.0.0',
          audit: { file: join(mkdtempSync(join(tmpdir(), 'facade-reg-')), 'audit.jsonl'), flushIntervalMs: 10 },
          auth: { mode: 'oauth', resource: `${issuer}/mcp`, claims: { roles: { from: ['roles'] } } },
          // The Express host believes X-Forwarded-For from loopback: each attack names its own address.
          ...(platform === 'express' && { trustProxy: ['127.0.0.1'] }),
          authorizationServer: authorizationServer(platform),
        }),
      ],
      providers: [WhoAmI],
    }).compile();
    const app = moduleRef.createNestApplication(...((platform === 'fastify' ? [new FastifyAdapter()] : []) as []), {
      logger: false,
    });
    await app.listen(ports[platform], '127.0.0.1');
    return (hosts[platform] = { app, trail: app.get(AuditTrail), issuer, resource: `${issuer}/mcp` });
  }

  async function restart(platform: 'express' | 'fastify'): Promise<Host> {
    await hosts[platform]!.app.close();
    return start(platform);
  }

  beforeAll(async () => {
    [ports.express, ports.fastify] = [await freePort(), await freePort()];
    callbackUrl = `http://127.0.0.1:${await freePort()}/callback`;
    [idp, browser, postgres, documents] = await Promise.all([
      startCompanyIdp({
        clients: [
          {
            client_id: 'desk-host',
            client_secret: HOST_SECRET,
            redirect_uris: Object.values(ports).map((port) => `http://127.0.0.1:${port}/oauth/callback`),
            grant_types: ['authorization_code', 'refresh_token'],
          },
        ],
        accounts: { alice: { roles: ['Desk.Agent'] } },
      }),
      launchChromium(),
      PostgresServer.create(),
      startDocumentServer((base) => ({
        '/clients/desk.json': {
          client_id: `${base}/clients/desk.json`,
          client_name: 'Desk by metadata document',
          redirect_uris: [callbackUrl],
          token_endpoint_auth_method: 'none',
        },
        '/clients/fragment.json': {
          client_id: `${base}/clients/fragment.json`,
          redirect_uris: [`${callbackUrl}#after`],
          token_endpoint_auth_method: 'none',
        },
      })),
    ]);
    await Promise.all([start('express'), start('fastify')]);
  });

  afterAll(async () => {
    await Promise.all(Object.values(hosts).map((host) => host.app.close()));
    await Promise.all([idp?.stop(), browser?.close(), documents?.close()]);
    await postgres?.dispose();
  });

  let nextAddress = 0;
  /** A registration from `address` (X-Forwarded-For; a fresh one when not given) at `platform`'s host. */
  const register = (
    platform: 'express' | 'fastify',
    metadata: Record<string, unknown>,
    address = `198.51.100.${++nextAddress}`,
    body: RequestInit['body'] = JSON.stringify(metadata),
  ) =>
    fetch(`${hosts[platform]!.issuer}/oauth/register`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-forwarded-for': address },
      body,
      ...(typeof body !== 'string' && { duplex: 'half' }),
    } as RequestInit);
  const agent = {
    client_name: 'agent',
    redirect_uris: ['http://127.0.0.1/callback'],
    token_endpoint_auth_method: 'none',
  };
  const records = (platform: 'express' | 'fastify', method: string) =>
    hosts[platform]!.trail.recent({ method, limit: 500 });
  const authorize = (platform: 'express' | 'fastify', params: Record<string, string>) =>
    fetch(
      `${hosts[platform]!.issuer}/oauth/authorize?${new URLSearchParams({
        response_type: 'code',
        code_challenge: 'x'.repeat(43),
        code_challenge_method: 'S256',
        resource: hosts[platform]!.resource,
        ...params,
      })}`,
      { redirect: 'manual' },
    );

  type Sdk = 'v1' | 'v2';
  const transportOf = (sdk: Sdk, url: URL, provider: TestOAuthProvider) =>
    sdk === 'v1'
      ? new TransportV1(url, { authProvider: provider as never })
      : new TransportV2(url, { authProvider: provider as never });

  /** The SDK client's first connect sends the person to the authorization endpoint; they sign in; the client redeems the code and connects. */
  async function signIn(platform: 'express' | 'fastify', provider: TestOAuthProvider, sdk: Sdk = 'v1') {
    const url = new URL(hosts[platform]!.resource);
    provider.authorizationUrl = undefined;
    const first =
      sdk === 'v1' ? new ClientV1({ name: 'e2e', version: '1' }) : new ClientV2({ name: 'e2e', version: '1' });
    const transport = transportOf(sdk, url, provider);
    await expect(first.connect(transport as never)).rejects.toThrow(/nauthorized/);
    const landed = await signInInBrowser(browser, provider.authorizationUrl!.href, 'alice', callbackUrl);
    expect(landed.searchParams.get('error')).toBeNull();
    if (transport instanceof TransportV1) await transport.finishAuth(landed.searchParams.get('code')!);
    else await transport.finishAuth(landed.searchParams);
    return connect(platform, provider, sdk);
  }

  async function connect(platform: 'express' | 'fastify', provider: TestOAuthProvider, sdk: Sdk = 'v1') {
    const client =
      sdk === 'v1' ? new ClientV1({ name: 'e2e', version: '1' }) : new ClientV2({ name: 'e2e', version: '1' });
    await client.connect(transportOf(sdk, new URL(hosts[platform]!.resource), provider) as never);
    return client as ClientV1;
  }

  const whoami = async (client: ClientV1) =>
    JSON.parse(((await client.callTool({ name: 'whoami', arguments: {} })).content as { text: string }[])[0].text) as {
      caller: string;
    };
  const clientIdOf = (provider: TestOAuthProvider) => (provider.clientInformation() as { client_id: string }).client_id;

  describe('a registration flood', () => {
    it.each([
      ['one IPv4 address', ['203.0.113.7', '203.0.113.7', '203.0.113.7', '203.0.113.7'], '203.0.113.7'],
      [
        'the addresses of one IPv6 /64',
        ['2001:db8:7:7::1', '2001:db8:7:7::2', '2001:db8:7:7:ffff::3', '2001:db8:7:7::4'],
        '2001:db8:7:7::4',
      ],
    ])('is refused past the rate of %s, with 429 and Retry-After, and audited', async (_who, addresses, last) => {
      const answers = [];
      for (const address of addresses) answers.push(await register('express', agent, address));
      expect(answers.map((answer) => answer.status)).toEqual([201, 201, 201, 429]);
      const refused = answers[PER_ADDRESS];
      expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
      expect(await refused.json()).toEqual({
        error: 'too_many_requests',
        error_description: expect.stringContaining(
          `this address registered ${PER_ADDRESS} clients in the last 3600 s (dynamicRegistration.perAddress)`,
        ),
      });
      await waitFor(() =>
        records('express', 'oauth/register').some(
          (record) => record.outcome === 'throttled' && record.remoteAddress === last,
        ),
      );
    });
  });

  describe("a flood of the facade's other endpoints", () => {
    const token = (address: string) =>
      fetch(`${hosts.express!.issuer}/oauth/token`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded', 'x-forwarded-for': address },
        body: new URLSearchParams({ grant_type: 'refresh_token', refresh_token: 'guessed', client_id: 'nobody' }),
      });

    it('is refused past the rate of one address at every endpoint, with 429 and Retry-After, audited, before any work', async () => {
      const flooder = '203.0.113.99';
      const statuses: number[] = [];
      for (let i = 0; i <= REQUESTS_PER_ADDRESS; i++) statuses.push((await token(flooder)).status);
      // Each guess is refused for what it is (an unknown client) until the address is over its rate.
      expect(statuses.slice(0, REQUESTS_PER_ADDRESS).every((status) => status === 401)).toBe(true);
      const refused = await token(flooder);
      expect(refused.status).toBe(429);
      expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
      expect(await refused.json()).toEqual({
        error: 'too_many_requests',
        error_description: expect.stringContaining(
          `this address made ${REQUESTS_PER_ADDRESS} requests of the authorization server in the last 3600 s (authorizationServer.perAddress)`,
        ),
      });
      // The browser's endpoints too: a page, not a redirect.
      const page = await fetch(`${hosts.express!.issuer}/oauth/authorize?client_id=nobody`, {
        headers: { 'x-forwarded-for': flooder },
        redirect: 'manual',
      });
      expect(page.status).toBe(429);
      expect(page.headers.get('content-type')).toMatch(/^text\/html/);
      // Another address is served as before.
      expect((await token('203.0.113.100')).status).toBe(401);
      await waitFor(() =>
        records('express', 'oauth/token').some(
          (record) => record.outcome === 'throttled' && record.remoteAddress === flooder,
        ),
      );
    });
  });

  describe.each(['express', 'fastify'] as const)('on %s', (platform) => {
    it.each([
      ['with its length', (body: string) => body],
      [
        'sent in chunks',
        (body: string) =>
          new ReadableStream({
            start(controller) {
              for (let i = 0; i < body.length; i += 4096) controller.enqueue(Buffer.from(body.slice(i, i + 4096)));
              controller.close();
            },
          }),
      ],
    ])(
      'refuses an oversize registration body %s with 413 (20 KB: under the platform parser limit)',
      async (_how, send) => {
        const body = JSON.stringify({ ...agent, software_statement: 'x'.repeat(20_000) });
        const answer = await register(platform, {}, undefined, send(body) as RequestInit['body']);
        expect(answer.status).toBe(413);
        expect(await answer.json()).toEqual({
          error: 'invalid_request',
          error_description: 'the request body is larger than 16 KiB',
        });
        await waitFor(() =>
          records(platform, 'oauth/register').some((record) => record.error?.endsWith('larger than 16 KiB')),
        );
      },
    );
  });

  describe('a redirect URI with a fragment', () => {
    it.each(['http://127.0.0.1:5555/callback#steal', 'https://app.example/callback#'])(
      'is refused at registration: %s',
      async (uri) => {
        const answer = await register('express', { ...agent, redirect_uris: ['http://127.0.0.1/cb', uri] });
        expect(answer.status).toBe(400);
        expect(await answer.json()).toEqual({
          error: 'invalid_redirect_uri',
          error_description: `redirect_uris[1] ${JSON.stringify(uri)} must not have a fragment (#)`,
        });
      },
    );

    it('is refused at the authorization endpoint for a loopback client (any port, but no fragment), never redirected to', async () => {
      const { client_id } = (await (await register('express', agent)).json()) as { client_id: string };
      const refused = await authorize('express', { client_id, redirect_uri: 'http://127.0.0.1:5555/callback#steal' });
      expect(refused.status).toBe(400);
      expect(refused.headers.get('location')).toBeNull();
      expect(await refused.text()).toContain('redirect_uri is not one of the client');
      const anyPort = await authorize('express', { client_id, redirect_uri: 'http://127.0.0.1:5555/callback' });
      expect(anyPort.status).toBe(302);
      expect(anyPort.headers.get('location')!.startsWith(idp.issuer)).toBe(true);
    });

    it('is refused in a client metadata document', async () => {
      const client_id = `${documents.base}/clients/fragment.json`;
      const answer = await authorize('fastify', { client_id, redirect_uri: `${callbackUrl}#after` });
      expect(answer.status).toBe(400);
      expect(await answer.text()).toContain(
        `the metadata document&#39;s redirect_uris[0] &#34;${callbackUrl}#after&#34; must not have a fragment (#)`,
      );
    });

    it('stops the host at start-up in a pre-registered client', async () => {
      const error = await Test.createTestingModule({
        imports: [
          McpModule.forRoot({
            name: 'desk',
            version: '1.0.0',
            auth: { mode: 'oauth', resource: 'http://127.0.0.1:1/mcp' },
            authorizationServer: {
              idp: { issuer: idp.issuer, clientId: 'desk-host', clientSecret: HOST_SECRET },
              clients: [{ clientId: 'agent-app', redirectUris: ['http://127.0.0.1:33418/callback#x'] }],
            },
          }),
        ],
      })
        .compile()
        .then(
          () => undefined,
          (e: unknown) => e,
        );
      expect(error).toBeInstanceOf(McpStartupError);
      expect((error as McpStartupError).diagnostics).toContainEqual(
        expect.objectContaining({
          where: 'McpModule option "authorizationServer.clients[0].redirectUris[0]"',
          problem: 'must not have a fragment (#)',
        }),
      );
    });
  });

  it('refuses a client metadata document from a host the trust list leaves out, before any fetch, and audits it', async () => {
    const client_id = `${documents.base}/clients/desk.json`;
    const fetched = documents.requests.length;
    const answer = await authorize('express', { client_id, redirect_uri: callbackUrl });
    expect(answer.status).toBe(400);
    expect(await answer.text()).toContain(
      'client metadata documents from 127.0.0.1 are not accepted here (clientMetadataDocuments.trustedHosts)',
    );
    expect(documents.requests.length).toBe(fetched);
    await waitFor(() =>
      records('express', 'oauth/authorize').some(
        (record) => record.target === client_id && record.outcome === 'unauthenticated',
      ),
    );
  });

  it('keeps a registration across a restart on PostgreSQL: the client goes on with its tokens, and signs in again with its saved registration', async () => {
    const provider = new RecoveringOAuthProvider(callbackUrl);
    const before = await signIn('express', provider);
    expect(await whoami(before)).toEqual({ caller: 'alice' });
    await before.close();
    const clientId = clientIdOf(provider);
    await restart('express');
    // The signing keys and the sign-in are in the database too: its tokens still work.
    const again = await connect('express', provider);
    expect(await whoami(again)).toEqual({ caller: 'alice' });
    await again.close();
    // Restarted itself with its registration only (the Inspector's saved state): a sign-in, no registration.
    provider.keepRegistrationOnly();
    const signedIn = await signIn('express', provider);
    expect(await whoami(signedIn)).toEqual({ caller: 'alice' });
    await signedIn.close();
    expect(clientIdOf(provider)).toBe(clientId);
    expect(records('express', 'oauth/register')).toEqual([]);
  });

  describe('a client the host forgot (its state in memory, restarted)', () => {
    const providers: Partial<Record<Sdk, RecoveringOAuthProvider>> = {};
    const forgotten: Partial<Record<Sdk, string>> = {};

    beforeAll(async () => {
      [providers.v1, providers.v2] = [
        new RecoveringOAuthProvider(callbackUrl),
        new RecoveringOAuthProvider(callbackUrl),
      ];
      for (const sdk of ['v1', 'v2'] as const) {
        await (await signIn('fastify', providers[sdk]!, sdk)).close();
        forgotten[sdk] = clientIdOf(providers[sdk]!);
      }
      await restart('fastify');
    });

    it.each(['v1', 'v2'] as const)(
      'is told invalid_client at the token endpoint, and the SDK %s client registers again and signs the person in',
      async (sdk) => {
        const refresh = await fetch(`${hosts.fastify!.issuer}/oauth/token`, {
          method: 'POST',
          headers: { 'content-type': 'application/x-www-form-urlencoded' },
          body: new URLSearchParams({ grant_type: 'refresh_token', refresh_token: 'any', client_id: forgotten[sdk]! }),
        });
        expect(refresh.status).toBe(401);
        expect(((await refresh.json()) as { error: string }).error).toBe('invalid_client');
        // The SDK refreshes with the forgotten client, is told invalid_client, drops its registration and registers again.
        const registered = records('fastify', 'oauth/register').length;
        const client = await signIn('fastify', providers[sdk]!, sdk);
        expect(await whoami(client)).toEqual({ caller: 'alice' });
        await client.close();
        expect(clientIdOf(providers[sdk]!)).not.toBe(forgotten[sdk]);
        await waitFor(() => records('fastify', 'oauth/register').length === registered + 1);
      },
    );

    it('tells the person on the authorization page what to do', async () => {
      const answer = await authorize('fastify', { client_id: forgotten.v1!, redirect_uri: callbackUrl });
      expect(answer.status).toBe(400);
      const page = await answer.text();
      expect(page).toContain(`the client &#34;${forgotten.v1}&#34; is not registered here`);
      expect(page).toContain(
        'remove its saved sign-in for this server (MCP Inspector: &#34;Clear OAuth State&#34;) and connect again',
      );
    });
  });

  it("keeps only a digest of a registered client's secret in the database", async () => {
    const answer = await register('express', { ...agent, token_endpoint_auth_method: 'client_secret_basic' });
    const { client_id, client_secret } = (await answer.json()) as { client_id: string; client_secret: string };
    expect(client_secret).toMatch(/^[\w-]{43}$/);
    const db = new PgClient({ connectionString: postgres.url });
    await db.connect();
    try {
      const { rows } = await db.query<{ value: string }>(`SELECT value FROM ${TABLE} WHERE key = $1`, [
        `client:${client_id}`,
      ]);
      expect(rows).toHaveLength(1);
      expect(rows[0].value).not.toContain(client_secret);
      expect(JSON.parse(rows[0].value)).toMatchObject({ clientId: client_id, secretDigest: expect.any(String) });
    } finally {
      await db.end();
    }
  });

  // Last: it fills the store up to its cap.
  describe('a registration flood from many addresses', () => {
    it('is refused past the total, with 503, audited, and the store holds no more than maxClients', async () => {
      const statuses: number[] = [];
      // Fresh addresses, each under its rate, until the total refuses one (bounded: the cap plus one try).
      for (let i = 0; i <= MAX_CLIENTS && !statuses.includes(503); i++)
        statuses.push((await register('express', agent)).status);
      expect(statuses.at(-1)).toBe(503);
      expect(statuses.slice(0, -1).every((status) => status === 201)).toBe(true);
      const db = new PgClient({ connectionString: postgres.url });
      await db.connect();
      try {
        const { rows } = await db.query<{ count: string }>(
          `SELECT count(*) FROM ${TABLE} WHERE key LIKE 'client:%' AND expires_at > now()`,
        );
        expect(Number(rows[0].count)).toBe(MAX_CLIENTS);
      } finally {
        await db.end();
      }
      const refused = await register('express', agent);
      expect(refused.status).toBe(503);
      expect(((await refused.json()) as { error: string }).error).toBe('temporarily_unavailable');
      await waitFor(() =>
        records('express', 'oauth/register').some(
          (record) =>
            record.outcome === 'unavailable' &&
            record.error?.includes(`keeps at most ${MAX_CLIENTS} registered clients (dynamicRegistration.maxClients)`),
        ),
      );
    });
  });
});
