import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Pool } from 'undici';
import { guardedConnector } from './outbound-connector';
import { guardedFetch, outboundFetch } from './outbound-fetch';
import { OutboundPolicies } from './outbound-policies';
import { OutboundPolicy } from './outbound-policy';
import { OutboundError } from './outbound.error';

/**
 * The guarded connections and bounded requests against a server on 127.0.0.1 (the only network
 * here): what a policy refuses is never connected to (the server counts its connections), a
 * body that trickles in is cut at the deadline, one past the cap at the cap.
 */
describe('outbound requests', () => {
  let server: Server;
  let port: number;
  let connections = 0;
  const trickles = new Set<NodeJS.Timeout>();

  beforeAll(async () => {
    server = createServer((req, res) => {
      if (req.url === '/document') return void res.end(JSON.stringify({ ok: true }));
      if (req.url === '/large') return void res.end('x'.repeat(100_000));
      if (req.url === '/redirect') return void res.writeHead(302, { location: '/document' }).end();
      // A byte at a time, for as long as the client listens.
      res.writeHead(200, { 'content-type': 'application/json' });
      const timer = setInterval(() => res.write(' '), 50);
      trickles.add(timer);
      res.on('close', () => clearInterval(timer));
    });
    server.on('connection', () => connections++);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    port = (server.address() as AddressInfo).port;
  });

  afterAll(async () => {
    for (const timer of trickles) clearInterval(timer);
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });

  const limits = { purpose: 'the document', timeoutMs: 5_000, maxBytes: 64 * 1024 };
  const configured = () => OutboundPolicies.configured([]);
  const runTime = () =>
    OutboundPolicies.runTime({ allowHosts: [], allowPrivateNetworks: false, ownPort: () => undefined });

  it('fetches from an address its policy allows, the answer read whole', async () => {
    const response = await outboundFetch(`http://127.0.0.1:${port}/document`, {}, { ...limits, policy: configured() });
    expect([response.status, await response.json()]).toEqual([200, { ok: true }]);
  });

  it.each([
    ['[::ffff:127.0.0.1]'],
    ['[::ffff:7f00:1]'],
    ['[0:0:0:0:0:ffff:7f00:1]'],
    ['127.1'],
    ['2130706433'],
    ['0x7f000001'],
    ['127.0.0.1'],
    ['localhost'],
  ])('refuses loopback spelled %s before connecting to it', async (host) => {
    const before = connections;
    const fetched = outboundFetch(`http://${host}:${port}/document`, {}, { ...limits, policy: runTime() });
    await expect(fetched).rejects.toMatchObject({ failure: 'refused', message: expect.stringMatching(/loopback/) });
    expect(connections).toBe(before);
  });

  it('resolves a name again for the connection: one that resolved to a public address when checked, and to loopback when connecting, is refused', async () => {
    let answers = 0;
    const rebinding = new OutboundPolicy({
      reach: 'a test',
      resolve: async () => [{ address: answers++ === 0 ? '93.184.215.14' : '127.0.0.1', family: 4 }],
    });
    const url = new URL(`http://rebind.test:${port}/document`);
    await rebinding.admit(url);
    const before = connections;
    await expect(outboundFetch(url, {}, { ...limits, policy: rebinding })).rejects.toMatchObject({
      failure: 'refused',
      message: '"rebind.test" resolves to 127.0.0.1, a loopback address, which a test may not reach',
    });
    expect(answers).toBe(2);
    expect(connections).toBe(before);
  });

  it('checks every address a name resolves to, and refuses when one is refused', async () => {
    const mixed = new OutboundPolicy({
      reach: 'a test',
      resolve: async () => [
        { address: '93.184.215.14', family: 4 },
        { address: '::ffff:127.0.0.1', family: 6 },
      ],
    });
    const before = connections;
    await expect(outboundFetch(`http://mixed.test:${port}/document`, {}, { ...limits, policy: mixed })).rejects.toThrow(
      /::ffff:7f00:1, a loopback address/,
    );
    expect(connections).toBe(before);
  });

  it('guards an undici pool as it guards a fetch (the gateway’s own request path)', async () => {
    const pool = new Pool(`http://[::ffff:127.0.0.1]:${port}`, { connect: guardedConnector(runTime()) });
    const before = connections;
    await expect(pool.request({ path: '/document', method: 'GET' })).rejects.toBeInstanceOf(OutboundError);
    expect(connections).toBe(before);
    await pool.close();
    const allowed = new Pool(`http://127.0.0.1:${port}`, { connect: guardedConnector(configured()) });
    const { statusCode, body } = await allowed.request({ path: '/document', method: 'GET' });
    expect([statusCode, await body.json()]).toEqual([200, { ok: true }]);
    await allowed.close();
  });

  it('guards a streaming fetch, its body left to the caller', async () => {
    await expect(guardedFetch(runTime())(`http://[::ffff:7f00:1]:${port}/document`)).rejects.toMatchObject({
      failure: 'refused',
    });
    const response = await guardedFetch(configured())(`http://127.0.0.1:${port}/document`);
    expect(await response.json()).toEqual({ ok: true });
  });

  it('cuts a body that trickles in at the deadline, naming the host, the limit and its option', async () => {
    const trickled = outboundFetch(
      `http://127.0.0.1:${port}/trickle`,
      {},
      { ...limits, timeoutMs: 300, timeoutOption: 'test.timeoutMs', policy: configured() },
    );
    await expect(trickled).rejects.toMatchObject({
      failure: 'timeout',
      message: `the document at 127.0.0.1:${port} gave no whole answer within 300 ms (set by test.timeoutMs)`,
    });
  });

  it('stops reading at the size cap, naming the host, the limit and its option', async () => {
    const large = outboundFetch(
      `http://127.0.0.1:${port}/large`,
      {},
      { ...limits, maxBytes: 1024, maxBytesOption: 'test.maxBytes', policy: configured() },
    );
    await expect(large).rejects.toMatchObject({
      failure: 'too_large',
      message: `the document at 127.0.0.1:${port} answered more than 1024 bytes (set by test.maxBytes)`,
    });
  });

  it('follows no redirect: a 3xx is the answer', async () => {
    const response = await outboundFetch(`http://127.0.0.1:${port}/redirect`, {}, { ...limits, policy: configured() });
    expect([response.status, response.headers.get('location')]).toEqual([302, '/document']);
  });

  it('says a host that cannot be reached cannot be reached, and nothing it might have answered', async () => {
    const closed = await new Promise<number>((resolve) => {
      const probe = createServer().listen(0, '127.0.0.1', () => {
        const free = (probe.address() as AddressInfo).port;
        probe.close(() => resolve(free));
      });
    });
    await expect(
      outboundFetch(`http://127.0.0.1:${closed}/`, {}, { ...limits, policy: configured() }),
    ).rejects.toMatchObject({
      failure: 'unreachable',
      message: `the document at 127.0.0.1:${closed} could not be reached (ECONNREFUSED)`,
    });
  });
});
