import { chmodSync, existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Injectable, type INestApplication } from '@nestjs/common';
import { Test } from '@nestjs/testing';
import { Client as ClientV1 } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport as TransportV1 } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import {
  Client as ClientV2,
  CrossAppAccessProvider,
  discoverAndRequestJwtAuthGrant,
  StreamableHTTPClientTransport as TransportV2,
} from '@modelcontextprotocol/client';
import { exportJWK, generateKeyPair, SignJWT } from 'jose';
import type { Browser } from 'playwright-core';
import { hashApiKey, McpContext, McpModule, McpTool, Roles, type McpCallContext } from 'nest-mcp-host';
import { AuditTrail } from '#libs/security';
import { McpAuthorizationServer } from '#libs/authorization-server';
import { launchChromium, signInInBrowser, startCompanyIdp, type CompanyIdp } from './support/company-idp';
import { freePort } from './support/free-port';
import { startDocumentServer, TestOAuthProvider } from './support/oauth-test-client';
import { waitFor } from './support/wait-for';

jest.setTimeout(60_000);

const HOST_SECRET = 'desk-host-secret-0123456789abcdefghijkl';
const AGENT_APP = {
  idp: 'agent-app',
  secret: 'agent-app-secret-0123456789abcdefghij',
  mcp: 'agent-app-mcp',
  mcpSecret: 'agent-mcp-secret-0123456789abcdefgh',
};
const JWT_BEARER = 'urn:ietf:params:oauth:grant-type:jwt-bearer';
const EMA = 'io.modelcontextprotocol/enterprise-managed-authorization';

@Injectable()
class DeskTools {
  @McpTool({ description: 'Says who is calling, with what' })
  whoami(@McpContext() context: McpCallContext) {
    return { caller: context.caller.id, scopes: context.caller.scopes, roles: context.caller.roles };
  }

  @Roles('agent')
  @McpTool({ description: 'Agents only' })
  close_ticket() {
    return { closed: true };
  }
}

const text = (result: unknown) =>
  JSON.parse((result as { content: { text: string }[] }).content[0].text) as Record<string, unknown>;

/**
 * The authorization server facade end to end, with real parts: the company IdP is oidc-provider
 * configured like Entra ID (no registration; app roles in the ID token), a person signs in at its
 * login page in Debian's chromium, and the SDK v1 and v2 clients' OAuth providers do the rest
 * (discovery, registration or a client ID metadata document, PKCE, resource, refresh); the SDK v2
 * client's cross-app access provider redeems an ID-JAG the IdP issued by token exchange.
 */
describe('the authorization server in front of the company IdP', () => {
  let idp: CompanyIdp;
  let app: INestApplication;
  let browser: Browser;
  let documents: Awaited<ReturnType<typeof startDocumentServer>>;
  let issuer: string;
  let resource: string;
  let trail: AuditTrail;
  let callbackUrl: string;

  const records = (method: string) => trail.recent({ method, limit: 200 });

  beforeAll(async () => {
    const port = await freePort();
    issuer = `http://127.0.0.1:${port}`;
    resource = `${issuer}/mcp`;
    callbackUrl = `http://127.0.0.1:${await freePort()}/callback`;
    [idp, browser, documents] = await Promise.all([
      startCompanyIdp({
        clients: [
          {
            client_id: 'desk-host',
            client_secret: HOST_SECRET,
            redirect_uris: [`${issuer}/oauth/callback`],
            grant_types: ['authorization_code', 'refresh_token'],
          },
          {
            client_id: AGENT_APP.idp,
            client_secret: AGENT_APP.secret,
            redirect_uris: [callbackUrl],
            grant_types: ['authorization_code', 'urn:ietf:params:oauth:grant-type:token-exchange'],
          },
        ],
        accounts: { alice: { roles: ['Desk.Agent'] }, bob: { roles: ['Other.App'] }, carol: { roles: ['Desk.Admin'] } },
        idJag: { [AGENT_APP.idp]: { mcpClientId: AGENT_APP.mcp } },
      }),
      launchChromium(),
      startDocumentServer((base) => ({
        '/clients/desk.json': {
          client_id: `${base}/clients/desk.json`,
          client_name: 'Desk by metadata document',
          redirect_uris: [callbackUrl],
          token_endpoint_auth_method: 'none',
        },
      })),
    ]);
    const moduleRef = await Test.createTestingModule({
      imports: [
        McpModule.forRoot({
          name: 'desk',
          version: '1.0.0',
          audit: { file: join(mkdtempSync(join(tmpdir(), 'as-audit-')), 'audit.jsonl'), flushIntervalMs: 10 },
          auth: {
            mode: 'oauth',
            resource,
            scopesSupported: ['tickets:read'],
            claims: {
              roles: { from: ['roles'], map: { 'Desk.Agent': ['agent'], 'Desk.Admin': ['admin'] } },
              scopes: { from: ['roles'], map: { 'Desk.Agent': ['tickets:read'], 'Other.App': ['tickets:read'] } },
            },
          } as never,
          authorizationServer: {
            idp: { issuer: idp.issuer, clientId: 'desk-host', clientSecret: HOST_SECRET },
            clientMetadataDocuments: { allowHosts: ['127.0.0.1'], ca: documents.ca },
            clients: [{ clientId: AGENT_APP.mcp, secretHash: hashApiKey(AGENT_APP.mcpSecret) }],
            trustedIdps: [{ issuer: idp.issuer, jwksUri: `${idp.issuer}/jwks` }],
          },
        }),
      ],
      providers: [DeskTools],
    }).compile();
    app = moduleRef.createNestApplication({ logger: false });
    await app.listen(port, '127.0.0.1');
    trail = app.get(AuditTrail);
  });

  afterAll(async () => {
    await app?.close();
    await Promise.all([idp?.stop(), browser?.close(), documents?.close()]);
  });

  /** The SDK's first connect sends the person to the authorization endpoint; they sign in; the client redeems the code. */
  async function signIn(version: 'v1' | 'v2', provider: TestOAuthProvider, login: string) {
    const url = new URL(resource);
    const first =
      version === 'v1' ? new ClientV1({ name: 'e2e', version: '1' }) : new ClientV2({ name: 'e2e', version: '1' });
    const transport =
      version === 'v1'
        ? new TransportV1(url, { authProvider: provider as never })
        : new TransportV2(url, { authProvider: provider as never });
    await expect(first.connect(transport as never)).rejects.toThrow(/nauthorized/);
    expect(provider.authorizationUrl).toBeDefined();
    const landed = await signInInBrowser(browser, provider.authorizationUrl!.href, login, callbackUrl);
    expect(landed.searchParams.get('error')).toBeNull();
    if (version === 'v1') await (transport as TransportV1).finishAuth(landed.searchParams.get('code')!);
    else await (transport as TransportV2).finishAuth(landed.searchParams);
    const client =
      version === 'v1' ? new ClientV1({ name: 'e2e', version: '1' }) : new ClientV2({ name: 'e2e', version: '1' });
    await client.connect(
      (version === 'v1'
        ? new TransportV1(url, { authProvider: provider as never })
        : new TransportV2(url, { authProvider: provider as never })) as never,
    );
    return client as ClientV1;
  }

  it('publishes itself: the resource names it, its metadata lists its endpoints, CIMD and the JWT bearer grant', async () => {
    const protectedResource = await (await fetch(`${issuer}/.well-known/oauth-protected-resource/mcp`)).json();
    expect(protectedResource).toMatchObject({ resource, authorization_servers: [issuer] });
    const metadata = await (await fetch(`${issuer}/.well-known/oauth-authorization-server`)).json();
    expect(metadata).toMatchObject({
      issuer,
      authorization_endpoint: `${issuer}/oauth/authorize`,
      token_endpoint: `${issuer}/oauth/token`,
      registration_endpoint: `${issuer}/oauth/register`,
      code_challenge_methods_supported: ['S256'],
      client_id_metadata_document_supported: true,
      grant_types_supported: ['authorization_code', 'refresh_token', JWT_BEARER],
    });
  });

  it('signs a person in through the IdP for the SDK v1 client (dynamic registration), with the roles and scopes their groups map to', async () => {
    const provider = new TestOAuthProvider(callbackUrl);
    const client = await signIn('v1', provider, 'alice');
    expect(text(await client.callTool({ name: 'whoami', arguments: {} }))).toEqual({
      caller: 'alice',
      scopes: ['tickets:read'],
      roles: ['agent'],
    });
    expect((await client.callTool({ name: 'close_ticket', arguments: {} })).isError).toBeFalsy();
    expect(client.getServerCapabilities()).toMatchObject({ extensions: { [EMA]: {} } });
    await client.close();
    expect(records('oauth/register')).toHaveLength(1);
    await waitFor(() =>
      records('oauth/token').some((record) => record.principal === 'alice' && record.outcome === 'ok'),
    );
  });

  it('signs a person in for the SDK v2 client by its client ID metadata document; a role they lack stays refused', async () => {
    const provider = new TestOAuthProvider(callbackUrl, `${documents.base}/clients/desk.json`);
    const client = await signIn('v2', provider, 'bob');
    expect(text(await client.callTool({ name: 'whoami', arguments: {} }))).toEqual({
      caller: 'bob',
      scopes: ['tickets:read'],
      roles: [],
    });
    const tools = await client.listTools();
    expect(tools.tools.map((tool) => tool.name)).toEqual(['whoami']);
    expect(provider.clientInformation()).toMatchObject({ client_id: `${documents.base}/clients/desk.json` });
    await client.close();
  });

  it('signs a person in for mcp-remote (dynamic registration, its own loopback listener); its stdio side lists and calls the desk tools', async () => {
    // mcp-remote opens the authorization URL with the `open` package, whose xdg-open hands it to
    // $BROWSER when there is no desktop: a script that writes it down for the test's chromium.
    const dir = mkdtempSync(join(tmpdir(), 'mcp-remote-'));
    const opened = join(dir, 'opened-url');
    const opener = join(dir, 'browser.sh');
    // Written aside, then renamed: the test never reads a file the script has only begun.
    writeFileSync(opener, `#!/bin/sh\nprintf '%s\\n' "$1" > '${opened}.part' && mv '${opened}.part' '${opened}'\n`);
    chmodSync(opener, 0o755);
    const port = await freePort();
    const { DISPLAY: _d, WAYLAND_DISPLAY: _w, XDG_CURRENT_DESKTOP: _x, ...env } = process.env;
    let stderr = '';
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [require.resolve('mcp-remote/dist/proxy.js'), resource, String(port)],
      env: { ...(env as Record<string, string>), BROWSER: opener, MCP_REMOTE_CONFIG_DIR: join(dir, 'auth') },
      stderr: 'pipe',
    });
    transport.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const client = new ClientV1({ name: 'desk-by-mcp-remote', version: '1' });
    const connected = client.connect(transport);
    connected.catch(() => undefined); // awaited below, once the person signed in
    try {
      await waitFor(() => existsSync(opened), 30_000);
      const url = readFileSync(opened, 'utf8').trim();
      expect(url.startsWith(`${issuer}/oauth/authorize?`)).toBe(true);
      const landed = await signInInBrowser(browser, url, 'alice', `http://localhost:${port}/oauth/callback`, {
        listen: false,
      });
      expect(landed.searchParams.get('code')).toBeTruthy();
      await connected;
      expect((await client.listTools()).tools.map((tool) => tool.name).sort()).toEqual(['close_ticket', 'whoami']);
      expect(text(await client.callTool({ name: 'whoami', arguments: {} }))).toEqual({
        caller: 'alice',
        scopes: ['tickets:read'],
        roles: ['agent'],
      });
    } catch (error) {
      throw new Error(`${(error as Error).message}\nmcp-remote said:\n${stderr}`);
    } finally {
      await client.close();
    }
    expect((await app.get(McpAuthorizationServer).grants()).some((grant) => grant.subject === 'alice')).toBe(true);
  });

  describe('refresh tokens', () => {
    let provider: TestOAuthProvider;
    const refresh = (refreshToken: string, clientId: string) =>
      fetch(`${issuer}/oauth/token`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ grant_type: 'refresh_token', refresh_token: refreshToken, client_id: clientId }),
      });

    beforeAll(async () => {
      provider = new TestOAuthProvider(callbackUrl);
      await (await signIn('v1', provider, 'alice')).close();
    });

    it('rotate: each refresh gives a new one, and a spent one presented again ends the sign-in (audited)', async () => {
      const clientId = (provider.clientInformation() as { client_id: string }).client_id;
      const first = (provider.tokens() as { refresh_token: string }).refresh_token;
      const answer = await refresh(first, clientId);
      expect(answer.status).toBe(200);
      const second = ((await answer.json()) as { refresh_token: string }).refresh_token;
      expect(second).not.toBe(first);
      const replay = await refresh(first, clientId);
      expect(replay.status).toBe(400);
      expect(await replay.json()).toEqual({
        error: 'invalid_grant',
        error_description: 'the refresh token was already used: the sign-in is revoked',
      });
      expect((await refresh(second, clientId)).status).toBe(400);
      await waitFor(() => records('oauth/token').some((record) => record.error?.includes('already used')));
    });

    it('are revoked per person from the admin side, and a revoked one is refused', async () => {
      const fresh = new TestOAuthProvider(callbackUrl);
      await (await signIn('v1', fresh, 'bob')).close();
      const server = app.get(McpAuthorizationServer);
      expect((await server.grants()).some((grant) => grant.subject === 'bob')).toBe(true);
      expect(await server.revoke({ subject: 'bob' })).toBeGreaterThanOrEqual(1);
      const clientId = (fresh.clientInformation() as { client_id: string }).client_id;
      const answer = await refresh((fresh.tokens() as { refresh_token: string }).refresh_token, clientId);
      expect(await answer.json()).toMatchObject({
        error: 'invalid_grant',
        error_description: 'the refresh token is unknown, expired or revoked',
      });
    });
  });

  it("is administered from the admin API by a person the IdP's admin group makes an administrator", async () => {
    const admin = new TestOAuthProvider(callbackUrl);
    await (await signIn('v1', admin, 'carol')).close();
    const holder = new TestOAuthProvider(callbackUrl);
    await (await signIn('v2', holder, 'bob')).close();
    const as = (provider: TestOAuthProvider) => ({
      authorization: `Bearer ${(provider.tokens() as { access_token: string }).access_token}`,
      'content-type': 'application/json',
    });
    const grants = (await (await fetch(`${issuer}/admin/api/oauth/grants`, { headers: as(admin) })).json()) as {
      grants: { subject: string; clientId: string }[];
    };
    expect(grants.grants.map((grant) => grant.subject)).toEqual(expect.arrayContaining(['carol', 'bob']));
    const refused = await fetch(`${issuer}/admin/api/oauth/revoke`, {
      method: 'POST',
      headers: as(holder),
      body: '{"subject":"carol"}',
    });
    expect(refused.status).toBe(403);
    const revoked = await fetch(`${issuer}/admin/api/oauth/revoke`, {
      method: 'POST',
      headers: as(admin),
      body: JSON.stringify({ subject: 'bob' }),
    });
    expect(await revoked.json()).toEqual({ revoked: 1 });
    expect((await app.get(McpAuthorizationServer).grants()).some((grant) => grant.subject === 'bob')).toBe(false);
  });

  it('rotates its signing key without dropping a session: tokens signed before still work', async () => {
    const provider = new TestOAuthProvider(callbackUrl);
    const client = await signIn('v1', provider, 'alice');
    const before = (await (await fetch(`${issuer}/oauth/jwks`)).json()) as { keys: { kid: string }[] };
    const { kid } = await app.get(McpAuthorizationServer).keys.rotate();
    const after = (await (await fetch(`${issuer}/oauth/jwks`)).json()) as { keys: { kid: string }[] };
    expect(after.keys.map((key) => key.kid)).toEqual([kid, ...before.keys.map((key) => key.kid)]);
    expect(text(await client.callTool({ name: 'whoami', arguments: {} }))).toMatchObject({ caller: 'alice' });
    await client.close();
  });

  describe('refuses and audits', () => {
    const authorize = (params: Record<string, string>) =>
      fetch(
        `${issuer}/oauth/authorize?${new URLSearchParams({ response_type: 'code', code_challenge: 'x'.repeat(43), code_challenge_method: 'S256', ...params })}`,
        { redirect: 'manual' },
      );

    it('a redirect URI that is not in the client metadata document (shown, never redirected to)', async () => {
      const answer = await authorize({
        client_id: `${documents.base}/clients/desk.json`,
        redirect_uri: 'http://127.0.0.1:1/steal',
      });
      expect(answer.status).toBe(400);
      expect(answer.headers.get('location')).toBeNull();
      expect(await answer.text()).toContain('redirect_uri is not one of the client');
    });

    it('a client metadata document URL that points at a private address (nothing is fetched)', async () => {
      const answer = await authorize({ client_id: 'https://10.0.0.7/clients/desk.json', redirect_uri: callbackUrl });
      expect(answer.status).toBe(400);
      expect(await answer.text()).toContain('resolves to a non-public address (10.0.0.7)');
      await waitFor(() =>
        records('oauth/authorize').some(
          (record) => record.target === 'https://10.0.0.7/clients/desk.json' && record.outcome === 'unauthenticated',
        ),
      );
    });

    it('a token for another resource', async () => {
      const answer = await authorize({
        client_id: `${documents.base}/clients/desk.json`,
        redirect_uri: callbackUrl,
        resource: 'https://other.example/mcp',
      });
      expect(answer.status).toBe(302);
      const location = new URL(answer.headers.get('location')!);
      expect(location.searchParams.get('error')).toBe('invalid_target');
      await waitFor(() => records('oauth/authorize').some((record) => record.error?.startsWith('invalid_target')));
    });
  });

  describe('enterprise-managed authorization (ID-JAG)', () => {
    let idToken: string;

    /** The person signed in to the MCP client's own app at the IdP: it holds their ID token. */
    beforeAll(async () => {
      const start = new URL(`${idp.issuer}/auth`);
      start.search = new URLSearchParams({
        client_id: AGENT_APP.idp,
        response_type: 'code',
        scope: 'openid profile',
        redirect_uri: callbackUrl,
        state: 's',
        nonce: 'n',
      }).toString();
      const landed = await signInInBrowser(browser, start.href, 'alice', callbackUrl);
      const answer = await fetch(`${idp.issuer}/token`, {
        method: 'POST',
        headers: {
          authorization: `Basic ${Buffer.from(`${AGENT_APP.idp}:${AGENT_APP.secret}`).toString('base64')}`,
          'content-type': 'application/x-www-form-urlencoded',
        },
        body: new URLSearchParams({
          grant_type: 'authorization_code',
          code: landed.searchParams.get('code')!,
          redirect_uri: callbackUrl,
        }),
      });
      idToken = ((await answer.json()) as { id_token: string }).id_token;
      expect(idToken).toBeDefined();
    });

    const jagFor = async (overrides: { resource?: string } = {}) =>
      (
        await discoverAndRequestJwtAuthGrant({
          idpUrl: idp.issuer,
          audience: issuer,
          resource: overrides.resource ?? resource,
          idToken,
          clientId: AGENT_APP.idp,
          clientSecret: AGENT_APP.secret,
        })
      ).jwtAuthGrant;

    const redeem = (assertion: string) =>
      fetch(`${issuer}/oauth/token`, {
        method: 'POST',
        headers: {
          authorization: `Basic ${Buffer.from(`${AGENT_APP.mcp}:${AGENT_APP.mcpSecret}`).toString('base64')}`,
          'content-type': 'application/x-www-form-urlencoded',
        },
        body: new URLSearchParams({ grant_type: JWT_BEARER, assertion }),
      });

    it("lets the SDK v2 client's cross-app access provider in as the person, with no consent screen", async () => {
      const provider = new CrossAppAccessProvider({
        assertion: (context) => jagFor({ resource: context.resourceUrl }),
        clientId: AGENT_APP.mcp,
        clientSecret: AGENT_APP.mcpSecret,
        expectedIssuer: issuer,
      });
      const client = new ClientV2({ name: 'agent', version: '1' });
      await client.connect(new TransportV2(new URL(resource), { authProvider: provider }));
      expect(text(await client.callTool({ name: 'whoami', arguments: {} }))).toEqual({
        caller: 'alice',
        scopes: ['tickets:read'],
        roles: ['agent'],
      });
      await client.close();
    });

    it.each([
      [
        'a replayed ID-JAG',
        async (jag: string) => {
          expect((await redeem(jag)).status).toBe(200);
          return jag;
        },
        'the assertion was already used (jti replay)',
      ],
      [
        'an ID-JAG for another resource',
        () => jagFor({ resource: 'https://other.example/mcp' }),
        'the assertion is for another resource ("https://other.example/mcp")',
      ],
      [
        'an ID-JAG from an untrusted issuer',
        async () => {
          const { privateKey, publicKey } = await generateKeyPair('ES256');
          void exportJWK(publicKey);
          return new SignJWT({ sub: 'alice', resource, client_id: AGENT_APP.mcp })
            .setProtectedHeader({ alg: 'ES256', typ: 'oauth-id-jag+jwt' })
            .setIssuer('https://evil.example')
            .setAudience(issuer)
            .setJti('forged-1')
            .setIssuedAt()
            .setExpirationTime('5m')
            .sign(privateKey);
        },
        'the assertion\'s issuer "https://evil.example" is not trusted',
      ],
    ])('refuses %s, saying why, and audits it', async (_attack, make, description) => {
      const assertion = await make(await jagFor());
      const answer = await redeem(assertion);
      expect(answer.status).toBe(400);
      expect(await answer.json()).toEqual({ error: 'invalid_grant', error_description: description });
      await waitFor(() =>
        records('oauth/token').some(
          (record) => record.outcome === 'denied' && record.error === `invalid_grant: ${description}`,
        ),
      );
    });
  });
});
