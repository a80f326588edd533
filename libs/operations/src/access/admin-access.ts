import type { IncomingMessage } from 'node:http';
import { Injectable } from '@nestjs/common';
import type { McpPrincipal } from '#libs/core';
import { AuthFailureLimiter, Authenticator, ClientAddresses } from '#libs/security';
import { AdminMessages } from './admin.messages';
import { outcomeOfStatus, RequestEvents } from '#libs/protocol';

/** The role that opens the admin API. */
export const ADMIN_ROLE = 'admin';
/** The scope that opens the admin API (for OAuth tokens, which carry scopes rather than roles). */
export const ADMIN_SCOPE = 'mcp:admin';

export type AdminAccessResult =
  | { ok: true; principal: McpPrincipal }
  | {
      ok: false;
      status: 401 | 403 | 429;
      error: 'unauthenticated' | 'forbidden' | 'too_many_failures';
      message: string;
      retryAfterSec?: number;
      principal?: string;
    };

/**
 * Who may read the admin API: a principal authenticated exactly as on the MCP endpoint
 * (`Authorization: Bearer <key or token>` or `X-API-Key`) with the role `admin` or the scope
 * `mcp:admin`. Without authentication (`auth: { mode: 'none' }`, where the host listens on
 * loopback only) every loopback caller may. Failed authentications count towards the same
 * per-address limit as on the MCP endpoint, which never refuses a valid credential. The address
 * is the client's, through the proxies of `trustProxy`.
 */
@Injectable()
export class AdminAccess {
  constructor(
    private readonly authenticator: Authenticator,
    private readonly telemetry: RequestEvents,
    /** Shared with the MCP endpoint: one count of failures per address across every surface. */
    private readonly failures: AuthFailureLimiter,
    private readonly addresses: ClientAddresses,
  ) {}

  /**
   * An administrator (role `admin` or scope `mcp:admin`). Every refusal is audited (with the
   * endpoint as its target, and what was asked as its method), like those of the MCP endpoint.
   * @param surface what the refusal messages call the protected endpoint
   * @param action what the request asked for, when it changes something (`admin/oauth.revoke`)
   */
  async check(req: IncomingMessage, surface = 'admin API', action?: string): Promise<AdminAccessResult> {
    return this.audited(req, surface, action, await this.decide(req, surface, isAdmin));
  }

  /**
   * Whoever authenticates (the caller's own rights are checked by the endpoint: approval
   * requests); refusals are audited as by `check`.
   */
  async authenticate(req: IncomingMessage, surface: string, action?: string): Promise<AdminAccessResult> {
    return this.audited(req, surface, action, await this.decide(req, surface, undefined));
  }

  /** Audits a refusal the endpoint decides itself (403 for what the principal may not do). */
  refused(req: IncomingMessage, surface: string, status: 403 | 404 | 409, message: string, principal: string): void {
    this.telemetry.refusal({
      outcome: outcomeOfStatus(status),
      status,
      message,
      transport: 'http',
      remoteAddress: this.addresses.of(req),
      principal,
      target: surface,
    });
  }

  private audited(
    req: IncomingMessage,
    surface: string,
    action: string | undefined,
    result: AdminAccessResult,
  ): AdminAccessResult {
    if (!result.ok)
      this.telemetry.refusal({
        outcome: outcomeOfStatus(result.status),
        status: result.status,
        message: result.message,
        transport: 'http',
        remoteAddress: this.addresses.of(req),
        principal: result.principal,
        target: surface,
        ...(action && { method: action }),
      });
    return result;
  }

  private async decide(
    req: IncomingMessage,
    surface: string,
    allowed: ((principal: McpPrincipal) => boolean) | undefined,
  ): Promise<AdminAccessResult> {
    const address = this.addresses.of(req) ?? 'unknown';
    if (this.authenticator.mode === 'none') {
      // `allowPublicBind` lets such a host listen publicly; its dashboard data stays on loopback.
      if (!isLoopbackAddress(address))
        return { ok: false, status: 403, error: 'forbidden', message: AdminMessages.loopbackOnly(surface) };
      return { ok: true, principal: this.authenticator.unauthenticated };
    }
    // The credential first: a valid one is never locked out by others' failures from the address.
    const auth = await this.authenticator.authenticate(req.headers);
    if (!auth.ok) {
      const wait = this.failures.retryAfter(address);
      if (wait > 0)
        return {
          ok: false,
          status: 429,
          error: 'too_many_failures',
          message: AdminMessages.tooManyFailures(wait),
          retryAfterSec: wait,
        };
      if (auth.error === 'invalid_token') this.failures.fail(address);
      return auth.status === 401
        ? {
            ok: false,
            status: 401,
            error: 'unauthenticated',
            message: AdminMessages.unauthenticated(auth.description, surface),
          }
        : { ok: false, status: 403, error: 'forbidden', message: auth.description };
    }
    const { principal } = auth;
    if (allowed && !allowed(principal)) {
      return {
        ok: false,
        status: 403,
        error: 'forbidden',
        message: AdminMessages.notAdmin(principal.id, ADMIN_ROLE, ADMIN_SCOPE, surface),
        principal: principal.id,
      };
    }
    return { ok: true, principal };
  }
}

/** The headers of a refused request: `WWW-Authenticate` (of `realm`) on 401, `Retry-After` on 429. */
export function refusalHeaders(
  refusal: Extract<AdminAccessResult, { ok: false }>,
  realm: string,
): Record<string, string> {
  return {
    ...(refusal.status === 401 && { 'www-authenticate': `Bearer realm="${realm}"` }),
    ...(refusal.retryAfterSec && { 'retry-after': String(refusal.retryAfterSec) }),
  };
}

const isAdmin = (principal: McpPrincipal) =>
  principal.roles.includes(ADMIN_ROLE) || principal.scopes.includes(ADMIN_SCOPE);

function isLoopbackAddress(address: string): boolean {
  return address === '::1' || /^(::ffff:)?127\.\d+\.\d+\.\d+$/.test(address);
}
