import type { IncomingMessage, ServerResponse } from 'node:http';
import { Injectable } from '@nestjs/common';
import { JsonRpcErrorCode, type McpPrincipal } from '#libs/core';
import {
  AuthFailureLimiter,
  Authenticator,
  ClientAddresses,
  InjectSecurityOptions,
  type AuthRefusal,
  type SecurityOptions,
} from '#libs/security';
import { HttpMessages } from './http.messages';
import { HttpResponder } from './http-responder';
import { protectedResourceMetadataUrl } from './protected-resource-metadata';

/**
 * Who sends an MCP request over HTTP: the authenticator's answer, with the lock-out of a client
 * address after repeated bad credentials (one count shared with the admin API and /metrics),
 * and 401/403 answered with `WWW-Authenticate` as RFC 6750 and RFC 9728 describe it.
 *
 * The credential is checked before the lock-out: a request that carries a valid one always gets
 * in, so that others' failures from the same address (a NAT, an office, a proxy not listed in
 * `trustProxy`) never lock a legitimate client out. A locked-out address's failures get 429.
 */
@Injectable()
export class HttpAuthentication {
  private readonly resourceMetadataUrl: string | undefined;

  constructor(
    @InjectSecurityOptions() security: SecurityOptions,
    private readonly authenticator: Authenticator,
    private readonly failures: AuthFailureLimiter,
    private readonly responder: HttpResponder,
    private readonly addresses: ClientAddresses,
  ) {
    this.resourceMetadataUrl =
      security.auth.mode === 'oauth' ? protectedResourceMetadataUrl(security.auth.resource) : undefined;
  }

  /** Sessions are counted per principal, or per address when every caller is the same one. */
  get authenticates(): boolean {
    return this.authenticator.mode !== 'none';
  }

  /** The caller, or `undefined` when the request was refused (and answered). */
  async principalOf(req: IncomingMessage, res: ServerResponse): Promise<McpPrincipal | undefined> {
    if (this.authenticator.mode === 'none') return this.authenticator.unauthenticated;
    const auth = await this.authenticator.authenticate(req.headers);
    if (auth.ok) return auth.principal;
    const address = this.addresses.of(req) ?? 'unknown';
    const wait = this.failures.retryAfter(address);
    if (wait > 0) {
      this.responder.refuse(res, HttpMessages.tooManyAuthFailures(wait), req, {
        headers: { 'retry-after': String(wait) },
      });
      return undefined;
    }
    if (auth.error === 'invalid_token') this.failures.fail(address);
    this.refuse(res, auth, req);
    return undefined;
  }

  private refuse(res: ServerResponse, refusal: AuthRefusal, req: IncomingMessage): void {
    const params = [
      ...(this.resourceMetadataUrl ? [`resource_metadata="${this.resourceMetadataUrl}"`] : ['realm="mcp"']),
      ...(refusal.error
        ? [`error="${refusal.error}"`, `error_description="${refusal.description.replace(/"/g, "'")}"`]
        : []),
      ...(refusal.scope?.length ? [`scope="${refusal.scope.join(' ')}"`] : []),
    ];
    const message = `${refusal.status === 401 ? 'Unauthorized' : 'Forbidden'}: ${refusal.description}`;
    this.responder.refuse(res, [refusal.status, JsonRpcErrorCode.TRANSPORT_REFUSED, message], req, {
      headers: { 'www-authenticate': `Bearer ${params.join(', ')}` },
    });
  }
}
