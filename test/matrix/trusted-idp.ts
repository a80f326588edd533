import { randomUUID } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import { exportJWK, generateKeyPair, SignJWT, type CryptoKey, type JWK } from 'jose';

/**
 * The IdP the matrix's facade desk trusts for enterprise-managed authorization: it signs
 * Identity Assertion JWT Authorization Grants (ID-JAG) with a key only the test holds, and serves
 * that key's JWKS. The matrix gets the facade's own tokens for each role through the facade's real
 * token endpoint (the JWT bearer grant), as an enterprise's MCP client does.
 */
export class TrustedIdp {
  private server: Server | undefined;
  private key: CryptoKey | undefined;
  private jwk: JWK | undefined;
  issuer = '';

  get jwksUri(): string {
    return `${this.issuer}/jwks`;
  }

  async start(): Promise<void> {
    const { privateKey, publicKey } = await generateKeyPair('ES256');
    this.key = privateKey;
    this.jwk = { ...(await exportJWK(publicKey)), kid: 'matrix-idp', alg: 'ES256', use: 'sig' };
    this.server = createServer((_req, res) =>
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ keys: [this.jwk] })),
    );
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
    this.issuer = `http://127.0.0.1:${(this.server.address() as { port: number }).port}`;
  }

  /** An ID-JAG for `sub` at the authorization server `audience`, for its resource and client. */
  assertion(claims: {
    sub: string;
    audience: string;
    resource: string;
    clientId: string;
    scope: string;
    roles: string[];
    /** When it says it was issued (seconds since the epoch). @default now */
    issuedAt?: number;
  }) {
    return new SignJWT({
      resource: claims.resource,
      client_id: claims.clientId,
      scope: claims.scope,
      roles: claims.roles,
    })
      .setProtectedHeader({ alg: 'ES256', kid: 'matrix-idp', typ: 'oauth-id-jag+jwt' })
      .setIssuer(this.issuer)
      .setSubject(claims.sub)
      .setAudience(claims.audience)
      .setJti(randomUUID())
      .setIssuedAt(claims.issuedAt)
      .setExpirationTime('5m')
      .sign(this.key!);
  }

  stop(): Promise<void> {
    return new Promise((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
  }
}
