import { optionalDependency } from '#libs/core';
import { outboundFetcher, OutboundPolicies } from '#libs/security';
import type { Configuration } from 'openid-client';
import type { McpCompanyIdp } from '../options/authorization-server.options';
import { isLoopbackUrl } from '../options/authorization-server.options';

/** openid-client, loaded by hosts that run an authorization server only (ESM-only, like jose). */
const oidc = optionalDependency(
  'openid-client',
  'authorizationServer',
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  (): typeof import('openid-client') => require('openid-client'),
);

/** The longest a request to the IdP may take, its answer included (openid-client's own default). */
const IDP_TIMEOUT_MS = 30_000;
/** The most bytes of one of the IdP's answers (its metadata, keys, tokens: a few KB each). */
const IDP_MAX_BYTES = 1024 * 1024;

/** What the facade keeps of a sign-in it sent to the IdP, until the IdP sends the person back. */
export interface IdpSignIn {
  url: string;
  state: string;
  nonce: string;
  codeVerifier: string;
}

/**
 * The host as a confidential OpenID Connect client of the company IdP (openid-client, a
 * certified relying party): the sign-in request (authorization code with PKCE, state and nonce),
 * and the callback, whose ID token it validates (signature, issuer, audience, nonce, expiry)
 * before the facade reads a single claim.
 */
export class CompanyIdpLogin {
  private config: Promise<Configuration> | undefined;

  constructor(
    private readonly idp: Required<McpCompanyIdp>,
    private readonly callbackUrl: string,
  ) {}

  /** Reads the IdP's discovery document (once; again after a failure). */
  private configuration(): Promise<Configuration> {
    this.config ??= (async () => {
      const client = oidc();
      const issuer = new URL(this.idp.issuer);
      // Every request to the IdP (its metadata, keys and token endpoint) is guarded and bounded.
      const fetcher = outboundFetcher({
        purpose: 'the company IdP',
        policy: OutboundPolicies.configured([issuer], 'the company IdP'),
        timeoutMs: IDP_TIMEOUT_MS,
        maxBytes: IDP_MAX_BYTES,
      });
      const config = await client.discovery(
        issuer,
        this.idp.clientId,
        { client_secret: this.idp.clientSecret },
        client.ClientSecretBasic(this.idp.clientSecret),
        {
          [client.customFetch]: fetcher,
          ...(isLoopbackUrl(issuer) && { execute: [client.allowInsecureRequests] }),
        },
      );
      return config;
    })().catch((error: unknown) => {
      this.config = undefined;
      throw error;
    });
    return this.config;
  }

  async start(): Promise<IdpSignIn> {
    const client = oidc();
    const config = await this.configuration();
    const state = client.randomState();
    const nonce = client.randomNonce();
    const codeVerifier = client.randomPKCECodeVerifier();
    const url = client.buildAuthorizationUrl(config, {
      redirect_uri: this.callbackUrl,
      scope: this.idp.scopes.join(' '),
      state,
      nonce,
      code_challenge: await client.calculatePKCECodeChallenge(codeVerifier),
      code_challenge_method: 'S256',
    });
    return { url: url.href, state, nonce, codeVerifier };
  }

  /** The ID token's claims of the person the IdP sent back, validated. */
  async finish(query: string, signIn: Omit<IdpSignIn, 'url'>): Promise<Record<string, unknown>> {
    return (await this.complete(query, signIn)).claims;
  }

  /** The person the IdP sent back (the ID token's claims, validated) and the IdP's tokens for them. */
  async complete(query: string, signIn: Omit<IdpSignIn, 'url'>): Promise<IdpSession> {
    const config = await this.configuration();
    const tokens = await oidc().authorizationCodeGrant(config, new URL(`${this.callbackUrl}${query}`), {
      pkceCodeVerifier: signIn.codeVerifier,
      expectedState: signIn.state,
      expectedNonce: signIn.nonce,
      idTokenExpected: true,
    });
    return sessionOf(tokens, { ...tokens.claims() } as Record<string, unknown>);
  }

  /**
   * The person again, as the IdP sees them now: its refresh token redeemed (the claims of the ID
   * token it returns, or of userinfo), or, without one, userinfo with its access token.
   * @throws IdpRefused when the IdP no longer accepts the sign-in (the person left, was disabled,
   *   the grant was revoked); any other error when it could not be asked
   */
  async recheck(session: Pick<IdpSession, 'refreshToken' | 'accessToken'>, sub: string): Promise<IdpSession> {
    const client = oidc();
    const config = await this.configuration();
    try {
      if (!session.refreshToken) {
        const info = await client.fetchUserInfo(config, session.accessToken, sub);
        return { ...session, claims: { ...info } };
      }
      const tokens = await client.refreshTokenGrant(config, session.refreshToken);
      const claims = tokens.claims()
        ? ({ ...tokens.claims() } as Record<string, unknown>)
        : { ...(await client.fetchUserInfo(config, tokens.access_token, sub)) };
      if (claims.sub !== sub) throw new IdpRefused(`the identity provider answered for another subject`);
      return sessionOf(tokens, claims, session.refreshToken);
    } catch (error) {
      if (error instanceof IdpRefused) throw error;
      const { ResponseBodyError, WWWAuthenticateChallengeError } = client;
      if (error instanceof ResponseBodyError && error.status >= 400 && error.status < 500)
        throw new IdpRefused(`${error.error}${error.error_description ? `: ${error.error_description}` : ''}`);
      if (error instanceof WWWAuthenticateChallengeError && error.status === 401)
        throw new IdpRefused('its userinfo endpoint refused the access token');
      throw error;
    }
  }
}

/** The IdP no longer accepts a sign-in: the facade ends it. */
export class IdpRefused extends Error {}

/** A person signed in at the IdP: their claims, and the IdP's tokens for them (kept sealed by the facade). */
export interface IdpSession {
  claims: Record<string, unknown>;
  accessToken: string;
  refreshToken?: string;
}

function sessionOf(
  tokens: { access_token: string; refresh_token?: string },
  claims: Record<string, unknown>,
  previousRefreshToken?: string,
): IdpSession {
  const refreshToken = tokens.refresh_token ?? previousRefreshToken;
  return { claims, accessToken: tokens.access_token, ...(refreshToken && { refreshToken }) };
}
