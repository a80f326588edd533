import { createServer, type Server } from 'node:http';
import { exportJWK, generateKeyPair, SignJWT, type CryptoKey, type JWK } from 'jose';

export interface TestIssuer {
  issuer: string;
  jwksUri: string;
  sign: (claims: Record<string, unknown>, options?: { expiresIn?: string; issuer?: string; audience?: string }) => Promise<string>;
  close: () => Promise<void>;
}

/** A local issuer: its JWKS on loopback, and tokens signed with its key. */
export async function startIssuer(): Promise<TestIssuer> {
  const { privateKey, publicKey } = await generateKeyPair('ES256');
  const jwk: JWK = { ...(await exportJWK(publicKey)), kid: 'key-1', alg: 'ES256', use: 'sig' };
  const server: Server = createServer((_req, res) => res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ keys: [jwk] })));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as { port: number }).port;
  const issuer = `http://127.0.0.1:${port}`;
  const sign = (claims: Record<string, unknown>, options: { expiresIn?: string; issuer?: string; audience?: string } = {}) =>
    new SignJWT(claims)
      .setProtectedHeader({ alg: 'ES256', kid: 'key-1' })
      .setIssuer(options.issuer ?? issuer)
      .setAudience(options.audience ?? 'http://127.0.0.1/mcp')
      .setSubject(typeof claims.sub === 'string' ? claims.sub : 'user-42')
      .setIssuedAt()
      .setExpirationTime(options.expiresIn ?? '5m')
      .sign(privateKey as CryptoKey);
  return { issuer, jwksUri: `${issuer}/jwks.json`, sign, close: () => new Promise((resolve) => server.close(() => resolve())) };
}

