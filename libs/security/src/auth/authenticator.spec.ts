import { startIssuer, type TestIssuer } from '../../../../test/support/issuer';
import { hashApiKey } from './api-key';
import type { McpOAuthAuth } from './auth-options.interface';
import { ANONYMOUS_PRINCIPAL } from '#libs/core';
import { Authenticator } from './authenticator';

describe('Authenticator', () => {
  describe("mode 'none'", () => {
    it('lets every caller in as the anonymous principal, whatever it sends', async () => {
      const auth = new Authenticator({ mode: 'none' });
      expect(auth.mode).toBe('none');
      expect(await auth.authenticate({ authorization: 'Bearer whatever' })).toEqual({
        ok: true,
        principal: ANONYMOUS_PRINCIPAL,
      });
      expect(auth.unauthenticated).toEqual({ id: 'anonymous', scopes: [], roles: [], claims: {} });
    });

    it('gives every caller the configured principal, scopes and roles defaulting to none', async () => {
      expect(
        await new Authenticator({ mode: 'none', principal: { id: 'desk-bot', roles: ['agent'] } }).authenticate({}),
      ).toEqual({
        ok: true,
        principal: { id: 'desk-bot', scopes: [], roles: ['agent'], claims: {} },
      });
    });
  });

  describe("mode 'apiKey'", () => {
    const auth = new Authenticator({
      mode: 'apiKey',
      keys: [
        { hash: hashApiKey('agent-key-1'), principal: 'agent-1', scopes: ['tickets:read'], roles: ['agent'] },
        { hash: hashApiKey('plain-key'), principal: 'plain' },
        { hash: hashApiKey('old-key'), principal: 'retired', expiresAt: '2020-01-01T00:00:00Z' },
        { hash: hashApiKey('future-key'), principal: 'current', expiresAt: '2999-01-01T00:00:00Z' },
      ],
    });
    const agent = { ok: true, principal: { id: 'agent-1', scopes: ['tickets:read'], roles: ['agent'], claims: {} } };

    it('takes the key as a bearer token (the scheme in any case)', async () => {
      expect(await auth.authenticate({ authorization: 'Bearer agent-key-1' })).toEqual(agent);
      expect(await auth.authenticate({ authorization: 'bearer agent-key-1' })).toEqual(agent);
    });

    it('takes the key from X-API-Key', async () => {
      expect(await auth.authenticate({ 'x-api-key': 'agent-key-1' })).toEqual(agent);
    });

    it('gives the principal of the matching key, with no scopes or roles unless configured', async () => {
      expect(await auth.authenticate({ 'x-api-key': 'plain-key' })).toEqual({
        ok: true,
        principal: { id: 'plain', scopes: [], roles: [], claims: {} },
      });
    });

    it('prefers the bearer token when both are sent', async () => {
      expect(await auth.authenticate({ authorization: 'Bearer plain-key', 'x-api-key': 'agent-key-1' })).toMatchObject({
        ok: true,
        principal: { id: 'plain' },
      });
    });

    it.each([
      ['no headers', {}],
      ['an empty X-API-Key', { 'x-api-key': '' }],
      ['another scheme', { authorization: 'Basic YWdlbnQ6a2V5' }],
      ['a bearer without a token', { authorization: 'Bearer ' }],
    ])('refuses %s with 401 and says how to send a key', async (_label, headers) => {
      expect(await auth.authenticate(headers)).toEqual({
        ok: false,
        status: 401,
        description: 'No API key: send Authorization: Bearer <key> or X-API-Key: <key>',
      });
    });

    it('refuses a wrong key as an invalid token', async () => {
      const refused = { ok: false, status: 401, error: 'invalid_token', description: 'The API key is not valid' };
      expect(await auth.authenticate({ authorization: 'Bearer agent-key-2' })).toEqual(refused);
      expect(await auth.authenticate({ 'x-api-key': 'AGENT-KEY-1' })).toEqual(refused);
    });

    it('keeps only hashes: the stored hash itself is not a key', async () => {
      expect(await auth.authenticate({ 'x-api-key': hashApiKey('agent-key-1') })).toMatchObject({
        ok: false,
        status: 401,
        error: 'invalid_token',
      });
    });

    it('refuses a key past its expiry, and accepts one before it', async () => {
      expect(await auth.authenticate({ 'x-api-key': 'old-key' })).toEqual({
        ok: false,
        status: 401,
        error: 'invalid_token',
        description: 'The API key has expired',
      });
      expect(await auth.authenticate({ 'x-api-key': 'future-key' })).toMatchObject({
        ok: true,
        principal: { id: 'current' },
      });
    });

    it('takes the first X-API-Key when the header is repeated', async () => {
      expect(await auth.authenticate({ 'x-api-key': ['plain-key', 'agent-key-1'] as unknown as string })).toMatchObject(
        { ok: true, principal: { id: 'plain' } },
      );
    });
  });

  describe("mode 'oauth'", () => {
    let issuer: TestIssuer;
    let other: TestIssuer;
    const resource = 'http://127.0.0.1/mcp';

    beforeAll(async () => {
      [issuer, other] = await Promise.all([startIssuer(), startIssuer()]);
    });
    afterAll(() => Promise.all([issuer.close(), other.close()]));

    const oauth = (extra: Partial<McpOAuthAuth> = {}) =>
      new Authenticator({ mode: 'oauth', issuer: issuer.issuer, jwksUri: issuer.jwksUri, resource, ...extra });
    const withToken = (token: string) => ({ authorization: `Bearer ${token}` });

    it('accepts a token of the issuer for this resource: the subject, its scopes, its roles and all claims', async () => {
      const token = await issuer.sign({
        sub: 'user-7',
        scope: 'mcp tickets:read',
        roles: ['agent', 'lead'],
        tenant: 'acme',
      });
      const result = await oauth({ requiredScopes: ['mcp'] }).authenticate(withToken(token));
      expect(result).toEqual({
        ok: true,
        principal: {
          id: 'user-7',
          scopes: ['mcp', 'tickets:read'],
          roles: ['agent', 'lead'],
          claims: expect.objectContaining({ sub: 'user-7', tenant: 'acme', iss: issuer.issuer, aud: resource }),
        },
      });
    });

    it('reads scopes from an `scp` array and roles from the configured claim', async () => {
      const token = await issuer.sign({ scp: ['mcp', 'admin'], groups: ['supervisors'], roles: ['ignored'] });
      expect(await oauth({ rolesClaim: 'groups' }).authenticate(withToken(token))).toMatchObject({
        ok: true,
        principal: { scopes: ['mcp', 'admin'], roles: ['supervisors'] },
      });
    });

    it.each([
      [
        'Entra ID app roles',
        { roles: ['Desk.Admin', 'Other.App'] },
        { from: ['roles'], map: { 'Desk.Admin': ['admin'] } },
      ],
      ['Okta groups', { groups: ['desk-admins', 'Everyone'] }, { from: ['groups'], map: { 'desk-admins': ['admin'] } }],
      [
        'Keycloak realm roles',
        { realm_access: { roles: ['desk-admin', 'offline_access'] } },
        { from: ['realm_access.roles'], map: { 'desk-admin': ['admin'] } },
      ],
      [
        "Auth0's namespaced claim",
        { 'https://desk.example/roles': ['admin'] },
        { from: ['https://desk.example/roles'] },
      ],
    ])('maps %s to the host roles, granting nothing the map does not name', async (_idp, claims, roles) => {
      const token = await issuer.sign(claims);
      expect(await oauth({ claims: { roles } }).authenticate(withToken(token))).toMatchObject({
        ok: true,
        principal: { roles: ['admin'] },
      });
    });

    it('maps corporate groups to scopes, which the required scopes then read', async () => {
      const token = await issuer.sign({ scp: 'Tickets.Read', groups: ['desk-readers'] });
      const auth = oauth({
        requiredScopes: ['tickets:read'],
        claims: {
          scopes: { from: ['scp', 'groups'], map: { 'Tickets.Read': ['tickets:read'], 'desk-readers': ['kb:read'] } },
        },
      });
      expect(await auth.authenticate(withToken(token))).toMatchObject({
        ok: true,
        principal: { scopes: ['tickets:read', 'kb:read'] },
      });
      const without = await issuer.sign({ groups: ['desk-readers'] });
      expect(await auth.authenticate(withToken(without))).toMatchObject({
        ok: false,
        status: 403,
        error: 'insufficient_scope',
      });
    });

    it('accepts the extra audiences it is told of', async () => {
      const token = await issuer.sign({}, { audience: 'desk-api' });
      expect(await oauth().authenticate(withToken(token))).toMatchObject({
        ok: false,
        description: 'The token is not meant for this server (audience)',
      });
      expect(await oauth({ audiences: ['desk-api'] }).authenticate(withToken(token))).toMatchObject({ ok: true });
    });

    it('takes, given one audience (a composed server’s own resource), tokens for it only', async () => {
      const forServer = await issuer.sign({}, { audience: 'http://127.0.0.1/mcp/finance' });
      const forHost = await issuer.sign({});
      const host = oauth({ audiences: ['desk-api'] });
      expect(await host.authenticate(withToken(forServer), 'http://127.0.0.1/mcp/finance')).toMatchObject({ ok: true });
      expect(await host.authenticate(withToken(forHost), 'http://127.0.0.1/mcp/finance')).toMatchObject({
        ok: false,
        error: 'invalid_token',
      });
      expect(await host.authenticate(withToken(forServer))).toMatchObject({ ok: false, error: 'invalid_token' });
    });

    it('refuses a request without a bearer token, naming the scopes that would do', async () => {
      expect(
        await oauth({ requiredScopes: ['mcp'] }).authenticate({ 'x-api-key': await issuer.sign({ scope: 'mcp' }) }),
      ).toEqual({
        ok: false,
        status: 401,
        description: 'No bearer token: send Authorization: Bearer <access token>',
        scope: ['mcp'],
      });
    });

    it.each([
      [
        'another audience',
        () => issuer.sign({}, { audience: 'https://other.example/mcp' }),
        'The token is not meant for this server (audience)',
      ],
      [
        'another issuer',
        () => issuer.sign({}, { issuer: 'https://evil.example' }),
        'The token comes from an issuer this server does not trust',
      ],
      ['an expired token', () => issuer.sign({}, { expiresIn: '-10m' }), 'The token has expired'],
      [
        "another key under the issuer's key id",
        () => other.sign({}, { issuer: issuer.issuer }),
        'The token signature is not valid',
      ],
      ['something that is no JWT', async () => 'not-a-token', 'The token is not valid'],
    ])('refuses %s as an invalid token, saying why', async (_label, token, description) => {
      expect(await oauth().authenticate(withToken(await token()))).toEqual({
        ok: false,
        status: 401,
        error: 'invalid_token',
        description,
      });
    });

    it('tolerates clock skew on expiry: 30 s by default, or as configured', async () => {
      const justExpired = await issuer.sign({}, { expiresIn: '-10s' });
      expect(await oauth().authenticate(withToken(justExpired))).toMatchObject({ ok: true });
      expect(await oauth({ clockSkewSec: 0 }).authenticate(withToken(justExpired))).toMatchObject({
        ok: false,
        description: 'The token has expired',
      });
    });

    it('refuses a valid token that lacks a required scope with 403 insufficient_scope, naming what is missing', async () => {
      const token = await issuer.sign({ scope: 'mcp' });
      expect(await oauth({ requiredScopes: ['mcp', 'tickets:write', 'admin'] }).authenticate(withToken(token))).toEqual(
        {
          ok: false,
          status: 403,
          error: 'insufficient_scope',
          description: 'The token lacks scope(s): tickets:write admin',
          scope: ['mcp', 'tickets:write', 'admin'],
        },
      );
    });
  });
});
