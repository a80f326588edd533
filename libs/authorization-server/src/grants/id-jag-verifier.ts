import type { JWTPayload, JWTVerifyGetKey } from 'jose';
import { remoteKeySet } from '#libs/security';
import type { AuthorizationServerOptions } from '../options/authorization-server.options';
import type { AuthorizationServerStore } from '../state/authorization-server.store';
import { jose } from '../keys/jose';
import type { OAuthClient } from '../clients/oauth-client';
import { OAuthError } from '../errors/oauth-error';

/** The JWT type of an Identity Assertion JWT Authorization Grant. */
export const ID_JAG_TYPE = 'oauth-id-jag+jwt';
const CLOCK_SKEW_SEC = 30;

/**
 * Checks an ID-JAG presented with the JWT bearer grant (enterprise-managed authorization): its
 * `typ`, a trusted issuer and its signature, `aud` this authorization server, expiry, `iat` not in
 * the future, `resource` this MCP server, `client_id` the authenticated client, and `jti` never seen before by any
 * replica (claimed in the shared store until the assertion expires). Each refusal says which.
 */
export class IdJagVerifier {
  private readonly keySets = new Map<string, JWTVerifyGetKey>();

  constructor(
    private readonly options: AuthorizationServerOptions,
    private readonly store: AuthorizationServerStore,
  ) {}

  async verify(assertion: string | null, client: OAuthClient): Promise<JWTPayload & { sub: string }> {
    if (!assertion) throw new OAuthError('invalid_request', 'assertion is required');
    let header: { typ?: string };
    let unverified: JWTPayload;
    try {
      header = jose().decodeProtectedHeader(assertion);
      unverified = jose().decodeJwt(assertion);
    } catch {
      throw new OAuthError('invalid_grant', 'the assertion is not a JWT');
    }
    if (header.typ !== ID_JAG_TYPE) throw new OAuthError('invalid_grant', `the assertion's typ is not ${ID_JAG_TYPE}`);
    const keys = this.keysOf(unverified.iss);
    if (!keys)
      throw new OAuthError(
        'invalid_grant',
        `the assertion's issuer ${JSON.stringify(unverified.iss ?? null)} is not trusted`,
      );
    let payload: JWTPayload;
    try {
      ({ payload } = await jose().jwtVerify(assertion, keys, {
        issuer: unverified.iss,
        audience: [this.options.issuer, `${this.options.issuer}/`],
        typ: ID_JAG_TYPE,
        clockTolerance: CLOCK_SKEW_SEC,
        requiredClaims: ['sub', 'jti', 'exp', 'iat', 'client_id', 'resource'],
      }));
    } catch (error) {
      throw new OAuthError('invalid_grant', describe(error));
    }
    // jose checks `iat` only against a maximum age: an assertion dated ahead would outlive its issuer's intent.
    if ((payload.iat ?? 0) > Date.now() / 1000 + CLOCK_SKEW_SEC)
      throw new OAuthError('invalid_grant', "the assertion's iat is in the future");
    if (payload.resource !== this.options.resource)
      throw new OAuthError(
        'invalid_grant',
        `the assertion is for another resource (${JSON.stringify(payload.resource)})`,
      );
    if (payload.client_id !== client.clientId)
      throw new OAuthError('invalid_grant', 'the assertion was issued to another client');
    const ttlMs = ((payload.exp ?? 0) + CLOCK_SKEW_SEC) * 1000 - Date.now();
    if (!(await this.store.claim(`jti:${payload.iss}:${payload.jti}`, Math.max(ttlMs, 1000))))
      throw new OAuthError('invalid_grant', 'the assertion was already used (jti replay)');
    return payload as JWTPayload & { sub: string };
  }

  private keysOf(issuer: string | undefined): JWTVerifyGetKey | undefined {
    if (!issuer) return undefined;
    let keys = this.keySets.get(issuer);
    if (!keys) {
      const trusted = this.options.trustedIdps.find((idp) => idp.issuer === issuer);
      if (!trusted) return undefined;
      keys = remoteKeySet(jose(), trusted.jwksUri, `the keys of ${issuer}`);
      this.keySets.set(issuer, keys);
    }
    return keys;
  }
}

function describe(error: unknown): string {
  const errors = jose().errors;
  if (error instanceof errors.JWTExpired) return 'the assertion has expired';
  if (error instanceof errors.JWTClaimValidationFailed) {
    if (error.claim === 'aud') return 'the assertion is not meant for this authorization server (aud)';
    if (error.claim === 'typ') return `the assertion's typ is not ${ID_JAG_TYPE}`;
    return `the assertion's "${error.claim}" claim is missing or not valid`;
  }
  if (error instanceof errors.JWSSignatureVerificationFailed || error instanceof errors.JWKSNoMatchingKey)
    return 'the assertion signature is not valid';
  return 'the assertion is not valid';
}
