import type { IncomingHttpHeaders } from 'node:http';
import type { JWTPayload, JWTVerifyGetKey } from 'jose';
import { ANONYMOUS_PRINCIPAL, optionalDependency, type McpPrincipal } from '#libs/core';
import { keyDigest, sameDigest, storedDigest } from './api-key';
import type { McpApiKeyAuth, McpAuthOptions, McpOAuthAuth } from './auth-options.interface';
import type { AuthResult } from './auth-result';
import { ClaimsMapper } from './claims-mapping';
import { remoteKeySet } from './remote-key-set';
import type { LocalTokenKeys } from './local-token-keys';

/** jose is loaded only by hosts in OAuth mode (it is ESM-only: Node >= 20.19 requires it as ESM). */
// eslint-disable-next-line @typescript-eslint/no-require-imports
const jose = optionalDependency('jose', "auth: { mode: 'oauth' }", (): typeof import('jose') => require('jose'));

/**
 * Who sent a request: checks its credentials (API key or OAuth JWT) and returns the principal,
 * or a refusal that says what is missing. Credentials are read from headers only; tokens are
 * never taken from query strings and never forwarded.
 */
export class Authenticator {
  private readonly jwks: JWTVerifyGetKey | undefined;
  /** The token's scopes and roles: the host's own as its authorization server wrote them, or the IdP's mapped. */
  private readonly claims: ClaimsMapper | undefined;
  /** The configured API keys with their digests decoded once. */
  private readonly keys: { digest: Buffer; key: McpApiKeyAuth['keys'][number] }[];
  /** The principal of every caller when authentication is off. */
  readonly unauthenticated: McpPrincipal;

  /**
   * @param localKeys the keys of the host's own authorization server, when it runs one: its
   * tokens are checked with them in process, and carry the host's scopes and roles as they are
   */
  constructor(
    private readonly options: McpAuthOptions,
    localKeys?: LocalTokenKeys,
  ) {
    const fixed = options.mode === 'none' ? options.principal : undefined;
    this.unauthenticated = fixed
      ? { id: fixed.id, scopes: fixed.scopes ?? [], roles: fixed.roles ?? [], claims: {} }
      : ANONYMOUS_PRINCIPAL;
    // jose caches the key set and refetches it when a token names an unknown `kid`.
    this.keys = options.mode === 'apiKey' ? options.keys.map((key) => ({ digest: storedDigest(key.hash), key })) : [];
    this.jwks =
      options.mode !== 'oauth'
        ? undefined
        : localKeys
          ? localKeys.getKey
          : remoteKeySet(jose(), options.jwksUri!, "the token issuer's keys");
    this.claims =
      options.mode !== 'oauth'
        ? undefined
        : localKeys
          ? new ClaimsMapper({ scopes: { from: ['scope'] }, roles: { from: ['roles'] } })
          : new ClaimsMapper(options.claims, options.rolesClaim);
  }

  get mode(): McpAuthOptions['mode'] {
    return this.options.mode;
  }

  /**
   * The caller of a request, or why not.
   * @param audience (OAuth) the one audience a token must name, instead of the host's resource
   *   (`audiences`): a composed virtual server with an OAuth resource of its own (RFC 8707)
   */
  async authenticate(headers: IncomingHttpHeaders, audience?: string): Promise<AuthResult> {
    switch (this.options.mode) {
      case 'none':
        return { ok: true, principal: this.unauthenticated };
      case 'apiKey':
        return this.apiKey(headers);
      case 'oauth':
        return this.jwt(this.options, headers, audience);
    }
  }

  private apiKey(headers: IncomingHttpHeaders): AuthResult {
    const key = bearer(headers) ?? single(headers['x-api-key']);
    if (!key)
      return {
        ok: false,
        status: 401,
        description: 'No API key: send Authorization: Bearer <key> or X-API-Key: <key>',
      };
    const digest = keyDigest(key);
    // Compare against every key so the time taken does not depend on which one matches.
    let found: McpApiKeyAuth['keys'][number] | undefined;
    for (const candidate of this.keys) if (sameDigest(candidate.digest, digest)) found = candidate.key;
    if (!found) return { ok: false, status: 401, error: 'invalid_token', description: 'The API key is not valid' };
    if (found.expiresAt && Date.parse(found.expiresAt) <= Date.now()) {
      return { ok: false, status: 401, error: 'invalid_token', description: 'The API key has expired' };
    }
    return {
      ok: true,
      principal: { id: found.principal, scopes: found.scopes ?? [], roles: found.roles ?? [], claims: {} },
    };
  }

  private async jwt(options: McpOAuthAuth, headers: IncomingHttpHeaders, audience?: string): Promise<AuthResult> {
    const token = bearer(headers);
    if (!token)
      return {
        ok: false,
        status: 401,
        description: 'No bearer token: send Authorization: Bearer <access token>',
        scope: options.requiredScopes,
      };
    let payload: JWTPayload;
    try {
      ({ payload } = await jose().jwtVerify(token, this.jwks!, {
        issuer: options.issuer,
        audience: audience !== undefined ? [audience] : [options.resource, ...(options.audiences ?? [])],
        clockTolerance: options.clockSkewSec ?? 30,
      }));
    } catch (error) {
      return { ok: false, status: 401, error: 'invalid_token', description: describeJwtError(error) };
    }
    const scopes = this.claims!.scopesOf(payload);
    const missing = (options.requiredScopes ?? []).filter((scope) => !scopes.includes(scope));
    if (missing.length > 0) {
      return {
        ok: false,
        status: 403,
        error: 'insufficient_scope',
        description: `The token lacks scope(s): ${missing.join(' ')}`,
        scope: options.requiredScopes,
      };
    }
    return {
      ok: true,
      principal: {
        id: String(payload.sub ?? 'unknown'),
        scopes,
        roles: this.claims!.rolesOf(payload),
        claims: payload,
      },
    };
  }
}

function single(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value || undefined;
}

function bearer(headers: IncomingHttpHeaders): string | undefined {
  const match = /^Bearer\s+(\S+)$/i.exec(headers.authorization ?? '');
  return match?.[1];
}

function describeJwtError(error: unknown): string {
  const joseErrors = jose().errors;
  if (error instanceof joseErrors.JWTExpired) return 'The token has expired';
  if (error instanceof joseErrors.JWTClaimValidationFailed) {
    if (error.claim === 'aud') return 'The token is not meant for this server (audience)';
    if (error.claim === 'iss') return 'The token comes from an issuer this server does not trust';
    return `The token's "${error.claim}" claim is not valid`;
  }
  if (error instanceof joseErrors.JWSSignatureVerificationFailed || error instanceof joseErrors.JWKSNoMatchingKey)
    return 'The token signature is not valid';
  return 'The token is not valid';
}
