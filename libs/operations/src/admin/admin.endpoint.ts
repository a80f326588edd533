import type { IncomingMessage, ServerResponse } from 'node:http';
import { Injectable, Logger, type OnModuleInit } from '@nestjs/common';
import { HttpAdapterHost } from '@nestjs/core';
import { httpPlatformOf, type McpPrincipal } from '#libs/core';
import { checkOriginAndHost } from '#libs/security';
import { InjectOperationsOptions, type OperationsOptions } from '../options/operations.options';
import { InjectProtocolOptions, type ProtocolOptions } from '#libs/protocol';
import { InjectSecurityOptions, type SecurityOptions } from '#libs/security';
import { McpRequestObservers } from '#libs/protocol';
import { AdminAccess, refusalHeaders, type AdminAccessResult } from '../access/admin-access';
import { AdminApi, MAX_AUDIT_LIMIT } from './admin-api';
import { ApprovalsHttpApi } from './approvals-http.api';
import { McpCatalog, type McpCatalogKind } from '#libs/catalog';
import { AdminAssets, type AdminAsset } from './admin-assets';
import { PAGE_CSP, sendDashboard, sendDashboardAsset, sendDashboardJson } from './admin-http';
import { renderAdminPage } from './admin-page';
import { AdminMessages } from '../access/admin.messages';
import { McpCallHistory } from '../stats/mcp-call-history';
import { McpCallStats } from '../stats/mcp-call-stats';
import { OUTCOMES } from '../stats/outcome-index';

type Handler = (req: IncomingMessage, res: ServerResponse) => void;

const CATALOG_KINDS: readonly McpCatalogKind[] = ['tool', 'prompt', 'resource', 'resourceTemplate'];

const API_NAMES = ['health', 'catalog', 'stats', 'history', 'audit', 'sessions', 'approvals'] as const;
/** How often the page refreshes itself. */
const REFRESH_MS = 5_000;
/**
 * The admin dashboard on the application's HTTP server: the page at `path`, its script at
 * `path/app.js`, its style sheet at `path/app.css`, and the JSON API at
 * `path/api/{health,catalog,stats,history,audit,sessions,approvals}`. The page, script and style sheet
 * are the files of `assets/` (`AdminAssets`), read once when the module initializes.
 *
 * The routes are added to the HTTP adapter when the module initializes, because the path comes
 * from the (possibly async) module options, which a controller's decorator cannot know. They go
 * through the framework (Express or Fastify) like any route (this is not a hot path), on Node's
 * request and response (`HttpPlatform`), after the MCP endpoint, which answers its own path
 * first. The page carries no data, so it is served to anyone the Host/Origin policy admits; every
 * API call is authenticated and needs an administrator (`AdminAccess`).
 */
@Injectable()
export class AdminEndpoint implements OnModuleInit {
  private readonly logger = new Logger('McpAdmin');
  private page = '';

  constructor(
    @InjectOperationsOptions() private readonly options: OperationsOptions,
    @InjectProtocolOptions() private readonly protocol: ProtocolOptions,
    @InjectSecurityOptions() private readonly security: SecurityOptions,
    private readonly adapterHost: HttpAdapterHost,
    private readonly observers: McpRequestObservers,
    private readonly stats: McpCallStats,
    private readonly access: AdminAccess,
    private readonly api: AdminApi,
    private readonly approvalsApi: ApprovalsHttpApi,
    private readonly catalog: McpCatalog,
    private readonly history: McpCallHistory,
  ) {}

  onModuleInit(): void {
    const admin = this.options.admin;
    const adapter = this.adapterHost?.httpAdapter;
    if (!admin || !this.options.http || !adapter?.getHttpServer()) return;
    this.observers.add(this.stats);
    this.observers.add(this.history);
    const assets = AdminAssets.load();
    this.page = renderAdminPage(assets.pageTemplate, {
      base: admin.path,
      hostName: this.protocol.server.title ?? this.protocol.server.name,
      refreshMs: REFRESH_MS,
    });
    const routes: [string, Handler][] = [
      [admin.path, (req, res) => this.servePage(req, res)],
      [`${admin.path}/app.js`, (req, res) => this.serveAsset(req, res, assets.script)],
      [`${admin.path}/app.css`, (req, res) => this.serveAsset(req, res, assets.style)],
      // Before `api/:name`: approval requests answer approvers (and a request's own user), not only administrators.
      [`${admin.path}/api/approvals`, (req, res) => void this.serveApprovals(req, res)],
      [`${admin.path}/api/approvals/:id`, (req, res) => void this.serveApprovals(req, res)],
      [`${admin.path}/api/:name`, (req, res) => void this.serveApi(req, res)],
    ];
    const platform = httpPlatformOf(adapter);
    for (const [path, handler] of routes) platform.route('GET', path, handler);
    platform.route(
      'POST',
      `${admin.path}/api/approvals/:id/:decision`,
      (req, res) => void this.serveApprovals(req, res),
    );
    platform.route(
      'POST',
      `${admin.path}/api/catalog/:kind/:name/:action`,
      (req, res) => void this.serveCatalogSwitch(req, res),
    );
    this.logger.log(`Admin dashboard at ${admin.path} (API: ${admin.path}/api/{${API_NAMES.join(',')}})`);
  }

  private servePage(req: IncomingMessage, res: ServerResponse): void {
    if (this.refusedByPolicy(req, res)) return;
    sendDashboard(res, 200, 'text/html; charset=utf-8', this.page, { 'content-security-policy': PAGE_CSP });
  }

  /** The script or style sheet: whole, or 304 when the browser's copy is the current one. */
  private serveAsset(req: IncomingMessage, res: ServerResponse, asset: AdminAsset): void {
    if (this.refusedByPolicy(req, res)) return;
    sendDashboardAsset(req, res, asset);
  }

  private async serveApi(req: IncomingMessage, res: ServerResponse): Promise<void> {
    try {
      if (this.refusedByPolicy(req, res)) return;
      const access = await this.access.check(req);
      if (!access.ok) return this.refuse(res, access);
      const url = new URL(req.url ?? '/', 'http://admin.invalid');
      const name = url.pathname.slice(url.pathname.lastIndexOf('/') + 1);
      await this.answer(res, name, url.searchParams, access.principal);
    } catch (error) {
      this.fail(res, 'Admin API', error);
    }
  }

  /**
   * `POST api/catalog/{tool,prompt,resource,resourceTemplate}/:name/{enable,disable}`: turns a
   * catalog entry off (hidden from lists, calls refused as for an unknown entry) or on again, on
   * every replica with the `cluster` option; clients hear `list_changed`. Administrators only; a
   * POST must be `application/json`, as the approvals API's.
   */
  private async serveCatalogSwitch(req: IncomingMessage, res: ServerResponse): Promise<void> {
    try {
      if (this.refusedByPolicy(req, res)) return;
      if (!String(req.headers['content-type'] ?? '').startsWith('application/json'))
        return this.json(res, 415, { error: 'unsupported_media_type', message: AdminMessages.jsonOnly('the switch') });
      const access = await this.access.check(req);
      if (!access.ok) return this.refuse(res, access);
      const url = new URL(req.url ?? '/', 'http://admin.invalid');
      const [kind, encodedName, action] = url.pathname
        .slice(url.pathname.indexOf('/api/catalog/') + '/api/catalog/'.length)
        .split('/');
      const name = decodeURIComponent(encodedName ?? '');
      if (!CATALOG_KINDS.includes(kind as McpCatalogKind) || (action !== 'enable' && action !== 'disable'))
        return this.json(res, 404, { error: 'not_found', message: AdminMessages.badSwitch(kind, action) });
      const entry = kind as McpCatalogKind;
      const found = action === 'enable' ? this.catalog.enable(entry, name) : this.catalog.disable(entry, name);
      if (!found) return this.json(res, 404, { error: 'not_found', message: AdminMessages.noEntry(kind, name) });
      this.logger.log(`${access.principal.id} ${action}d ${kind} ${name}`);
      return this.json(res, 200, { kind, name, enabled: action === 'enable' });
    } catch (error) {
      this.fail(res, 'Catalog switch', error);
    }
  }

  /** The approvals API (`ApprovalsHttpApi`), behind the Host/Origin policy; Express has parsed a JSON body. */
  private async serveApprovals(req: IncomingMessage & { body?: unknown }, res: ServerResponse): Promise<void> {
    try {
      if (this.refusedByPolicy(req, res)) return;
      const { status, body, headers } = await this.approvalsApi.answer(req, req.url ?? '/', req.body);
      this.json(res, status, body, headers);
    } catch (error) {
      this.fail(res, 'Approvals API', error);
    }
  }

  private async answer(
    res: ServerResponse,
    name: string,
    query: URLSearchParams,
    principal: McpPrincipal,
  ): Promise<void> {
    switch (name) {
      case 'health':
        return this.json(res, 200, await this.api.health(principal));
      case 'catalog':
        return this.json(res, 200, this.api.catalog());
      case 'stats':
        return this.json(res, 200, this.api.statistics());
      case 'history':
        return this.json(res, 200, { replica: this.options.replica, ...this.history.snapshot() });
      case 'sessions':
        return this.json(res, 200, this.api.sessionList());
      case 'audit': {
        const text = (key: string) => query.get(key)?.trim() || undefined;
        const outcome = text('outcome');
        if (outcome !== undefined && !OUTCOMES.includes(outcome as never)) {
          return this.json(res, 400, { error: 'invalid', message: AdminMessages.badOutcome(outcome, OUTCOMES) });
        }
        const limitText = text('limit') ?? '50';
        const limit = Number(limitText);
        if (!/^\d+$/.test(limitText) || limit < 1 || limit > MAX_AUDIT_LIMIT) {
          return this.json(res, 400, { error: 'invalid', message: AdminMessages.badLimit(limitText, MAX_AUDIT_LIMIT) });
        }
        return this.json(
          res,
          200,
          this.api.auditRecords({ principal: text('principal'), target: text('target'), outcome, limit }),
        );
      }
      default:
        return this.json(res, 404, { error: 'not_found', message: AdminMessages.notFound(name, API_NAMES) });
    }
  }

  /** DNS-rebinding protection, as on the MCP endpoint: the Host (and a browser's Origin) must be allowed. */
  private refusedByPolicy(req: IncomingMessage, res: ServerResponse): boolean {
    const refusal = checkOriginAndHost(req.headers, this.security.originHost);
    if (!refusal) return false;
    this.json(res, refusal[0], { error: 'forbidden', message: refusal[2] }, { connection: 'close' });
    return true;
  }

  /** A request authentication or the administrator check refused. */
  private refuse(res: ServerResponse, access: Extract<AdminAccessResult, { ok: false }>): void {
    this.json(
      res,
      access.status,
      { error: access.error, message: access.message },
      refusalHeaders(access, 'mcp-admin'),
    );
  }

  /** An unexpected failure: logged with its stack, the client told only that it happened. */
  private fail(res: ServerResponse, surface: string, error: unknown): void {
    this.logger.error(`${surface} failure: ${(error as Error)?.message ?? String(error)}`, (error as Error)?.stack);
    if (!res.headersSent) this.json(res, 500, { error: 'internal', message: 'Internal error; see the host log' });
    else res.end();
  }

  private json(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
    sendDashboardJson(res, status, body, headers);
  }
}
