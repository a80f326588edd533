import { createServer, type Server } from 'node:http';
import { exportJWK, generateKeyPair, SignJWT, type CryptoKey, type JWK } from 'jose';
import type { McpOAuthAuth } from '#libs/security';

/** The resource an OAuth host of these tests is, and so the audience the issuer's tokens name by default. */
const RESOURCE = 'http://127.0.0.1/mcp';

export interface TestIssuer {
  issuer: string;
  jwksUri: string;
  sign: (
    claims: Record<string, unknown>,
    options?: { expiresIn?: string; issuer?: string; audience?: string },
  ) => Promise<string>;
  /**
   * The `auth` option of a host that accepts this issuer's tokens and requires the scope `mcp`.
   * @param extra options on top, e.g. `scopesSupported`
   */
  hostAuth: (extra?: Partial<McpOAuthAuth>) => McpOAuthAuth;
  close: () => Promise<void>;
}

/** A local issuer: its JWKS on loopback, and tokens signed with its key. */
export async function startIssuer(): Promise<TestIssuer> {
  const { privateKey, publicKey } = await generateKeyPair('ES256');
  const jwk: JWK = { ...(await exportJWK(publicKey)), kid: 'key-1', alg: 'ES256', use: 'sig' };
  const server: Server = createServer((_req, res) =>
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ keys: [jwk] })),
  );
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as { port: number }).port;
  const issuer = `http://127.0.0.1:${port}`;
  const sign = (
    claims: Record<string, unknown>,
    options: { expiresIn?: string; issuer?: string; audience?: string } = {},
  ) =>
    new SignJWT(claims)
      .setProtectedHeader({ alg: 'ES256', kid: 'key-1' })
      .setIssuer(options.issuer ?? issuer)
      .setAudience(options.audience ?? RESOURCE)
      .setSubject(typeof claims.sub === 'string' ? claims.sub : 'user-42')
      .setIssuedAt()
      .setExpirationTime(options.expiresIn ?? '5m')
      .sign(privateKey as CryptoKey);
  return {
    issuer,
    jwksUri: `${issuer}/jwks.json`,
    sign,
    hostAuth: (extra = {}) => ({
      mode: 'oauth',
      issuer,
      jwksUri: `${issuer}/jwks.json`,
      resource: RESOURCE,
      requiredScopes: ['mcp'],
      ...extra,
    }),
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

/**
 * Every way a request's credential is refused by an OAuth host requiring the scope `mcp`, with
 * the status and a part of the message: [label, credential, status, message]. `scopes` are the
 * entry scopes the tokens carry besides, so only the credential is wrong.
 */
export function credentialRefusals(
  issuerOf: () => TestIssuer,
  scopes: string,
): [string, () => Promise<string | undefined>, number, string][] {
  // The issuer starts in a beforeAll: it is read when a test runs, not when the list is made.
  const issuer = { sign: (...args: Parameters<TestIssuer['sign']>) => issuerOf().sign(...args) };
  return [
    ['no credentials', async () => undefined, 401, 'No bearer token'],
    ['a bad token', async () => 'not-a-token', 401, 'The token is not valid'],
    [
      'an expired token',
      () => issuer.sign({ scope: `mcp ${scopes}` }, { expiresIn: '-10m' }),
      401,
      'The token has expired',
    ],
    [
      'a token for another audience',
      () => issuer.sign({ scope: `mcp ${scopes}` }, { audience: 'https://other.example/mcp' }),
      401,
      'audience',
    ],
    [
      'a token from another issuer',
      () => issuer.sign({ scope: `mcp ${scopes}` }, { issuer: 'https://evil.example' }),
      401,
      'issuer',
    ],
    ['a token without the server scope', () => issuer.sign({ scope: scopes }), 403, 'lacks scope(s): mcp'],
  ];
}
