// The company's identity provider of the identity tests: a real OpenID provider (oidc-provider,
// certified), configured like Entra ID: no dynamic client registration, no client ID metadata
// documents, confidential clients registered once by an administrator, the user's app roles in a
// `roles` claim of the ID token. Its token endpoint also takes the RFC 8693 token exchange that
// issues Identity Assertion JWT Authorization Grants (ID-JAG, enterprise-managed authorization)
// and access tokens for another audience (the caller's identity downstream).
//
// Run as a child process (oidc-provider is ESM-only and loads Koa; jest would transpile it all):
//   node test/support/company-idp.mjs '<json settings>'
// It prints one line `READY <issuer>` once it listens, and stops on SIGTERM. `PUT /test/accounts/<login>`
// with an account's JSON changes a person (their roles, groups, or `disabled`), as the IdP's administrators do.
import { createServer } from 'node:http';
import { randomUUID } from 'node:crypto';
import Provider, { errors } from 'oidc-provider';
import { exportJWK, generateKeyPair, jwtVerify, createLocalJWKSet, SignJWT } from 'jose';

/**
 * settings: {
 *   port: number,
 *   clients: [{ client_id, client_secret?, redirect_uris?, grant_types?, token_endpoint_auth_method? }],
 *   accounts: { [login]: { roles?: string[], groups?: string[], email?: string, disabled?: boolean } },
 *   idJag: { [idpClientId]: { mcpClientId: string, allowed?: string[] (logins) } },
 *   accessTokenTtlSec?: number,
 *   resourceScope?: string (what a resource server's JWT access tokens may carry),
 * }
 * A `resource` asked for (RFC 8707: at sign-in, or with the client credentials grant) gets a JWT
 * access token for it; a client allowed the refresh token grant gets refresh tokens.
 */
const settings = JSON.parse(process.argv[2] ?? '{}');
const issuer = `http://127.0.0.1:${settings.port}`;
const TOKEN_EXCHANGE = 'urn:ietf:params:oauth:grant-type:token-exchange';
const ID_JAG = 'urn:ietf:params:oauth:token-type:id-jag';
const ID_TOKEN = 'urn:ietf:params:oauth:token-type:id_token';
const ACCESS_TOKEN = 'urn:ietf:params:oauth:token-type:access_token';
const JWT = 'urn:ietf:params:oauth:token-type:jwt';

const { privateKey, publicKey } = await generateKeyPair('RS256', { extractable: true });
const kid = 'company-idp-1';
const privateJwk = { ...(await exportJWK(privateKey)), kid, alg: 'RS256', use: 'sig' };
const publicJwks = createLocalJWKSet({ keys: [{ ...(await exportJWK(publicKey)), kid, alg: 'RS256' }] });

const accounts = settings.accounts ?? {};
const claimsOf = (login) => {
  const account = accounts[login] ?? {};
  return {
    sub: login,
    name: login,
    preferred_username: login,
    email: account.email ?? `${login}@corp.example`,
    roles: account.roles ?? [],
    groups: account.groups ?? [],
  };
};

const provider = new Provider(issuer, {
  clients: settings.clients ?? [],
  jwks: { keys: [privateJwk] },
  // A disabled account is one the IdP no longer knows: its sign-ins and refresh tokens are refused.
  findAccount: (_ctx, id) => (accounts[id]?.disabled ? undefined : { accountId: id, claims: () => claimsOf(id) }),
  claims: {
    openid: ['sub'],
    profile: ['name', 'preferred_username', 'roles', 'groups'],
    email: ['email'],
  },
  // Entra puts the claims in the ID token itself.
  conformIdTokenClaims: false,
  // The administrator consented for the organization: no consent page after the login.
  loadExistingGrant: async (ctx) => {
    const grant = new ctx.oidc.provider.Grant({
      clientId: ctx.oidc.client.clientId,
      accountId: ctx.oidc.session.accountId,
    });
    grant.addOIDCScope('openid profile email offline_access');
    // And every resource asked for, with what it may carry.
    const resources = [ctx.oidc.params.resource ?? []].flat();
    for (const resource of resources)
      grant.addResourceScope(resource, settings.resourceScope ?? 'tickets:read tickets:write');
    await grant.save();
    return grant;
  },
  features: {
    devInteractions: { enabled: true },
    registration: { enabled: false },
    revocation: { enabled: true },
    clientCredentials: { enabled: true },
    resourceIndicators: {
      enabled: true,
      useGrantedResource: () => true,
      getResourceServerInfo: (_ctx, resource) => ({
        audience: resource,
        scope: settings.resourceScope ?? 'tickets:read tickets:write',
        accessTokenFormat: 'jwt',
        accessTokenTTL: settings.accessTokenTtlSec ?? 600,
      }),
    },
  },
  issueRefreshToken: async (_ctx, client) => client.grantTypeAllowed('refresh_token'),
  expiresWithSession: async () => false,
  pkce: { required: () => false },
  ttl: { IdToken: 3600, AccessToken: settings.accessTokenTtlSec ?? 600, ClientCredentials: 600 },
});
provider.proxy = false;

/** The subject token of an exchange: an ID token (or access token in JWT form) this IdP issued. */
async function subjectOf(ctx) {
  const { subject_token: token, subject_token_type: type } = ctx.oidc.params;
  if (!token || ![ID_TOKEN, JWT, ACCESS_TOKEN].includes(type))
    throw new errors.InvalidRequest('subject_token and a supported subject_token_type are required');
  try {
    const { payload } = await jwtVerify(token, publicJwks, { issuer });
    return payload;
  } catch (error) {
    throw new errors.InvalidGrant(`subject_token is not valid: ${error.message}`);
  }
}

const sign = (claims, typ, ttlSec) =>
  new SignJWT(claims)
    .setProtectedHeader({ alg: 'RS256', kid, typ })
    .setIssuer(issuer)
    .setIssuedAt()
    .setJti(randomUUID())
    .setExpirationTime(`${ttlSec}s`)
    .sign(privateKey);

provider.registerGrantType(
  TOKEN_EXCHANGE,
  async (ctx) => {
    const { client } = ctx.oidc;
    const { requested_token_type: requested, audience, resource, scope, actor_token: actor } = ctx.oidc.params;
    const subject = await subjectOf(ctx);
    if (requested === ID_JAG) {
      // Enterprise-managed authorization: the ID token must be this client's, and policy must allow the user.
      const policy = (settings.idJag ?? {})[client.clientId];
      if (!policy) throw new errors.UnauthorizedClient('this client may not request ID-JAGs');
      const aud = Array.isArray(subject.aud) ? subject.aud : [subject.aud];
      if (!aud.includes(client.clientId)) throw new errors.InvalidGrant('the ID token was not issued to this client');
      if (policy.allowed && !policy.allowed.includes(subject.sub))
        throw new errors.AccessDenied('the organization does not grant this user access to that MCP server');
      if (!audience || !resource) throw new errors.InvalidRequest('audience and resource are required');
      const jag = await sign(
        {
          sub: subject.sub,
          aud: audience,
          resource,
          client_id: policy.mcpClientId,
          ...(scope && { scope }),
          ...claimsOf(subject.sub),
        },
        'oauth-id-jag+jwt',
        300,
      );
      ctx.body = {
        issued_token_type: ID_JAG,
        access_token: jag,
        token_type: 'N_A',
        expires_in: 300,
        ...(scope && { scope }),
      };
      return;
    }
    // A token for another audience, the caller as subject and the requesting client as actor (RFC 8693 §4.1).
    if (!audience) throw new errors.InvalidRequest('audience is required');
    const token = await sign(
      {
        sub: subject.sub,
        aud: audience,
        act: { sub: client.clientId },
        client_id: client.clientId,
        ...(scope && { scope }),
        roles: subject.roles ?? [],
        ...(actor && { may_act_seen: true }),
      },
      'at+jwt',
      300,
    );
    ctx.body = {
      issued_token_type: ACCESS_TOKEN,
      access_token: token,
      token_type: 'Bearer',
      expires_in: 300,
      ...(scope && { scope }),
    };
  },
  [
    'audience',
    'resource',
    'scope',
    'requested_token_type',
    'subject_token',
    'subject_token_type',
    'actor_token',
    'actor_token_type',
  ],
  ['audience', 'resource'],
);

// Counts the token requests per grant type, for the tests' cost figures.
const counts = {};
provider.on('grant.success', (ctx) => {
  const type = ctx.oidc.params.grant_type;
  counts[type] = (counts[type] ?? 0) + 1;
});

const callback = provider.callback();
const server = createServer((req, res) => {
  if (req.url === '/test/counts') {
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(counts));
    return;
  }
  // An administrator of the IdP changes a person: their roles and groups, or disables them (offboarding).
  const account = /^\/test\/accounts\/([\w.-]+)$/.exec(req.url ?? '');
  if (account && req.method === 'PUT') {
    let body = '';
    req.on('data', (chunk) => (body += chunk));
    req.on('end', () => {
      accounts[account[1]] = JSON.parse(body);
      res.writeHead(204).end();
    });
    return;
  }
  callback(req, res);
});
server.listen(settings.port, '127.0.0.1', () => process.stdout.write(`READY ${issuer}\n`));
process.on('SIGTERM', () => server.close(() => process.exit(0)));
