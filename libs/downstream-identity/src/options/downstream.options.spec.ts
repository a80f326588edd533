import type { McpAuthOptions } from '#libs/security';
import type { AuthorizationServerOptions } from '#libs/authorization-server';
import { resolveDownstreamCredential, type DownstreamCredential } from './downstream-credential.options';
import { resolveDownstreamOptions } from './downstream.options';

const KEY = Buffer.alloc(32, 7).toString('base64');
const OAUTH: McpAuthOptions = {
  mode: 'oauth',
  issuer: 'https://login.corp.example',
  jwksUri: 'https://login.corp.example/jwks',
  resource: 'https://mcp.desk.example/mcp',
};
const FACADE = {
  issuer: 'https://mcp.desk.example',
  idp: { issuer: 'https://login.corp.example', clientId: 'desk', clientSecret: 's', scopes: ['openid'] },
} as unknown as AuthorizationServerOptions;

function credential(value: unknown, audience?: string) {
  const problems: string[] = [];
  const resolved = resolveDownstreamCredential(value, 'rest.apis[0].credential', audience, (o, p) =>
    problems.push(`${o}: ${p}`),
  );
  return { resolved, problems };
}

function options(
  given: unknown,
  uses: DownstreamCredential[],
  auth: McpAuthOptions = OAUTH,
  facade?: AuthorizationServerOptions,
) {
  const problems: string[] = [];
  const resolved = resolveDownstreamOptions(
    given === undefined ? {} : { downstream: given },
    uses.map((c, index) => ({ where: `rest.apis[${index}].credential`, credential: c })),
    { auth, facade },
    (o, p, fix) => problems.push(`${o}: ${p} (${fix})`),
  );
  return { resolved, problems };
}

describe('the credential of an upstream or API', () => {
  it("is 'service' by default", () => {
    expect(credential(undefined)).toEqual({ resolved: { mode: 'service' }, problems: [] });
  });

  it("'token-exchange' takes the URL as its audience, or the one given", () => {
    expect(credential('token-exchange', 'https://api.example').resolved).toEqual({
      mode: 'token-exchange',
      audience: 'https://api.example',
      scope: undefined,
      at: undefined,
    });
    expect(
      credential({ mode: 'token-exchange', audience: 'api://ledger', scope: 'ledger.read', at: 'idp' }).resolved,
    ).toEqual({ mode: 'token-exchange', audience: 'api://ledger', scope: 'ledger.read', at: 'idp' });
  });

  it('reports every problem with its option', () => {
    expect(credential('user').problems).toEqual([
      "rest.apis[0].credential: 'user' needs the API's authorization server",
    ]);
    expect(credential('token-exchange').problems).toEqual([
      'rest.apis[0].credential.audience: is required (no URL to take it from)',
    ]);
    expect(credential({ mode: 'token-exchange', audience: 'a', at: 'cloud', extra: 1 }).problems).toEqual([
      'rest.apis[0].credential.extra: is not a known option',
      "rest.apis[0].credential.at: must be 'idp' or 'facade', got \"cloud\"",
    ]);
    expect(credential({ mode: 'user', authorization: { issuer: 'ftp://x', clientId: '' } }).problems).toEqual([
      'rest.apis[0].credential.authorization.issuer: must be an absolute http(s) URL, got "ftp://x"',
      'rest.apis[0].credential.authorization.clientId: must be a non-empty string',
      'rest.apis[0].credential.authorization.clientSecret: must be a non-empty string',
    ]);
    expect(
      credential({
        mode: 'user',
        authorization: {
          issuer: 'https://login.crm.example',
          clientId: 'a',
          clientSecret: 'b',
          resource: 'https://crm.example/api#v1',
        },
      }).problems,
    ).toEqual([
      'rest.apis[0].credential.authorization.resource: must be an absolute URI without a fragment (RFC 8707), got "https://crm.example/api#v1"',
    ]);
    expect(credential({ mode: 'user', authorization: { clientId: 'a', clientSecret: 'b' } }).problems).toEqual([
      'rest.apis[0].credential.authorization: needs issuer, or both authorizationEndpoint and tokenEndpoint',
    ]);
    expect(credential({ mode: 'robot' }).problems).toEqual([
      "rest.apis[0].credential.mode: must be 'service', 'token-exchange' or 'user', got \"robot\"",
    ]);
  });
});

describe('resolveDownstreamOptions', () => {
  const exchange: DownstreamCredential = {
    mode: 'token-exchange',
    audience: 'https://api',
    scope: undefined,
    at: undefined,
  };
  const user = credential({
    mode: 'user',
    authorization: { issuer: 'https://login.crm.example', clientId: 'desk', clientSecret: 's' },
  }).resolved;

  it('needs nothing when every downstream is the service', () => {
    expect(options(undefined, [{ mode: 'service' }], { mode: 'none' })).toEqual({
      resolved: { idp: undefined, connections: undefined, facadeIssuer: undefined },
      problems: [],
    });
  });

  it('exchanges at the facade when there is one, taking its IdP for the connect pages', () => {
    const { resolved, problems } = options({ connections: { encryptionKey: KEY } }, [exchange, user], OAUTH, FACADE);
    expect(problems).toEqual([]);
    expect(resolved).toMatchObject({
      idp: FACADE.idp,
      facadeIssuer: 'https://mcp.desk.example',
      connections: { publicUrl: 'https://mcp.desk.example', path: '/connect', pendingTtlMs: 600_000 },
    });
    expect(resolved.connections!.key).toHaveLength(32);
  });

  it('reports what each credential lacks, all at once, each with its fix', () => {
    const { problems } = options(
      { connections: { encryptionKey: 'short', path: 'connect' }, extra: true },
      [exchange, { ...exchange, at: 'facade' } as DownstreamCredential, user],
      { mode: 'apiKey', keys: [] },
    );
    expect(problems.map((problem) => problem.replace(/ \(.*$/, ''))).toEqual([
      'downstream.extra: is not a known option',
      'downstream.connections.encryptionKey: must be 32 bytes, base64',
      'downstream.connections.publicUrl: is required',
      'downstream.connections.path: must be a path such as /connect',
      'rest.apis[0].credential: exchanges at the company IdP, but none is configured',
      "rest.apis[0].credential: exchanges the caller's IdP token, but callers do not sign in with one",
      "rest.apis[1].credential.at: is 'facade', but the host runs no authorization server",
      'downstream.idp: is required by rest.apis[2].credential: a person proves who they are there before connecting an account',
      'rest.apis[2].credential: needs callers who are people signed in at the company IdP',
    ]);
  });

  it("requires the connections' key for a 'user' credential", () => {
    expect(options({ idp: { issuer: 'https://login', clientId: 'a', clientSecret: 'b' } }, [user]).problems).toEqual([
      'downstream.connections: is required by rest.apis[0].credential (connections: { encryptionKey: process.env.CONNECTIONS_KEY })',
    ]);
  });
});
