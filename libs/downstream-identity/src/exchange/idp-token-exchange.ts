import {
  outboundFetch,
  OutboundPolicies,
  tokenRefusal,
  tokenRequest,
  type OutboundPolicy,
  type OutboundRequestOptions,
} from '#libs/security';

/** The most bytes of the IdP's discovery document or token response (each a few KB). */
const MAX_ANSWER_BYTES = 256 * 1024;

/** What an exchange returned: the token, how long it lives, and who acted (the token's `act.sub`). */
export interface ExchangedToken {
  accessToken: string;
  expiresIn: number;
  actor: string | null;
  /** Whom the downstream sees: the token's `sub`, read once when it is exchanged (for the audit record). */
  subject?: string;
}

const TOKEN_EXCHANGE = 'urn:ietf:params:oauth:grant-type:token-exchange';
const ACCESS_TOKEN = 'urn:ietf:params:oauth:token-type:access_token';

/**
 * RFC 8693 at the company IdP: the caller's access token (the IdP's own) as the subject token,
 * the host authenticated as its client (the actor); the IdP answers with a token for the
 * audience. The token endpoint comes from the IdP's discovery document, read once.
 */
export class IdpTokenExchange {
  private tokenEndpoint: Promise<string> | undefined;
  /** The issuer is the operator's URL; the token endpoint its discovery document's. */
  private readonly reach: { issuer: OutboundPolicy; discovered: OutboundPolicy };

  constructor(
    private readonly idp: { issuer: string; clientId: string; clientSecret: string },
    private readonly timeoutMs = 10_000,
  ) {
    this.reach = {
      issuer: OutboundPolicies.configured([idp.issuer], 'the identity provider'),
      discovered: OutboundPolicies.discovered("the identity provider's token endpoint"),
    };
  }

  /** How one request to the IdP is bounded. */
  private limits(purpose: string, policy: OutboundPolicy): OutboundRequestOptions {
    return { purpose, policy, timeoutMs: this.timeoutMs, maxBytes: MAX_ANSWER_BYTES };
  }

  /** @throws Error saying why the IdP refused */
  async exchange(subjectToken: string, audience: string, scope: string | undefined): Promise<ExchangedToken> {
    const body = new URLSearchParams({
      grant_type: TOKEN_EXCHANGE,
      subject_token: subjectToken,
      subject_token_type: ACCESS_TOKEN,
      requested_token_type: ACCESS_TOKEN,
      audience,
    });
    if (scope) body.set('scope', scope);
    const { clientId } = this.idp;
    const answered = await tokenRequest(
      await this.endpoint(),
      this.idp,
      body,
      this.limits("the identity provider's token endpoint", this.reach.discovered),
    );
    const answer = answered.body;
    if (!answered.ok || typeof answer.access_token !== 'string')
      throw new Error(tokenRefusal('the identity provider refused the token exchange', answered));
    return {
      accessToken: answer.access_token,
      expiresIn: typeof answer.expires_in === 'number' ? answer.expires_in : 300,
      actor: actorOf(answer.access_token) ?? clientId,
    };
  }

  private endpoint(): Promise<string> {
    this.tokenEndpoint ??= (async () => {
      const base = this.idp.issuer.replace(/\/$/, '');
      for (const path of ['/.well-known/openid-configuration', '/.well-known/oauth-authorization-server']) {
        const response = await outboundFetch(
          `${base}${path}`,
          {},
          this.limits("the identity provider's metadata", this.reach.issuer),
        ).catch(() => undefined);
        const metadata = response?.ok ? ((await response.json()) as { token_endpoint?: unknown }) : undefined;
        if (typeof metadata?.token_endpoint === 'string') return metadata.token_endpoint;
      }
      throw new Error(`the identity provider ${base} publishes no token endpoint`);
    })().catch((error: unknown) => {
      this.tokenEndpoint = undefined;
      throw error;
    });
    return this.tokenEndpoint;
  }
}

/** The `act.sub` of a JWT, read without checking it (the host only names it in the audit record). */
function actorOf(token: string): string | undefined {
  try {
    const payload = JSON.parse(Buffer.from(token.split('.')[1] ?? '', 'base64url').toString('utf8')) as {
      act?: { sub?: unknown };
    };
    return typeof payload.act?.sub === 'string' ? payload.act.sub : undefined;
  } catch {
    return undefined;
  }
}
