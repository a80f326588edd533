import { Injectable, type INestApplication } from '@nestjs/common';
import { Test } from '@nestjs/testing';
import type { McpPrincipal } from '#libs/core';
import { hashApiKey, ScopeAndRolePolicy, type McpCallRequest } from '#libs/security';
import { SecurityFixtureModule } from './fixtures/security.fixtures';
import { connectHttpClient, createTestApplication, PLATFORMS } from './support/fixture-app';

const KEYS = {
  reader: 'rk_reader_0123456789',
  supervisor: 'rk_supervisor_abcdef',
  expired: 'rk_expired_000000000',
};

describe('API-key authentication and scope/role authorization over HTTP', () => {
  let app: INestApplication;
  let url: string;

  beforeAll(async () => {
    const moduleRef = await Test.createTestingModule({
      imports: [
        SecurityFixtureModule.register({
          auth: {
            mode: 'apiKey',
            keys: [
              { hash: hashApiKey(KEYS.reader), principal: 'reader-bot', scopes: ['tickets:read'] },
              {
                hash: hashApiKey(KEYS.supervisor),
                principal: 'sam',
                scopes: ['tickets:read', 'tickets:write', 'reports'],
                roles: ['supervisor'],
              },
              {
                hash: hashApiKey(KEYS.expired),
                principal: 'old-bot',
                scopes: ['tickets:read'],
                expiresAt: '2020-01-01T00:00:00Z',
              },
            ],
          },
        }),
      ],
    }).compile();
    app = moduleRef.createNestApplication({ logger: false });
    await app.listen(0, '127.0.0.1');
    url = `${(await app.getUrl()).replace('[::1]', '127.0.0.1')}/mcp`;
  });
  afterAll(() => app.close());

  const post = (headers: Record<string, string>) =>
    fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'initialize',
        params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
      }),
    });

  it('answers 401 with WWW-Authenticate without a key, with a bad key and with an expired key', async () => {
    const none = await post({});
    expect(none.status).toBe(401);
    expect(none.headers.get('www-authenticate')).toBe('Bearer realm="mcp"');
    const bad = await post({ authorization: 'Bearer nope' });
    expect(bad.status).toBe(401);
    expect(bad.headers.get('www-authenticate')).toBe(
      'Bearer realm="mcp", error="invalid_token", error_description="The API key is not valid"',
    );
    const expired = await post({ 'x-api-key': KEYS.expired });
    expect(expired.status).toBe(401);
    expect(((await expired.json()) as { error: { message: string } }).error.message).toBe(
      'Unauthorized: The API key has expired',
    );
    expect((await post({ 'x-api-key': KEYS.reader })).status).toBe(200);
  });

  it('lists and serves to each caller exactly what its scopes and roles allow', async () => {
    const reader = await connectHttpClient(url, { authorization: `Bearer ${KEYS.reader}` });
    const supervisor = await connectHttpClient(url, { 'x-api-key': KEYS.supervisor });
    try {
      expect((await reader.listTools()).tools.map((tool) => tool.name).sort()).toEqual(['hello', 'readTicket']);
      expect((await supervisor.listTools()).tools.map((tool) => tool.name).sort()).toEqual([
        'buildReport',
        'hello',
        'readTicket',
        'reassign',
        'writeTicket',
      ]);
      expect((await reader.listPrompts()).prompts.map((prompt) => prompt.name)).toEqual(['openPrompt']);
      expect((await reader.listResources()).resources.map((resource) => resource.uri).sort()).toEqual([
        'desk://motd',
        'desk://queue',
      ]);
      expect((await supervisor.listResources()).resources.map((resource) => resource.uri).sort()).toEqual([
        'desk://audit',
        'desk://motd',
        'desk://queue',
      ]);

      expect(await reader.callTool({ name: 'hello' })).toEqual({
        content: [{ type: 'text', text: 'hello reader-bot' }],
      });
      // Hidden entries are answered like entries that do not exist.
      await expect(reader.callTool({ name: 'writeTicket' })).rejects.toMatchObject({
        code: -32602,
        message: expect.stringContaining('Unknown tool: writeTicket'),
      });
      await expect(reader.callTool({ name: 'reassign' })).rejects.toMatchObject({
        code: -32602,
        message: expect.stringContaining('Unknown tool: reassign'),
      });
      await expect(reader.getPrompt({ name: 'reportPrompt' })).rejects.toMatchObject({
        code: -32602,
        message: expect.stringContaining('Unknown prompt: reportPrompt'),
      });
      await expect(reader.readResource({ uri: 'desk://audit' })).rejects.toMatchObject({ code: -32002 });
      expect(await supervisor.callTool({ name: 'reassign' })).toEqual({
        content: [{ type: 'text', text: 'reassigned' }],
      });
    } finally {
      await reader.close();
      await supervisor.close();
    }
  });

  it('keeps a session to the principal that opened it', async () => {
    const opened = await post({ 'x-api-key': KEYS.reader });
    const session = opened.headers.get('mcp-session-id')!;
    const ping = (key: string) =>
      fetch(url, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          accept: 'application/json',
          'x-api-key': key,
          'mcp-session-id': session,
          'mcp-protocol-version': '2025-11-25',
        },
        body: JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'ping' }),
      });
    expect((await ping(KEYS.reader)).status).toBe(200);
    expect((await ping(KEYS.supervisor)).status).toBe(404);
  });
});

describe('authentication off', () => {
  it.each(PLATFORMS)('refuses to listen beyond loopback on %s, and says how to fix it', async (platform) => {
    const moduleRef = await Test.createTestingModule({
      imports: [SecurityFixtureModule.register({ auth: { mode: 'none' } })],
    }).compile();
    const app = createTestApplication(moduleRef, platform);
    try {
      await expect(app.listen(0, '0.0.0.0')).rejects.toThrow(
        /authentication is off \('none'\) but the host would listen on 0\.0\.0\.0\n\s+fix: listen on 127\.0\.0\.1/,
      );
    } finally {
      await app.close();
    }
  });

  it('serves every caller as the configured principal on loopback', async () => {
    const moduleRef = await Test.createTestingModule({
      imports: [
        SecurityFixtureModule.register({
          auth: { mode: 'none', principal: { id: 'local-dev', scopes: ['tickets:read'] } },
        }),
      ],
    }).compile();
    const app = moduleRef.createNestApplication({ logger: false });
    await app.listen(0, '127.0.0.1');
    const client = await connectHttpClient(`${(await app.getUrl()).replace('[::1]', '127.0.0.1')}/mcp`);
    try {
      expect(await client.callTool({ name: 'hello' })).toEqual({
        content: [{ type: 'text', text: 'hello local-dev' }],
      });
      expect((await client.listTools()).tools.map((tool) => tool.name).sort()).toEqual(['hello', 'readTicket']);
    } finally {
      await client.close();
      await app.close();
    }
  });
});

describe('failed authentications', () => {
  it('answer 429 with Retry-After once an address has failed too often', async () => {
    const moduleRef = await Test.createTestingModule({
      imports: [
        SecurityFixtureModule.register({
          authFailureLimit: { limit: 2, windowMs: 60_000 },
          auth: { mode: 'apiKey', keys: [{ hash: hashApiKey('the-right-key'), principal: 'ok' }] },
        }),
      ],
    }).compile();
    const app = moduleRef.createNestApplication({ logger: false });
    await app.listen(0, '127.0.0.1');
    const url = `${(await app.getUrl()).replace('[::1]', '127.0.0.1')}/mcp`;
    const ping = (key: string) =>
      fetch(url, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          accept: 'application/json',
          'x-api-key': key,
          'mcp-protocol-version': '2025-11-25',
        },
        body: JSON.stringify({
          jsonrpc: '2.0',
          id: 1,
          method: 'initialize',
          params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'x', version: '1' } },
        }),
      });
    try {
      expect((await ping('guess-1')).status).toBe(401);
      expect((await ping('guess-2')).status).toBe(401);
      const refused = await ping('guess-3');
      expect(refused.status).toBe(429);
      expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(50);
      expect(((await refused.json()) as { error: { message: string } }).error.message).toMatch(
        /^Too Many Requests: too many failed authentications from this address; retry in \d+ s$/,
      );
      // The right key is never locked out by the failures of others at the same address.
      expect((await ping('the-right-key')).status).toBe(200);
    } finally {
      await app.close();
    }
  });

  it('are counted once per address across the MCP endpoint, the admin API and /metrics', async () => {
    const moduleRef = await Test.createTestingModule({
      imports: [
        SecurityFixtureModule.register({
          authFailureLimit: { limit: 4, windowMs: 60_000 },
          auth: { mode: 'apiKey', keys: [{ hash: hashApiKey('the-right-key'), principal: 'ops', roles: ['admin'] }] },
        }),
      ],
    }).compile();
    const app = moduleRef.createNestApplication({ logger: false });
    await app.listen(0, '127.0.0.1');
    const base = (await app.getUrl()).replace('[::1]', '127.0.0.1');
    const guess = (path: string, key: string) =>
      path === '/mcp'
        ? fetch(`${base}/mcp`, {
            method: 'POST',
            headers: { 'content-type': 'application/json', accept: 'application/json', 'x-api-key': key },
            body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping' }),
          })
        : fetch(`${base}${path}`, { headers: { 'x-api-key': key } });
    try {
      // Four wrong guesses spread over three surfaces use up the address's allowance on all of them.
      expect((await guess('/mcp', 'guess-1')).status).toBe(401);
      expect((await guess('/admin/api/health', 'guess-2')).status).toBe(401);
      expect((await guess('/metrics', 'guess-3')).status).toBe(401);
      expect((await guess('/admin/api/health', 'guess-4')).status).toBe(401);
      for (const path of ['/mcp', '/admin/api/health', '/metrics'])
        expect({ path, status: (await guess(path, 'guess-5')).status }).toEqual({ path, status: 429 });
      // A valid key passes, whoever failed before it from the same address (the MCP endpoint: above).
      for (const path of ['/admin/api/health', '/metrics'])
        expect({ path, status: (await guess(path, 'the-right-key')).status }).toEqual({ path, status: 200 });
    } finally {
      await app.close();
    }
  });
});

@Injectable()
class TenantPolicy extends ScopeAndRolePolicy {
  /** Tickets of another tenant are off limits; the tenant is the principal's prefix. */
  authorizeCall(principal: McpPrincipal, call: McpCallRequest): boolean {
    if (call.name !== 'readTicket') return true;
    return String(call.args.id).startsWith(`${principal.id.split('-')[0]}-`);
  }
}

describe('a policy that needs the arguments', () => {
  it('refuses calls the rule forbids with a clear message, and allows the rest', async () => {
    const moduleRef = await Test.createTestingModule({
      imports: [
        SecurityFixtureModule.register({
          accessPolicy: TenantPolicy,
          auth: {
            mode: 'apiKey',
            keys: [{ hash: hashApiKey('acme-key'), principal: 'acme-bot', scopes: ['tickets:read'] }],
          },
        }),
      ],
    }).compile();
    const app = moduleRef.createNestApplication({ logger: false });
    await app.listen(0, '127.0.0.1');
    const client = await connectHttpClient(`${(await app.getUrl()).replace('[::1]', '127.0.0.1')}/mcp`, {
      'x-api-key': 'acme-key',
    });
    try {
      expect(await client.callTool({ name: 'readTicket', arguments: { id: 'acme-17' } })).toEqual({
        content: [{ type: 'text', text: 'ticket acme-17' }],
      });
      await expect(client.callTool({ name: 'readTicket', arguments: { id: 'globex-3' } })).rejects.toMatchObject({
        code: -32602,
        message: expect.stringContaining('Not allowed: acme-bot may not use tool "readTicket" with these arguments'),
      });
    } finally {
      await client.close();
      await app.close();
    }
  });
});
