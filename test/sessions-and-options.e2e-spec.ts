import { Injectable, Module } from '@nestjs/common';
import { Test } from '@nestjs/testing';
import { McpStartupError } from '#libs/core';
import { McpModule } from '#libs/hosting';
import { hashApiKey } from '#libs/security';
import { FixtureModule } from './fixtures/fixture.module';
import { FixtureTools, PipelineLog } from './fixtures/fixture.tools';
import {
  createTestApplication,
  PLATFORMS,
  requestThroughFramework,
  startFixtureApp,
  type TestPlatform,
} from './support/fixture-app';

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Json = any;

const post = (url: string, body: unknown, headers: Record<string, string> = {}) =>
  fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers },
    body: JSON.stringify(body),
  });
const initialize = (protocolVersion: string) => ({
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion, capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
});

describe('protocol version negotiation', () => {
  it('accepts the revisions it supports and answers others with its latest', async () => {
    const { app, url } = await startFixtureApp();
    try {
      for (const [asked, answered] of [
        ['2025-11-25', '2025-11-25'],
        ['2025-06-18', '2025-06-18'],
        ['2025-03-26', '2025-03-26'],
        ['2024-11-05', '2025-11-25'],
        ['2099-01-01', '2025-11-25'],
      ]) {
        const body: Json = await (await post(url, initialize(asked))).json();
        expect(body.result.protocolVersion).toBe(answered);
      }
      const bad: Json = await (await post(url, { jsonrpc: '2.0', id: 1, method: 'initialize', params: {} })).json();
      expect(bad.error).toEqual({ code: -32602, message: 'initialize: "protocolVersion" must be a string' });
    } finally {
      await app.close();
    }
  });
});

describe('session limits', () => {
  it('refuses initialize beyond maxSessions with 503 and Retry-After', async () => {
    const { app, url } = await startFixtureApp({ maxSessions: 1 });
    try {
      expect((await post(url, initialize('2025-11-25'))).status).toBe(200);
      const refused = await post(url, initialize('2025-11-25'));
      expect(refused.status).toBe(503);
      expect(refused.headers.get('retry-after')).toBe('5');
      expect(((await refused.json()) as Json).error.message).toContain('session limit (1)');
    } finally {
      await app.close();
    }
  });

  it('caps the sessions of one principal, so it cannot hold every session hostage', async () => {
    const { app, url } = await startFixtureApp({
      maxSessions: 10,
      maxSessionsPerPrincipal: 3,
      auth: {
        mode: 'apiKey',
        keys: [
          { hash: hashApiKey('reader-key'), principal: 'desk-reader' },
          { hash: hashApiKey('admin-key'), principal: 'desk-admin' },
        ],
      },
    });
    try {
      const open = (key: string) => post(url, initialize('2025-11-25'), { 'x-api-key': key });
      const sessions: string[] = [];
      for (let i = 0; i < 3; i++) sessions.push((await open('reader-key')).headers.get('mcp-session-id')!);
      const refused = await open('reader-key');
      expect(refused.status).toBe(429);
      expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(1_000); // until its least recently used session expires (30 min)
      expect(((await refused.json()) as Json).error.message).toBe(
        'Too Many Requests: "desk-reader" already has 3 open sessions (maxSessionsPerPrincipal); end unused ones with DELETE, or retry in 1800 s when the least recently used one expires',
      );
      // Another principal is not affected.
      expect((await open('admin-key')).status).toBe(200);
      // Ending a session makes room again.
      const ended = await fetch(url, {
        method: 'DELETE',
        headers: { 'mcp-session-id': sessions[0], 'x-api-key': 'reader-key' },
      });
      expect(ended.status).toBe(200);
      expect((await open('reader-key')).status).toBe(200);
    } finally {
      await app.close();
    }
  });

  it('counts sessions per client address when authentication is off', async () => {
    const { app, url } = await startFixtureApp({ maxSessionsPerPrincipal: 2 });
    try {
      expect((await post(url, initialize('2025-11-25'))).status).toBe(200);
      expect((await post(url, initialize('2025-11-25'))).status).toBe(200);
      const refused = await post(url, initialize('2025-11-25'));
      expect(refused.status).toBe(429);
      expect(((await refused.json()) as Json).error.message).toMatch(
        /^Too Many Requests: this address \(127\.0\.0\.1\) already has 2 open sessions/,
      );
    } finally {
      await app.close();
    }
  });

  it('ends sessions idle for longer than sessionIdleTtlMs', async () => {
    const { app, url } = await startFixtureApp({ sessionIdleTtlMs: 1_000 });
    try {
      const session = (await post(url, initialize('2025-11-25'))).headers.get('mcp-session-id')!;
      const ping = () => post(url, { jsonrpc: '2.0', id: 2, method: 'ping' }, { 'mcp-session-id': session });
      expect((await ping()).status).toBe(200);
      await new Promise((resolve) => setTimeout(resolve, 1_700));
      expect((await ping()).status).toBe(404);
    } finally {
      await app.close();
    }
  });
});

@Injectable()
class DeskSettings {
  readonly mode = 'stateless' as const;
}

@Module({ providers: [DeskSettings], exports: [DeskSettings] })
class SettingsModule {}

describe('McpModule.forRootAsync', () => {
  it('takes its options from a factory with injected providers', async () => {
    const moduleRef = await Test.createTestingModule({
      imports: [
        McpModule.forRootAsync({
          imports: [SettingsModule],
          inject: [DeskSettings],
          useFactory: (settings: DeskSettings) => ({ name: 'async-desk', version: '2.0.0', mode: settings.mode }),
        }),
      ],
      providers: [PipelineLog, FixtureTools],
    }).compile();
    const app = moduleRef.createNestApplication({ logger: false });
    await app.listen(0, '127.0.0.1');
    try {
      const url = `${(await app.getUrl()).replace('[::1]', '127.0.0.1')}/mcp`;
      const response = await post(url, initialize('2025-11-25'));
      expect(response.headers.get('mcp-session-id')).toBeNull(); // stateless, from the factory
      expect(((await response.json()) as Json).result.serverInfo).toEqual({ name: 'async-desk', version: '2.0.0' });
    } finally {
      await app.close();
    }
  });

  it('refuses to start with invalid options, saying how to fix them', async () => {
    const error = await Test.createTestingModule({
      imports: [
        McpModule.forRootAsync({
          useFactory: () => ({ name: 'x', version: '1', mode: 'sticky' as 'stateful', pageSize: 0 }),
        }),
      ],
    })
      .compile()
      .then(
        () => undefined,
        (e: unknown) => e,
      );
    expect(error).toBeInstanceOf(McpStartupError);
    expect((error as Error).message).toContain(`McpModule option "mode": "sticky" is not a mode`);
    expect((error as Error).message).toContain(`McpModule option "pageSize": must be an integer ≥ 1, got 0`);
  });
});

describe.each(PLATFORMS)('routeThroughExpress (%s)', (platform: TestPlatform) => {
  it.each([true, false])(
    'serves the same endpoint as a route of the framework that application middleware sees (%s), or in front of it',
    async (throughFramework) => {
      const moduleRef = await Test.createTestingModule({
        imports: [FixtureModule.register({ routeThroughExpress: throughFramework, mode: 'stateless' })],
      }).compile();
      const app = createTestApplication(moduleRef, platform);
      // The application's own middleware (on Node's request and response, on both platforms).
      app.use(
        (_req: unknown, res: { setHeader: (name: string, value: string) => void }, next: () => void) => (
          res.setHeader('x-seen-by-middleware', 'yes'),
          next()
        ),
      );
      await app.listen(0, '127.0.0.1');
      const url = `${(await app.getUrl()).replace('[::1]', '127.0.0.1')}/mcp`;
      const call = (id: number, a: number) => ({
        jsonrpc: '2.0',
        id,
        method: 'tools/call',
        params: { name: 'add', arguments: { a, b: 3 } },
      });
      const answer = (id: number, sum: number) => ({
        jsonrpc: '2.0',
        id,
        result: { content: [{ type: 'text', text: String(sum) }] },
      });
      try {
        const response = await post(url, call(1, 2));
        expect(await response.json()).toEqual(answer(1, 5));
        expect(response.headers.get('x-seen-by-middleware')).toBe(throughFramework ? 'yes' : null);
        // What reaches the framework without the server's listener (Fastify's extra servers, inject)
        // is served by the same endpoint, the body read by the host (a JSON parse error is its own).
        const headers = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
        const routed = await requestThroughFramework(app, platform, {
          method: 'POST',
          url: '/mcp',
          headers,
          body: JSON.stringify(call(2, 4)),
        });
        expect({ status: routed.status, body: JSON.parse(routed.body) as unknown }).toEqual({
          status: 200,
          body: answer(2, 7),
        });
        const broken = await requestThroughFramework(app, platform, {
          method: 'POST',
          url: '/mcp',
          headers,
          body: '{',
        });
        expect(broken.status).toBe(400);
        // On Fastify the host reads the body itself; Express's body parser runs in front of every route.
        expect(JSON.parse(broken.body)).toMatchObject(
          platform === 'fastify'
            ? { jsonrpc: '2.0', id: null, error: { code: -32700, message: 'Parse error: the body is not valid JSON' } }
            : { statusCode: 400, error: 'Bad Request' },
        );
      } finally {
        await app.close();
      }
    },
  );
});

describe('CORS', () => {
  it('is off by default and, when configured, answers preflights and exposes the MCP headers to listed origins only', async () => {
    const { app, url } = await startFixtureApp({ cors: { origins: ['https://desk.example.com'], maxAgeSec: 120 } });
    try {
      const preflight = await fetch(url, {
        method: 'OPTIONS',
        headers: {
          origin: 'https://desk.example.com',
          'access-control-request-method': 'POST',
          'access-control-request-headers': 'content-type, mcp-session-id',
        },
      });
      expect(preflight.status).toBe(204);
      expect(preflight.headers.get('access-control-allow-origin')).toBe('https://desk.example.com');
      expect(preflight.headers.get('access-control-allow-headers')).toContain('mcp-session-id');
      expect(preflight.headers.get('access-control-allow-headers')).toContain('traceparent');
      expect(preflight.headers.get('access-control-max-age')).toBe('120');
      const response = await post(url, initialize('2025-11-25'), { origin: 'https://desk.example.com' });
      expect(response.status).toBe(200);
      expect(response.headers.get('access-control-allow-origin')).toBe('https://desk.example.com');
      expect(response.headers.get('access-control-expose-headers')).toContain('mcp-session-id');
      expect(response.headers.get('mcp-session-id')).toBeTruthy();
      const foreign = await post(url, initialize('2025-11-25'), { origin: 'https://evil.example.com' });
      expect(foreign.status).toBe(403);
      expect(foreign.headers.get('access-control-allow-origin')).toBeNull();
    } finally {
      await app.close();
    }
  });
});
