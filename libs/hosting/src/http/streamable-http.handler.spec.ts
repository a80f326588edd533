import { createServer, request as httpRequest } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Injectable, Logger } from '@nestjs/common';
import { Test, type TestingModule } from '@nestjs/testing';
import { PromptRegistry, ToolRegistry } from '#libs/catalog';
import {
  hashApiKey,
  MCP_ACCESS_POLICY,
  MCP_SECURITY_OPTIONS,
  ScopeAndRolePolicy,
  SECURITY_PROVIDERS,
} from '#libs/security';
import {
  AccessControl,
  CallAdmission,
  HostState,
  LifecycleMethods,
  MCP_METHOD_GROUPS,
  MCP_PROTOCOL_OPTIONS,
  MCP_REQUEST_METHODS,
  McpDispatcher,
  McpRequestObservers,
  McpTracing,
  notification,
  RequestEvents,
  LocalSessionRelay,
  MCP_SESSION_RELAY,
  SessionStore,
  MCP_SHARED_STREAMS,
  LocalStreams,
  StatelessCalls,
  type McpMethods,
  type McpRequestEvent,
  type MethodHandler,
} from '#libs/protocol';
import { MCP_RESOLVED_OPTIONS, resolveMcpOptions, type ResolvedMcpOptions } from '../options/mcp-options.resolver';
import { MCP_HOSTING_OPTIONS } from '../options/hosting.options';
import type { McpModuleOptions } from '../interfaces/mcp-module-options.interface';
import { HttpAuthentication } from './http-authentication';
import { HttpCors } from './http-cors';
import { HttpResponder } from './http-responder';
import { StatelessHeaders } from './stateless-headers';
import { HttpSessions } from './http-sessions';
import { HttpReplies } from './http-reply';
import { NotificationStreams } from './notification-streams';
import { StreamableHttpHandler } from './streamable-http.handler';
import { rpcOf } from './testing/http-testing';

const APP = 'https://app.example.com';
const ALICE = 'alice-key';
const BOB = 'bob-key';
const BOTH = 'application/json, text/event-stream';

/**
 * Every request method but the lifecycle's: `tools/call` sends a progress notification when the
 * request asks for progress (as a tool calling `ctx.reportProgress` does), then answers.
 */
@Injectable()
class DeskMethods implements McpMethods {
  readonly methods: McpMethods['methods'] = Object.fromEntries(
    MCP_REQUEST_METHODS.filter(
      (method) => !['initialize', 'ping', 'logging/setLevel', 'server/discover'].includes(method),
    ).map((method): [string, MethodHandler] => [
      method,
      method === 'tools/call'
        ? (request, reply) => this.call(request.params, (message) => reply.send(message))
        : () => '{}',
    ]),
  );

  private async call(params: Record<string, unknown>, notify: (message: string) => boolean): Promise<string> {
    const token = (params._meta as { progressToken?: string | number } | undefined)?.progressToken;
    if (token !== undefined)
      notify(notification('notifications/progress', { progressToken: token, progress: 1, total: 2 }));
    await new Promise((resolve) => setImmediate(resolve));
    return JSON.stringify({ content: [{ type: 'text', text: `called ${String(params.name)}` }] });
  }
}

/** The slices of the resolved options, as `McpModule` provides them. */
const slices = (['protocol', 'security', 'hosting'] as const).map((slice) => ({
  provide: { protocol: MCP_PROTOCOL_OPTIONS, security: MCP_SECURITY_OPTIONS, hosting: MCP_HOSTING_OPTIONS }[slice],
  useFactory: (options: ResolvedMcpOptions) => options[slice],
  inject: [MCP_RESOLVED_OPTIONS],
}));

/**
 * The handler and its collaborators wired as `McpModule` wires them (options by the real
 * resolver, the real dispatcher, session store, authentication, CORS and responder), with the
 * lifecycle group and `DeskMethods` as the method groups, served on a loopback port.
 */
async function host(options: Partial<McpModuleOptions> & Record<string, unknown>) {
  const moduleRef: TestingModule = await Test.createTestingModule({
    providers: [
      {
        provide: MCP_RESOLVED_OPTIONS,
        useValue: resolveMcpOptions({ name: 'spec-host', version: '1.0.0', ...options } as McpModuleOptions),
      },
      ...slices,
      { provide: MCP_ACCESS_POLICY, useClass: ScopeAndRolePolicy },
      ...SECURITY_PROVIDERS,
      ToolRegistry,
      PromptRegistry,
      AccessControl,
      CallAdmission,
      StatelessCalls,
      McpDispatcher,
      McpRequestObservers,
      RequestEvents,
      McpTracing,
      HostState,
      SessionStore,
      { provide: MCP_SESSION_RELAY, useClass: LocalSessionRelay },
      { provide: MCP_SHARED_STREAMS, useClass: LocalStreams },
      LifecycleMethods,
      DeskMethods,
      {
        provide: MCP_METHOD_GROUPS,
        useFactory: (...groups: McpMethods[]) => groups,
        inject: [LifecycleMethods, DeskMethods],
      },
      HttpResponder,
      HttpCors,
      HttpAuthentication,
      StatelessHeaders,
      HttpSessions,
      HttpReplies,
      NotificationStreams,
      StreamableHttpHandler,
    ],
  }).compile();
  const events: McpRequestEvent[] = [];
  moduleRef.get(McpRequestObservers).add({ observe: (event) => events.push(event) });
  const state = moduleRef.get(HostState);
  state.phase = 'ready';
  const handler = moduleRef.get(StreamableHttpHandler);
  const server = createServer((req, res) => handler.handle(req, res));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  const url = `http://127.0.0.1:${port}/mcp`;
  const close = async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
    await moduleRef.close();
  };
  return { url, port, events, state, sessions: moduleRef.get(SessionStore), close };
}

type Host = Awaited<ReturnType<typeof host>>;

let nextId = 1;
const rpc = (method: string, params?: Record<string, unknown>) =>
  JSON.stringify({ jsonrpc: '2.0', id: nextId++, method, ...(params && { params }) });
const INITIALIZE = (version = '2025-11-25') =>
  rpc('initialize', { protocolVersion: version, capabilities: {}, clientInfo: { name: 'spec', version: '1' } });

/** A POST of `body` as a client sends it: JSON, accepting JSON and SSE. */
const post = (url: string, body: string, headers: Record<string, string> = {}) =>
  fetch(url, { method: 'POST', headers: { 'content-type': 'application/json', accept: BOTH, ...headers }, body });

/** The JSON-RPC messages of an SSE body (events with data). */
const sseMessages = (text: string) =>
  text
    .split('\n\n')
    .map((event) =>
      event
        .split('\n')
        .filter((line) => line.startsWith('data: '))
        .map((line) => line.slice(6))
        .join('\n'),
    )
    .filter((data) => data.trim() !== '')
    .map((data) => JSON.parse(data) as Record<string, unknown>);

/** A request with a `Host` header of our choosing (fetch always sends the URL's). */
const withHost = (port: number, host: string) =>
  new Promise<{ status: number; body: string }>((resolve, reject) => {
    const req = httpRequest(
      { host: '127.0.0.1', port, path: '/mcp', method: 'POST', headers: { host, 'content-type': 'application/json' } },
      (res) => {
        let body = '';
        res.on('data', (chunk: Buffer) => (body += chunk.toString()));
        res.on('end', () => resolve({ status: res.statusCode!, body }));
      },
    );
    req.on('error', reject);
    req.end(rpc('ping'));
  });

const refusal = (code: number, message: string) => ({ jsonrpc: '2.0', id: null, error: { code, message } });

describe('StreamableHttpHandler', () => {
  beforeEach(() => {
    jest.spyOn(Logger.prototype, 'debug').mockImplementation(() => undefined);
  });
  afterEach(() => jest.restoreAllMocks());

  describe('stateful, with API keys', () => {
    let mcp: Host;
    beforeEach(async () => {
      mcp = await host({
        auth: {
          mode: 'apiKey',
          keys: [
            { hash: hashApiKey(ALICE), principal: 'alice' },
            { hash: hashApiKey(BOB), principal: 'bob' },
          ],
        },
        authFailureLimit: { limit: 3, windowMs: 60_000 },
        bodyLimit: 2048,
        cors: { origins: [APP], maxAgeSec: 60 },
      });
    });
    afterEach(() => mcp.close());

    const as = (key: string, extra: Record<string, string> = {}) => ({ 'x-api-key': key, ...extra });
    /** Opens a session for `key`; returns its id. */
    const open = async (key = ALICE) => {
      const response = await post(mcp.url, INITIALIZE(), as(key));
      expect(response.status).toBe(200);
      await response.text();
      return response.headers.get('mcp-session-id')!;
    };

    describe('refusals before authentication', () => {
      it('refuses a Host it does not serve with 403 and its JSON-RPC body', async () => {
        const response = await withHost(mcp.port, 'evil.example');
        expect(response.status).toBe(403);
        expect(JSON.parse(response.body)).toEqual(
          refusal(
            -32600,
            'Forbidden: Host "evil.example" is not allowed (DNS rebinding protection); add it to allowedHosts',
          ),
        );
        expect(mcp.events).toHaveLength(1);
        expect(mcp.events[0]).toMatchObject({
          method: null,
          refusal: true,
          outcome: 'denied',
          errorCode: 403,
          remoteAddress: '127.0.0.1',
        });
      });

      it('accepts localhost as Host', async () => {
        const response = await withHost(mcp.port, 'localhost:8080');
        expect(response.status).toBe(401);
      });

      it('refuses a browser Origin that is neither loopback nor configured with 403, without CORS headers', async () => {
        const response = await post(mcp.url, rpc('ping'), as(ALICE, { origin: 'https://evil.example' }));
        expect(response.status).toBe(403);
        expect(response.headers.get('access-control-allow-origin')).toBeNull();
        expect(await rpcOf(response)).toEqual(
          refusal(-32600, 'Forbidden: Origin "https://evil.example" is not allowed; add it to allowedOrigins'),
        );
        expect(mcp.events[0]).toMatchObject({ outcome: 'denied', errorCode: 403 });
      });

      it('answers the CORS preflight of a configured origin with 204 and the allowed headers, without authentication', async () => {
        const response = await fetch(mcp.url, {
          method: 'OPTIONS',
          headers: { origin: APP, 'access-control-request-method': 'POST' },
        });
        expect(response.status).toBe(204);
        expect(response.headers.get('access-control-allow-origin')).toBe(APP);
        expect(response.headers.get('access-control-allow-methods')).toBe('GET, POST, DELETE');
        expect(response.headers.get('access-control-allow-headers')).toBe(
          'content-type, accept, authorization, x-api-key, mcp-session-id, mcp-protocol-version, last-event-id, traceparent, tracestate, baggage',
        );
        expect(response.headers.get('access-control-max-age')).toBe('60');
        expect(mcp.events).toEqual([]);
      });

      it('gives an accepted origin that CORS does not list no CORS headers: its OPTIONS is a 405', async () => {
        const response = await fetch(mcp.url, { method: 'OPTIONS', headers: { origin: 'http://localhost:3000' } });
        expect(response.status).toBe(405);
        expect(response.headers.get('allow')).toBe('GET, POST, DELETE');
        expect(response.headers.get('access-control-allow-origin')).toBeNull();
        expect(response.headers.get('access-control-allow-headers')).toBeNull();
        await response.text();
      });

      it('adds the CORS headers to the answers of a configured origin', async () => {
        const response = await post(mcp.url, INITIALIZE(), as(ALICE, { origin: APP }));
        expect(response.status).toBe(200);
        expect(response.headers.get('access-control-allow-origin')).toBe(APP);
        expect(response.headers.get('access-control-expose-headers')).toBe(
          'mcp-session-id, mcp-protocol-version, www-authenticate, retry-after',
        );
        expect(response.headers.get('mcp-session-id')).toMatch(/^[0-9a-f-]{36}$/);
        await response.text();
      });

      it('refuses other HTTP methods with 405 and Allow', async () => {
        const response = await fetch(mcp.url, { method: 'PUT', headers: as(ALICE), body: '{}' });
        expect(response.status).toBe(405);
        expect(response.headers.get('allow')).toBe('GET, POST, DELETE');
        expect(await rpcOf(response)).toEqual(
          refusal(-32600, 'Method Not Allowed: PUT is not served on this endpoint'),
        );
        expect(mcp.events[0]).toMatchObject({ outcome: 'invalid', errorCode: 405 });
      });

      it('answers 503 with Retry-After while the host is not ready', async () => {
        mcp.state.phase = 'draining';
        const response = await post(mcp.url, rpc('ping'), as(ALICE));
        expect(response.status).toBe(503);
        expect(response.headers.get('retry-after')).toBe('5');
        expect(await rpcOf(response)).toEqual(
          refusal(-32600, 'Service Unavailable: the host is starting or shutting down'),
        );
        expect(mcp.events[0]).toMatchObject({ outcome: 'unavailable', errorCode: 503 });
      });
    });

    describe('authentication', () => {
      it('refuses a request without a key with 401, WWW-Authenticate and a JSON-RPC error body', async () => {
        const response = await post(mcp.url, INITIALIZE());
        expect(response.status).toBe(401);
        expect(response.headers.get('www-authenticate')).toBe('Bearer realm="mcp"');
        expect(response.headers.get('content-type')).toBe('application/json');
        expect(await rpcOf(response)).toEqual(
          refusal(-32001, 'Unauthorized: No API key: send Authorization: Bearer <key> or X-API-Key: <key>'),
        );
        expect(mcp.events[0]).toMatchObject({ outcome: 'unauthenticated', errorCode: 401 });
        expect(mcp.sessions.size).toBe(0);
      });

      it('locks the address out with 429 and Retry-After after repeated bad keys', async () => {
        for (let attempt = 0; attempt < 3; attempt++) {
          const response = await post(mcp.url, INITIALIZE(), as(`guess-${attempt}`));
          expect(response.status).toBe(401);
          expect(response.headers.get('www-authenticate')).toBe(
            'Bearer realm="mcp", error="invalid_token", error_description="The API key is not valid"',
          );
          await response.text();
        }
        const locked = await post(mcp.url, INITIALIZE(), as('guess-3'));
        expect(locked.status).toBe(429);
        expect(locked.headers.get('retry-after')).toMatch(/^(59|60)$/);
        expect((await rpcOf(locked)).error.code).toBe(-32001);
        expect(mcp.events.map((e) => [e.outcome, e.errorCode])).toEqual([
          ['unauthenticated', 401],
          ['unauthenticated', 401],
          ['unauthenticated', 401],
          ['throttled', 429],
        ]);
        // A valid key from the locked-out address is still let in.
        const valid = await post(mcp.url, INITIALIZE(), as(ALICE));
        expect(valid.status).toBe(200);
        await valid.text();
      });
    });

    describe('POST checks', () => {
      it('refuses a body that is not JSON by its content type with 415', async () => {
        const response = await post(mcp.url, rpc('ping'), as(ALICE, { 'content-type': 'text/plain' }));
        expect(response.status).toBe(415);
        expect(await rpcOf(response)).toEqual(
          refusal(-32600, 'Unsupported Media Type: send the JSON-RPC message with Content-Type: application/json'),
        );
        expect(mcp.events[0]).toMatchObject({ outcome: 'invalid', errorCode: 415, principal: undefined });
      });

      it('refuses a client that accepts neither JSON nor SSE with 406', async () => {
        const response = await post(mcp.url, rpc('ping'), as(ALICE, { accept: 'text/html' }));
        expect(response.status).toBe(406);
        expect(await rpcOf(response)).toEqual(
          refusal(-32600, 'Not Acceptable: the Accept header must include application/json or text/event-stream'),
        );
        expect(mcp.events[0]).toMatchObject({ outcome: 'invalid', errorCode: 406 });
      });

      it('refuses a body over bodyLimit with 413', async () => {
        const response = await post(
          mcp.url,
          rpc('tools/call', { name: 'x', arguments: { text: 'a'.repeat(4096) } }),
          as(ALICE),
        );
        expect(response.status).toBe(413);
        expect(await rpcOf(response)).toEqual(
          refusal(-32600, 'Payload Too Large: the body exceeds 2048 bytes (bodyLimit)'),
        );
        expect(mcp.events[0]).toMatchObject({ outcome: 'limited', errorCode: 413 });
      });

      it('answers a body that is not JSON with 400 and -32700', async () => {
        const response = await post(mcp.url, '{"jsonrpc":', as(ALICE));
        expect(response.status).toBe(400);
        expect(response.headers.get('x-content-type-options')).toBe('nosniff');
        expect(await rpcOf(response)).toEqual(refusal(-32700, 'Parse error: the body is not valid JSON'));
      });

      it.each([
        [
          'a batch',
          '[{"jsonrpc":"2.0","id":1,"method":"ping"}]',
          null,
          'batch requests are not supported; send one message per request',
        ],
        ['a wrong version', '{"jsonrpc":"1.0","id":5,"method":"ping"}', 5, '"jsonrpc" must be "2.0"'],
        ['no method', '{"jsonrpc":"2.0","id":"a"}', 'a', '"method" must be a string'],
      ])('answers %s with 400 and -32600, with the id when it has one', async (_case, body, id, reason) => {
        const response = await post(mcp.url, body, as(ALICE));
        expect(response.status).toBe(400);
        expect(await rpcOf(response)).toEqual({
          jsonrpc: '2.0',
          id,
          error: { code: -32600, message: `Invalid Request: ${reason}` },
        });
      });

      it('refuses an unsupported MCP-Protocol-Version with 400, but not on initialize', async () => {
        const session = await open();
        const response = await post(
          mcp.url,
          rpc('ping'),
          as(ALICE, { 'mcp-session-id': session, 'mcp-protocol-version': '2024-01-01' }),
        );
        expect(response.status).toBe(400);
        expect(await rpcOf(response)).toEqual(
          refusal(
            -32600,
            'Bad Request: unsupported MCP-Protocol-Version "2024-01-01"; supported: 2025-11-25, 2025-06-18, 2025-03-26',
          ),
        );
        expect(mcp.events.at(-1)).toMatchObject({ outcome: 'invalid', errorCode: 400 });
        const initialize = await post(mcp.url, INITIALIZE(), as(ALICE, { 'mcp-protocol-version': '2024-01-01' }));
        expect(initialize.status).toBe(200);
        await initialize.text();
      });
    });

    describe('2026-07-28 requests on the same endpoint', () => {
      const META = {
        'io.modelcontextprotocol/protocolVersion': '2026-07-28',
        'io.modelcontextprotocol/clientCapabilities': {},
        'io.modelcontextprotocol/clientInfo': { name: 'v2', version: '2' },
      };
      /** The headers of a 2026-07-28 POST of `method`. */
      const v26 = (method: string, extra: Record<string, string> = {}) =>
        as(ALICE, { 'mcp-protocol-version': '2026-07-28', 'mcp-method': method, ...extra });

      it('serves one without a session, even in stateful mode, with resultType and no Mcp-Session-Id', async () => {
        const response = await post(mcp.url, rpc('tools/list', { _meta: META }), v26('tools/list'));
        expect(response.status).toBe(200);
        expect(response.headers.get('mcp-session-id')).toBeNull();
        expect((await rpcOf(response)).result).toMatchObject({
          resultType: 'complete',
          ttlMs: 0,
          cacheScope: 'private',
        });
        expect(mcp.sessions.size).toBe(0);
        expect(mcp.events[0]).toMatchObject({
          method: 'tools/list',
          protocolVersion: '2026-07-28',
          sessionId: undefined,
        });
      });

      it('answers server/discover with every revision it serves', async () => {
        const body = await rpcOf(await post(mcp.url, rpc('server/discover', { _meta: META }), v26('server/discover')));
        expect(body.result).toMatchObject({
          resultType: 'complete',
          supportedVersions: ['2026-07-28', '2025-11-25', '2025-06-18', '2025-03-26'],
          cacheScope: 'public',
          _meta: { 'io.modelcontextprotocol/serverInfo': { name: 'spec-host', version: '1.0.0' } },
        });
      });

      it.each([
        ['a header that disagrees with _meta', { 'mcp-protocol-version': '2025-11-25' }, META, -32020],
        ['no MCP-Protocol-Version header', {}, META, -32020],
        [
          'a version it does not serve, in both',
          { 'mcp-protocol-version': 'v999' },
          { ...META, 'io.modelcontextprotocol/protocolVersion': 'v999' },
          -32022,
        ],
        ['no _meta under a 2026-07-28 header', { 'mcp-protocol-version': '2026-07-28' }, undefined, -32602],
        [
          'an Mcp-Method header that names another method',
          { 'mcp-protocol-version': '2026-07-28', 'mcp-method': 'prompts/list' },
          META,
          -32020,
        ],
      ])('refuses %s with 400 and the request id', async (_case, headers, meta, code) => {
        const body = rpc('tools/list', meta && { _meta: meta });
        const response = await post(mcp.url, body, as(ALICE, { 'mcp-method': 'tools/list', ...headers }));
        expect(response.status).toBe(400);
        const answer = await rpcOf(response);
        expect(answer.id).toBe(JSON.parse(body).id);
        expect(answer.error.code).toBe(code);
      });

      it('answers a method that revision removed with 404 and -32601', async () => {
        const response = await post(mcp.url, rpc('ping', { _meta: META }), v26('ping'));
        expect(response.status).toBe(404);
        expect((await rpcOf(response)).error.code).toBe(-32601);
      });

      it('has no GET stream and no DELETE for a 2026-07-28 client: 405', async () => {
        for (const method of ['GET', 'DELETE']) {
          const response = await fetch(mcp.url, { method, headers: v26(method, { accept: 'text/event-stream' }) });
          expect(response.status).toBe(405);
          expect(response.headers.get('allow')).toBe('POST');
        }
      });

      it('still needs the credentials a 2025-era request needs', async () => {
        const response = await post(mcp.url, rpc('tools/list', { _meta: META }), {
          'mcp-protocol-version': '2026-07-28',
        });
        expect(response.status).toBe(401);
      });
    });

    describe('sessions', () => {
      it('opens a session on initialize: its id in Mcp-Session-Id, a JSON answer with the security headers', async () => {
        const response = await post(mcp.url, INITIALIZE('2025-06-18'), as(ALICE));
        expect(response.status).toBe(200);
        expect(response.headers.get('content-type')).toBe('application/json');
        expect(response.headers.get('x-content-type-options')).toBe('nosniff');
        expect(response.headers.get('cache-control')).toBe('no-store');
        const id = response.headers.get('mcp-session-id')!;
        const body = await rpcOf(response);
        expect(body.result).toMatchObject({
          protocolVersion: '2025-06-18',
          serverInfo: { name: 'spec-host', version: '1.0.0' },
        });
        const session = mcp.sessions.get(id)!;
        expect(session).toMatchObject({
          principalId: 'alice',
          owner: 'principal:alice',
          opened: true,
          protocolVersion: '2025-06-18',
          clientInfo: { name: 'spec', version: '1' },
        });
        expect(mcp.events.map((e) => [e.method, e.outcome, e.sessionId, e.principal])).toEqual([
          ['initialize', 'ok', id, 'alice'],
        ]);
      });

      it('answers a later request in its session, as JSON with the security headers', async () => {
        const session = await open();
        const response = await post(mcp.url, rpc('tools/list'), as(ALICE, { 'mcp-session-id': session }));
        expect(response.status).toBe(200);
        expect(response.headers.get('content-type')).toBe('application/json');
        expect(response.headers.get('x-content-type-options')).toBe('nosniff');
        expect(response.headers.get('cache-control')).toBe('no-store');
        expect(response.headers.get('mcp-session-id')).toBeNull();
        expect((await rpcOf(response)).result).toEqual({});
      });

      it('refuses a request without Mcp-Session-Id with 400', async () => {
        await open();
        const response = await post(mcp.url, rpc('tools/list'), as(ALICE));
        expect(response.status).toBe(400);
        expect(await rpcOf(response)).toEqual(
          refusal(
            -32600,
            'Bad Request: the Mcp-Session-Id header is required; send initialize first to open a session',
          ),
        );
        expect(mcp.events.at(-1)).toMatchObject({ outcome: 'invalid', errorCode: 400 });
      });

      it('answers an unknown session id with 404 and -32001', async () => {
        const response = await post(mcp.url, rpc('tools/list'), as(ALICE, { 'mcp-session-id': 'no-such-session' }));
        expect(response.status).toBe(404);
        expect(await rpcOf(response)).toEqual(
          refusal(-32001, 'Session not found: it ended or never existed; send initialize to open a new one'),
        );
        expect(mcp.events.at(-1)).toMatchObject({ outcome: 'not_found', errorCode: 404 });
      });

      it("answers another principal's session id with the same 404", async () => {
        const session = await open(ALICE);
        const response = await post(mcp.url, rpc('tools/list'), as(BOB, { 'mcp-session-id': session }));
        expect(response.status).toBe(404);
        expect((await rpcOf(response)).error).toEqual({
          code: -32001,
          message: 'Session not found: it ended or never existed; send initialize to open a new one',
        });
        expect(mcp.sessions.get(session)).toBeDefined();
      });

      it('accepts notifications and responses with 202 and no body', async () => {
        const session = await open();
        const initialized = await post(
          mcp.url,
          JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }),
          as(ALICE, { 'mcp-session-id': session }),
        );
        expect(initialized.status).toBe(202);
        expect(initialized.headers.get('x-content-type-options')).toBe('nosniff');
        expect(await initialized.text()).toBe('');
        expect(mcp.sessions.get(session)!.initialized).toBe(true);
        jest.spyOn(Logger.prototype, 'warn').mockImplementation(() => undefined);
        const response = await post(
          mcp.url,
          JSON.stringify({ jsonrpc: '2.0', id: 'srv-1', result: {} }),
          as(ALICE, { 'mcp-session-id': session }),
        );
        expect(response.status).toBe(202);
        expect(await response.text()).toBe('');
      });

      it('ends the session on DELETE; it is then unknown', async () => {
        const session = await open();
        const deleted = await fetch(mcp.url, { method: 'DELETE', headers: as(ALICE, { 'mcp-session-id': session }) });
        expect(deleted.status).toBe(200);
        await deleted.text();
        expect(mcp.sessions.get(session)).toBeUndefined();
        const after = await post(mcp.url, rpc('ping'), as(ALICE, { 'mcp-session-id': session }));
        expect(after.status).toBe(404);
        await after.text();
        const again = await fetch(mcp.url, { method: 'DELETE', headers: as(ALICE, { 'mcp-session-id': session }) });
        expect(again.status).toBe(404);
        await again.text();
      });

      it('does not let another principal end a session', async () => {
        const session = await open(ALICE);
        const response = await fetch(mcp.url, { method: 'DELETE', headers: as(BOB, { 'mcp-session-id': session }) });
        expect(response.status).toBe(404);
        await response.text();
        expect(mcp.sessions.get(session)).toBeDefined();
      });

      it('refuses a GET stream to a client that does not accept SSE with 406', async () => {
        const session = await open();
        const response = await fetch(mcp.url, {
          headers: as(ALICE, { 'mcp-session-id': session, accept: 'application/json' }),
        });
        expect(response.status).toBe(406);
        expect((await rpcOf(response)).error.message).toBe(
          'Not Acceptable: the Accept header must include text/event-stream',
        );
      });
    });

    describe('answers on an SSE stream', () => {
      it('streams the progress notification and then the response when the call notifies and the client accepts SSE', async () => {
        const session = await open();
        const response = await post(
          mcp.url,
          rpc('tools/call', { name: 'export', arguments: {}, _meta: { progressToken: 'p-1' } }),
          as(ALICE, { 'mcp-session-id': session }),
        );
        expect(response.status).toBe(200);
        expect(response.headers.get('content-type')).toBe('text/event-stream');
        expect(response.headers.get('x-content-type-options')).toBe('nosniff');
        expect(response.headers.get('cache-control')).toBe('no-cache, no-transform');
        const text = await response.text();
        // A 2025-11-25 session's stream is resumable: a priming event with the reconnection delay comes first.
        expect(text).toMatch(/^id: \S+\nretry: 500\ndata: \n\n/);
        const messages = sseMessages(text);
        expect(messages).toEqual([
          { jsonrpc: '2.0', method: 'notifications/progress', params: { progressToken: 'p-1', progress: 1, total: 2 } },
          { jsonrpc: '2.0', id: expect.any(Number), result: { content: [{ type: 'text', text: 'called export' }] } },
        ]);
      });

      it('answers with JSON when the call sends nothing, even to a client accepting SSE', async () => {
        const session = await open();
        const response = await post(
          mcp.url,
          rpc('tools/call', { name: 'export', arguments: {} }),
          as(ALICE, { 'mcp-session-id': session }),
        );
        expect(response.headers.get('content-type')).toBe('application/json');
        expect((await rpcOf(response)).result).toEqual({ content: [{ type: 'text', text: 'called export' }] });
      });

      it('answers with JSON, the notification going to the session stream, when the client accepts JSON only', async () => {
        const session = await open();
        const onStream: unknown[] = [];
        mcp.sessions.get(session)!.addSink((message) => onStream.push(JSON.parse(message)));
        const response = await post(
          mcp.url,
          rpc('tools/call', { name: 'export', _meta: { progressToken: 7 } }),
          as(ALICE, { 'mcp-session-id': session, accept: 'application/json' }),
        );
        expect(response.status).toBe(200);
        expect(response.headers.get('content-type')).toBe('application/json');
        expect((await rpcOf(response)).result.content[0].text).toBe('called export');
        expect(onStream).toEqual([
          { jsonrpc: '2.0', method: 'notifications/progress', params: { progressToken: 7, progress: 1, total: 2 } },
        ]);
      });
    });
  });

  describe('stateless', () => {
    let mcp: Host;
    beforeEach(async () => {
      mcp = await host({ mode: 'stateless' });
    });
    afterEach(() => mcp.close());

    it.each(['GET', 'DELETE'])('refuses %s with 405 and Allow: POST', async (method) => {
      const response = await fetch(mcp.url, { method, headers: { accept: BOTH } });
      expect(response.status).toBe(405);
      expect(response.headers.get('allow')).toBe('POST');
      expect(await rpcOf(response)).toEqual(
        refusal(-32600, `Method Not Allowed: ${method} is not served on this endpoint`),
      );
      expect(mcp.events[0]).toMatchObject({ outcome: 'invalid', errorCode: 405 });
    });

    it('answers every POST without a session, and opens none', async () => {
      const initialize = await post(mcp.url, INITIALIZE());
      expect(initialize.status).toBe(200);
      expect(initialize.headers.get('mcp-session-id')).toBeNull();
      await initialize.text();
      const list = await post(mcp.url, rpc('tools/list'), { 'mcp-protocol-version': '2025-06-18' });
      expect(list.status).toBe(200);
      expect((await rpcOf(list)).result).toEqual({});
      expect(mcp.sessions.size).toBe(0);
      expect(mcp.events.map((e) => [e.method, e.outcome, e.sessionId, e.principal])).toEqual([
        ['initialize', 'ok', undefined, 'anonymous'],
        ['tools/list', 'ok', undefined, 'anonymous'],
      ]);
    });

    it('sends an SSE stream, not resumable, when the call notifies', async () => {
      const response = await post(mcp.url, rpc('tools/call', { name: 'export', _meta: { progressToken: 1 } }));
      expect(response.headers.get('content-type')).toBe('text/event-stream');
      const text = await response.text();
      expect(text).not.toContain('id: ');
      expect(sseMessages(text).map((message) => message.method ?? 'response')).toEqual([
        'notifications/progress',
        'response',
      ]);
    });

    it('answers a client accepting SSE only with the response as an event', async () => {
      const response = await post(mcp.url, rpc('ping'), { accept: 'text/event-stream' });
      expect(response.headers.get('content-type')).toBe('text/event-stream');
      expect(sseMessages(await response.text())).toEqual([{ jsonrpc: '2.0', id: expect.any(Number), result: {} }]);
    });
  });
});
