import type { IncomingMessage, ServerResponse } from 'node:http';
import { Injectable, Logger, Optional, type OnModuleInit } from '@nestjs/common';
import { HttpAdapterHost } from '@nestjs/core';
import type { McpAuthorizationServer } from '#libs/authorization-server';
import { McpCatalog, type McpCatalogKind } from '#libs/catalog';
import { httpPlatformOf } from '#libs/core';
import type { UserConnections } from '#libs/downstream-identity';
import type { CatalogPins, McpGovernance } from '#libs/governance';
import { InjectProtocolOptions, McpRequestObservers, type ProtocolOptions } from '#libs/protocol';
import { checkOriginAndHost, InjectSecurityOptions, type SecurityOptions } from '#libs/security';
import { AdminMessages } from '../access/admin.messages';
import { InjectOperationsOptions, type OperationsOptions } from '../options/operations.options';
import { McpCallHistory } from '../stats/mcp-call-history';
import { McpCallStats } from '../stats/mcp-call-stats';
import { OUTCOMES } from '../stats/outcome-index';
import { AdminApi, MAX_AUDIT_LIMIT } from './admin-api';
import { AdminAssets, type AdminAsset } from './admin-assets';
import { InjectAdminFeatures, type AdminFeatures } from './admin-features';
import { PAGE_CSP, sendDashboard, sendDashboardAsset, sendDashboardJson } from './admin-http';
import { renderAdminPage } from './admin-page';
import { AdminRoutes, type AdminAnswer, type AdminRequest, type AdminRoute } from './admin-routes';
import { APPROVALS_SURFACE, ApprovalsHttpApi } from './approvals-http.api';
import { ReplicaCharts } from './replica-charts';

const CATALOG_KINDS: readonly McpCatalogKind[] = ['tool', 'prompt', 'resource', 'resourceTemplate'];

const API_NAMES = [
  'health',
  'catalog',
  'stats',
  'history',
  'audit',
  'sessions',
  'approvals',
  'policies',
  'pins',
] as const;
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
 * API route is one of the admin route table's (`AdminRoutes`), which authenticates it (an
 * administrator, `AdminAccess`) and audits every write and every refusal.
 */
@Injectable()
export class AdminEndpoint implements OnModuleInit {
  private readonly logger = new Logger('McpAdmin');
  private page = '';

  private readonly authorizationServer?: McpAuthorizationServer;
  private readonly connections?: UserConnections;
  private readonly governance?: McpGovernance;
  private readonly pins?: CatalogPins;

  constructor(
    @InjectOperationsOptions() private readonly options: OperationsOptions,
    @InjectProtocolOptions() private readonly protocol: ProtocolOptions,
    @InjectSecurityOptions() private readonly security: SecurityOptions,
    private readonly adapterHost: HttpAdapterHost,
    private readonly observers: McpRequestObservers,
    private readonly stats: McpCallStats,
    private readonly routes: AdminRoutes,
    private readonly api: AdminApi,
    private readonly approvalsApi: ApprovalsHttpApi,
    private readonly catalog: McpCatalog,
    private readonly history: McpCallHistory,
    private readonly charts: ReplicaCharts,
    @Optional() @InjectAdminFeatures() features: AdminFeatures = {},
  ) {
    ({
      authorizationServer: this.authorizationServer,
      connections: this.connections,
      governance: this.governance,
      pins: this.pins,
    } = features);
  }

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
    // The page and its files carry no data: anyone the Host/Origin policy admits gets them.
    const platform = httpPlatformOf(adapter);
    platform.route('GET', admin.path, (req, res) => this.servePage(req, res));
    platform.route('GET', `${admin.path}/app.js`, (req, res) => this.serveAsset(req, res, assets.script));
    platform.route('GET', `${admin.path}/app.css`, (req, res) => this.serveAsset(req, res, assets.style));
    // The API: each route behind the table's checks, every write audited there. The more specific
    // paths first: `api/:name` would take `api/connections` and `api/approvals` for one of its names.
    const routes = this.routes;
    const approvals = (method: 'GET' | 'POST', path: string, action?: AdminRoute['action']) =>
      routes.add({
        method,
        path,
        action,
        // Approval requests answer approvers (and a request's own user), not only administrators.
        access: 'authenticated',
        surface: APPROVALS_SURFACE,
        sends: 'the decision',
        handle: ({ req, principal, body }) => this.approvalsApi.answerAs(req, principal, req.url ?? '/', body),
      });
    if (this.connections)
      routes.add({
        method: 'GET',
        path: '/api/connections',
        handle: async () => ({ status: 200, body: { connections: await this.connections!.list() } }),
      });
    approvals('GET', '/api/approvals');
    approvals('GET', '/api/approvals/:id');
    routes.add({ method: 'GET', path: '/api/:name', handle: (request) => this.answer(request) });
    approvals('POST', '/api/approvals/:id/:decision', ({ decision }) =>
      decision === 'approve' || decision === 'deny' ? `approvals/${decision}` : 'approvals/decide',
    );
    routes.add({
      method: 'POST',
      path: '/api/catalog/:kind/:name/:action',
      action: ({ action }) =>
        action === 'enable' || action === 'disable' ? `admin/catalog.${action}` : 'admin/catalog.switch',
      sends: 'the switch',
      handle: (request) => this.catalogSwitch(request),
    });
    if (this.authorizationServer) {
      const server = this.authorizationServer;
      routes.add({
        method: 'GET',
        path: '/api/oauth/grants',
        handle: async () => ({ status: 200, body: { grants: await server.grants() } }),
      });
      routes.add({
        method: 'POST',
        path: '/api/oauth/revoke',
        action: 'admin/oauth.revoke',
        handle: (request) => this.revokeSignIns(server, request),
      });
      routes.add({
        method: 'POST',
        path: '/api/oauth/keys/rotate',
        action: 'admin/oauth.keys.rotate',
        handle: async ({ principal }) => {
          const rotated = await server.keys.rotate();
          this.logger.log(`${principal.id} rotated the authorization server's signing key (${rotated.kid})`);
          // The new key's id, never the key.
          return { status: 200, body: rotated, audit: { target: 'signing key', details: rotated } };
        },
      });
      routes.add({
        method: 'GET',
        path: '/api/oauth/consents',
        handle: async () => ({ status: 200, body: { consents: await server.consentList() } }),
      });
      routes.add({
        method: 'POST',
        path: '/api/oauth/consents/revoke',
        action: 'admin/oauth.consents.revoke',
        handle: (request) => this.revokeConsents(server, request),
      });
      routes.add({
        method: 'GET',
        path: '/api/oauth/clients',
        handle: async () => ({
          status: 200,
          body: {
            approvedClientsOnly: server.options.consent.approvedClientsOnly,
            ...(await server.clientApprovals()),
          },
        }),
      });
      routes.add({
        method: 'POST',
        path: '/api/oauth/clients/:decision',
        action: ({ decision }) =>
          decision === 'approve' || decision === 'withdraw'
            ? `admin/oauth.clients.${decision}`
            : 'admin/oauth.clients.decide',
        handle: (request) => this.decideClient(server, request),
      });
    }
    if (this.connections)
      routes.add({
        method: 'POST',
        path: '/api/connections/revoke',
        action: 'admin/connections.revoke',
        handle: (request) => this.revokeConnections(this.connections!, request),
      });
    routes.add({
      method: 'POST',
      path: '/api/policies',
      action: 'admin/policies.replace',
      sends: 'the policies',
      handle: (request) => this.replacePolicies(request),
    });
    routes.add({
      method: 'POST',
      path: '/api/pins/:decision',
      action: ({ decision }) =>
        decision === 'approve' || decision === 'reject' ? `admin/pins.${decision}` : 'admin/pins.decide',
      sends: 'the decision',
      handle: (request) => this.decidePin(request),
    });
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

  /**
   * `POST api/catalog/{tool,prompt,resource,resourceTemplate}/:name/{enable,disable}`: turns a
   * catalog entry off (hidden from lists, calls refused as for an unknown entry) or on again, on
   * every replica with the `cluster` option; clients hear `list_changed`. Administrators only.
   */
  private catalogSwitch({ params, principal }: AdminRequest): AdminAnswer {
    const { kind, name, action } = params;
    const audit = { target: name, details: { kind } };
    if (!CATALOG_KINDS.includes(kind as McpCatalogKind) || (action !== 'enable' && action !== 'disable'))
      return { status: 404, body: { error: 'not_found', message: AdminMessages.badSwitch(kind, action) }, audit };
    const entry = kind as McpCatalogKind;
    const found = action === 'enable' ? this.catalog.enable(entry, name) : this.catalog.disable(entry, name);
    if (!found) return { status: 404, body: { error: 'not_found', message: AdminMessages.noEntry(kind, name) }, audit };
    this.logger.log(`${principal.id} ${action}d ${kind} ${name}`);
    return { status: 200, body: { kind, name, enabled: action === 'enable' }, audit };
  }

  /**
   * `POST api/oauth/revoke` with `{ subject?, clientId?, grantId? }` (at least one): ends the
   * authorization server's sign-ins of a person, of a client, or one. Administrators only.
   */
  private async revokeSignIns(server: McpAuthorizationServer, { body, principal }: AdminRequest): Promise<AdminAnswer> {
    const filter = filterOf(body, ['subject', 'clientId', 'grantId']);
    const target = filter.grantId ?? filter.subject ?? filter.clientId ?? null;
    if (!target)
      return {
        status: 400,
        body: { error: 'invalid', message: 'Name a subject, a clientId or a grantId to revoke' },
        audit: { target, details: filter },
      };
    const revoked = await server.revoke(filter);
    this.logger.log(`${principal.id} revoked ${revoked} sign-in(s) of ${JSON.stringify(filter)}`);
    return { status: 200, body: { revoked }, audit: { target, details: { ...filter, revoked } } };
  }

  /**
   * `POST api/oauth/consents/revoke` with `{ subject?, clientId? }` (at least one): forgets the
   * approvals people gave the authorization server's clients on its consent page (the person is
   * asked again) and ends the sign-ins they let in. Administrators only.
   */
  private async revokeConsents(
    server: McpAuthorizationServer,
    { body, principal }: AdminRequest,
  ): Promise<AdminAnswer> {
    const filter = filterOf(body, ['subject', 'clientId']);
    const target = filter.subject ?? filter.clientId ?? null;
    if (!target)
      return {
        status: 400,
        body: { error: 'invalid', message: 'Name a subject, a clientId or both to revoke' },
        audit: { target, details: filter },
      };
    const revoked = await server.revokeConsents(filter);
    this.logger.log(`${principal.id} revoked ${revoked.consents} consent(s) of ${JSON.stringify(filter)}`);
    return { status: 200, body: revoked, audit: { target, details: { ...filter, ...revoked } } };
  }

  /**
   * `POST api/oauth/clients/{approve,withdraw}` with `{ clientId }`: an administrator's decision on
   * a client (with `authorizationServer.consent.approvedClientsOnly`, people may consent only to
   * approved ones; a withdrawal ends the client's sign-ins). Administrators only.
   */
  private async decideClient(
    server: McpAuthorizationServer,
    { params, body, principal }: AdminRequest,
  ): Promise<AdminAnswer> {
    const { decision } = params;
    const { clientId } = filterOf(body, ['clientId']);
    const audit = { target: clientId ?? null };
    if (decision !== 'approve' && decision !== 'withdraw')
      return { status: 404, body: { error: 'not_found', message: 'Decide a client with approve or withdraw' }, audit };
    if (!clientId) return { status: 400, body: { error: 'invalid', message: 'Name the clientId to decide' }, audit };
    const outcome = await server.decideClient(clientId, decision, principal.id);
    if (!outcome)
      return {
        status: 404,
        body: {
          error: 'not_found',
          message:
            decision === 'approve'
              ? `No client "${clientId}" is known to the authorization server`
              : `Client "${clientId}" has no approval or request to withdraw`,
        },
        audit,
      };
    this.logger.log(`${principal.id} ${decision === 'approve' ? 'approved' : 'withdrew'} client ${clientId}`);
    return { status: 200, body: outcome, audit };
  }

  /**
   * `POST api/connections/revoke` with `{ subject?, target? }` (at least one): ends the accounts
   * people connected, per person, per upstream or API, or both (the API's authorization server is
   * told; each connection ended has its own record). Administrators only.
   */
  private async revokeConnections(
    connections: UserConnections,
    { body, principal }: AdminRequest,
  ): Promise<AdminAnswer> {
    const filter = filterOf(body, ['subject', 'target']);
    const target = filter.subject ?? filter.target ?? null;
    if (!target)
      return {
        status: 400,
        body: { error: 'invalid', message: 'Name a subject, a target (api crm) or both to revoke' },
        audit: { target, details: filter },
      };
    const revoked = await connections.revoke(filter, principal.id);
    this.logger.log(`${principal.id} revoked ${revoked} connected account(s) of ${JSON.stringify(filter)}`);
    return { status: 200, body: { revoked }, audit: { target, details: { ...filter, revoked } } };
  }

  /**
   * `POST api/policies` with `{ "policies": [ … ] }`: replaces the host's policies (those of the
   * `governance` option; `@McpPolicy` ones stay) on every replica, after validating them (400 with
   * every problem and its place, nothing changed); governance records the replacement. Administrators only.
   */
  private async replacePolicies({ body, principal }: AdminRequest): Promise<AdminAnswer> {
    const audit = { target: 'governance.policies' };
    if (!this.governance)
      return { status: 404, body: { error: 'not_found', message: AdminMessages.noGovernance() }, audit };
    const outcome = await this.governance.replace((body as { policies?: unknown } | undefined)?.policies, principal.id);
    if (!outcome.ok)
      return {
        status: 400,
        body: { error: 'invalid', message: AdminMessages.badPolicies(), problems: outcome.diagnostics },
        audit: { ...audit, details: { problems: outcome.diagnostics.length } },
      };
    this.logger.log(`${principal.id} replaced the policies (version ${outcome.version})`);
    return {
      status: 200,
      body: this.governance.read(),
      // Recorded by governance (`admin/policies.replace`: the version and the policies' ids).
      recorded: true,
    };
  }

  /**
   * `POST api/pins/{approve,reject}` with `{ "id": "upstream:wiki:tool:search", "fingerprint": "sha256:…" }`:
   * accepts a quarantined definition (served again, its fingerprint the pinned one) or rejects it
   * (it stays quarantined and leaves the review list), on every replica (through the pins' store),
   * audited with who decided what. The fingerprint (from `GET api/pins`) makes sure that what was
   * reviewed is what is approved: a definition that changed again meanwhile answers 409.
   * Administrators only.
   */
  private async decidePin({ params, body, principal }: AdminRequest): Promise<AdminAnswer> {
    const { decision } = params;
    const given = (body ?? {}) as { id?: unknown; fingerprint?: unknown };
    const audit = {
      target: typeof given.id === 'string' ? given.id : null,
      details: typeof given.fingerprint === 'string' ? { fingerprint: given.fingerprint } : {},
    };
    if (!this.pins) return { status: 404, body: { error: 'not_found', message: AdminMessages.noPins() }, audit };
    if (decision !== 'approve' && decision !== 'reject')
      return { status: 404, body: { error: 'not_found', message: AdminMessages.badPinDecision(decision) }, audit };
    if (typeof given.id !== 'string' || (given.fingerprint !== undefined && typeof given.fingerprint !== 'string'))
      return { status: 400, body: { error: 'invalid', message: AdminMessages.pinIdNeeded() }, audit };
    const outcome = await this.pins.decide(given.id, given.fingerprint, decision, principal.id);
    if (!outcome.ok)
      return {
        status: outcome.status,
        body: { error: outcome.status === 404 ? 'not_found' : 'conflict', message: outcome.message },
        audit,
      };
    // Recorded by the pins (`admin/pins.approve`, `admin/pins.reject`: the fingerprints and what changed).
    return { status: 200, body: { decision, pin: outcome.pin }, recorded: true };
  }

  /** The reads of `GET api/:name`. */
  private async answer({ params, url, principal }: AdminRequest): Promise<AdminAnswer> {
    const query = url.searchParams;
    const ok = (body: unknown): AdminAnswer => ({ status: 200, body });
    const notFound = (message: string): AdminAnswer => ({ status: 404, body: { error: 'not_found', message } });
    const invalid = (message: string): AdminAnswer => ({ status: 400, body: { error: 'invalid', message } });
    switch (params.name) {
      case 'health':
        return ok(await this.api.health(principal));
      case 'catalog':
        return ok(this.api.catalog());
      case 'stats':
        return ok(this.api.statistics());
      case 'history': {
        const replica = query.get('replica') ?? undefined;
        const chart = await this.charts.chart(replica);
        return chart ? ok(chart) : notFound(AdminMessages.noReplica(replica!));
      }
      case 'sessions':
        return ok(this.api.sessionList());
      case 'policies':
        if (!this.governance) return notFound(AdminMessages.noGovernance());
        return ok(this.governance.read());
      case 'pins':
        if (!this.pins) return notFound(AdminMessages.noPins());
        return ok({ quarantined: await this.pins.reviews(), accepted: this.pins.acceptedCount });
      case 'audit': {
        const text = (key: string) => query.get(key)?.trim() || undefined;
        const outcome = text('outcome');
        if (outcome !== undefined && !OUTCOMES.includes(outcome as never))
          return invalid(AdminMessages.badOutcome(outcome, OUTCOMES));
        const limitText = text('limit') ?? '50';
        const limit = Number(limitText);
        if (!/^\d+$/.test(limitText) || limit < 1 || limit > MAX_AUDIT_LIMIT)
          return invalid(AdminMessages.badLimit(limitText, MAX_AUDIT_LIMIT));
        return ok(
          this.api.auditRecords({
            principal: text('principal'),
            target: text('target'),
            method: text('method'),
            outcome,
            limit,
          }),
        );
      }
      default:
        return notFound(AdminMessages.notFound(params.name, API_NAMES));
    }
  }

  /** DNS-rebinding protection, as on the MCP endpoint: the Host (and a browser's Origin) must be allowed. */
  private refusedByPolicy(req: IncomingMessage, res: ServerResponse): boolean {
    const refusal = checkOriginAndHost(req, this.security.originHost);
    if (!refusal) return false;
    sendDashboardJson(res, refusal[0], { error: 'forbidden', message: refusal[2] }, { connection: 'close' });
    return true;
  }
}

/** The string fields of a JSON body that are named in `keys` and not empty. */
function filterOf<K extends string>(body: unknown, keys: readonly K[]): Partial<Record<K, string>> {
  const given = (body ?? {}) as Record<string, unknown>;
  return Object.fromEntries(
    keys.filter((key) => typeof given[key] === 'string' && given[key] !== '').map((key) => [key, given[key] as string]),
  ) as Partial<Record<K, string>>;
}
