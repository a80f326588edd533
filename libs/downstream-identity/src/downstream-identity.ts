import { McpToolError, recordDownstream, type McpCallContext } from '#libs/core';
import type { McpAuthorizationServer } from '#libs/authorization-server';
import type { DownstreamOptions } from './options/downstream.options';
import { targetId, type DownstreamTarget } from './options/downstream-target';
import { ExchangedTokenCache } from './exchange/exchanged-token.cache';
import { IdpTokenExchange, type ExchangedToken } from './exchange/idp-token-exchange';
import type { UserConnections } from './connections/user-connections';

/**
 * The caller's identity downstream: what a gateway upstream's or a `rest.apis` API's request
 * carries as `Authorization` for the call it serves. `'service'`: nothing of the caller's (the
 * target's own credentials apply). `'token-exchange'`: a token for the target's audience with
 * the caller as subject and the host as actor (RFC 8693 at the company IdP or at the host's
 * authorization server), cached per caller and audience until shortly before it expires.
 * `'user'`: the person's own connected account. Never the caller's own token. The identity used
 * goes on the call's audit record (subject, actor, identity, audience).
 *
 * @example
 * ```ts
 * // A tool of your own calling an API as the caller, the way the gateway and the REST bridge do:
 * const authorization = await downstream.authorization({ kind: 'api', name: 'wiki', credential }, context);
 * await fetch('https://wiki.example/api/pages', { headers: authorization ? { authorization } : {} });
 * ```
 */
export class DownstreamIdentity {
  private readonly exchanged = new ExchangedTokenCache();
  private readonly idp: IdpTokenExchange | undefined;

  constructor(
    private readonly options: DownstreamOptions,
    private readonly facade: McpAuthorizationServer | undefined,
    readonly connections: UserConnections | undefined,
  ) {
    this.idp = options.idp ? new IdpTokenExchange(options.idp) : undefined;
  }

  /** Makes a target known at start-up (its connect flow, for `'user'`). */
  register(target: DownstreamTarget): void {
    this.connections?.register(target);
  }

  /**
   * The `Authorization` header value of a request to `target` for the call of `context`;
   * `undefined` when the target's own credentials apply (`'service'`, or no call: the gateway
   * reading an upstream's lists as itself).
   * @throws McpToolError saying why the caller's identity cannot be used there
   */
  async authorization(target: DownstreamTarget, context: McpCallContext | undefined): Promise<string | undefined> {
    const { credential } = target;
    if (credential.mode === 'service' || !context) return undefined;
    const id = targetId(target);
    const caller = context.caller;
    if (credential.mode === 'user') {
      if (!this.connections) throw new McpToolError(`${id}: connected accounts are not configured`);
      const { token, account } = await this.connections.tokenFor(id, context);
      recordDownstream(context, {
        mode: 'user',
        target: id,
        subject: caller.id,
        actor: credential.authorization.clientId,
        identity: account,
      });
      return `Bearer ${token}`;
    }
    const at = credential.at ?? (this.facade ? 'facade' : 'idp');
    const key = `${caller.id}\n${credential.audience}\n${credential.scope ?? ''}`;
    let token: ExchangedToken;
    try {
      token = await this.exchanged.get(key, async () => {
        const exchanged = await this.exchange(at, context, credential.audience, credential.scope);
        return { ...exchanged, subject: subjectOf(exchanged.accessToken) };
      });
    } catch (error) {
      throw new McpToolError(
        `${id}: the caller's identity could not be exchanged for it (${(error as Error).message})`,
      );
    }
    recordDownstream(context, {
      mode: 'token-exchange',
      target: id,
      subject: caller.id,
      actor: token.actor,
      identity: token.subject ?? caller.id,
      audience: credential.audience,
    });
    return `Bearer ${token.accessToken}`;
  }

  /** The downstream refused the caller's exchanged token: the next call exchanges again. */
  refused(target: DownstreamTarget, context: McpCallContext | undefined): void {
    if (target.credential.mode !== 'token-exchange' || !context) return;
    this.exchanged.forget(`${context.caller.id}\n${target.credential.audience}\n${target.credential.scope ?? ''}`);
  }

  private async exchange(
    at: 'idp' | 'facade',
    context: McpCallContext,
    audience: string,
    scope: string | undefined,
  ): Promise<ExchangedToken> {
    if (at === 'facade') {
      if (!this.facade) throw new Error('the host runs no authorization server');
      return this.facade.exchange(context.caller, audience, scope);
    }
    if (!this.idp) throw new Error('no identity provider is configured to exchange at');
    const issuer = context.caller.claims.iss;
    const subjectToken = bearerOf(context.headers.authorization);
    if (!subjectToken || typeof issuer !== 'string' || trimmed(issuer) !== trimmed(this.options.idp!.issuer))
      throw new Error(`the caller holds no token of ${this.options.idp!.issuer} to exchange (${context.transport})`);
    return this.idp.exchange(subjectToken, audience, scope);
  }
}

const trimmed = (url: string) => url.replace(/\/$/, '');

function bearerOf(header: string | string[] | undefined): string | undefined {
  const value = Array.isArray(header) ? header[0] : header;
  const match = value ? /^Bearer\s+(\S+)$/i.exec(value) : null;
  return match?.[1];
}

/** The `sub` of a JWT, read without checking it (for the audit record only). */
function subjectOf(token: string): string | undefined {
  try {
    const payload = JSON.parse(Buffer.from(token.split('.')[1] ?? '', 'base64url').toString('utf8')) as {
      sub?: unknown;
    };
    return typeof payload.sub === 'string' ? payload.sub : undefined;
  } catch {
    return undefined;
  }
}
