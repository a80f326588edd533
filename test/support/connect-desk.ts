import { randomBytes, randomUUID } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { INestApplication } from '@nestjs/common';
import { Test } from '@nestjs/testing';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ElicitRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import type { Browser } from 'playwright-core';
import { McpModule, type McpModuleOptions } from 'nest-mcp-host';
import { McpAuthorizationServer } from '#libs/authorization-server';
import { AuditTrail, type AuditRecord } from '#libs/security';
import { launchChromium, startCompanyIdp, type CompanyIdp } from './company-idp';
import { freePort } from './free-port';

/** The desk's registration at the company IdP (people sign in there), and at the CRM (they connect their account). */
export const DESK_AT_IDP = { id: 'desk-host', secret: 'desk-host-secret-0123456789abcdefghijkl' };
export const DESK_AT_CRM = { id: 'desk-connector', secret: 'desk-connector-secret-0123456789abcdef' };

/**
 * A desk whose REST API `crm` is called with each person's own CRM account (`credential: { mode:
 * 'user' }`), with real parts: the company IdP (oidc-provider) where people sign in, the CRM's own
 * authorization server (another oidc-provider) where they connect their account, the CRM's API (it
 * asks its server whose token it got), chromium, and the desk with its authorization server and
 * admin API. Accounts: `alice`, `bob` at the IdP; `alice.crm`, `bob.crm` at the CRM.
 */
export interface ConnectDesk {
  base: string;
  app: INestApplication;
  idp: CompanyIdp;
  crmIdp: CompanyIdp;
  browser: Browser;
  /** A token of the desk's authorization server for `login` (with `roles`). */
  token(login: string, roles?: string[]): Promise<string>;
  /** An MCP client of the desk as `login`; `onUrl` answers URL-mode elicitations (the connect link). */
  client(login: string, onUrl: (url: string) => Promise<'accept' | 'decline'>): Promise<Client>;
  /** The records of the desk's trail with `method`, newest first. */
  records(method: string): AuditRecord[];
  /** `login`'s connected accounts, as the person lists them. */
  connections(login: string): Promise<{ target: string; account: string | null }[]>;
  stop(): Promise<void>;
}

/** Tokens of a host's own authorization server (the facade) for a person (`login`, with `roles`), as its token endpoint issues them. */
export function facadeTokens(
  app: INestApplication,
  base: string,
  idpIssuer: string,
): (login: string, roles?: string[]) => Promise<string> {
  return (login, roles = []) => {
    const now = Math.floor(Date.now() / 1000);
    return app.get(McpAuthorizationServer).keys.sign(
      {
        iss: base,
        sub: login,
        aud: `${base}/mcp`,
        client_id: 'e2e',
        scope: '',
        roles,
        idp: idpIssuer,
        jti: randomUUID(),
        iat: now,
        exp: now + 300,
      },
      { typ: 'at+jwt' },
    );
  };
}

/** An MCP client of `base` with `token`; `onUrl` answers URL-mode elicitations (none: the client cannot). */
export async function mcpClientOf(
  base: string,
  token: string,
  onUrl?: (url: string) => Promise<'accept' | 'decline'>,
): Promise<Client> {
  const client = new Client({ name: 'e2e', version: '1' }, { capabilities: onUrl ? { elicitation: { url: {} } } : {} });
  if (onUrl)
    client.setRequestHandler(ElicitRequestSchema, async (request) => ({
      action: await onUrl((request.params as { url: string }).url),
    }));
  await client.connect(
    new StreamableHTTPClientTransport(new URL(`${base}/mcp`), {
      requestInit: { headers: { authorization: `Bearer ${token}` } },
    }),
  );
  return client;
}

/** Starts the desk and its parts; `options` add to (or replace) the desk's `McpModule` options. */
export async function startConnectDesk(options: Partial<McpModuleOptions> = {}): Promise<ConnectDesk> {
  const [deskPort, apiPort] = [await freePort(), await freePort()];
  const base = `http://127.0.0.1:${deskPort}`;
  const [idp, crmIdp, browser] = await Promise.all([
    startCompanyIdp({
      clients: [
        {
          client_id: DESK_AT_IDP.id,
          client_secret: DESK_AT_IDP.secret,
          redirect_uris: [`${base}/oauth/callback`, `${base}/connect/verified`],
          grant_types: ['authorization_code'],
        },
      ],
      accounts: { alice: {}, bob: {} },
    }),
    startCompanyIdp({
      clients: [
        {
          client_id: DESK_AT_CRM.id,
          client_secret: DESK_AT_CRM.secret,
          redirect_uris: [`${base}/connect/callback`],
          grant_types: ['authorization_code', 'refresh_token'],
        },
      ],
      accounts: { 'alice.crm': {}, 'bob.crm': {} },
    }),
    launchChromium(),
  ]);
  // The CRM's API: it asks its own authorization server whose token it got.
  const api: Server = createServer((req, res) => {
    const send = (status: number, body: unknown) =>
      res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
    const token = /^Bearer (\S+)$/.exec(req.headers.authorization ?? '')?.[1];
    if (!token || req.url !== '/crm/me') return send(401, {});
    void fetch(`${crmIdp.issuer}/me`, { headers: { authorization: `Bearer ${token}` } }).then(async (answer) =>
      answer.ok ? send(200, { account: ((await answer.json()) as { sub: string }).sub }) : send(401, {}),
    );
  });
  await new Promise<void>((resolve) => api.listen(apiPort, '127.0.0.1', resolve));
  const moduleRef = await Test.createTestingModule({
    imports: [
      McpModule.forRoot({
        name: 'desk',
        version: '1.0.0',
        auth: { mode: 'oauth', resource: `${base}/mcp` } as never,
        authorizationServer: {
          idp: { issuer: idp.issuer, clientId: DESK_AT_IDP.id, clientSecret: DESK_AT_IDP.secret },
        },
        rest: {
          apis: [
            {
              name: 'crm',
              document: {
                openapi: '3.0.3',
                info: { title: 'crm', version: '1' },
                paths: {
                  '/me': {
                    get: {
                      operationId: 'crm_me',
                      responses: { '200': { description: 'who the CRM sees' } },
                    },
                  },
                },
              },
              baseUrl: `http://127.0.0.1:${apiPort}/crm`,
              credential: {
                mode: 'user',
                authorization: {
                  issuer: crmIdp.issuer,
                  clientId: DESK_AT_CRM.id,
                  clientSecret: DESK_AT_CRM.secret,
                  scopes: ['openid', 'offline_access'],
                },
              },
            },
          ],
        },
        downstream: { connections: { encryptionKey: randomBytes(32).toString('base64') } },
        admin: true,
        audit: { file: join(mkdtempSync(join(tmpdir(), 'connect-desk-')), 'audit.jsonl'), flushIntervalMs: 10 },
        ...options,
      }),
    ],
  }).compile();
  const app = moduleRef.createNestApplication({ logger: false });
  await app.listen(deskPort, '127.0.0.1');

  const token = facadeTokens(app, base, idp.issuer);
  return {
    base,
    app,
    idp,
    crmIdp,
    browser,
    token,
    client: async (login, onUrl) => mcpClientOf(base, await token(login), onUrl),
    records: (method) => app.get(AuditTrail).recent({ method, limit: 200 }),
    connections: async (login) => {
      const answer = await fetch(`${base}/connect/accounts`, {
        headers: { authorization: `Bearer ${await token(login)}` },
      });
      return ((await answer.json()) as { connections: { target: string; account: string | null }[] }).connections;
    },
    stop: async () => {
      await app.close();
      await Promise.all([idp.stop(), crmIdp.stop(), browser.close()]);
      await new Promise((resolve) => api.close(resolve));
    },
  };
}
