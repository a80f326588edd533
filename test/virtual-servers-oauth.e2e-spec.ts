import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { connectSdkV2, MODERN } from './support/era-clients';
import { startDeskProcess, type DeskProcess } from './support/desk-process';
import { freePort } from './support/free-port';
import { startIssuer, type TestIssuer } from './support/issuer';

jest.setTimeout(60_000);

/**
 * A composed virtual server with an OAuth resource of its own, on a desk whose callers hold
 * tokens of an issuer: its RFC 9728 metadata at the well-known path before its own, a 401 that
 * points there, tokens for its resource taken and the host's refused (RFC 8707) — and its tokens
 * refused by the host's own MCP path in turn.
 */
describe('composed virtual servers with an OAuth resource of their own', () => {
  const dir = mkdtempSync(join(tmpdir(), 'composed-oauth-'));
  let issuer: TestIssuer;
  let desk: DeskProcess;
  let base: string;
  const scope = 'tickets:read tickets:write kb:read reports';
  const token = (audience: string, extra: Record<string, unknown> = {}) =>
    issuer.sign({ sub: 'ana', scope, ...extra }, { audience });
  const initialize = (path: string, bearer?: string) =>
    fetch(`${base}${path}`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        ...(bearer && { authorization: `Bearer ${bearer}` }),
      },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'initialize',
        params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
      }),
    });

  beforeAll(async () => {
    issuer = await startIssuer();
    const port = await freePort();
    base = `http://127.0.0.1:${port}`;
    desk = await startDeskProcess(
      {
        AUTH_MODE: 'oauth',
        OAUTH_ISSUER: issuer.issuer,
        OAUTH_JWKS_URI: issuer.jwksUri,
        MCP_RESOURCE_URL: `${base}/mcp`,
        AUDIT_FILE: join(dir, 'desk.jsonl'),
        VIRTUAL_SERVERS_FILE: join(dir, 'virtual-servers.json'),
      },
      { port },
    );
    const admin = await token(`${base}/mcp`, { scope: `${scope} mcp:admin` });
    const composed = (server: Record<string, unknown>) =>
      fetch(`${base}/admin/api/servers/composed`, {
        method: 'POST',
        headers: { authorization: `Bearer ${admin}`, 'content-type': 'application/json' },
        body: JSON.stringify(server),
      });
    const wrong = await composed({
      name: 'finance',
      path: '/mcp/finance',
      credentials: { resource: `${base}/mcp/other` },
      select: [{ from: 'local' }],
    });
    expect(wrong.status).toBe(422);
    expect(((await wrong.json()) as { problems: { where: string }[] }).problems.map((p) => p.where)).toEqual([
      'servers[1].credentials.resource',
    ]);
    const added = await composed({
      name: 'finance',
      path: '/mcp/finance',
      title: 'Finance desk',
      credentials: { resource: `${base}/mcp/finance`, scopes: ['tickets:read'] },
      select: [{ from: 'local', entries: ['search_*'] }],
    });
    expect(added.status).toBe(200);
  }, 60_000);

  afterAll(async () => {
    await desk?.stop();
    await issuer?.close();
  });

  it('serves its RFC 9728 metadata at the well-known path before its own', async () => {
    const response = await fetch(`${base}/.well-known/oauth-protected-resource/mcp/finance`);
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({
      resource: `${base}/mcp/finance`,
      authorization_servers: [issuer.issuer],
      bearer_methods_supported: ['header'],
      scopes_supported: ['tickets:read'],
      resource_name: 'Finance desk',
    });
    // The host's own stays the host's.
    const host = (await (await fetch(`${base}/.well-known/oauth-protected-resource/mcp`)).json()) as {
      resource: string;
    };
    expect(host.resource).toBe(`${base}/mcp`);
  });

  it('points a caller without a token there, takes tokens for its resource only, and the host takes none of them', async () => {
    const anonymous = await initialize('/mcp/finance');
    expect(anonymous.status).toBe(401);
    expect(anonymous.headers.get('www-authenticate')).toBe(
      `Bearer resource_metadata="${base}/.well-known/oauth-protected-resource/mcp/finance", scope="tickets:read"`,
    );
    // A token for the host is not one for the server (RFC 8707: audience-restricted)...
    const forHost = await initialize('/mcp/finance', await token(`${base}/mcp`));
    expect(forHost.status).toBe(401);
    expect(forHost.headers.get('www-authenticate')).toContain('error="invalid_token"');
    // ...nor the other way round.
    const forServer = await token(`${base}/mcp/finance`);
    expect((await initialize('/mcp', forServer)).status).toBe(401);
    // The server's own token: served, as the SDK v2 client speaks it.
    const client = await connectSdkV2(
      `${base}/mcp/finance`,
      'finance',
      { pin: MODERN },
      {
        headers: { authorization: `Bearer ${forServer}` },
      },
    );
    const tools = (await client.client.listTools()).tools.map((tool) => tool.name).sort();
    await client.client.close();
    expect(tools).toEqual(['search_customers', 'search_tickets']);
    // Its scopes, beyond the token's audience.
    const noScope = await initialize('/mcp/finance', await token(`${base}/mcp/finance`, { scope: 'kb:read' }));
    expect(noScope.status).toBe(403);
    expect(noScope.headers.get('www-authenticate')).toContain('error="insufficient_scope"');
  });
});
