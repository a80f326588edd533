import { checkAuthOptions } from './auth-options.resolver';

describe('checkAuthOptions', () => {
  const problems = (auth: unknown, ownIssuer = false) => {
    const found: string[] = [];
    checkAuthOptions(auth, (option, problem) => found.push(`${option} ${problem}`), ownIssuer);
    return found;
  };
  const oauth = {
    mode: 'oauth',
    issuer: 'https://id.example',
    jwksUri: 'https://id.example/jwks',
    resource: 'https://mcp.example/mcp',
  };

  it('reports every problem of a claims mapping at once', () => {
    expect(
      problems({
        ...oauth,
        claims: { roles: { from: [], map: { admins: 'admin' } }, groups: {}, scopes: { from: ['scp'], map: [] } },
      }),
    ).toEqual([
      'auth.claims.roles.from must list at least one claim name',
      'auth.claims.roles.map["admins"] must be a list of the host\'s roles',
      'auth.claims.groups is not a claims rule',
      "auth.claims.scopes.map must map the IdP's values to lists of the host's",
    ]);
  });

  it("lets the issuer and its keys come from the host's own authorization server", () => {
    const { issuer: _issuer, jwksUri: _jwks, ...withoutIssuer } = oauth;
    expect(problems(withoutIssuer, true)).toEqual([]);
    expect(problems(withoutIssuer)).toEqual([
      'auth.issuer must be an absolute URL',
      'auth.jwksUri must be an absolute URL',
    ]);
  });
});
