import { randomBytes } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Injectable, type INestApplication } from '@nestjs/common';
import { Test } from '@nestjs/testing';
import { createRemoteJWKSet, jwtVerify } from 'jose';
import type { Browser } from 'playwright-core';
import { McpContext, McpModule, McpTool, type McpCallContext, type McpModuleOptions } from 'nest-mcp-host';
import { AuditTrail, type AuditRecord } from '#libs/security';
import { MCP_USER_CONNECTION_STORE, type UserConnectionStore } from '#libs/downstream-identity';
import {
  launchChromium,
  openConnectLink,
  signInInBrowser,
  startCompanyIdp,
  type CompanyIdp,
} from './support/company-idp';
import { facadeTokens, mcpClientOf } from './support/connect-desk';
import { freePort } from './support/free-port';
import { waitFor } from './support/wait-for';

jest.setTimeout(60_000);

const TOKEN_EXCHANGE = 'urn:ietf:params:oauth:grant-type:token-exchange';
const HOST = { id: 'desk-host', secret: 'desk-host-secret-0123456789abcdefghijkl' };
const EDGE = { id: 'edge-host', secret: 'edge-host-secret-0123456789abcdefghijkl' };
const AGENT = { id: 'agent-app', secret: 'agent-app-secret-0123456789abcdefghij' };
const CONNECTOR = { id: 'desk-connector', secret: 'desk-connector-secret-0123456789abcdef' };

@Injectable()
class DeskBTools {
  @McpTool({ description: 'Says who the desk sees, and who acted for them' })
  whoami(@McpContext() context: McpCallContext) {
    return { caller: context.caller.id, act: context.caller.claims.act ?? null };
  }
}

const text = (result: unknown) =>
  JSON.parse((result as { content: { text: string }[] }).content[0].text) as Record<string, unknown>;

/** An OpenAPI document of one `GET /me` operation. */
const meApi = (operationId: string) => ({
  openapi: '3.0.3',
  info: { title: operationId, version: '1' },
  paths: {
    '/me': {
      get: {
        operationId,
        responses: {
          '200': { description: 'who the API sees', content: { 'application/json': { schema: { type: 'object' } } } },
        },
      },
    },
  },
});

/**
 * The caller's identity downstream, end to end with real parts: the company IdP (oidc-provider,
 * like Entra) exchanges tokens (RFC 8693) and signs people in; a second oidc-provider is a CRM's
 * own authorization server where people connect their account; a second desk (the gateway's
 * upstream) and two REST APIs check the token they receive and say whom they see.
 */
describe('the caller identity downstream', () => {
  let idp: CompanyIdp;
  let crmIdp: CompanyIdp;
  let browser: Browser;
  let apis: Server;
  let apiBase: string;
  let deskB: INestApplication;
  let edge: INestApplication;
  let desk: INestApplication;
  let deskBase: string;
  let edgeBase: string;
  let deskBBase: string;
  let aliceIdpToken: string;

  const trailOf = (app: INestApplication) => app.get(AuditTrail);
  const records = (app: INestApplication, method: string): AuditRecord[] => trailOf(app).recent({ method, limit: 200 });

  const start = async (options: McpModuleOptions, port: number, providers: unknown[] = []) => {
    const moduleRef = await Test.createTestingModule({
      imports: [
        McpModule.forRoot({
          ...options,
          audit: { file: join(mkdtempSync(join(tmpdir(), 'downstream-audit-')), 'audit.jsonl'), flushIntervalMs: 10 },
        }),
      ],
      providers: providers as never[],
    }).compile();
    const app = moduleRef.createNestApplication({ logger: false });
    await app.listen(port, '127.0.0.1');
    return app;
  };

  beforeAll(async () => {
    const [deskPort, edgePort, deskBPort, apiPort, callbackPort] = [
      await freePort(),
      await freePort(),
      await freePort(),
      await freePort(),
      await freePort(),
    ];
    const callbackUrl = `http://127.0.0.1:${callbackPort}/callback`;
    deskBase = `http://127.0.0.1:${deskPort}`;
    edgeBase = `http://127.0.0.1:${edgePort}`;
    deskBBase = `http://127.0.0.1:${deskBPort}`;
    apiBase = `http://127.0.0.1:${apiPort}`;
    [idp, crmIdp, browser] = await Promise.all([
      startCompanyIdp({
        clients: [
          {
            client_id: HOST.id,
            client_secret: HOST.secret,
            redirect_uris: [`${deskBase}/oauth/callback`, `${deskBase}/connect/verified`],
            grant_types: ['authorization_code'],
          },
          {
            client_id: EDGE.id,
            client_secret: EDGE.secret,
            redirect_uris: [],
            response_types: [],
            grant_types: ['client_credentials', TOKEN_EXCHANGE],
          },
          {
            client_id: AGENT.id,
            client_secret: AGENT.secret,
            redirect_uris: [callbackUrl],
            grant_types: ['authorization_code'],
          },
        ],
        accounts: { alice: {}, bob: {} },
      }),
      startCompanyIdp({
        clients: [
          {
            client_id: CONNECTOR.id,
            client_secret: CONNECTOR.secret,
            redirect_uris: [`${deskBase}/connect/callback`],
            grant_types: ['authorization_code', 'refresh_token'],
          },
        ],
        accounts: { 'alice.crm': {}, 'bob.crm': {} },
        accessTokenTtlSec: 4,
      }),
      launchChromium(),
    ]);
    // Two REST APIs that check the token they receive: the CRM asks its own authorization server
    // whose it is (userinfo); the ledger verifies the host's authorization server's signature and audience.
    const ledgerKeys = createRemoteJWKSet(new URL(`${deskBase}/oauth/jwks`));
    apis = createServer((req: IncomingMessage, res: ServerResponse) => {
      const send = (status: number, body: unknown) =>
        res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
      const token = /^Bearer (\S+)$/.exec(req.headers.authorization ?? '')?.[1];
      if (!token) return send(401, { error: 'no token' });
      if (req.url === '/crm/me')
        return void fetch(`${crmIdp.issuer}/me`, { headers: { authorization: `Bearer ${token}` } }).then(
          async (answer) =>
            answer.ok
              ? send(200, { account: ((await answer.json()) as { sub: string }).sub })
              : send(401, { error: 'refused' }),
        );
      if (req.url === '/ledger/me')
        return void jwtVerify(token, ledgerKeys, { issuer: deskBase, audience: `${apiBase}/ledger` }).then(
          ({ payload }) => send(200, { sub: payload.sub, act: payload.act }),
          () => send(401, { error: 'refused' }),
        );
      send(404, {});
    });
    await new Promise<void>((resolve) => apis.listen(apiPort, '127.0.0.1', resolve));

    // A person's IdP access token for the edge (the IdP's own JWT for that resource).
    const landed = await signInInBrowser(
      browser,
      `${idp.issuer}/auth?${new URLSearchParams({
        client_id: AGENT.id,
        response_type: 'code',
        scope: 'openid tickets:read',
        redirect_uri: callbackUrl,
        resource: `${edgeBase}/mcp`,
        state: 's',
        nonce: 'n',
      })}`,
      'alice',
      callbackUrl,
    );
    const oauth = (resource: string) => ({
      mode: 'oauth' as const,
      issuer: idp.issuer,
      jwksUri: `${idp.issuer}/jwks`,
      resource,
    });
    deskB = await start({ name: 'deskb', version: '1.0.0', auth: oauth(`${deskBBase}/mcp`) }, deskBPort, [DeskBTools]);
    edge = await start(
      {
        name: 'edge',
        version: '1.0.0',
        auth: oauth(`${edgeBase}/mcp`),
        gateway: {
          upstreams: [
            {
              name: 'deskb',
              protocolVersion: '2026-07-28',
              transport: {
                type: 'http',
                url: `${deskBBase}/mcp`,
                oauth: {
                  tokenUrl: `${idp.issuer}/token`,
                  clientId: EDGE.id,
                  clientSecret: EDGE.secret,
                  resource: `${deskBBase}/mcp`,
                },
              },
              credential: 'token-exchange',
            },
          ],
        },
        downstream: { idp: { issuer: idp.issuer, clientId: EDGE.id, clientSecret: EDGE.secret } },
      },
      edgePort,
    );
    desk = await start(
      {
        name: 'desk',
        version: '1.0.0',
        auth: { mode: 'oauth', resource: `${deskBase}/mcp` } as never,
        authorizationServer: { idp: { issuer: idp.issuer, clientId: HOST.id, clientSecret: HOST.secret } },
        rest: {
          apis: [
            {
              name: 'crm',
              document: meApi('crm_me'),
              baseUrl: `${apiBase}/crm`,
              credential: {
                mode: 'user',
                authorization: {
                  issuer: crmIdp.issuer,
                  clientId: CONNECTOR.id,
                  clientSecret: CONNECTOR.secret,
                  scopes: ['openid', 'offline_access'],
                },
              },
            },
            {
              name: 'ledger',
              document: meApi('ledger_me'),
              baseUrl: `${apiBase}/ledger`,
              credential: 'token-exchange',
            },
          ],
        },
        downstream: { connections: { encryptionKey: randomBytes(32).toString('base64') } },
        admin: true,
      },
      deskPort,
    );
    aliceIdpToken = await idpAccessToken(landed, callbackUrl);
  }, 60_000);

  /** Redeems the code of the person's sign-in at the IdP for an access token for the edge. */
  async function idpAccessToken(landed: URL, callbackUrl: string): Promise<string> {
    const answer = await fetch(`${idp.issuer}/token`, {
      method: 'POST',
      headers: {
        authorization: `Basic ${Buffer.from(`${AGENT.id}:${AGENT.secret}`).toString('base64')}`,
        'content-type': 'application/x-www-form-urlencoded',
      },
      body: new URLSearchParams({
        grant_type: 'authorization_code',
        code: landed.searchParams.get('code')!,
        redirect_uri: callbackUrl,
        resource: `${edgeBase}/mcp`,
      }),
    });
    const tokens = (await answer.json()) as { access_token: string };
    expect(tokens.access_token.split('.')).toHaveLength(3);
    return tokens.access_token;
  }

  afterAll(async () => {
    await Promise.all([desk?.close(), edge?.close()]);
    await deskB?.close();
    await Promise.all([idp?.stop(), crmIdp?.stop(), browser?.close()]);
    await new Promise((resolve) => apis?.close(resolve));
  });

  /** A facade token of the desk for `login`, as its token endpoint issues them. */
  const facadeToken = (login: string, roles: string[] = []) => facadeTokens(desk, deskBase, idp.issuer)(login, roles);
  const connect = mcpClientOf;

  describe("'token-exchange' at the company IdP (a gateway upstream)", () => {
    it('calls the upstream as the caller, the host as actor, and the audit record names both', async () => {
      const client = await connect(edgeBase, aliceIdpToken);
      const before = (await idp.counts())[TOKEN_EXCHANGE] ?? 0;
      expect(text(await client.callTool({ name: 'deskb__whoami', arguments: {} }))).toEqual({
        caller: 'alice',
        act: { sub: EDGE.id },
      });
      expect(text(await client.callTool({ name: 'deskb__whoami', arguments: {} }))).toMatchObject({ caller: 'alice' });
      // Cached per caller and audience: one exchange for both calls.
      expect((await idp.counts())[TOKEN_EXCHANGE]).toBe(before + 1);
      await client.close();
      await waitFor(() => records(edge, 'tools/call').length >= 2);
      expect(records(edge, 'tools/call')[0]).toMatchObject({
        principal: 'alice',
        outcome: 'ok',
        downstream: {
          mode: 'token-exchange',
          target: 'upstream deskb',
          subject: 'alice',
          actor: EDGE.id,
          identity: 'alice',
          audience: `${deskBBase}/mcp`,
        },
      });
    });
  });

  describe("'token-exchange' at the host's authorization server (a REST API)", () => {
    it("sends the API a token for it, with the caller as subject and the host as actor, never the caller's own", async () => {
      const token = await facadeToken('alice');
      const client = await connect(deskBase, token);
      expect(text(await client.callTool({ name: 'ledger_me', arguments: {} }))).toEqual({
        sub: 'alice',
        act: { sub: deskBase },
      });
      await client.close();
      await waitFor(() => records(desk, 'tools/call').some((record) => record.target === 'ledger_me'));
      expect(records(desk, 'tools/call').find((record) => record.target === 'ledger_me')!.downstream).toEqual({
        mode: 'token-exchange',
        target: 'api ledger',
        subject: 'alice',
        actor: deskBase,
        identity: 'alice',
        audience: `${apiBase}/ledger`,
      });
    });
  });

  describe("'user': the person's own connected account (a REST API)", () => {
    it('refuses and audits a connect link opened by another person', async () => {
      const client = await connect(deskBase, await facadeToken('alice'), async (url) => {
        const page = await openConnectLink(browser, url, ['bob'], deskBase);
        expect(page).toEqual({ status: 'Not your link', text: expect.stringContaining('made for another person') });
        return 'decline';
      });
      const result = await client.callTool({ name: 'crm_me', arguments: {} });
      expect(result.isError).toBe(true);
      await client.close();
      await waitFor(() => records(desk, 'connect/verify').length > 0);
      expect(records(desk, 'connect/verify')[0]).toMatchObject({
        principal: 'bob',
        target: 'api crm',
        outcome: 'denied',
        error: 'the link was made for alice, and bob opened it: refused',
      });
    });

    it('without URL elicitation, gives the link in the error', async () => {
      const client = await connect(deskBase, await facadeToken('carol'));
      const result = await client.callTool({ name: 'crm_me', arguments: {} });
      expect(result.isError).toBe(true);
      expect((result.content as { text: string }[])[0].text).toMatch(
        new RegExp(`Connect your crm account to go on: open ${deskBase}/connect/\\S+ in your browser`),
      );
      await client.close();
    });

    it('connects once through URL-mode elicitation, then calls as that account, refreshing its token', async () => {
      let asked = 0;
      const client = await connect(deskBase, await facadeToken('alice'), async (url) => {
        asked++;
        expect(await openConnectLink(browser, url, ['alice', 'alice.crm'], deskBase)).toMatchObject({
          status: 'Connected',
        });
        return 'accept';
      });
      const first = await client.callTool({ name: 'crm_me', arguments: {} });
      expect((first.content as { text: string }[])[0].text).toBe('{"account":"alice.crm"}');
      expect(asked).toBe(1);
      // The CRM's tokens live 4 s: past half of that, the next call refreshes first.
      await new Promise((resolve) => setTimeout(resolve, 2_500));
      expect(text(await client.callTool({ name: 'crm_me', arguments: {} }))).toEqual({ account: 'alice.crm' });
      expect(asked).toBe(1);
      expect((await crmIdp.counts()).refresh_token).toBe(1);
      await client.close();
      await waitFor(() =>
        records(desk, 'tools/call').some((record) => record.target === 'crm_me' && record.outcome === 'ok'),
      );
      expect(
        records(desk, 'tools/call').find((record) => record.target === 'crm_me' && record.outcome === 'ok')!.downstream,
      ).toEqual({
        mode: 'user',
        target: 'api crm',
        subject: 'alice',
        actor: CONNECTOR.id,
        identity: 'alice.crm',
      });
      expect(records(desk, 'connect/callback')[0]).toMatchObject({
        principal: 'alice',
        outcome: 'ok',
        arguments: { account: 'alice.crm' },
      });
    });

    it("refuses and audits a connected account used by another principal (alice's sealed tokens under bob's name)", async () => {
      const store = desk.get<UserConnectionStore>(MCP_USER_CONNECTION_STORE);
      const [[, sealed]] = await store.list('conn|api crm|alice');
      await store.put('conn|api crm|bob', sealed, 60_000);
      const client = await connect(deskBase, await facadeToken('bob'));
      const result = await client.callTool({ name: 'crm_me', arguments: {} });
      expect(result.isError).toBe(true);
      expect((result.content as { text: string }[])[0].text).toContain('the connected account on record is not yours');
      await client.close();
      await waitFor(() => records(desk, 'connect/use').length > 0);
      expect(records(desk, 'connect/use')[0]).toMatchObject({ principal: 'bob', target: 'api crm', outcome: 'denied' });
    });

    it('is revocable by the person, and by an administrator (who never sees a token)', async () => {
      const admin = {
        authorization: `Bearer ${await facadeToken('dana', ['admin'])}`,
        'content-type': 'application/json',
      };
      const all = (await (await fetch(`${deskBase}/admin/api/connections`, { headers: admin })).json()) as {
        connections: Record<string, unknown>[];
      };
      expect(all.connections).toEqual([
        {
          subject: 'alice',
          target: 'api crm',
          account: 'alice.crm',
          connectedAt: expect.any(String),
          accessTokenExpiresAt: expect.any(String),
        },
      ]);
      const token = await facadeToken('alice');
      const headers = { authorization: `Bearer ${token}` };
      const mine = (await (await fetch(`${deskBase}/connect/accounts`, { headers })).json()) as {
        connections: unknown[];
      };
      expect(mine.connections).toEqual(all.connections);
      const revoked = await fetch(`${deskBase}/connect/accounts?target=${encodeURIComponent('api crm')}`, {
        method: 'DELETE',
        headers,
      });
      expect(await revoked.json()).toEqual({ revoked: 1 });
      const client = await connect(deskBase, token);
      const again = await client.callTool({ name: 'crm_me', arguments: {} });
      expect((again.content as { text: string }[])[0].text).toContain('Connect your crm account');
      await client.close();
      // The administrator ends bob's (the copied one, which opens for no one).
      const byAdmin = await fetch(`${deskBase}/admin/api/connections/revoke`, {
        method: 'POST',
        headers: admin,
        body: JSON.stringify({ subject: 'bob' }),
      });
      expect(await byAdmin.json()).toEqual({ revoked: 1 });
      await waitFor(() => records(desk, 'connect/revoke').length === 2);
      expect(records(desk, 'connect/revoke').map((record) => [record.principal, record.arguments])).toEqual(
        expect.arrayContaining([
          ['alice', { subject: 'alice' }],
          ['dana', { subject: 'bob' }],
        ]),
      );
    });
  });
});
