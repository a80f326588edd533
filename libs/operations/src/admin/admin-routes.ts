import type { ServerResponse } from 'node:http';
import { Injectable, Logger, Optional } from '@nestjs/common';
import { HttpAdapterHost } from '@nestjs/core';
import { httpPlatformOf, type McpPrincipal, type NodeRequest } from '#libs/core';
import { outcomeOfStatus, RequestEvents } from '#libs/protocol';
import {
  AuditTrail,
  checkOriginAndHost,
  ClientAddresses,
  InjectSecurityOptions,
  type SecurityOptions,
} from '#libs/security';
import { AdminAccess, refusalHeaders } from '../access/admin-access';
import { AdminMessages } from '../access/admin.messages';
import { InjectOperationsOptions, type OperationsOptions } from '../options/operations.options';
import { sendDashboardJson } from './admin-http';

/** What an admin route was asked: by whom, where, with which body. */
export interface AdminRequest {
  readonly req: NodeRequest;
  /** The administrator (or, on a route open to whoever authenticates, the caller). */
  readonly principal: McpPrincipal;
  readonly url: URL;
  /** The path's `:name` parts, decoded. */
  readonly params: Readonly<Record<string, string>>;
  /** The JSON body (a write's), as the platform parsed it. */
  readonly body: unknown;
}

/** What an admin route answers, and what the audit record of a write says of it. */
export interface AdminAnswer {
  status: number;
  body: unknown;
  headers?: Record<string, string>;
  /** What the write acted on (the record's `target`: a grant id, a person, a server's name…) and what was asked (its `arguments`). Never a secret. */
  audit?: { target?: string | null; details?: Record<string, unknown> };
  /**
   * The feature has recorded this outcome itself, with who, what and the target (an approval's
   * decision, a policy replacement): the table does not record it twice.
   */
  recorded?: true;
}

/**
 * A route of the admin API. A route that is not a `GET` changes something: it names its action,
 * and every answer it gives is an audit record (`method`: the action) naming the principal, the
 * target and the outcome — as is every refusal before it ran.
 */
export interface AdminRoute {
  readonly method: 'GET' | 'POST' | 'DELETE';
  /** Under the admin path: `/api/oauth/revoke`, `/api/servers/upstreams/:name`. */
  readonly path: string;
  /**
   * A write's audit method (`admin/oauth.revoke`), or how the path's parts name it (only words the
   * route knows: a made-up part must not become a method name). Reads (`GET`) have none.
   */
  readonly action?: string | ((params: Readonly<Record<string, string>>) => string);
  /** Who may call it: an administrator (role `admin` or scope `mcp:admin`), or whoever authenticates (the route decides what they may do). @default 'admin' */
  readonly access?: 'admin' | 'authenticated';
  /** What refusals call the endpoint (and their records' target). @default 'admin API' */
  readonly surface?: string;
  /** What a write's body is, in the message that refuses one that is not JSON. @default 'the request' */
  readonly sends?: string;
  handle(request: AdminRequest): Promise<AdminAnswer> | AdminAnswer;
}

/**
 * The admin API's one table of routes, for the dashboard's own and those other features add
 * (virtual servers…): each route is mounted here, behind the same prologue — the Host/Origin
 * policy, a JSON body for a write (a form of another site cannot send one without a preflight no
 * route grants), an administrator's credential — and **every write is audited here**, whichever
 * feature added it: one record per answer (who, the action, the target, the outcome; a feature
 * that records its own change says so and is not recorded twice), and one per refusal (summed up
 * per window, as every refusal before a method ran). A route added without an action is refused
 * at start-up.
 *
 * @example
 * ```ts
 * routes.add({
 *   method: 'POST',
 *   path: '/api/oauth/revoke',
 *   action: 'admin/oauth.revoke',
 *   handle: async ({ body }) => ({ status: 200, body: { revoked: 1 }, audit: { target: 'alice', details: { subject: 'alice' } } }),
 * });
 * ```
 */
@Injectable()
export class AdminRoutes {
  private readonly logger = new Logger('McpAdmin');
  private readonly routes: AdminRoute[] = [];

  constructor(
    @InjectOperationsOptions() private readonly options: OperationsOptions,
    @InjectSecurityOptions() private readonly security: SecurityOptions,
    private readonly adapterHost: HttpAdapterHost,
    private readonly access: AdminAccess,
    private readonly events: RequestEvents,
    private readonly addresses: ClientAddresses,
    @Optional() private readonly trail?: AuditTrail,
  ) {}

  /** Where the admin API is served (`/admin`), when it is. */
  get base(): string | undefined {
    return this.mounted ? this.options.admin!.path : undefined;
  }

  /** Whether the admin API is served (the `admin` option, on the application's HTTP server). */
  get mounted(): boolean {
    return Boolean(this.options.admin && this.options.http && this.adapterHost?.httpAdapter?.getHttpServer());
  }

  /**
   * Adds a route and mounts it under the admin path (nothing is mounted while the admin API is off).
   * Mount the more specific path first: the framework takes the first route that matches.
   * @throws Error when a write names no action, or the route is there already
   */
  add(route: AdminRoute): void {
    if (route.method !== 'GET' && !route.action)
      throw new Error(`The admin route ${route.method} ${route.path} changes something: give it an action to audit`);
    if (this.routes.some((known) => known.method === route.method && known.path === route.path))
      throw new Error(`The admin route ${route.method} ${route.path} is added twice`);
    this.routes.push(route);
    if (!this.mounted) return;
    httpPlatformOf(this.adapterHost.httpAdapter).route(
      route.method,
      `${this.options.admin!.path}${route.path}`,
      (req, res) => void this.serve(route, req, res),
    );
  }

  /** Every route added, in order (`action` only for writes). */
  list(): { method: AdminRoute['method']; path: string; audited: boolean }[] {
    return this.routes.map(({ method, path }) => ({ method, path, audited: method !== 'GET' }));
  }

  private async serve(route: AdminRoute, req: NodeRequest, res: ServerResponse): Promise<void> {
    const startedAt = Date.now();
    const surface = route.surface ?? 'admin API';
    const url = new URL(req.url ?? '/', 'http://admin.invalid');
    const params = paramsOf(route.path, url.pathname);
    const action = typeof route.action === 'function' ? route.action(params) : route.action;
    let principal: McpPrincipal | undefined;
    try {
      const policy = checkOriginAndHost(req, this.security.originHost);
      if (policy) {
        this.refused(req, surface, action, policy[0], policy[2]);
        return sendDashboardJson(res, policy[0], { error: 'forbidden', message: policy[2] }, { connection: 'close' });
      }
      if (route.method === 'POST' && !String(req.headers['content-type'] ?? '').startsWith('application/json')) {
        const message = AdminMessages.jsonOnly(route.sends ?? 'the request');
        this.refused(req, surface, action, 415, message);
        return sendDashboardJson(res, 415, { error: 'unsupported_media_type', message });
      }
      const access =
        route.access === 'authenticated'
          ? await this.access.authenticate(req, surface, action)
          : await this.access.check(req, surface, action);
      if (!access.ok)
        return sendDashboardJson(
          res,
          access.status,
          { error: access.error, message: access.message },
          refusalHeaders(access, 'mcp-admin'),
        );
      principal = access.principal;
      const answer = await route.handle({ req, principal, url, params, body: req.body });
      sendDashboardJson(res, answer.status, answer.body, answer.headers);
      if (action && !answer.recorded) this.record(req, startedAt, action, principal, answer);
    } catch (error) {
      this.logger.error(`${surface} failure: ${(error as Error)?.message ?? String(error)}`, (error as Error)?.stack);
      const failed = { status: 500, body: { error: 'internal', message: 'Internal error; see the host log' } };
      if (!res.headersSent) sendDashboardJson(res, failed.status, failed.body);
      else res.end();
      if (action && principal) this.record(req, startedAt, action, principal, failed);
    }
  }

  /** A write's record: who did what to what, and how it ended. */
  private record(
    req: NodeRequest,
    startedAt: number,
    action: string,
    principal: McpPrincipal,
    answer: AdminAnswer,
  ): void {
    const ok = answer.status < 400;
    this.trail?.record({
      startedAt,
      principal: principal.id,
      transport: 'http',
      method: action,
      target: answer.audit?.target ?? null,
      arguments: answer.audit?.details ?? {},
      outcome: ok ? 'ok' : outcomeOfStatus(answer.status),
      errorCode: ok ? null : answer.status,
      error: ok ? null : messageOf(answer.body),
      latencyMs: Date.now() - startedAt,
      remoteAddress: this.addresses.of(req) ?? null,
    });
  }

  /** A request refused before anyone was admitted (Host/Origin, a body that is not JSON). */
  private refused(req: NodeRequest, surface: string, action: string | undefined, status: number, message: string) {
    this.events.refusal({
      outcome: outcomeOfStatus(status),
      status,
      message,
      transport: 'http',
      remoteAddress: this.addresses.of(req),
      target: surface,
      ...(action && { method: action }),
    });
  }
}

/** The `:name` parts of `pattern` in `pathname` (the route matched it), decoded. */
function paramsOf(pattern: string, pathname: string): Record<string, string> {
  const names = pattern.split('/');
  const parts = pathname.replace(/\/+$/, '').split('/').slice(-names.length);
  const params: Record<string, string> = {};
  names.forEach((name, index) => {
    if (name.startsWith(':')) params[name.slice(1)] = safeDecode(parts[index] ?? '');
  });
  return params;
}

function safeDecode(part: string): string {
  try {
    return decodeURIComponent(part);
  } catch {
    return part;
  }
}

/** What a refused write was told: its message, or its problems, on one line. */
function messageOf(body: unknown): string | null {
  const answer = body as { message?: unknown; problems?: unknown; error?: unknown } | null;
  if (typeof answer?.message === 'string') return answer.message;
  if (Array.isArray(answer?.problems))
    return (answer.problems as { where?: string; problem?: string }[])
      .map((problem) => `${problem.where ?? ''}: ${problem.problem ?? ''}`)
      .join('; ');
  return typeof answer?.error === 'string' ? answer.error : null;
}
