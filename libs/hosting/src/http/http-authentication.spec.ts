import { AuthFailureLimiter, Authenticator, hashApiKey, resolveSecurityOptions } from '#libs/security';
import { startIssuer, type TestIssuer } from '../../../../test/support/issuer';
import { HttpAuthentication } from './http-authentication';
import { HttpResponder } from './http-responder';
import { closedAfterEach, listen, recordedEvents, rpcOf } from './testing/http-testing';

const NO_KEY = 'Unauthorized: No API key: send Authorization: Bearer <key> or X-API-Key: <key>';
const BAD_KEY = 'Unauthorized: The API key is not valid';

/**
 * `HttpAuthentication` built as the module builds it (security options by their resolver), in
 * front of a handler that answers 200 with the principal it let in.
 */
async function serve(options: Record<string, unknown>) {
  const security = resolveSecurityOptions(options, (key, problem) => {
    throw new Error(`${key} ${problem}`);
  });
  const { events, recorded } = recordedEvents();
  const authentication = new HttpAuthentication(
    security,
    new Authenticator(security.auth),
    new AuthFailureLimiter(security.authFailureLimit.limit, security.authFailureLimit.windowMs),
    new HttpResponder(events, security.clientAddresses),
    security.clientAddresses,
  );
  const { url, server } = await listen((req, res) => {
    void authentication.principalOf(req, res).then((principal) => {
      if (principal) res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(principal));
    });
  });
  return { url, server, events: recorded, authentication };
}

describe('HttpAuthentication', () => {
  const start = closedAfterEach(serve);

  describe('without authentication', () => {
    it('lets every request in as the configured principal, and does not count sessions per principal', async () => {
      const { url, events, authentication } = await start({
        auth: { mode: 'none', principal: { id: 'desk-bot', scopes: ['tickets:read'] } },
      });
      expect(authentication.authenticates).toBe(false);
      const response = await fetch(url, { headers: { authorization: 'Bearer anything' } });
      expect(response.status).toBe(200);
      expect(await rpcOf(response)).toEqual({ id: 'desk-bot', scopes: ['tickets:read'], roles: [], claims: {} });
      expect(events).toEqual([]);
    });
  });

  describe('with API keys', () => {
    const apiKeys = (limit = 20) => ({
      auth: { mode: 'apiKey', keys: [{ hash: hashApiKey('agent-key'), principal: 'agent-1', roles: ['agent'] }] },
      authFailureLimit: { limit, windowMs: 60_000 },
    });

    it('lets a valid key in as its principal', async () => {
      const { url, events, authentication } = await start(apiKeys());
      expect(authentication.authenticates).toBe(true);
      const response = await fetch(url, { headers: { 'x-api-key': 'agent-key' } });
      expect(response.status).toBe(200);
      expect(await rpcOf(response)).toEqual({ id: 'agent-1', scopes: [], roles: ['agent'], claims: {} });
      expect(events).toEqual([]);
    });

    it('refuses a request without a key with 401, a Bearer challenge of realm "mcp" and a JSON-RPC error body', async () => {
      const { url, events } = await start(apiKeys());
      const response = await fetch(url, { method: 'POST', body: '{}' });
      expect(response.status).toBe(401);
      expect(response.headers.get('www-authenticate')).toBe('Bearer realm="mcp"');
      expect(response.headers.get('content-type')).toBe('application/json');
      expect(response.headers.get('x-content-type-options')).toBe('nosniff');
      expect(await rpcOf(response)).toEqual({ jsonrpc: '2.0', id: null, error: { code: -32001, message: NO_KEY } });
      expect(events).toHaveLength(1);
      expect(events[0]).toMatchObject({
        method: null,
        refusal: true,
        outcome: 'unauthenticated',
        errorCode: 401,
        error: NO_KEY,
        remoteAddress: '127.0.0.1',
      });
    });

    it('refuses a wrong key with 401 and error="invalid_token" in the challenge', async () => {
      const { url, events } = await start(apiKeys());
      const response = await fetch(url, { headers: { authorization: 'Bearer guess' } });
      expect(response.status).toBe(401);
      expect(response.headers.get('www-authenticate')).toBe(
        'Bearer realm="mcp", error="invalid_token", error_description="The API key is not valid"',
      );
      expect(await rpcOf(response)).toEqual({ jsonrpc: '2.0', id: null, error: { code: -32001, message: BAD_KEY } });
      expect(events[0]).toMatchObject({ outcome: 'unauthenticated', errorCode: 401 });
    });

    it('locks an address out with 429 and Retry-After after repeated wrong keys', async () => {
      const { url, events } = await start(apiKeys(3));
      for (let attempt = 1; attempt <= 3; attempt++) {
        const response = await fetch(url, { headers: { 'x-api-key': `guess-${attempt}` } });
        expect(response.status).toBe(401);
        await response.text();
      }
      const locked = await fetch(url, { headers: { 'x-api-key': 'guess-4' } });
      expect(locked.status).toBe(429);
      const retryAfter = locked.headers.get('retry-after');
      expect(retryAfter).toMatch(/^(59|60)$/);
      expect(await rpcOf(locked)).toEqual({
        jsonrpc: '2.0',
        id: null,
        error: {
          code: -32001,
          message: `Too Many Requests: too many failed authentications from this address; retry in ${retryAfter} s`,
        },
      });
      expect(events.map((e) => [e.outcome, e.errorCode])).toEqual([
        ['unauthenticated', 401],
        ['unauthenticated', 401],
        ['unauthenticated', 401],
        ['throttled', 429],
      ]);
    });

    it("never refuses a valid key because of others' failures from the same address", async () => {
      const { url } = await start(apiKeys(2));
      for (let attempt = 1; attempt <= 5; attempt++)
        await (await fetch(url, { headers: { 'x-api-key': 'guess' } })).text();
      const stranger = await fetch(url, { headers: { 'x-api-key': 'guess' } });
      expect(stranger.status).toBe(429);
      await stranger.text();
      for (let attempt = 1; attempt <= 3; attempt++) {
        const valid = await fetch(url, { headers: { 'x-api-key': 'agent-key' } });
        expect(valid.status).toBe(200);
        expect(await rpcOf(valid)).toMatchObject({ id: 'agent-1' });
      }
    });

    it('behind a listed proxy, locks out the client named by X-Forwarded-For and not the others', async () => {
      const { url, events } = await start({ ...apiKeys(1), trustProxy: ['127.0.0.1'] });
      const via = (client: string, key: string) =>
        fetch(url, { headers: { 'x-forwarded-for': client, 'x-api-key': key } });
      expect((await via('198.51.100.7', 'guess')).status).toBe(401);
      expect((await via('198.51.100.7', 'guess')).status).toBe(429);
      expect((await via('198.51.100.8', 'guess')).status).toBe(401);
      expect(events.map((event) => [event.remoteAddress, event.errorCode])).toEqual([
        ['198.51.100.7', 401],
        ['198.51.100.7', 429],
        ['198.51.100.8', 401],
      ]);
    });

    it('does not count requests that sent no key toward the lock-out', async () => {
      const { url } = await start(apiKeys(2));
      for (let attempt = 1; attempt <= 3; attempt++) await (await fetch(url)).text();
      const response = await fetch(url, { headers: { 'x-api-key': 'agent-key' } });
      expect(response.status).toBe(200);
      await response.text();
    });
  });

  describe('with OAuth', () => {
    let issuer: TestIssuer;
    beforeAll(async () => (issuer = await startIssuer()));
    afterAll(() => issuer.close());

    const oauth = () => ({
      auth: {
        mode: 'oauth',
        issuer: issuer.issuer,
        jwksUri: issuer.jwksUri,
        resource: 'http://127.0.0.1/mcp',
        requiredScopes: ['mcp'],
      },
    });
    const METADATA = 'resource_metadata="http://127.0.0.1/.well-known/oauth-protected-resource/mcp"';

    it('points a client without a token to the protected resource metadata, with the scope it needs', async () => {
      const { url, events } = await start(oauth());
      const response = await fetch(url);
      expect(response.status).toBe(401);
      expect(response.headers.get('www-authenticate')).toBe(`Bearer ${METADATA}, scope="mcp"`);
      expect((await rpcOf(response)).error).toEqual({
        code: -32001,
        message: 'Unauthorized: No bearer token: send Authorization: Bearer <access token>',
      });
      expect(events[0]).toMatchObject({ outcome: 'unauthenticated', errorCode: 401 });
    });

    it('refuses a token without the required scope with 403 insufficient_scope, recorded as denied', async () => {
      const { url, events } = await start(oauth());
      const response = await fetch(url, {
        headers: { authorization: `Bearer ${await issuer.sign({ scope: 'tickets:read' })}` },
      });
      expect(response.status).toBe(403);
      expect(response.headers.get('www-authenticate')).toBe(
        `Bearer ${METADATA}, error="insufficient_scope", error_description="The token lacks scope(s): mcp", scope="mcp"`,
      );
      expect((await rpcOf(response)).error).toEqual({
        code: -32001,
        message: 'Forbidden: The token lacks scope(s): mcp',
      });
      expect(events[0]).toMatchObject({ outcome: 'denied', errorCode: 403 });
    });

    it('keeps the challenge well-formed when the description holds double quotes', async () => {
      const { url } = await start(oauth());
      const notYet = await issuer.sign({ scope: 'mcp', nbf: Math.floor(Date.now() / 1000) + 3_600 });
      const response = await fetch(url, { headers: { authorization: `Bearer ${notYet}` } });
      expect(response.status).toBe(401);
      expect(response.headers.get('www-authenticate')).toBe(
        `Bearer ${METADATA}, error="invalid_token", error_description="The token's 'nbf' claim is not valid"`,
      );
      expect((await rpcOf(response)).error.message).toBe('Unauthorized: The token\'s "nbf" claim is not valid');
    });

    it('lets a valid token in as its subject', async () => {
      const { url } = await start(oauth());
      const response = await fetch(url, {
        headers: { authorization: `Bearer ${await issuer.sign({ scope: 'mcp', sub: 'user-7' })}` },
      });
      expect(response.status).toBe(200);
      expect(await rpcOf(response)).toMatchObject({ id: 'user-7', scopes: ['mcp'], roles: [] });
    });
  });
});
