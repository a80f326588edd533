import { type Server } from 'node:http';
import { resolveHostingOptions } from '../options/hosting.options';
import { HttpCors } from './http-cors';
import { closedAfterEach, listen } from './testing/http-testing';

const APP = 'https://app.example.com';
const ALLOWED_HEADERS =
  'content-type, accept, authorization, x-api-key, mcp-session-id, mcp-protocol-version, last-event-id, traceparent, tracestate, baggage';
const EXPOSED = 'mcp-session-id, mcp-protocol-version, www-authenticate, retry-after';

/** `HttpCors` in front of a handler answering 200 "next" to what it does not answer itself. */
async function serve(options: Record<string, unknown>): Promise<{ url: string; server: Server }> {
  const cors = new HttpCors(
    resolveHostingOptions(options, (key, problem) => {
      throw new Error(`${key} ${problem}`);
    }),
  );
  return listen((req, res) => {
    if (!cors.apply(req, res)) res.writeHead(200).end('next');
  });
}

describe('HttpCors', () => {
  const served = closedAfterEach(serve);
  const start = async (options: Record<string, unknown>) => (await served(options)).url;

  it('answers the preflight of a configured origin with 204, the methods, the headers and the max age', async () => {
    const url = await start({ cors: { origins: [APP], maxAgeSec: 120 } });
    const response = await fetch(url, {
      method: 'OPTIONS',
      headers: { origin: APP, 'access-control-request-method': 'POST' },
    });
    expect(response.status).toBe(204);
    expect(await response.text()).toBe('');
    expect(response.headers.get('access-control-allow-origin')).toBe(APP);
    expect(response.headers.get('access-control-allow-methods')).toBe('GET, POST, DELETE');
    expect(response.headers.get('access-control-allow-headers')).toBe(ALLOWED_HEADERS);
    expect(response.headers.get('access-control-expose-headers')).toBe(EXPOSED);
    expect(response.headers.get('access-control-max-age')).toBe('120');
    expect(response.headers.get('vary')).toBe('origin');
  });

  it('matches the origin whatever its case, echoing it as sent; the max age defaults to 600 s', async () => {
    const url = await start({ cors: { origins: ['https://APP.example.com'] } });
    const response = await fetch(url, { method: 'OPTIONS', headers: { origin: 'https://App.Example.com' } });
    expect(response.status).toBe(204);
    expect(response.headers.get('access-control-allow-origin')).toBe('https://App.Example.com');
    expect(response.headers.get('access-control-max-age')).toBe('600');
  });

  it('adds the CORS headers to the other requests of a configured origin and lets them through', async () => {
    const url = await start({ cors: { origins: [APP] } });
    const response = await fetch(url, { method: 'POST', headers: { origin: APP }, body: '{}' });
    expect(response.status).toBe(200);
    expect(await response.text()).toBe('next');
    expect(response.headers.get('access-control-allow-origin')).toBe(APP);
    expect(response.headers.get('access-control-expose-headers')).toBe(EXPOSED);
    expect(response.headers.get('vary')).toBe('origin');
    expect(response.headers.get('access-control-allow-methods')).toBeNull();
  });

  it.each([
    ['another origin', { cors: { origins: [APP] } }, { origin: 'https://evil.example.com' }],
    ['no origin', { cors: { origins: [APP] } }, {}],
    ['CORS off', {}, { origin: APP }],
  ])('adds nothing and answers no preflight for %s', async (_case, options, headers) => {
    const url = await start(options);
    const response = await fetch(url, { method: 'OPTIONS', headers });
    expect(response.status).toBe(200);
    expect(await response.text()).toBe('next');
    for (const header of [
      'access-control-allow-origin',
      'access-control-allow-methods',
      'access-control-allow-headers',
      'access-control-expose-headers',
      'vary',
    ]) {
      expect(response.headers.get(header)).toBeNull();
    }
  });
});
