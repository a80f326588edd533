import type { McpAuthOptions } from '#libs/security';
import { isLoopbackUrl, resolveAuthorizationServerOptions } from './authorization-server.options';

const AUTH: McpAuthOptions = {
  mode: 'oauth',
  issuer: '',
  jwksUri: '',
  resource: 'https://mcp.desk.example/mcp',
};
const IDP = { issuer: 'https://login.microsoftonline.com/t/v2.0', clientId: 'desk', clientSecret: 'secret' };

function resolve(given: unknown, auth: McpAuthOptions = AUTH) {
  const problems: string[] = [];
  const options = resolveAuthorizationServerOptions({ authorizationServer: given }, auth, (option, problem) =>
    problems.push(`${option}: ${problem}`),
  );
  return { options, problems };
}

describe('resolveAuthorizationServerOptions', () => {
  it('is off when not given', () => {
    expect(resolveAuthorizationServerOptions({}, AUTH, () => undefined)).toBeUndefined();
  });

  it('fills in the defaults and works out its endpoints from the resource', () => {
    const { options, problems } = resolve({ idp: IDP });
    expect(problems).toEqual([]);
    expect(options).toMatchObject({
      issuer: 'https://mcp.desk.example',
      resource: 'https://mcp.desk.example/mcp',
      idp: { ...IDP, scopes: ['openid', 'profile', 'email', 'offline_access'] },
      accessTokenTtlSec: 300,
      refreshTokenTtlSec: 86_400,
      maxSignInSec: 604_800,
      consent: { rememberSec: 2_592_000, approvedClientsOnly: false },
      dynamicRegistration: {
        maxClients: 5_000,
        perAddress: { limit: 20, windowSec: 3_600 },
        unusedTtlSec: 86_400,
        idleTtlSec: 2_592_000,
      },
      clients: [],
      trustedIdps: [],
      endpoints: {
        metadata: 'https://mcp.desk.example/.well-known/oauth-authorization-server',
        authorize: 'https://mcp.desk.example/oauth/authorize',
        callback: 'https://mcp.desk.example/oauth/callback',
        token: 'https://mcp.desk.example/oauth/token',
        jwks: 'https://mcp.desk.example/oauth/jwks',
      },
    });
    expect(options!.clientMetadataDocuments).toEqual({
      trustedHosts: undefined,
      allowHosts: new Set(),
      ca: undefined,
      cacheTtlSec: 300,
    });
  });

  it('puts the metadata of an issuer with a path at the RFC 8414 place', () => {
    expect(resolve({ idp: IDP, issuer: 'https://desk.example/as/' }).options!.endpoints).toMatchObject({
      metadata: 'https://desk.example/.well-known/oauth-authorization-server/as',
      token: 'https://desk.example/as/oauth/token',
    });
  });

  it("counts each address's requests of the facade by default, or not at all when told", () => {
    expect(resolve({ idp: IDP }).options!.perAddress).toEqual({ limit: 300, windowSec: 60 });
    expect(resolve({ idp: IDP, perAddress: { limit: 600 } }).options!.perAddress).toEqual({
      limit: 600,
      windowSec: 60,
    });
    expect(resolve({ idp: IDP, perAddress: false }).options!.perAddress).toBe(false);
    expect(resolve({ idp: IDP, perAddress: 5 }).problems).toEqual([
      'authorizationServer.perAddress: must be { limit, windowSec } or false',
    ]);
  });

  it('needs the oauth mode with a resource', () => {
    expect(resolve({ idp: IDP }, { mode: 'none' }).problems).toEqual([
      "authorizationServer: needs auth: { mode: 'oauth', resource } (the tokens it issues are for that resource)",
    ]);
  });

  it('reports every problem at once', () => {
    const { problems } = resolve({
      issuer: 'http://desk.example',
      idp: { issuer: 'https://login', clientId: '', scopes: ['profile'] },
      accessTokenTtlSec: 5,
      clientMetadataDocuments: { allowHosts: [''], ca: 3 },
      clients: [{ clientId: '', secretHash: 'plain', redirectUris: ['nope'] }],
      trustedIdps: [{ issuer: 'http://idp.example', jwksUri: 'x', sameDirectory: 'yes' }],
      maxSignInSec: 10,
      consent: { rememberSec: -1, approvedClientsOnly: 'no', ask: true },
      perAddress: { limit: 0, per: 60 },
      extra: 1,
    });
    expect(problems).toEqual(
      expect.arrayContaining([
        'authorizationServer.extra: is not a known option',
        'authorizationServer.issuer: must be an https URL (http only on loopback)',
        'authorizationServer.idp.clientId: is required',
        'authorizationServer.idp.clientSecret: is required',
        "authorizationServer.idp.scopes: must be a list that includes 'openid'",
        'authorizationServer.clientMetadataDocuments.allowHosts[0]: "" is not a host name or an IP address (no scheme, port or path)',
        'authorizationServer.clientMetadataDocuments.ca: must be PEM text',
        'authorizationServer.clients[0].clientId: is required',
        'authorizationServer.clients[0].secretHash: is not a "sha256:<64 hex>" hash',
        'authorizationServer.clients[0].redirectUris[0]: must be an absolute URL',
        'authorizationServer.trustedIdps[0].issuer: must be an https URL (http only on loopback)',
        'authorizationServer.trustedIdps[0].jwksUri: must be an absolute URL',
        'authorizationServer.trustedIdps[0].sameDirectory: must be true or false',
        'authorizationServer.maxSignInSec: must be an integer ≥ 300, got 10',
        'authorizationServer.perAddress.per: is not a known option',
        'authorizationServer.perAddress.limit: must be an integer ≥ 1, got 0',
        'authorizationServer.consent.rememberSec: must be an integer from 0 to 31536000, got -1',
        'authorizationServer.consent.approvedClientsOnly: must be true or false',
        'authorizationServer.consent.ask: is not a known option',
      ]),
    );
    expect(problems.some((problem) => problem.startsWith('authorizationServer.accessTokenTtlSec'))).toBe(true);
  });

  it('says at start-up when the claims map grants a scope scopesSupported does not list (it would never be granted)', () => {
    const auth: McpAuthOptions = {
      ...AUTH,
      scopesSupported: ['tickets:read'],
      claims: { scopes: { from: ['groups'], map: { agents: ['tickets:read', 'tickets:write'] } } },
    };
    expect(resolve({ idp: IDP }, auth).problems).toEqual([
      'auth.claims.scopes.map: grants "tickets:write", which auth.scopesSupported does not list: the authorization server never grants a scope outside it',
    ]);
  });

  it('keeps the privileged scopes and roles it is given, and a trusted IdP apart from the company IdP unless it shares its directory', () => {
    const { options } = resolve({
      idp: IDP,
      trustedIdps: [
        { issuer: 'https://partner.example', jwksUri: 'https://partner.example/jwks' },
        { issuer: 'https://corp.okta.example/oauth2/x', jwksUri: 'https://corp.okta.example/k', sameDirectory: true },
      ],
    });
    expect(options!.privileged).toEqual({
      scopes: new Set(['mcp:admin', 'mcp:approve']),
      roles: new Set(['admin', 'approver']),
    });
    expect(options!.trustedIdps.map((trusted) => trusted.sameDirectory)).toEqual([false, true]);
  });

  it('checks the registration limits, the CIMD trust policy, the store and every redirect URI at start-up', () => {
    const { problems } = resolve({
      idp: IDP,
      refreshTokenTtlSec: 5_000_000,
      dynamicRegistration: {
        maxClients: 0,
        perAddress: { limit: 0, windowSec: 10 },
        unusedTtlSec: 5,
        idleTtlSec: 86_400,
        max: 1,
      },
      clientMetadataDocuments: {
        trustedHosts: ['https://clients.corp.example', '*.apps.example'],
        allowHosts: ['*.corp'],
      },
      store: { get: () => undefined },
      clients: [
        {
          clientId: 'app',
          redirectUris: ['http://127.0.0.1:3000/cb#x', 'http://app.example/cb', 'https://ok.example/cb'],
        },
      ],
    });
    expect(problems).toEqual([
      'authorizationServer.dynamicRegistration.max: is not a known option',
      'authorizationServer.dynamicRegistration.perAddress.limit: must be an integer ≥ 1, got 0',
      "authorizationServer.dynamicRegistration.idleTtlSec: is shorter than refreshTokenTtlSec (5000000): a client's registration would expire before its refresh token",
      'authorizationServer.dynamicRegistration.maxClients: must be an integer ≥ 1, got 0',
      'authorizationServer.dynamicRegistration.unusedTtlSec: must be an integer ≥ 600, got 5',
      'authorizationServer.clientMetadataDocuments.trustedHosts[0]: "https://clients.corp.example" must be a host name (no scheme, port or path), or *.domain for every host under it',
      'authorizationServer.clientMetadataDocuments.allowHosts[0]: "*.corp" must name one host (no wildcard here)',
      'authorizationServer.store: must be an AuthorizationServerStore (put, get, take, claim, delete, list, increment, count)',
      'authorizationServer.clients[0].redirectUris[0]: must not have a fragment (#)',
      'authorizationServer.clients[0].redirectUris[1]: must use https (http only on localhost, 127.0.0.1 or [::1])',
    ]);
    expect(resolve({ idp: IDP, clientMetadataDocuments: { trustedHosts: [] } }).problems).toEqual([
      'authorizationServer.clientMetadataDocuments.trustedHosts: is empty: it would trust no host',
    ]);
    const { options } = resolve({
      idp: IDP,
      refreshTokenTtlSec: 5_000_000,
      dynamicRegistration: { perAddress: false },
      clientMetadataDocuments: { trustedHosts: ['*.apps.example'] },
    });
    expect(options!.dynamicRegistration).toMatchObject({ perAddress: false, idleTtlSec: 5_000_000 });
    const documents = options!.clientMetadataDocuments;
    expect(documents && documents.trustedHosts?.trusts(new URL('https://a.apps.example/c.json'))).toBe(true);
    expect(resolve({ idp: IDP, dynamicRegistration: false }).options!.dynamicRegistration).toBe(false);
  });

  it('takes a host name or an address as a host whose metadata documents may be private, nothing else', () => {
    const { problems } = resolve({
      idp: IDP,
      clientMetadataDocuments: { allowHosts: ['clients.corp.example', '10.0.0.7', 'https://clients.corp.example/x'] },
    });
    expect(problems).toEqual([
      'authorizationServer.clientMetadataDocuments.allowHosts[2]: "https://clients.corp.example/x" is not a host name or an IP address (no scheme, port or path)',
    ]);
  });

  it('takes http on loopback only', () => {
    expect(isLoopbackUrl(new URL('http://127.0.0.1:3000'))).toBe(true);
    expect(isLoopbackUrl(new URL('http://localhost'))).toBe(true);
    expect(isLoopbackUrl(new URL('http://10.0.0.1'))).toBe(false);
    expect(resolve({ idp: { ...IDP, issuer: 'http://127.0.0.1:4000' } }).problems).toEqual([]);
  });
});
