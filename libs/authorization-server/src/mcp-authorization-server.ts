import type { McpPrincipal } from '#libs/core';
import type { SecurityOptions } from '#libs/security';
import { ClientRegistry } from './clients/client-registry';
import type { OAuthClient } from './clients/oauth-client';
import { ConsentRegistry, type McpOAuthClientApproval, type McpOAuthConsent } from './consent/consent-registry';
import { GrantPolicy, type Entitlement } from './grants/grant-policy';
import { IdJagVerifier } from './grants/id-jag-verifier';
import { OAuthError } from './errors/oauth-error';
import { pkceMatches } from './grants/pkce';
import { TokenService, type GrantSubject, type McpOAuthGrant, type Recheck, type SignIn } from './grants/token-service';
import { CompanyIdpLogin, IdpRefused } from './idp/company-idp-login';
import { IdpSessionSeal } from './idp/idp-session-seal';
import { People, type Person } from './idp/people';
import { SigningKeys } from './keys/signing-keys';
import type { AuthorizationServerOptions } from './options/authorization-server.options';
import { AddressRate } from './state/address-rate';
import type { AuthorizationServerStore } from './state/authorization-server.store';
import { SignInFlow } from './sign-in-flow';
import type { BrowserAnswer, FacadeBrowser, TokenOutcome } from './browser-answer';

export type { BrowserAnswer, ConsentPrompt, ConsentsPage, FacadeBrowser, TokenOutcome } from './browser-answer';

export const JWT_BEARER = 'urn:ietf:params:oauth:grant-type:jwt-bearer';
/** The MCP extension the host advertises when it takes ID-JAGs. */
export const ENTERPRISE_MANAGED_AUTHORIZATION = 'io.modelcontextprotocol/enterprise-managed-authorization';

/**
 * The authorization server facade in front of the company IdP: RFC 8414 metadata, the
 * authorization code grant with PKCE and RFC 8707 `resource` (the person signs in at the IdP and
 * approves the client on the facade's own consent page), the refresh token grant with rotation
 * (each refresh checks the person at the IdP again), the JWT bearer grant with ID-JAGs of trusted
 * IdPs (enterprise-managed authorization), RFC 7591 registration, Client ID Metadata Documents,
 * RFC 7009 revocation, and the administrators' view of sign-ins, consents and client approvals.
 * The browser's side of a sign-in is `SignInFlow`; the HTTP side is `AuthorizationServerEndpoint`.
 */
export class McpAuthorizationServer {
  readonly clients: ClientRegistry;
  readonly consents: ConsentRegistry;
  /** The requests one client address may make of the facade's endpoints (`perAddress`); none counted when off. */
  readonly requests: AddressRate | undefined;
  private readonly tokens: TokenService;
  private readonly idJag: IdJagVerifier;
  private readonly login: CompanyIdpLogin;
  private readonly policy: GrantPolicy;
  private readonly people: People;
  private readonly seal: IdpSessionSeal;
  private readonly flow: SignInFlow;

  constructor(
    readonly options: AuthorizationServerOptions,
    store: AuthorizationServerStore,
    security: SecurityOptions,
    readonly keys: SigningKeys,
  ) {
    this.clients = new ClientRegistry(options, store);
    this.consents = new ConsentRegistry(options, store);
    const rate = options.perAddress;
    this.requests = rate
      ? new AddressRate(
          store,
          'reqrate:',
          rate,
          (retryAfterSec) =>
            `this address made ${rate.limit} requests of the authorization server in the last ${rate.windowSec} s ` +
            `(authorizationServer.perAddress): try again in ${retryAfterSec} s`,
        )
      : undefined;
    this.tokens = new TokenService(options, store, keys);
    this.idJag = new IdJagVerifier(options, store);
    this.login = new CompanyIdpLogin(options.idp, options.endpoints.callback);
    const auth = security.auth.mode === 'oauth' ? security.auth : undefined;
    this.policy = new GrantPolicy(options, auth?.claims, auth?.rolesClaim);
    this.people = new People(options);
    this.seal = new IdpSessionSeal(options.idp);
    this.flow = new SignInFlow(options, store, {
      clients: this.clients,
      consents: this.consents,
      login: this.login,
      signedIn: (claims, asked) => this.signedIn(this.options.idp.issuer, claims, [asked]),
      seal: this.seal,
      endSignIns: (filter) => this.tokens.revoke(filter),
    });
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
   * The authorization endpoint: checks the client, its redirect URI, PKCE and the resource (and,
   * with `consent.approvedClientsOnly`, an administrator's approval of the client), then sends
   * the person to the IdP. Errors about the client or its redirect URI are shown, not redirected.
   */
  authorize(query: URLSearchParams, browser: FacadeBrowser): Promise<BrowserAnswer> {
    return this.flow.authorize(query, browser);
  }

  /** The IdP sent the person back: the consent page, or (approved before) the client's code. */
  callback(query: URLSearchParams, search: string, browser: FacadeBrowser): Promise<BrowserAnswer> {
    return this.flow.callback(query, search, browser);
  }

  /** The person's answer on the consent page (POST): the client's code, or `access_denied`. */
  consent(form: URLSearchParams, browser: FacadeBrowser): Promise<BrowserAnswer> {
    return this.flow.decide(form, browser);
  }

  /** The person's own page (GET, behind an IdP sign-in) and their revocation of an approval (POST). */
  ownConsents(browser: FacadeBrowser, form?: URLSearchParams): Promise<BrowserAnswer> {
    return this.flow.ownConsents(browser, form);
  }

  /** The token endpoint, after the client is authenticated. */
  async token(client: OAuthClient, form: URLSearchParams): Promise<TokenOutcome> {
    const resources = form.getAll('resource');
    if (resources.some((resource) => resource !== this.options.resource))
      throw new OAuthError(
        'invalid_target',
        `this authorization server issues tokens for ${this.options.resource} only`,
      );
    switch (form.get('grant_type')) {
      case 'authorization_code': {
        const code = await this.flow.redeem(form.get('code'));
        if (code.clientId !== client.clientId)
          throw new OAuthError('invalid_grant', 'the code was issued to another client').about(code.subject.sub);
        if (form.get('redirect_uri') !== null && form.get('redirect_uri') !== code.redirectUri)
          throw new OAuthError('invalid_grant', 'redirect_uri differs from the authorization request').about(
            code.subject.sub,
          );
        if (!pkceMatches(form.get('code_verifier'), code.codeChallenge))
          throw new OAuthError('invalid_grant', 'code_verifier does not match the code_challenge (PKCE)').about(
            code.subject.sub,
          );
        const tokens = await this.tokens.signIn(client, code.subject, {
          asked: code.entitlement.asked,
          idpSession: code.idpSession,
        });
        return { tokens, subject: code.subject.sub, entitlement: code.entitlement };
      }
      case 'refresh_token': {
        let entitlement: Entitlement | undefined;
        const refreshed = await this.tokens.refresh(client, form.get('refresh_token'), async (grant) => {
          const recheck = await this.recheck(grant);
          if (recheck.ok) entitlement = recheck.entitlement;
          return recheck;
        });
        return { tokens: refreshed.tokens, subject: refreshed.subject, entitlement };
      }
      case JWT_BEARER: {
        if (this.options.trustedIdps.length === 0)
          throw new OAuthError('unsupported_grant_type', 'no identity provider is trusted for ID-JAGs');
        const assertion = await this.idJag.verify(form.get('assertion'), client);
        const { subject, entitlement } = this.signedIn(String(assertion.iss), assertion as Record<string, unknown>, [
          scopesOf(assertion.scope),
          scopesOf(form.get('scope')),
        ]);
        return { tokens: await this.tokens.issue(client, subject), subject: subject.sub, entitlement };
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
    const asked = scopesOf(scope);
    const scopes = asked ? caller.scopes.filter((granted) => asked.includes(granted)) : [...caller.scopes];
    return this.tokens.exchange({ sub: caller.id, scopes, roles: [...caller.roles] }, audience);
  }

  /** RFC 7009; returns the person whose sign-in ended, if one did. */
  revokeToken(client: OAuthClient, token: string | null): Promise<string | undefined> {
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

  /** The approvals people gave clients (the admin API). */
  consentList(): Promise<McpOAuthConsent[]> {
    return this.consents.list();
  }

  /**
   * Forgets the approvals of a person, of a client, or of one person for one client (the admin
   * API), and ends the sign-ins they let in; returns how many of each.
   */
  async revokeConsents(filter: {
    subject?: string;
    clientId?: string;
  }): Promise<{ consents: number; signIns: number }> {
    const forgotten = await this.consents.revoke(filter);
    return { consents: forgotten.length, signIns: await this.tokens.revoke(filter) };
  }

  /** The clients administrators approved and those waiting for them (`consent.approvedClientsOnly`). */
  clientApprovals(): Promise<{ approved: McpOAuthClientApproval[]; requested: McpOAuthClientApproval[] }> {
    return this.consents.clients();
  }

  /**
   * An administrator approves a client (people may consent to it) or withdraws the approval (its
   * sign-ins end, the approvals people gave it are forgotten); `undefined` when there is no such
   * client to approve, or no approval or request to withdraw.
   */
  async decideClient(
    clientId: string,
    decision: 'approve' | 'withdraw',
    by: string,
  ): Promise<{ clientId: string; approved: boolean; signInsEnded: number } | undefined> {
    if (decision === 'approve') {
      const client = await this.clients.find(clientId).catch((error: unknown) => {
        if (error instanceof OAuthError) return undefined;
        throw error;
      });
      if (!client) return undefined;
      await this.consents.approve(client, by);
      return { clientId, approved: true, signInsEnded: 0 };
    }
    if (!(await this.consents.withdraw(clientId))) return undefined;
    const { signIns } = await this.revokeConsents({ clientId });
    return { clientId, approved: false, signInsEnded: signIns };
  }

  /** The person the IdP (or a trusted IdP's ID-JAG) vouched for, with what they may have. */
  private signedIn(
    issuer: string,
    claims: Record<string, unknown>,
    asks: (string[] | null)[],
  ): { person: Person; subject: GrantSubject; entitlement: Entitlement } {
    const person = this.people.of(issuer, String(claims.sub));
    const entitlement = this.policy.decide(claims, ...asks);
    return { person, subject: this.subjectOf(person, claims, entitlement), entitlement };
  }

  private subjectOf(person: Person, claims: Record<string, unknown>, entitlement: Entitlement): GrantSubject {
    return {
      sub: person.id,
      scopes: entitlement.scopes,
      roles: entitlement.roles,
      idp: person.issuer,
      idpSub: person.sub,
      ...(typeof claims.name === 'string' && { name: claims.name }),
      ...(typeof claims.email === 'string' && { email: claims.email }),
    };
  }

  /** A refresh: the person as their IdP sees them now, mapped again (a group they left no longer counts). */
  private async recheck(grant: Readonly<SignIn>): Promise<Recheck & { entitlement?: Entitlement }> {
    const person = this.people.of(grant.idp, grant.idpSub);
    const session = grant.idpSession ? this.seal.open(grant.idpSession, person) : undefined;
    if (!session) return { ok: false, refused: 'the sign-in holds no identity provider token this server can use' };
    let now;
    try {
      now = await this.login.recheck(session, grant.idpSub);
    } catch (error) {
      if (error instanceof IdpRefused) return { ok: false, refused: error.message };
      return { ok: false, unavailable: (error as Error).message };
    }
    const entitlement = this.policy.decide(now.claims, grant.asked);
    return {
      ok: true,
      subject: this.subjectOf(person, now.claims, entitlement),
      idpSession: this.seal.seal(now, person),
      entitlement,
    };
  }
}

/** A space-separated scope list as a list (`null` when absent). */
function scopesOf(scope: unknown): string[] | null {
  return typeof scope === 'string' ? scope.split(' ').filter(Boolean) : null;
}
