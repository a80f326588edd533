import type { INestApplication } from '@nestjs/common';
import { SecurityFixtureModule } from './fixtures/security.fixtures';
import { connectHttpClient, PLATFORMS, requestThroughFramework, startFixtureApp } from './support/fixture-app';
import { startIssuer, type TestIssuer } from './support/issuer';

describe.each(PLATFORMS)('OAuth 2.1 resource server (%s)', (platform) => {
  let app: INestApplication;
  let url: string;
  let base: string;
  let issuer: TestIssuer;

  beforeAll(async () => {
    issuer = await startIssuer();
    ({ app, url } = await startFixtureApp(
      {
        auth: issuer.hostAuth({ scopesSupported: ['mcp', 'tickets:read', 'tickets:write', 'reports'] }),
      },
      (options) => SecurityFixtureModule.register(options),
      platform,
    ));
    base = url.replace(/\/mcp$/, '');
  });
  afterAll(async () => {
    await app.close();
    await issuer.close();
  });

  const initialize = (token?: string) =>
    fetch(url, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json',
        ...(token && { authorization: `Bearer ${token}` }),
      },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'initialize',
        params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
      }),
    });
  const metadata = 'resource_metadata="http://127.0.0.1/.well-known/oauth-protected-resource/mcp"';

  const published = () => ({
    resource: 'http://127.0.0.1/mcp',
    authorization_servers: [issuer.issuer],
    bearer_methods_supported: ['header'],
    scopes_supported: ['mcp', 'tickets:read', 'tickets:write', 'reports'],
  });

  it('publishes RFC 9728 protected resource metadata', async () => {
    const response = await fetch(`${base}/.well-known/oauth-protected-resource/mcp`);
    expect(await response.json()).toEqual(published());
  });

  it("publishes it to requests that reach the framework without the server's listener too", async () => {
    for (const url of ['/.well-known/oauth-protected-resource/mcp', '/.well-known/oauth-protected-resource']) {
      const response = await requestThroughFramework(app, platform, { method: 'GET', url });
      expect({ url, status: response.status, body: JSON.parse(response.body) as unknown }).toEqual({
        url,
        status: 200,
        body: published(),
      });
    }
  });

  it.each([
    ['no token', async () => undefined, `Bearer ${metadata}, scope="mcp"`],
    [
      'an expired token',
      () => issuer.sign({ scope: 'mcp' }, { expiresIn: '-10m' }),
      `Bearer ${metadata}, error="invalid_token", error_description="The token has expired"`,
    ],
    [
      'a token for another audience',
      () => issuer.sign({ scope: 'mcp' }, { audience: 'https://other.example/mcp' }),
      `Bearer ${metadata}, error="invalid_token", error_description="The token is not meant for this server (audience)"`,
    ],
    [
      'a token from another issuer',
      () => issuer.sign({ scope: 'mcp' }, { issuer: 'https://evil.example' }),
      `Bearer ${metadata}, error="invalid_token", error_description="The token comes from an issuer this server does not trust"`,
    ],
  ])('answers 401 to %s', async (_label, token, header) => {
    const response = await initialize(await token());
    expect(response.status).toBe(401);
    expect(response.headers.get('www-authenticate')).toBe(header);
  });

  it('answers 403 insufficient_scope when the token lacks the required scope', async () => {
    const response = await initialize(await issuer.sign({ scope: 'tickets:read' }));
    expect(response.status).toBe(403);
    expect(response.headers.get('www-authenticate')).toBe(
      `Bearer ${metadata}, error="insufficient_scope", error_description="The token lacks scope(s): mcp", scope="mcp"`,
    );
  });

  it('accepts a valid token and authorizes with its scopes and roles', async () => {
    const token = await issuer.sign({ scope: 'mcp tickets:read', roles: ['supervisor'] });
    const client = await connectHttpClient(url, { authorization: `Bearer ${token}` });
    try {
      expect((await client.listTools()).tools.map((tool) => tool.name).sort()).toEqual([
        'hello',
        'readTicket',
        'reassign',
      ]);
      expect(await client.callTool({ name: 'hello' })).toEqual({ content: [{ type: 'text', text: 'hello user-42' }] });
    } finally {
      await client.close();
    }
  });

  it('never takes a token from the query string', async () => {
    const token = await issuer.sign({ scope: 'mcp' });
    const response = await fetch(`${url}?access_token=${token}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping' }),
    });
    expect(response.status).toBe(401);
  });
});
