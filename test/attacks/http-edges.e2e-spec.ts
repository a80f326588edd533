import type { INestApplication } from '@nestjs/common';
import { DRAIN_LIMIT } from '#libs/hosting';
import { PLATFORMS, startFixtureApp } from '../support/fixture-app';
import { rawExchange } from '../support/raw-http';

const MIB = 1024 ** 2;
const INITIALIZE = JSON.stringify({
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
});

/**
 * The HTTP endpoint's edges, attacked on a raw TCP connection to loopback (what no client library
 * sends), on Express and Fastify: an absolute-form request line whose authority is not an allowed
 * host, sent with an allowed `Host` (RFC 9112 §3.2.2: the target's authority is the host), to
 * every route that checks the host; and a body far beyond `bodyLimit`, which must be answered
 * 413 — read by the client, not lost to a connection reset — while a body that never ends is
 * still cut.
 */
describe.each(PLATFORMS)('attacks on the HTTP edges (%s)', (platform) => {
  let app: INestApplication;
  let port: number;

  beforeAll(async () => {
    const started = await startFixtureApp({}, undefined, platform);
    app = started.app;
    port = Number(new URL(started.url).port);
  });
  afterAll(() => app?.close());

  const mcpHead = (target: string, host: string, extra = '') =>
    `POST ${target} HTTP/1.1\r\nhost: ${host}\r\ncontent-type: application/json\r\n` +
    `accept: application/json, text/event-stream\r\nconnection: close${extra}`;
  const rawInitialize = (target: string, host: string) =>
    rawExchange(port, mcpHead(target, host), { text: INITIALIZE });

  describe('an absolute-form request line (POST http://evil.example/mcp, Host: localhost)', () => {
    it.each([
      ['the MCP endpoint', 'POST', '/mcp'],
      ['the admin dashboard', 'GET', '/admin'],
      ['the admin API', 'GET', '/admin/api/overview'],
      ['the metrics', 'GET', '/metrics'],
    ])('is refused by %s with 403 naming the target’s host', async (_route, method, path) => {
      const exchange =
        method === 'POST'
          ? await rawInitialize(`http://evil.example${path}`, `localhost:${port}`)
          : await rawExchange(
              port,
              `GET http://evil.example${path} HTTP/1.1\r\nhost: localhost:${port}\r\nconnection: close`,
            );
      expect(exchange.statusLine).toMatch(/^HTTP\/1\.1 403 /);
      expect(exchange.received).toContain('Host \\"evil.example\\" is not allowed');
    });

    it('is served when its authority is an allowed host, whatever the Host header says (the target names the host)', async () => {
      const exchange = await rawInitialize(`http://localhost:${port}/mcp`, 'evil.example');
      expect(exchange.statusLine).toMatch(/^HTTP\/1\.1 200 /);
      expect(exchange.received).toContain('"serverInfo"');
    });
  });

  describe(`a body beyond bodyLimit (1 MiB), sent whole by a client that reads while it writes`, () => {
    it.each([
      ['declared with Content-Length', { length: 20 * MIB }],
      ['in chunks, its length unknown', { chunked: 20 * MIB }],
    ])('of 20 MiB, %s, gets its 413 rather than a connection reset', async (_how, body) => {
      const exchange = await rawExchange(port, mcpHead('/mcp', `localhost:${port}`), body);
      expect(exchange.statusLine).toMatch(/^HTTP\/1\.1 413 /);
      expect(exchange.received).toContain('Payload Too Large: the body exceeds 1048576 bytes (bodyLimit)');
      expect(exchange.written).toBe(20 * MIB);
      expect(exchange.error).toBeUndefined();
    });

    it('that never ends gets its 413, and is cut once the host has read and dropped its bound', async () => {
      const exchange = await rawExchange(port, mcpHead('/mcp', `localhost:${port}`), { endless: true });
      expect(exchange.statusLine).toMatch(/^HTTP\/1\.1 413 /);
      expect(exchange.written).toBeGreaterThan(DRAIN_LIMIT);
      // What the sockets' buffers held when the host stopped reading, at most.
      expect(exchange.written).toBeLessThan(DRAIN_LIMIT + 16 * MIB);
    });
  });
});
