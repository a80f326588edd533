import { type IncomingMessage, type ServerResponse } from 'node:http';
import { type McpRequestEvent } from '#libs/protocol';
import { ClientAddresses } from '#libs/security';
import { HttpResponder } from './http-responder';
import { HttpMessages } from './http.messages';
import { closedAfterEach, listen, recordedEvents, rpcOf } from './testing/http-testing';

describe('HttpResponder', () => {
  let events: McpRequestEvent[];
  let responder: HttpResponder;

  beforeEach(() => {
    const recording = recordedEvents();
    events = recording.recorded;
    responder = new HttpResponder(recording.events, ClientAddresses.direct);
  });

  const served = closedAfterEach(listen);
  const start = async (handle: (req: IncomingMessage, res: ServerResponse) => void) => (await served(handle)).url;

  describe('json', () => {
    it('writes the body as application/json with its length and the security headers', async () => {
      const body = '{"jsonrpc":"2.0","id":1,"result":{"text":"héllo"}}';
      const url = await start((_req, res) => responder.json(res, 200, body));
      const response = await fetch(url);
      expect(response.status).toBe(200);
      expect(response.headers.get('content-type')).toBe('application/json');
      expect(response.headers.get('content-length')).toBe(String(Buffer.byteLength(body)));
      expect(response.headers.get('x-content-type-options')).toBe('nosniff');
      expect(response.headers.get('cache-control')).toBe('no-store');
      expect(await response.text()).toBe(body);
      expect(events).toEqual([]);
    });

    it('adds the headers given (a new session id) to the security headers', async () => {
      const url = await start((_req, res) => responder.json(res, 200, '{}', { 'mcp-session-id': 'abc' }));
      const response = await fetch(url);
      expect(response.headers.get('mcp-session-id')).toBe('abc');
      expect(response.headers.get('content-type')).toBe('application/json');
      expect(response.headers.get('x-content-type-options')).toBe('nosniff');
      expect(response.headers.get('cache-control')).toBe('no-store');
      expect(response.headers.get('content-length')).toBe('2');
    });

    it('keeps the CORS headers set on the response before it', async () => {
      const url = await start((_req, res) => {
        res.setHeader('access-control-allow-origin', 'https://app.example.com');
        responder.json(res, 200, '{}');
      });
      const response = await fetch(url);
      expect(response.headers.get('access-control-allow-origin')).toBe('https://app.example.com');
      expect(response.headers.get('cache-control')).toBe('no-store');
      expect(await response.text()).toBe('{}');
    });
  });

  describe('empty', () => {
    it('answers the status with no body and the security headers, plus those given', async () => {
      const url = await start((_req, res) => responder.empty(res, 202, { 'x-extra': '1' }));
      const response = await fetch(url, { method: 'POST', body: '{}' });
      expect(response.status).toBe(202);
      expect(await response.text()).toBe('');
      expect(response.headers.get('x-content-type-options')).toBe('nosniff');
      expect(response.headers.get('cache-control')).toBe('no-store');
      expect(response.headers.get('x-extra')).toBe('1');
    });
  });

  describe('refuse', () => {
    it('answers the status with a JSON-RPC error body (id null) and reports the refusal', async () => {
      const url = await start((req, res) => responder.refuse(res, HttpMessages.unsupportedMediaType(), req));
      const response = await fetch(url, { method: 'POST', body: 'x' });
      expect(response.status).toBe(415);
      expect(response.headers.get('content-type')).toBe('application/json');
      expect(response.headers.get('x-content-type-options')).toBe('nosniff');
      expect(response.headers.get('cache-control')).toBe('no-store');
      expect(await rpcOf(response)).toEqual({
        jsonrpc: '2.0',
        id: null,
        error: {
          code: -32600,
          message: 'Unsupported Media Type: send the JSON-RPC message with Content-Type: application/json',
        },
      });
      expect(events).toHaveLength(1);
      expect(events[0]).toMatchObject({
        method: null,
        refusal: true,
        outcome: 'invalid',
        errorCode: 415,
        error: 'Unsupported Media Type: send the JSON-RPC message with Content-Type: application/json',
        transport: 'http',
        remoteAddress: '127.0.0.1',
        principal: undefined,
        sessionId: undefined,
      });
    });

    it.each([
      [401, 'unauthenticated'],
      [403, 'denied'],
      [404, 'not_found'],
      [413, 'limited'],
      [429, 'throttled'],
      [503, 'unavailable'],
      [500, 'error'],
      [400, 'invalid'],
    ])('records a %i refusal with the outcome %s', async (status, outcome) => {
      const url = await start((req, res) => responder.refuse(res, [status, -32600, 'refused'], req));
      const response = await fetch(url);
      expect(response.status).toBe(status);
      await response.text();
      expect(events.map((e) => [e.outcome, e.errorCode])).toEqual([[outcome, status]]);
    });

    it('records the outcome and principal given instead', async () => {
      const url = await start((req, res) =>
        responder.refuse(res, HttpMessages.tooManyStreams(8), req, { outcome: 'limited', principal: 'alice' }),
      );
      const response = await fetch(url);
      expect(response.status).toBe(429);
      await response.text();
      expect(events[0]).toMatchObject({ outcome: 'limited', principal: 'alice', errorCode: 429 });
    });

    it('says which methods are allowed on a 405, GET, POST and DELETE unless told', async () => {
      const url = await start((req, res) =>
        responder.refuse(
          res,
          HttpMessages.methodNotAllowed(req.method!),
          req,
          req.method === 'GET' ? { allow: 'POST' } : {},
        ),
      );
      const put = await fetch(url, { method: 'PUT' });
      expect(put.status).toBe(405);
      expect(put.headers.get('allow')).toBe('GET, POST, DELETE');
      expect((await rpcOf(put)).error).toEqual({
        code: -32600,
        message: 'Method Not Allowed: PUT is not served on this endpoint',
      });
      const get = await fetch(url);
      expect(get.headers.get('allow')).toBe('POST');
      await get.text();
    });

    it('asks to retry a 503 in 5 s, and keeps a Retry-After given', async () => {
      const url = await start((req, res) =>
        req.url!.endsWith('own')
          ? responder.refuse(res, HttpMessages.tooManyAuthFailures(42), req, { headers: { 'retry-after': '42' } })
          : responder.refuse(res, HttpMessages.notReady(), req),
      );
      const notReady = await fetch(url);
      expect(notReady.status).toBe(503);
      expect(notReady.headers.get('retry-after')).toBe('5');
      await notReady.text();
      const locked = await fetch(`${url}/own`);
      expect(locked.status).toBe(429);
      expect(locked.headers.get('retry-after')).toBe('42');
      await locked.text();
    });

    it.each([413, 403])('closes the connection after a %i, whose body is left unread', async (status) => {
      const url = await start((req, res) => responder.refuse(res, [status, -32600, 'no'], req));
      const response = await fetch(url, { method: 'POST', body: 'x'.repeat(256 * 1024) });
      expect(response.status).toBe(status);
      expect(response.headers.get('connection')).toBe('close');
      expect((await rpcOf(response)).error.message).toBe('no');
    });

    it('keeps the connection of other refusals', async () => {
      const url = await start((req, res) => responder.refuse(res, [400, -32600, 'no'], req));
      const response = await fetch(url);
      expect(response.headers.get('connection')).not.toBe('close');
      await response.text();
    });
  });
});
