import { optionalDependency } from '#libs/core';
import { isLoopbackUrl } from '#libs/authorization-server';
import { outboundFetcher, OutboundPolicies } from '#libs/security';
import type { Configuration } from 'openid-client';
import type { McpConnectAuthorization } from '../options/downstream-credential.options';

const oidc = optionalDependency(
  'openid-client',
  "credential: { mode: 'user' }",
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  (): typeof import('openid-client') => require('openid-client'),
);

/** The longest a request to the authorization server may take, its answer included (openid-client's own default). */
const TIMEOUT_MS = 30_000;
/** The most bytes of one of its answers (its metadata, tokens: a few KB each). */
const MAX_BYTES = 1024 * 1024;

/** The tokens the API's authorization server gave for a person's account. */
export interface ApiTokens {
  accessToken: string;
  refreshToken: string | undefined;
  /** When the access token expires (ms since the epoch). */
  expiresAt: number;
  /** The account at the API (the ID token's `sub`, when it gave one). */
  account: string | null;
}

/**
 * The host as a confidential OAuth client of one API's authorization server (openid-client): the
 * authorization request with PKCE and state, the code redeemed, refresh, revocation.
 */
export class ApiAuthorization {
  private config: Promise<Configuration> | undefined;
  /** RFC 8707's `resource`, on the authorization request and every grant, when the API names one. */
  private readonly resource: Record<string, string>;

  constructor(
    private readonly authorization: Readonly<McpConnectAuthorization> & { scopes: string[] },
    private readonly callbackUrl: string,
  ) {
    this.resource = authorization.resource ? { resource: authorization.resource } : {};
  }

  async start(): Promise<{ url: string; state: string; codeVerifier: string }> {
    const client = oidc();
    const config = await this.configuration();
    const state = client.randomState();
    const codeVerifier = client.randomPKCECodeVerifier();
    const url = client.buildAuthorizationUrl(config, {
      redirect_uri: this.callbackUrl,
      ...(this.authorization.scopes.length > 0 && { scope: this.authorization.scopes.join(' ') }),
      state,
      code_challenge: await client.calculatePKCECodeChallenge(codeVerifier),
      code_challenge_method: 'S256',
      ...this.resource,
    });
    return { url: url.href, state, codeVerifier };
  }

  /** Redeems the code the authorization server sent back with. */
  async finish(search: string, checks: { state: string; codeVerifier: string }): Promise<ApiTokens> {
    const config = await this.configuration();
    const tokens = await oidc().authorizationCodeGrant(
      config,
      new URL(`${this.callbackUrl}${search}`),
      { pkceCodeVerifier: checks.codeVerifier, expectedState: checks.state },
      this.resource,
    );
    return tokensOf(tokens, undefined, tokens.claims()?.sub ?? null);
  }

  /** A new access token (and maybe a new refresh token) for a connection. */
  async refresh(refreshToken: string, account: string | null): Promise<ApiTokens> {
    const tokens = await oidc().refreshTokenGrant(await this.configuration(), refreshToken, this.resource);
    return tokensOf(tokens, refreshToken, account);
  }

  /** Tells the authorization server the token is no longer wanted (RFC 7009), when it has the endpoint. */
  async revoke(token: string): Promise<void> {
    const config = await this.configuration();
    if (!config.serverMetadata().revocation_endpoint) return;
    await oidc().tokenRevocation(config, token);
  }

  private configuration(): Promise<Configuration> {
    this.config ??= (async () => {
      const client = oidc();
      const { issuer, authorizationEndpoint, tokenEndpoint, revocationEndpoint, clientId, clientSecret } =
        this.authorization;
      const auth = client.ClientSecretBasic(clientSecret);
      const insecure = (url: string) => isLoopbackUrl(new URL(url));
      // Every request to the authorization server is guarded and bounded.
      const fetcher = outboundFetcher({
        purpose: "the API's authorization server",
        policy: OutboundPolicies.configured(
          [issuer, authorizationEndpoint, tokenEndpoint, revocationEndpoint],
          "the API's authorization server",
        ),
        timeoutMs: TIMEOUT_MS,
        maxBytes: MAX_BYTES,
      });
      if (issuer) {
        const config = await client.discovery(new URL(issuer), clientId, { client_secret: clientSecret }, auth, {
          [client.customFetch]: fetcher,
          ...(insecure(issuer) && { execute: [client.allowInsecureRequests] }),
        });
        return config;
      }
      const config = new client.Configuration(
        {
          issuer: new URL(tokenEndpoint!).origin,
          authorization_endpoint: authorizationEndpoint,
          token_endpoint: tokenEndpoint,
          ...(revocationEndpoint && { revocation_endpoint: revocationEndpoint }),
        },
        clientId,
        { client_secret: clientSecret },
        auth,
      );
      config[client.customFetch] = fetcher;
      if (insecure(tokenEndpoint!)) client.allowInsecureRequests(config);
      return config;
    })().catch((error: unknown) => {
      this.config = undefined;
      throw error;
    });
    return this.config;
  }
}

function tokensOf(
  tokens: { access_token: string; refresh_token?: string; expires_in?: number },
  previousRefresh: string | undefined,
  account: string | null,
): ApiTokens {
  return {
    accessToken: tokens.access_token,
    refreshToken: tokens.refresh_token ?? previousRefresh,
    expiresAt: Date.now() + (tokens.expires_in ?? 3600) * 1000,
    account: typeof account === 'string' ? account : null,
  };
}
