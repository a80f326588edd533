import { OutboundPolicies, tokenRefusal, tokenRequest, type OutboundPolicy } from '#libs/security';
import type { McpUpstreamOAuth } from '../options/upstream.options';

/** A token is renewed this long before it expires, so that no request carries one about to lapse. */
const RENEW_BEFORE_MS = 30_000;
/** A token without `expires_in` is kept this long. */
const DEFAULT_LIFETIME_MS = 5 * 60_000;
/** The most bytes of a token endpoint's answer (a token response is a few KB). */
const MAX_TOKEN_RESPONSE_BYTES = 64 * 1024;

/**
 * The gateway's own access token for an upstream, by the OAuth 2.1 client credentials grant
 * (RFC 6749 §4.4): asked for when first needed, kept until shortly before it expires, asked for
 * again after the upstream refused it. Concurrent callers share one token request. The client
 * authenticates with HTTP Basic (`client_secret_basic`); `resource` (RFC 8707) names the upstream
 * the token is for, so that it is valid there and nowhere else.
 *
 * @example
 * ```ts
 * const credentials = new ClientCredentials({ tokenUrl: 'https://idp.example/token', clientId: 'gateway', clientSecret: process.env.SECRET!, resource: 'https://wiki.example/mcp' });
 * headers.authorization = `Bearer ${await credentials.token()}`;
 * ```
 */
export class ClientCredentials {
  private current: { token: string; renewAt: number } | undefined;
  private pending: Promise<string> | undefined;

  /**
   * @param timeoutMs the longest a token request may take, answer included
   * @param reach where the token endpoint may be (default: a configured URL's policy)
   */
  constructor(
    private readonly options: McpUpstreamOAuth,
    private readonly timeoutMs: number,
    private readonly now: () => number = Date.now,
    private readonly reach: OutboundPolicy = OutboundPolicies.configured([options.tokenUrl]),
  ) {}

  /** A valid access token: the one kept, or a new one. @throws Error saying why the token endpoint refused */
  token(): Promise<string> {
    if (this.current && this.now() < this.current.renewAt) return Promise.resolve(this.current.token);
    this.pending ??= this.request().finally(() => (this.pending = undefined));
    return this.pending;
  }

  /** Forgets the token (the upstream refused it): the next call asks for a new one. */
  invalidate(): void {
    this.current = undefined;
  }

  private async request(): Promise<string> {
    const { tokenUrl, clientId, clientSecret, scope, resource } = this.options;
    const body = new URLSearchParams({ grant_type: 'client_credentials' });
    if (scope) body.set('scope', scope);
    if (resource) body.set('resource', resource);
    const answered = await tokenRequest(tokenUrl, { clientId, clientSecret }, body, {
      purpose: "the upstream's token endpoint",
      policy: this.reach,
      timeoutMs: this.timeoutMs,
      timeoutOption: 'the upstream’s timeoutMs',
      maxBytes: MAX_TOKEN_RESPONSE_BYTES,
    });
    const answer = answered.body;
    if (!answered.ok || typeof answer.access_token !== 'string')
      throw new Error(tokenRefusal('the token endpoint refused the client credentials', answered));
    const lifetime = typeof answer.expires_in === 'number' ? answer.expires_in * 1000 : DEFAULT_LIFETIME_MS;
    this.current = {
      token: answer.access_token,
      renewAt: this.now() + Math.max(lifetime - RENEW_BEFORE_MS, lifetime / 2),
    };
    return answer.access_token;
  }
}
