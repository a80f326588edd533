import { request as httpRequest } from 'node:http';
import { connect, type Socket } from 'node:net';
import type { INestApplication } from '@nestjs/common';
import { McpCatalog } from '#libs/catalog';
import { PipelineLog } from './fixtures/fixture.tools';
import { startFixtureApp } from './support/fixture-app';
import { waitFor } from './support/wait-for';

const ACCEPT = 'application/json, text/event-stream';
const initialize = (id: number | string = 1, protocolVersion = '2025-11-25') => ({
  jsonrpc: '2.0',
  id,
  method: 'initialize',
  params: { protocolVersion, capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
});

interface RawResponse {
  status: number;
  headers: Headers;
  body: string;
  json: () => { error?: { code: number; message: string }; result?: Record<string, unknown>; id?: unknown };
}

describe.each(['stateful', 'stateless'] as const)('Streamable HTTP edge cases (%s)', (mode) => {
  let app: INestApplication;
  let url: string;
  let sessionId: string | undefined;

  const send = async (body: unknown, headers: Record<string, string> = {}, method = 'POST'): Promise<RawResponse> => {
    const response = await fetch(url, {
      method,
      headers: {
        'content-type': 'application/json',
        accept: ACCEPT,
        'mcp-protocol-version': '2025-11-25',
        ...(sessionId && { 'mcp-session-id': sessionId }),
        ...headers,
      },
      body: method === 'POST' ? (typeof body === 'string' ? body : JSON.stringify(body)) : undefined,
    });
    const text = await response.text();
    return { status: response.status, headers: response.headers, body: text, json: () => JSON.parse(text) };
  };

  const stillServing = async () => {
    const response = await send({
      jsonrpc: '2.0',
      id: 99,
      method: 'tools/call',
      params: { name: 'add', arguments: { a: 1, b: 2 } },
    });
    expect(response.status).toBe(200);
    expect(response.json().result).toEqual({ content: [{ type: 'text', text: '3' }] });
  };

  beforeAll(async () => {
    ({ app, url } = await startFixtureApp({ mode, bodyLimit: '2kb' }));
    const init = await send(initialize());
    expect(init.status).toBe(200);
    sessionId = init.headers.get('mcp-session-id') ?? undefined;
    expect(sessionId === undefined).toBe(mode === 'stateless');
    expect((await send({ jsonrpc: '2.0', method: 'notifications/initialized' })).status).toBe(202);
  });
  afterAll(() => app.close());
  afterEach(stillServing);

  it('answers malformed JSON with 400 and -32700', async () => {
    const response = await send('{"jsonrpc": "2.0", "id": 1, "method": ');
    expect(response.status).toBe(400);
    expect(response.json()).toEqual({
      jsonrpc: '2.0',
      id: null,
      error: { code: -32700, message: 'Parse error: the body is not valid JSON' },
    });
  });

  it('answers an invalid JSON-RPC message with 400 and -32600', async () => {
    const response = await send({ id: 3, method: 'ping' });
    expect(response.status).toBe(400);
    expect(response.json()).toMatchObject({
      id: 3,
      error: { code: -32600, message: 'Invalid Request: "jsonrpc" must be "2.0"' },
    });
    const batch = await send([{ jsonrpc: '2.0', id: 1, method: 'ping' }]);
    expect(batch.status).toBe(400);
    expect(batch.json().error).toMatchObject({ code: -32600, message: expect.stringContaining('batch') });
  });

  it('answers an unknown method with -32601', async () => {
    const response = await send({ jsonrpc: '2.0', id: 'x', method: 'tools/explode' });
    expect(response.status).toBe(200);
    expect(response.json()).toEqual({
      jsonrpc: '2.0',
      id: 'x',
      error: { code: -32601, message: 'Method not found: tools/explode' },
    });
  });

  it('refuses oversized request contents before any tool runs, naming the place and the limit', async () => {
    let deep: unknown = 'bottom';
    for (let i = 0; i < 40; i++) deep = { deeper: deep };
    const call = (args: unknown) =>
      send({ jsonrpc: '2.0', id: 9, method: 'tools/call', params: { name: 'echo', arguments: args } });
    expect((await call({ message: deep })).json().error).toEqual({
      code: -32602,
      message: expect.stringMatching(
        /^Request too large: params\.arguments\.message(\.deeper)+ is nested deeper than 32 levels$/,
      ),
    });
    const many = Object.fromEntries(Array.from({ length: 101 }, (_, i) => [`a${i}`, i]));
    expect((await call(many)).json().error!.message).toBe(
      'Request too large: params.arguments has 101 arguments; at most 100 are accepted',
    );
    const longList = await call({ message: 'x', list: Array.from({ length: 10_001 }, () => 0) });
    expect(longList.status).toBe(413); // the 2 kB body limit of this app comes first
  });

  it('sends security headers with MCP responses', async () => {
    const response = await send({ jsonrpc: '2.0', id: 5, method: 'ping' });
    expect(response.headers.get('x-content-type-options')).toBe('nosniff');
    expect(response.headers.get('cache-control')).toBe('no-store');
    expect(response.headers.get('access-control-allow-origin')).toBeNull(); // CORS is off by default
  });

  it('answers ping with an empty result', async () => {
    expect((await send({ jsonrpc: '2.0', id: 5, method: 'ping' })).json()).toEqual({
      jsonrpc: '2.0',
      id: 5,
      result: {},
    });
  });

  it('refuses a wrong content type with 415', async () => {
    const response = await send('ping', { 'content-type': 'text/plain' });
    expect(response.status).toBe(415);
    expect(response.json().error!.message).toContain('Content-Type: application/json');
  });

  it('refuses a client that accepts neither JSON nor SSE with 406', async () => {
    expect((await send({ jsonrpc: '2.0', id: 1, method: 'ping' }, { accept: 'text/html' })).status).toBe(406);
  });

  it('refuses an oversized body with 413 before running anything', async () => {
    const response = await send({
      jsonrpc: '2.0',
      id: 1,
      method: 'tools/call',
      params: { name: 'echo', arguments: { message: 'x'.repeat(4096) } },
    });
    expect(response.status).toBe(413);
    expect(response.json().error!.message).toContain('exceeds 2048 bytes');
  });

  it('refuses a foreign Origin and a foreign Host with 403 (DNS rebinding)', async () => {
    const origin = await send({ jsonrpc: '2.0', id: 1, method: 'ping' }, { origin: 'https://evil.example' });
    expect(origin.status).toBe(403);
    expect(origin.json().error!.message).toContain('Origin "https://evil.example" is not allowed');
    const host = await rawPost(
      url,
      { host: 'evil.example:80' },
      JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping' }),
    );
    expect(host.status).toBe(403);
    expect(host.body).toContain('Host \\"evil.example:80\\" is not allowed');
    expect((await send({ jsonrpc: '2.0', id: 1, method: 'ping' }, { origin: 'http://localhost:6274' })).status).toBe(
      200,
    );
  });

  it('refuses an unsupported MCP-Protocol-Version with 400', async () => {
    const response = await send({ jsonrpc: '2.0', id: 1, method: 'ping' }, { 'mcp-protocol-version': '1999-01-01' });
    expect(response.status).toBe(400);
    expect(response.json().error!.message).toContain('unsupported MCP-Protocol-Version "1999-01-01"');
  });

  it('answers other HTTP methods with 405 and Allow', async () => {
    const response = await send(undefined, {}, 'PUT');
    expect(response.status).toBe(405);
    expect(response.headers.get('allow')).toBe('GET, POST, DELETE');
  });

  if (mode === 'stateless') {
    it('aborts a call whose client disconnects', async () => {
      const log = app.get(PipelineLog);
      const before = log.events.length;
      const body = JSON.stringify({
        jsonrpc: '2.0',
        id: 7,
        method: 'tools/call',
        params: { name: 'slow', _meta: { progressToken: 1 } },
      });
      await rawPost(url, {}, body, 150);
      await waitFor(() => log.events.slice(before).some((event) => event.startsWith('slow:aborted@')));
    });
  }

  if (mode === 'stateful') {
    it('requires a session id (400) and rejects unknown ones (404)', async () => {
      const missing = await send({ jsonrpc: '2.0', id: 1, method: 'tools/list' }, { 'mcp-session-id': '' });
      expect(missing.status).toBe(400);
      expect(missing.json().error!.message).toContain('Mcp-Session-Id header is required');
      const unknown = await send(
        { jsonrpc: '2.0', id: 1, method: 'tools/list' },
        { 'mcp-session-id': 'no-such-session' },
      );
      expect(unknown.status).toBe(404);
      expect(unknown.json().error).toMatchObject({ code: -32001 });
    });

    it('keeps a call running when its stream drops, and resumes the stream with Last-Event-ID', async () => {
      const log = app.get(PipelineLog);
      const body = JSON.stringify({
        jsonrpc: '2.0',
        id: 8,
        method: 'tools/call',
        params: { name: 'slow', _meta: { progressToken: 8 } },
      });
      const partial = await rawPost(url, { 'mcp-session-id': sessionId! }, body, 150);
      const ids = [...partial.body.matchAll(/^id: (\S+)$/gm)].map((match) => match[1]);
      expect(partial.body).toMatch(/^id: \S+_0\nretry: 500\ndata: \n\n/); // priming event first (SEP-1699)
      expect(ids.length).toBeGreaterThan(1);
      const resumed = await fetch(url, {
        headers: { accept: 'text/event-stream', 'mcp-session-id': sessionId!, 'last-event-id': ids.at(-1)! },
      });
      const rest = await resumed.text(); // the server ends the stream after the response
      expect(rest).toContain('"result":{"content":[{"type":"text","text":"finished"}]}');
      expect(rest).not.toContain(`id: ${ids.at(-1)}\n`); // nothing already received is sent again
      expect(log.events).toContain('slow:finished');
    });

    it('sends the priming event to 2025-11-25 clients only: older ones cannot parse an event without data', async () => {
      const call = (id: number) =>
        JSON.stringify({
          jsonrpc: '2.0',
          id,
          method: 'tools/call',
          params: { name: 'slow', _meta: { progressToken: id } },
        });
      const older = await send(initialize(2, '2025-06-18'), { 'mcp-session-id': '' });
      const olderSession = older.headers.get('mcp-session-id')!;
      const oldStream = await rawPost(
        url,
        { 'mcp-session-id': olderSession, 'mcp-protocol-version': '2025-06-18' },
        call(21),
      );
      expect(oldStream.body).not.toMatch(/^data: ?$/m); // every event carries a message
      expect(oldStream.body).not.toContain('retry:');
      expect(oldStream.body).toMatch(/^id: \S+_1\nevent: message\ndata: \{/); // still resumable by event id
      expect(oldStream.body).toContain('"result":{"content":[{"type":"text","text":"finished"}]}');
      const current = await rawPost(url, { 'mcp-session-id': sessionId! }, call(22), 150);
      expect(current.body).toMatch(/^id: \S+_0\nretry: 500\ndata: \n\n/);
    });

    it('lets a session hold several GET streams, delivering each notification on one of them, up to a cap', async () => {
      const init = await send(initialize(3), { 'mcp-session-id': '' });
      const session = init.headers.get('mcp-session-id')!;
      const controller = new AbortController();
      const texts: string[] = [];
      const open = async () => {
        const stream = await fetch(url, {
          headers: { accept: 'text/event-stream', 'mcp-session-id': session },
          signal: controller.signal,
        });
        expect(stream.status).toBe(200);
        expect(stream.headers.get('content-type')).toBe('text/event-stream');
        const index = texts.push('') - 1;
        void (async () => {
          const decoder = new TextDecoder();
          for await (const chunk of stream.body!) texts[index] += decoder.decode(chunk as Uint8Array);
        })().catch(() => undefined);
      };
      for (let i = 0; i < 8; i++) await open();
      const ninth = await fetch(url, { headers: { accept: 'text/event-stream', 'mcp-session-id': session } });
      expect(ninth.status).toBe(429);
      expect(((await ninth.json()) as { error: { message: string } }).error.message).toBe(
        'Too Many Requests: this session already has 8 open GET streams; close one before opening another',
      );
      // A list change is announced once, on one stream: not on none, not on all of them.
      app.get(McpCatalog).addPrompt({ name: `extra_prompt_${mode}`, description: 'Added at run time' }, () => 'extra');
      await waitFor(() => texts.some((text) => text.includes('notifications/prompts/list_changed')));
      await new Promise((resolve) => setTimeout(resolve, 100));
      expect(texts.filter((text) => text.includes('notifications/prompts/list_changed'))).toHaveLength(1);
      controller.abort();
    });

    it('ends a session on DELETE; later use answers 404', async () => {
      const init = await send(initialize(2), { 'mcp-session-id': '' });
      const other = init.headers.get('mcp-session-id')!;
      expect(other).not.toBe(sessionId);
      expect((await send(undefined, { 'mcp-session-id': other }, 'DELETE')).status).toBe(200);
      expect((await send({ jsonrpc: '2.0', id: 1, method: 'ping' }, { 'mcp-session-id': other })).status).toBe(404);
    });
  } else {
    it('has no GET stream and no DELETE', async () => {
      expect((await send(undefined, { accept: 'text/event-stream' }, 'GET')).status).toBe(405);
      expect((await send(undefined, {}, 'DELETE')).status).toBe(405);
    });
  }
});

describe('health and graceful shutdown', () => {
  it('reports readiness with the catalog, drains in-flight calls, then answers 503', async () => {
    const { app, url } = await startFixtureApp({ shutdownTimeoutMs: 5_000, replica: 'edge-b' });
    const base = url.replace(/\/mcp$/, '');
    const ready = await fetch(`${base}/health/ready`);
    expect(ready.status).toBe(200);
    // The replica that answered, among the host's own details (terminus's shape is kept).
    expect(await ready.json()).toMatchObject({
      status: 'ok',
      info: { mcp: { status: 'up', replica: 'edge-b', phase: 'ready', tools: 23 } },
      details: { mcp: { replica: 'edge-b' } },
    });
    expect((await fetch(`${base}/health/live`)).status).toBe(200);

    const init = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: ACCEPT },
      body: JSON.stringify(initialize()),
    });
    const session = init.headers.get('mcp-session-id')!;
    const headers = { 'content-type': 'application/json', accept: 'application/json', 'mcp-session-id': session };
    const slow = fetch(url, {
      method: 'POST',
      headers,
      body: JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'slow' } }),
    });
    await new Promise((resolve) => setTimeout(resolve, 100));
    const closing = app.close();
    let draining = await fetch(`${base}/health/ready`);
    for (let tries = 0; draining.status === 200 && tries < 50; tries++) {
      await new Promise((resolve) => setTimeout(resolve, 10));
      draining = await fetch(`${base}/health/ready`);
    }
    expect(draining.status).toBe(503);
    // terminus's own word for a host going away, not a broken one.
    expect(await draining.json()).toMatchObject({
      status: 'shutting_down',
      error: { mcp: { status: 'down', replica: 'edge-b', phase: 'draining', inFlight: 1 } },
    });
    expect((await fetch(`${base}/health/live`)).status).toBe(200);
    const refused = await fetch(url, {
      method: 'POST',
      headers,
      body: JSON.stringify({ jsonrpc: '2.0', id: 3, method: 'ping' }),
    });
    expect(refused.status).toBe(503);
    const finished = (await (await slow).json()) as { result: { content: { text: string }[] } };
    expect(finished.result.content[0].text).toBe('finished');
    await closing;
  });
  it.each(['express', 'fastify'] as const)(
    'closes on %s without waiting out a connection that never sent a request (a browser’s preconnect)',
    async (platform) => {
      const { app, url } = await startFixtureApp({}, undefined, platform);
      const preconnect = await new Promise<Socket>((resolve) => {
        const socket = connect(Number(new URL(url).port), '127.0.0.1', () => resolve(socket));
      });
      const ended = new Promise((resolve) => preconnect.once('close', resolve));
      // Beside it, one that was answered and is kept alive: Node's close ends that one itself.
      expect((await fetch(url.replace(/\/mcp$/, '/health/live'))).status).toBe(200);
      // Node would hold the close until the server's headers timeout (60 s, then its 30 s check).
      const closed = app.close();
      await ended;
      await closed;
      expect(preconnect.bytesRead).toBe(0);
    },
  );
});

/** A POST through `node:http`, for headers fetch will not send (Host) or an early disconnect. */
function rawPost(
  url: string,
  headers: Record<string, string>,
  body: string,
  disconnectAfterMs?: number,
): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: ACCEPT, 'mcp-protocol-version': '2025-11-25', ...headers },
    });
    req.on('response', (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (chunk) => (text += chunk));
      res.on('end', () => resolve({ status: res.statusCode!, body: text }));
      if (disconnectAfterMs !== undefined)
        setTimeout(() => {
          req.destroy();
          resolve({ status: res.statusCode!, body: text });
        }, disconnectAfterMs);
    });
    req.on('error', (error) => (disconnectAfterMs === undefined ? reject(error) : undefined));
    req.end(body);
  });
}

describe('framework headers', () => {
  it('are not advertised on the health probes or the application routes', async () => {
    const { app, url } = await startFixtureApp();
    try {
      for (const path of ['/health/live', '/health/ready', '/no-such-route']) {
        const response = await fetch(url.replace(/\/mcp$/, path));
        expect({ path, poweredBy: response.headers.get('x-powered-by') }).toEqual({ path, poweredBy: null });
      }
    } finally {
      await app.close();
    }
  });
});
