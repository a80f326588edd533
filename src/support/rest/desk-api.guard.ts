import type { IncomingHttpHeaders } from 'node:http';
import {
  ForbiddenException,
  HttpException,
  HttpStatus,
  Injectable,
  UnauthorizedException,
  type CanActivate,
  type ExecutionContext,
} from '@nestjs/common';
import { HttpAdapterHost, ModuleRef, Reflector } from '@nestjs/core';
import {
  AuthFailureLimiter,
  Authenticator,
  ClientAddresses,
  MCP_ACCESS_POLICY,
  MCP_REQUIRED_SCOPES_METADATA,
  MCP_ROLES_METADATA,
  type McpAccessPolicy,
  type McpPrincipal,
} from 'nest-mcp-host';

/** What the guard reads of a request, whichever HTTP adapter (Express, Fastify) made it. */
export interface DeskApiRequest {
  headers: IncomingHttpHeaders;
  socket?: { remoteAddress?: string };
  /** The caller: set by the REST bridge for an MCP call, by this guard otherwise. */
  user?: unknown;
}

/** The realm named in `WWW-Authenticate` when a REST caller must authenticate. */
export const DESK_API_REALM = 'desk-api';

/**
 * Who calls the desk's REST API, and whether it may use the route: the same API keys (or OAuth
 * tokens) and the same `@RequireScopes` / `@Roles` as the desk's MCP tools.
 *
 * - A principal already on `request.user` is the caller: the REST bridge puts the MCP caller
 *   there, authenticated by the MCP endpoint. HTTP clients cannot set it.
 * - Otherwise the `Authorization: Bearer` / `X-API-Key` header is checked by the host's own
 *   `Authenticator` (with authentication off, every caller is the host's local operator), with
 *   the same per-address lock-out after repeated bad keys as the MCP endpoint: the client's
 *   address through the host's trusted proxies (`ClientAddresses`), and a valid key always passes.
 * - The requirements are decided by the host's access policy, as for a tool.
 *
 * Refusals are Nest's standard exceptions: 401 with `WWW-Authenticate`, 403, 429 with `Retry-After`.
 */
@Injectable()
export class DeskApiGuard implements CanActivate {
  /** The host's services, looked up once: the `McpModule` that holds them is not imported here. */
  private host?: {
    authenticator: Authenticator;
    failures: AuthFailureLimiter;
    addresses: ClientAddresses;
    policy: McpAccessPolicy;
  };

  constructor(
    private readonly reflector: Reflector,
    private readonly moduleRef: ModuleRef,
    private readonly adapterHost: HttpAdapterHost,
  ) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    if (context.getType() !== 'http') return true;
    const http = context.switchToHttp();
    const request = http.getRequest<DeskApiRequest>();
    const principal = isPrincipal(request.user)
      ? request.user
      : await this.authenticate(request, http.getResponse<unknown>());
    request.user = principal;
    const targets = [context.getHandler(), context.getClass()];
    const scopes = this.reflector.getAllAndMerge<string[]>(MCP_REQUIRED_SCOPES_METADATA, targets);
    const roles = this.reflector.getAllAndMerge<string[]>(MCP_ROLES_METADATA, targets);
    if (this.services().policy.allows(principal, { scopes, roles })) return true;
    const missing = scopes.filter((scope) => !principal.scopes.includes(scope));
    throw new ForbiddenException(
      missing.length > 0
        ? `${principal.id} may not use this route: it needs the scope(s) ${missing.join(', ')}`
        : `${principal.id} may not use this route: it needs one of the roles ${roles.join(', ')}`,
    );
  }

  private async authenticate(request: DeskApiRequest, response: unknown): Promise<McpPrincipal> {
    const { authenticator, failures, addresses } = this.services();
    if (authenticator.mode === 'none') return authenticator.unauthenticated;
    const auth = await authenticator.authenticate(request.headers);
    if (auth.ok) return auth.principal;
    const address = addresses.of(request) ?? 'unknown';
    const adapter = this.adapterHost.httpAdapter;
    const wait = failures.retryAfter(address);
    if (wait > 0) {
      adapter.setHeader(response, 'Retry-After', String(wait));
      throw new HttpException(
        `Too many failed authentications from this address: retry in ${wait} s`,
        HttpStatus.TOO_MANY_REQUESTS,
      );
    }
    if (auth.error === 'invalid_token') failures.fail(address);
    if (auth.status === 403) throw new ForbiddenException(auth.description);
    const error = auth.error ? `, error="${auth.error}"` : '';
    adapter.setHeader(response, 'WWW-Authenticate', `Bearer realm="${DESK_API_REALM}"${error}`);
    throw new UnauthorizedException(auth.description);
  }

  private services(): NonNullable<DeskApiGuard['host']> {
    this.host ??= {
      authenticator: this.moduleRef.get(Authenticator, { strict: false }),
      failures: this.moduleRef.get(AuthFailureLimiter, { strict: false }),
      addresses: this.moduleRef.get(ClientAddresses, { strict: false }),
      policy: this.moduleRef.get<McpAccessPolicy>(MCP_ACCESS_POLICY, { strict: false }),
    };
    return this.host;
  }
}

/** The caller this guard (or the REST bridge) put on `request.user`, if any. */
export function principalOf(user: unknown): McpPrincipal | undefined {
  return isPrincipal(user) ? user : undefined;
}

/** A principal as the host makes them (`McpPrincipal`), and not anything else a request may carry. */
function isPrincipal(value: unknown): value is McpPrincipal {
  if (typeof value !== 'object' || value === null) return false;
  const { id, scopes, roles } = value as Partial<McpPrincipal>;
  return typeof id === 'string' && Array.isArray(scopes) && Array.isArray(roles);
}
