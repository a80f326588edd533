import type { IncomingMessage, ServerResponse } from 'node:http';
import { Injectable, Logger, Optional, type OnModuleInit } from '@nestjs/common';
import type { McpAuthorizationServer } from '#libs/authorization-server';
import type { UserConnections } from '#libs/downstream-identity';
import type { CatalogPins, McpGovernance } from '#libs/governance';
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
import { InjectAdminFeatures, type AdminFeatures } from './admin-features';
import { PAGE_CSP, sendDashboard, sendDashboardAsset, sendDashboardJson } from './admin-http';
import { renderAdminPage } from './admin-page';
import { AdminMessages } from '../access/admin.messages';
import { McpCallHistory } from '../stats/mcp-call-history';
import { ReplicaCharts } from './replica-charts';
import { McpCallStats } from '../stats/mcp-call-stats';
import { OUTCOMES } from '../stats/outcome-index';

type Handler = (req: IncomingMessage, res: ServerResponse) => void;

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
 * API call is authenticated and needs an administrator (`AdminAccess`).
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
    private readonly access: AdminAccess,
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
    const routes: [string, Handler][] = [
      [admin.path, (req, res) => this.servePage(req, res)],
      [`${admin.path}/app.js`, (req, res) => this.serveAsset(req, res, assets.script)],
      [`${admin.path}/app.css`, (req, res) => this.serveAsset(req, res, assets.style)],
      // Before `api/:name`, which would take it for one of its names.
      ...(this.connections
        ? [[`${admin.path}/api/connections`, (req, res) => void this.serveConnections(req, res)] as [string, Handler]]
        : []),
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
    if (this.authorizationServer) {
      platform.route('GET', `${admin.path}/api/oauth/grants`, (req, res) => void this.serveOAuth(req, res, 'grants'));
      platform.route('POST', `${admin.path}/api/oauth/revoke`, (req, res) => void this.serveOAuth(req, res, 'revoke'));
      platform.route(
        'POST',
        `${admin.path}/api/oauth/keys/rotate`,
        (req, res) => void this.serveOAuth(req, res, 'rotate'),
      );
      platform.route('GET', `${admin.path}/api/oauth/consents`, (req, res) => void this.serveConsents(req, res));
      platform.route(
        'POST',
        `${admin.path}/api/oauth/consents/revoke`,
        (req, res) => void this.serveConsents(req, res),
      );
      platform.route('GET', `${admin.path}/api/oauth/clients`, (req, res) => void this.serveClients(req, res));
      platform.route(
        'POST',
        `${admin.path}/api/oauth/clients/:decision`,
        (req, res) => void this.serveClients(req, res),
      );
    }
    if (this.connections) {
      platform.route(
        'POST',
        `${admin.path}/api/connections/revoke`,
        (req, res) => void this.serveConnections(req, res),
      );
    }
    platform.route('POST', `${admin.path}/api/policies`, (req, res) => void this.servePolicyReplacement(req, res));
    platform.route('POST', `${admin.path}/api/pins/:decision`, (req, res) => void this.servePinDecision(req, res));
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
      const principal = await this.administrator(req, res, 'the request');
      if (!principal) return;
      const url = new URL(req.url ?? '/', 'http://admin.invalid');
      const name = url.pathname.slice(url.pathname.lastIndexOf('/') + 1);
      await this.answer(res, name, url.searchParams, principal);
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
      const principal = await this.administrator(req, res, 'the switch');
      if (!principal) return;
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
      this.logger.log(`${principal.id} ${action}d ${kind} ${name}`);
      return this.json(res, 200, { kind, name, enabled: action === 'enable' });
    } catch (error) {
      this.fail(res, 'Catalog switch', error);
    }
  }

  /**
   * The authorization server's sign-ins (`GET api/oauth/grants`), their revocation per person,
   * per client or one (`POST api/oauth/revoke` with `{ subject?, clientId?, grantId? }`, at least
   * one), and a rotation of its signing key (`POST api/oauth/keys/rotate`). Administrators only.
   */
  private async serveOAuth(
    req: IncomingMessage & { body?: unknown },
    res: ServerResponse,
    action: 'grants' | 'revoke' | 'rotate',
  ): Promise<void> {
    try {
      const principal = await this.administrator(req, res, 'the request');
      if (!principal) return;
      const server = this.authorizationServer!;
      if (action === 'grants') return this.json(res, 200, { grants: await server.grants() });
      if (action === 'rotate') {
        const rotated = await server.keys.rotate();
        this.logger.log(`${principal.id} rotated the authorization server's signing key (${rotated.kid})`);
        return this.json(res, 200, rotated);
      }
      const filter = fieldsOf(req.body, ['subject', 'clientId', 'grantId']);
      if (Object.keys(filter).length === 0)
        return this.json(res, 400, { error: 'invalid', message: 'Name a subject, a clientId or a grantId to revoke' });
      const revoked = await server.revoke(filter);
      this.logger.log(`${principal.id} revoked ${revoked} sign-in(s) of ${JSON.stringify(filter)}`);
      return this.json(res, 200, { revoked });
    } catch (error) {
      this.fail(res, 'OAuth admin API', error);
    }
  }

  /**
   * The approvals people gave the authorization server's clients (`GET api/oauth/consents`) and
   * their revocation per person, per client or both (`POST api/oauth/consents/revoke` with
   * `{ subject?, clientId? }`, at least one): the approvals are forgotten (the person is asked
   * again) and the sign-ins they let in end. Administrators only.
   */
  private async serveConsents(req: IncomingMessage & { body?: unknown }, res: ServerResponse): Promise<void> {
    try {
      const principal = await this.administrator(req, res, 'the request');
      if (!principal) return;
      const server = this.authorizationServer!;
      if (req.method === 'GET') return this.json(res, 200, { consents: await server.consentList() });
      const filter = fieldsOf(req.body, ['subject', 'clientId']);
      if (Object.keys(filter).length === 0)
        return this.json(res, 400, { error: 'invalid', message: 'Name a subject, a clientId or both to revoke' });
      const revoked = await server.revokeConsents(filter);
      this.logger.log(`${principal.id} revoked ${revoked.consents} consent(s) of ${JSON.stringify(filter)}`);
      return this.json(res, 200, revoked);
    } catch (error) {
      this.fail(res, 'OAuth consents admin API', error);
    }
  }

  /**
   * The clients administrators approved and those waiting for an approval
   * (`GET api/oauth/clients`; with `authorizationServer.consent.approvedClientsOnly`, people may
   * consent only to approved ones), and a decision (`POST api/oauth/clients/{approve,withdraw}`
   * with `{ clientId }`; a withdrawal ends the client's sign-ins). Administrators only.
   */
  private async serveClients(req: IncomingMessage & { body?: unknown }, res: ServerResponse): Promise<void> {
    try {
      const principal = await this.administrator(req, res, 'the request');
      if (!principal) return;
      const server = this.authorizationServer!;
      if (req.method === 'GET')
        return this.json(res, 200, {
          approvedClientsOnly: server.options.consent.approvedClientsOnly,
          ...(await server.clientApprovals()),
        });
      const url = new URL(req.url ?? '/', 'http://admin.invalid');
      const decision = url.pathname.slice(url.pathname.lastIndexOf('/') + 1);
      if (decision !== 'approve' && decision !== 'withdraw')
        return this.json(res, 404, { error: 'not_found', message: 'Decide a client with approve or withdraw' });
      const { clientId } = fieldsOf(req.body, ['clientId']);
      if (!clientId) return this.json(res, 400, { error: 'invalid', message: 'Name the clientId to decide' });
      const outcome = await server.decideClient(clientId, decision, principal.id);
      if (!outcome)
        return this.json(res, 404, {
          error: 'not_found',
          message:
            decision === 'approve'
              ? `No client "${clientId}" is known to the authorization server`
              : `Client "${clientId}" has no approval or request to withdraw`,
        });
      this.logger.log(`${principal.id} ${decision === 'approve' ? 'approved' : 'withdrew'} client ${clientId}`);
      return this.json(res, 200, outcome);
    } catch (error) {
      this.fail(res, 'OAuth clients admin API', error);
    }
  }

  /**
   * The accounts people connected (`GET api/connections`, no token shown) and their revocation
   * per person, per upstream or API, or both (`POST api/connections/revoke` with `{ subject?,
   * target? }`, at least one; the API's authorization server is told). Administrators only.
   */
  private async serveConnections(req: IncomingMessage & { body?: unknown }, res: ServerResponse): Promise<void> {
    try {
      const principal = await this.administrator(req, res, 'the request');
      if (!principal) return;
      const connections = this.connections!;
      if (req.method === 'GET') return this.json(res, 200, { connections: await connections.list() });
      const filter = fieldsOf(req.body, ['subject', 'target']);
      if (Object.keys(filter).length === 0)
        return this.json(res, 400, {
          error: 'invalid',
          message: 'Name a subject, a target (api crm) or both to revoke',
        });
      const revoked = await connections.revoke(filter, principal.id);
      this.logger.log(`${principal.id} revoked ${revoked} connected account(s) of ${JSON.stringify(filter)}`);
      return this.json(res, 200, { revoked });
    } catch (error) {
      this.fail(res, 'connections admin API', error);
    }
  }

  /**
   * `POST api/policies` with `{ "policies": [ … ] }`: replaces the host's policies (those of the
   * `governance` option; `@McpPolicy` ones stay) on every replica, after validating them (400 with
   * every problem and its place, nothing changed), and audits the replacement. Administrators only.
   */
  private async servePolicyReplacement(req: IncomingMessage & { body?: unknown }, res: ServerResponse): Promise<void> {
    try {
      const principal = await this.administrator(req, res, 'the policies');
      if (!principal) return;
      if (!this.governance) return this.json(res, 404, { error: 'not_found', message: AdminMessages.noGovernance() });
      const body = req.body as { policies?: unknown } | undefined;
      const outcome = await this.governance.replace(body?.policies, principal.id);
      if (!outcome.ok)
        return this.json(res, 400, {
          error: 'invalid',
          message: AdminMessages.badPolicies(),
          problems: outcome.diagnostics,
        });
      this.logger.log(`${principal.id} replaced the policies (version ${outcome.version})`);
      return this.json(res, 200, this.governance.read());
    } catch (error) {
      this.fail(res, 'Policy replacement', error);
    }
  }

  /**
   * `POST api/pins/{approve,reject}` with `{ "id": "upstream:wiki:tool:search", "fingerprint": "sha256:…" }`:
   * accepts a quarantined definition (served again, its fingerprint the pinned one) or rejects it
   * (it stays quarantined and leaves the review list), on every replica (through the pins' store),
   * audited with who decided what. The fingerprint (from `GET api/pins`) makes sure that what was
   * reviewed is what is approved: a definition that changed again meanwhile answers 409.
   * Administrators only.
   */
  private async servePinDecision(req: IncomingMessage & { body?: unknown }, res: ServerResponse): Promise<void> {
    try {
      const principal = await this.administrator(req, res, 'the decision');
      if (!principal) return;
      if (!this.pins) return this.json(res, 404, { error: 'not_found', message: AdminMessages.noPins() });
      const url = new URL(req.url ?? '/', 'http://admin.invalid');
      const decision = url.pathname.slice(url.pathname.lastIndexOf('/') + 1);
      if (decision !== 'approve' && decision !== 'reject')
        return this.json(res, 404, { error: 'not_found', message: AdminMessages.badPinDecision(decision) });
      const body = (req.body ?? {}) as { id?: unknown; fingerprint?: unknown };
      if (typeof body.id !== 'string' || (body.fingerprint !== undefined && typeof body.fingerprint !== 'string'))
        return this.json(res, 400, { error: 'invalid', message: AdminMessages.pinIdNeeded() });
      const outcome = await this.pins.decide(body.id, body.fingerprint, decision, principal.id);
      if (!outcome.ok)
        return this.json(res, outcome.status, {
          error: outcome.status === 404 ? 'not_found' : 'conflict',
          message: outcome.message,
        });
      return this.json(res, 200, { decision, pin: outcome.pin });
    } catch (error) {
      this.fail(res, 'Pin decision', error);
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
      case 'history': {
        const replica = query.get('replica') ?? undefined;
        const chart = await this.charts.chart(replica);
        if (!chart) return this.json(res, 404, { error: 'not_found', message: AdminMessages.noReplica(replica!) });
        return this.json(res, 200, chart);
      }
      case 'sessions':
        return this.json(res, 200, this.api.sessionList());
      case 'policies':
        if (!this.governance) return this.json(res, 404, { error: 'not_found', message: AdminMessages.noGovernance() });
        return this.json(res, 200, this.governance.read());
      case 'pins':
        if (!this.pins) return this.json(res, 404, { error: 'not_found', message: AdminMessages.noPins() });
        return this.json(res, 200, { quarantined: await this.pins.reviews(), accepted: this.pins.acceptedCount });
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

  /**
   * What every administrator's route checks first: the Host/Origin policy, a JSON body for a POST
   * (415 otherwise: a form from another site cannot send one), and an administrator's credentials.
   * @returns the administrator, or `undefined` when the request was answered (refused)
   */
  private async administrator(
    req: IncomingMessage,
    res: ServerResponse,
    what: string,
  ): Promise<McpPrincipal | undefined> {
    if (this.refusedByPolicy(req, res)) return undefined;
    if (req.method === 'POST' && !String(req.headers['content-type'] ?? '').startsWith('application/json')) {
      this.json(res, 415, { error: 'unsupported_media_type', message: AdminMessages.jsonOnly(what) });
      return undefined;
    }
    const access = await this.access.check(req);
    if (!access.ok) {
      this.refuse(res, access);
      return undefined;
    }
    return access.principal;
  }

  /** DNS-rebinding protection, as on the MCP endpoint: the Host (and a browser's Origin) must be allowed. */
  private refusedByPolicy(req: IncomingMessage, res: ServerResponse): boolean {
    const refusal = checkOriginAndHost(req, this.security.originHost);
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

/** The named fields of a JSON body that are non-empty strings (a revocation's filter). */
function fieldsOf<K extends string>(body: unknown, keys: readonly K[]): Partial<Record<K, string>> {
  const given = (body ?? {}) as Record<string, unknown>;
  return Object.fromEntries(
    keys.filter((key) => typeof given[key] === 'string' && given[key] !== '').map((key) => [key, given[key]]),
  ) as Partial<Record<K, string>>;
}
