import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { RestRequestParts } from '../openapi/rest-operation';
import { runRemote } from './remote-request';
import { RemoteRequestError } from './remote-request.error';

interface Seen {
  method: string;
  url: string;
  headers: IncomingMessage['headers'];
  body: string;
}

/** A real HTTP server on an ephemeral loopback port, answering with `handle` and recording each request. */
async function startServer(handle: (seen: Seen, response: ServerResponse) => void) {
  const requests: Seen[] = [];
  const server: Server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const seen = {
        method: request.method ?? '',
        url: request.url ?? '',
        headers: request.headers,
        body: Buffer.concat(chunks).toString('utf8'),
      };
      requests.push(seen);
      handle(seen, response);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const close = () => {
    server.closeAllConnections();
    return new Promise<void>((resolve) => server.close(() => resolve()));
  };
  return { base, requests, close };
}

const json = (response: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}) => {
  response.writeHead(status, { 'content-type': 'application/json', ...headers });
  response.end(JSON.stringify(body));
};

const get = (url: string, headers: Record<string, string> = {}): RestRequestParts => ({ method: 'GET', url, headers });

describe('runRemote', () => {
  let api: Awaited<ReturnType<typeof startServer>>;
  let elsewhere: Awaited<ReturnType<typeof startServer>>;

  beforeAll(async () => {
    elsewhere = await startServer((_seen, response) => json(response, 200, { stolen: true }));
    api = await startServer((seen, response) => {
      const path = seen.url.split('?')[0];
      if (path === '/v1/echo') return json(response, 200, seen);
      if (path === '/v1/moved') return response.writeHead(301, { location: '/v1/echo?moved=1' }).end();
      if (path === '/v1/see-other') return response.writeHead(303, { location: '/v1/echo' }).end();
      if (path === '/v1/loop') return response.writeHead(302, { location: '/v1/loop' }).end();
      if (path === '/v1/away') return response.writeHead(302, { location: `${elsewhere.base}/steal` }).end();
      if (path === '/v1/big') return json(response, 200, { data: 'x'.repeat(2048) });
      if (path === '/v1/big-chunked') {
        response.writeHead(200, { 'content-type': 'application/json' });
        for (let i = 0; i < 8; i++) response.write('x'.repeat(512));
        return response.end();
      }
      if (path === '/v1/hang') return undefined;
      json(response, 404, { message: 'no such route' });
    });
  });

  afterAll(async () => {
    await api.close();
    await elsewhere.close();
  });

  it('appends the operation path to the base path and sends the bearer token and extra headers', async () => {
    const outcome = await runRemote(`${api.base}/v1/`, get('/echo?status=available', { 'x-request-id': 'r-1' }), {
      credentials: { bearer: 'tok-1', headers: { 'X-Tenant': 'acme' } },
    });
    expect(outcome.status).toBe(200);
    const seen = outcome.json as Seen;
    expect(seen.url).toBe('/v1/echo?status=available');
    expect(seen.headers).toMatchObject({
      authorization: 'Bearer tok-1',
      'x-tenant': 'acme',
      'x-request-id': 'r-1',
      accept: 'application/json',
    });
  });

  it('sends basic credentials, overriding an authorization argument', async () => {
    const outcome = await runRemote(`${api.base}/v1`, get('/echo', { authorization: 'Bearer from-the-model' }), {
      credentials: { basic: { username: 'desk', password: 'pa:ss' } },
    });
    expect((outcome.json as Seen).headers.authorization).toBe(`Basic ${Buffer.from('desk:pa:ss').toString('base64')}`);
  });

  it('sends an API key in the query or in a header', async () => {
    const inQuery = await runRemote(`${api.base}/v1`, get('/echo?limit=2'), {
      credentials: { apiKey: { in: 'query', name: 'api_key', value: 'k&1' } },
    });
    expect((inQuery.json as Seen).url).toBe('/v1/echo?limit=2&api_key=k%261');
    const inHeader = await runRemote(`${api.base}/v1`, get('/echo'), {
      credentials: { apiKey: { in: 'header', name: 'X-Api-Key', value: 'k-2' } },
    });
    expect((inHeader.json as Seen).headers['x-api-key']).toBe('k-2');
  });

  it('posts the JSON body with its content type', async () => {
    const outcome = await runRemote(`${api.base}/v1`, {
      method: 'POST',
      url: '/echo',
      headers: { 'content-type': 'application/json' },
      body: { name: 'Rex', tags: ['dog'] },
    });
    const seen = outcome.json as Seen;
    expect(seen.method).toBe('POST');
    expect(seen.headers['content-type']).toBe('application/json');
    expect(JSON.parse(seen.body)).toEqual({ name: 'Rex', tags: ['dog'] });
  });

  it('follows a same-origin redirect, and a 303 as a GET without the body', async () => {
    const moved = await runRemote(`${api.base}/v1`, get('/moved'));
    expect((moved.json as Seen).url).toBe('/v1/echo?moved=1');
    const seeOther = await runRemote(`${api.base}/v1`, {
      method: 'POST',
      url: '/see-other',
      headers: { 'content-type': 'application/json' },
      body: { a: 1 },
    });
    expect(seeOther.json).toMatchObject({ method: 'GET', url: '/v1/echo', body: '' });
  });

  it('refuses a redirect to another origin without calling it', async () => {
    const before = elsewhere.requests.length;
    const call = runRemote(`${api.base}/v1`, get('/away'), { credentials: { bearer: 'secret' } });
    await expect(call).rejects.toThrow(RemoteRequestError);
    await expect(call).rejects.toMatchObject({
      failure: 'redirect',
      message: expect.stringContaining(`redirected to another origin (${elsewhere.base}/steal)`),
    });
    expect(elsewhere.requests.length).toBe(before);
  });

  it('gives up after three redirects', async () => {
    await expect(runRemote(`${api.base}/v1`, get('/loop'))).rejects.toMatchObject({
      failure: 'redirect',
      message: expect.stringContaining('redirected more than 3 times'),
    });
  });

  it('times out with the URL but not its query (which may hold the key)', async () => {
    const call = runRemote(`${api.base}/v1`, get('/hang?q=1'), {
      timeoutMs: 100,
      credentials: { apiKey: { in: 'query', name: 'api_key', value: 'top-secret' } },
    });
    await expect(call).rejects.toMatchObject({
      failure: 'timeout',
      message: `GET ${api.base}/v1/hang got no complete answer within 100 ms; the request was abandoned.`,
    });
  });

  it('rejects with the caller’s reason when the caller gives up', async () => {
    const controller = new AbortController();
    const call = runRemote(`${api.base}/v1`, get('/hang'), { signal: controller.signal });
    controller.abort(new Error('call cancelled'));
    await expect(call).rejects.toThrow('call cancelled');
  });

  it('refuses a body over the size cap, declared or streamed', async () => {
    for (const path of ['/big', '/big-chunked'])
      await expect(runRemote(`${api.base}/v1`, get(path), { maxResponseBytes: 1024 })).rejects.toMatchObject({
        failure: 'too_large',
        message: `GET ${api.base}/v1${path} answered with a body over 1024 bytes (maxResponseBytes); the request was abandoned.`,
      });
    const small = await runRemote(`${api.base}/v1`, get('/big'), { maxResponseBytes: 4096 });
    expect(small.status).toBe(200);
  });

  it('reports an API it cannot reach', async () => {
    const gone = await startServer(() => undefined);
    await gone.close();
    await expect(runRemote(gone.base, get('/pets'))).rejects.toMatchObject({ failure: 'unreachable' });
  });

  it('keeps an error status and its body as the outcome', async () => {
    const outcome = await runRemote(`${api.base}/v1`, get('/nothing'));
    expect(outcome).toMatchObject({ status: 404, json: { message: 'no such route' } });
  });

  it('refuses a base URL that is not http(s)', async () => {
    await expect(runRemote('file:///etc', get('/passwd'))).rejects.toThrow('is not an absolute http(s) URL');
  });
});
