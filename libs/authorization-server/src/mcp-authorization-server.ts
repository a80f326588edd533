import { randomBytes } from 'node:crypto';
import type { McpPrincipal } from '#libs/core';
import { ClaimsMapper, type SecurityOptions } from '#libs/security';
import { ClientRegistry } from './clients/client-registry';
import { allowsRedirect, type OAuthClient } from './clients/oauth-client';
import { IdJagVerifier } from './grants/id-jag-verifier';
import { OAuthError } from './errors/oauth-error';
import { pkceMatches } from './grants/pkce';
import { TokenService, type GrantSubject, type McpOAuthGrant, type TokenResponse } from './grants/token-service';
import { CompanyIdpLogin } from './idp/company-idp-login';
import { SigningKeys } from './keys/signing-keys';
import type { AuthorizationServerOptions } from './options/authorization-server.options';
import type { AuthorizationServerStore } from './state/authorization-server.store';

export const JWT_BEARER = 'urn:ietf:params:oauth:grant-type:jwt-bearer';
/** The MCP extension the host advertises when it takes ID-JAGs. */
export const ENTERPRISE_MANAGED_AUTHORIZATION = 'io.modelcontextprotocol/enterprise-managed-authorization';

const PENDING_TTL_MS = 10 * 60_000;
const CODE_TTL_MS = 60_000;

/** An authorization request, checked, waiting for the person to come back from the IdP. */
interface PendingAuthorization {
  clientId: string;
  redirectUri: string;
  state: string | null;
  codeChallenge: string;
  scopes: string[] | null;
  nonce: string;
  codeVerifier: string;
  idpState: string;
}

interface IssuedCode {
  clientId: string;
  redirectUri: string;
  codeChallenge: string;
  subject: GrantSubject;
}

/** Where a browser goes next: a redirect, or a page that says what went wrong (never a redirect to an unchecked URI). */
export type BrowserAnswer = { redirect: string } | { status: number; error: string; description: string };

/**
 * The authorization server facade in front of the company IdP: RFC 8414 metadata, the
 * authorization code grant with PKCE and RFC 8707 `resource` (the person signs in at the IdP),
 * the refresh token grant with rotation, the JWT bearer grant with ID-JAGs of trusted IdPs
 * (enterprise-managed authorization), RFC 7591 registration, Client ID Metadata Documents,
 * RFC 7009 revocation, and the admin's view of sign-ins. The HTTP side is `AuthorizationServerEndpoint`.
 */
export class McpAuthorizationServer {
  readonly clients: ClientRegistry;
  private readonly tokens: TokenService;
  private readonly idJag: IdJagVerifier;
  private readonly login: CompanyIdpLogin;
  private readonly claims: ClaimsMapper;

  constructor(
    readonly options: AuthorizationServerOptions,
    private readonly store: AuthorizationServerStore,
    security: SecurityOptions,
    readonly keys: SigningKeys,
  ) {
    this.clients = new ClientRegistry(options, store);
    this.tokens = new TokenService(options, store, keys);
    this.idJag = new IdJagVerifier(options, store);
    this.login = new CompanyIdpLogin(options.idp, options.endpoints.callback);
    const auth = security.auth.mode === 'oauth' ? security.auth : undefined;
    this.claims = new ClaimsMapper(auth?.claims, auth?.rolesClaim);
  }

  /** RFC 8414 authorization server metadata. */
  metadata(): Record<string, unknown> {
    const { endpoints, trustedIdps, dynamicRegistration, clientMetadataDocuments, scopesSupported } = this.options;
    return {
      issuer: this.options.issuer,
      authorization_endpoint: endpoints.authorize,
      token_endpoint: endpoints.token,
      jwks_uri: endpoints.jwks,
      revocation_endpoint: endpoints.revoke,
      ...(dynamicRegistration && { registration_endpoint: endpoints.register }),
      response_types_supported: ['code'],
      response_modes_supported: ['query'],
      grant_types_supported: ['authorization_code', 'refresh_token', ...(trustedIdps.length > 0 ? [JWT_BEARER] : [])],
      code_challenge_methods_supported: ['S256'],
      token_endpoint_auth_methods_supported: ['none', 'client_secret_basic', 'client_secret_post'],
      revocation_endpoint_auth_methods_supported: ['none', 'client_secret_basic', 'client_secret_post'],
      client_id_metadata_document_supported: clientMetadataDocuments !== false,
      authorization_response_iss_parameter_supported: true,
      ...(scopesSupported && { scopes_supported: scopesSupported }),
    };
  }

  /**
   * The authorization endpoint: checks the client, its redirect URI, PKCE and the resource, then
   * sends the person to the IdP. Errors about the client or its redirect URI are shown, not redirected.
   */
  async authorize(query: URLSearchParams): Promise<BrowserAnswer> {
    let client: OAuthClient;
    try {
      client = await this.clients.find(query.get('client_id') ?? undefined);
    } catch (error) {
      if (error instanceof OAuthError) return { status: 400, error: error.error, description: error.description };
      throw error;
    }
    const redirectUri = query.get('redirect_uri') ?? (client.redirectUris.length === 1 ? client.redirectUris[0] : '');
    if (!allowsRedirect(client, redirectUri))
      return {
        status: 400,
        error: 'invalid_request',
        description: `redirect_uri is not one of the client's (${client.kind})`,
      };
    const state = query.get('state');
    const back = (error: string, description: string) => ({
      redirect: this.redirect(redirectUri, { error, error_description: description, state }),
    });
    if (query.get('response_type') !== 'code')
      return back('unsupported_response_type', 'only response_type=code is supported');
    const codeChallenge = query.get('code_challenge');
    if (!codeChallenge || query.get('code_challenge_method') !== 'S256')
      return back('invalid_request', 'PKCE is required: code_challenge with code_challenge_method=S256');
    const resources = query.getAll('resource');
    if (resources.some((resource) => resource !== this.options.resource))
      return back('invalid_target', `this authorization server issues tokens for ${this.options.resource} only`);
    const scope = query.get('scope');
    const signIn = await this.login.start();
    const pending: PendingAuthorization = {
      clientId: client.clientId,
      redirectUri,
      state,
      codeChallenge,
      scopes: scope ? scope.split(' ').filter(Boolean) : null,
      nonce: signIn.nonce,
      codeVerifier: signIn.codeVerifier,
      idpState: signIn.state,
    };
    await this.store.put(`pending:${signIn.state}`, JSON.stringify(pending), PENDING_TTL_MS);
    return { redirect: signIn.url };
  }

  /** The IdP sent the person back: validate the ID token, map its claims, and send the client its code. */
  async callback(
    query: URLSearchParams,
    search: string,
  ): Promise<BrowserAnswer & { subject?: string; clientId?: string }> {
    const stored = await this.store.take(`pending:${query.get('state') ?? ''}`);
    if (!stored)
      return {
        status: 400,
        error: 'invalid_request',
        description: 'unknown or expired sign-in: start again from the client',
      };
    const pending = JSON.parse(stored) as PendingAuthorization;
    const back = (params: Record<string, string | null>) => ({
      redirect: this.redirect(pending.redirectUri, { ...params, state: pending.state }),
      clientId: pending.clientId,
    });
    if (query.get('error'))
      return back({
        error: 'access_denied',
        error_description: `the identity provider said: ${query.get('error_description') ?? query.get('error')}`,
      });
    let claims: Record<string, unknown>;
    try {
      claims = await this.login.finish(search, {
        state: pending.idpState,
        nonce: pending.nonce,
        codeVerifier: pending.codeVerifier,
      });
    } catch (error) {
      return back({
        error: 'access_denied',
        error_description: `the sign-in at the identity provider failed: ${(error as Error).message}`,
      });
    }
    const subject = this.subjectOf(claims, this.options.idp.issuer, pending.scopes);
    const code = randomBytes(32).toString('base64url');
    const issued: IssuedCode = {
      clientId: pending.clientId,
      redirectUri: pending.redirectUri,
      codeChallenge: pending.codeChallenge,
      subject,
    };
    await this.store.put(`code:${code}`, JSON.stringify(issued), CODE_TTL_MS);
    return { ...back({ code }), subject: subject.sub };
  }

  /** The token endpoint, after the client is authenticated. */
  async token(client: OAuthClient, form: URLSearchParams): Promise<{ tokens: TokenResponse; subject: string }> {
    const resources = form.getAll('resource');
    if (resources.some((resource) => resource !== this.options.resource))
      throw new OAuthError(
        'invalid_target',
        `this authorization server issues tokens for ${this.options.resource} only`,
      );
    switch (form.get('grant_type')) {
      case 'authorization_code': {
        const stored = await this.store.take(`code:${form.get('code') ?? ''}`);
        if (!stored)
          throw new OAuthError('invalid_grant', 'the authorization code is unknown, expired or already used');
        const code = JSON.parse(stored) as IssuedCode;
        if (code.clientId !== client.clientId)
          throw new OAuthError('invalid_grant', 'the code was issued to another client');
        if (form.get('redirect_uri') !== null && form.get('redirect_uri') !== code.redirectUri)
          throw new OAuthError('invalid_grant', 'redirect_uri differs from the authorization request');
        if (!pkceMatches(form.get('code_verifier'), code.codeChallenge))
          throw new OAuthError('invalid_grant', 'code_verifier does not match the code_challenge (PKCE)');
        return { tokens: await this.tokens.issue(client, code.subject, true), subject: code.subject.sub };
      }
      case 'refresh_token':
        return this.tokens.refresh(client, form.get('refresh_token'));
      case JWT_BEARER: {
        if (this.options.trustedIdps.length === 0)
          throw new OAuthError('unsupported_grant_type', 'no identity provider is trusted for ID-JAGs');
        const assertion = await this.idJag.verify(form.get('assertion'), client);
        const asked = typeof assertion.scope === 'string' ? assertion.scope.split(' ').filter(Boolean) : null;
        const subject = this.subjectOf(assertion as Record<string, unknown>, String(assertion.iss), null, asked ?? []);
        return { tokens: await this.tokens.issue(client, subject, false), subject: subject.sub };
      }
      default:
        throw new OAuthError(
          'unsupported_grant_type',
          `grant_type ${JSON.stringify(form.get('grant_type'))} is not supported`,
        );
    }
  }

  /**
   * A token for a downstream `audience` with `caller` as subject and the host as actor (RFC 8693
   * at the facade, in process). Only for a caller this facade signed in (its own token's `iss`).
   * @param scope the scopes asked (space-separated): those of the caller's it names; all of them when absent
   * @throws Error when the caller did not come through this facade
   */
  exchange(
    caller: McpPrincipal,
    audience: string,
    scope?: string,
  ): Promise<{ accessToken: string; expiresIn: number; actor: string }> {
    if (caller.claims.iss !== this.options.issuer)
      throw new Error(`the caller ${caller.id} did not sign in through this authorization server`);
    const asked = scope?.split(' ').filter(Boolean);
    const scopes = asked ? caller.scopes.filter((granted) => asked.includes(granted)) : [...caller.scopes];
    return this.tokens.exchange({ sub: caller.id, scopes, roles: [...caller.roles] }, audience);
  }

  revokeToken(client: OAuthClient, token: string | null): Promise<void> {
    return this.tokens.revokeToken(client, token);
  }

  /** The sign-ins alive now, newest first (the admin API). */
  grants(): Promise<McpOAuthGrant[]> {
    return this.tokens.grants();
  }

  /** Ends the sign-ins of a person, a client, or one sign-in (the admin API); returns how many. */
  revoke(filter: { subject?: string; clientId?: string; grantId?: string }): Promise<number> {
    return this.tokens.revoke(filter);
  }

  /**
   * The host's scopes and roles for a person the IdP vouched for: the claims mapped, narrowed to
   * what the client asked for when it asked; `granted` adds scopes the IdP itself granted for
   * this resource (an ID-JAG's `scope`).
   */
  private subjectOf(
    claims: Record<string, unknown>,
    idp: string,
    asked: string[] | null,
    granted: string[] = [],
  ): GrantSubject {
    const mapped = new Set([...this.claims.scopesOf(claims), ...granted]);
    const scopes = asked ? asked.filter((scope) => mapped.has(scope)) : [...mapped];
    return {
      sub: String(claims.sub),
      scopes,
      roles: this.claims.rolesOf(claims),
      idp,
      ...(typeof claims.name === 'string' && { name: claims.name }),
      ...(typeof claims.email === 'string' && { email: claims.email }),
    };
  }

  private redirect(uri: string, params: Record<string, string | null>): string {
    const url = new URL(uri);
    for (const [key, value] of Object.entries({ ...params, iss: this.options.issuer }))
      if (value !== null) url.searchParams.set(key, value);
    return url.href;
  }
}
