import { randomBytes } from 'node:crypto';
import type { ServerResponse } from 'node:http';
import { Inject, Injectable, Logger, Optional, type OnApplicationShutdown, type OnModuleInit } from '@nestjs/common';
import { HttpAdapterHost } from '@nestjs/core';
import { httpPlatformOf, type NodeRequest } from '#libs/core';
import { AuditTrail, ClientAddresses } from '#libs/security';
import { McpAuthorizationServer, type BrowserAnswer, type FacadeBrowser } from '../mcp-authorization-server';
import { REGISTRATION_BODY_BYTES } from '../clients/registration-metadata';
import { OAuthError } from '../errors/oauth-error';
import { OAuthAudit } from './oauth-audit';
import { sendConsentPage, sendConsentsPage } from './facade-pages';
import { BodyTooLarge, readParams, sendErrorPage, sendJson } from './oauth-http';

/** The cookie that binds a browser to the sign-in it started (`__Host-` prefixed on https). */
const BROWSER_COOKIE = 'mcp-facade-browser';

/** What a step of the browser's flow gives back, and the audit details of its request. */
type BrowserStep = (browser: FacadeBrowser, url: URL, form: URLSearchParams | undefined) => Promise<BrowserAnswer>;

/**
 * The authorization server on the application's HTTP server: its metadata at the RFC 8414
 * well-known path, and `authorize`, `callback`, `consent`, `consents`, `token`, `register`,
 * `revoke`, `jwks` under `<issuer>/oauth/`. The routes go through the framework like the admin
 * dashboard's (not a hot path). Each request but the metadata's, the keys' and a registration's
 * (bounded on its own) is counted against its client address first (`perAddress`). A browser's
 * steps are bound to it by one cookie (`__Host-` on https; HttpOnly, SameSite=Lax), set at its
 * first step. Every step is audited (`OAuthAudit`), with the person once the facade knows them;
 * an unexpected failure answers `server_error` with no detail and is logged.
 */
@Injectable()
export class AuthorizationServerEndpoint implements OnModuleInit, OnApplicationShutdown {
  private readonly logger = new Logger('McpAuthorizationServer');
  private readonly audit: OAuthAudit;
  private cookie = BROWSER_COOKIE;

  constructor(
    @Inject(McpAuthorizationServer) @Optional() private readonly server: McpAuthorizationServer | undefined,
    private readonly adapterHost: HttpAdapterHost,
    private readonly addresses: ClientAddresses,
    @Optional() trail?: AuditTrail,
  ) {
    this.audit = new OAuthAudit(trail);
  }

  onModuleInit(): void {
    const adapter = this.adapterHost?.httpAdapter;
    const server = this.server;
    if (!server || !adapter?.getHttpServer()) return;
    const { endpoints } = server.options;
    const secure = new URL(server.options.issuer).protocol === 'https:';
    this.cookie = secure ? `__Host-${BROWSER_COOKIE}` : BROWSER_COOKIE;
    const path = (url: string) => new URL(url).pathname;
    const platform = httpPlatformOf(adapter);
    const step = (method: string, work: BrowserStep) => (req: NodeRequest, res: ServerResponse) =>
      void this.browserStep(req, res, method, work, secure);
    platform.route('GET', path(endpoints.metadata), (_req, res) =>
      sendJson(res, 200, server.metadata(), { 'cache-control': 'max-age=300' }),
    );
    platform.route('GET', path(endpoints.jwks), (_req, res) =>
      sendJson(res, 200, server.keys.jwks(), { 'cache-control': 'max-age=60' }),
    );
    platform.route(
      'GET',
      path(endpoints.authorize),
      step('oauth/authorize', (browser, url) => server.authorize(url.searchParams, browser)),
    );
    platform.route(
      'GET',
      path(endpoints.callback),
      step('oauth/callback', (browser, url) => server.callback(url.searchParams, url.search, browser)),
    );
    platform.route(
      'POST',
      path(endpoints.consent),
      step('oauth/consent', (browser, _url, form) => server.consent(form!, browser)),
      'stream',
    );
    platform.route(
      'GET',
      path(endpoints.consents),
      step('oauth/consents', (browser) => server.ownConsents(browser)),
    );
    platform.route(
      'POST',
      path(endpoints.consents),
      step('oauth/consents', (browser, _url, form) => server.ownConsents(browser, form)),
      'stream',
    );
    platform.route('POST', path(endpoints.token), (req, res) => void this.token(req, res), 'stream');
    platform.route('POST', path(endpoints.revoke), (req, res) => void this.revoke(req, res), 'stream');
    if (server.options.dynamicRegistration)
      platform.route('POST', path(endpoints.register), (req, res) => void this.register(req, res), 'stream');
    this.logger.log(`Authorization server ${server.options.issuer} in front of ${server.options.idp.issuer}`);
  }

  /** Releases the store the options named (a PostgreSQL pool), once the HTTP server stopped taking requests. */
  async onApplicationShutdown(): Promise<void> {
    await this.server?.options.store?.close?.();
  }

  /**
   * A step of a person's sign-in in their browser: the browser's binding cookie read (or set), the
   * step run, its answer sent (a redirect — 303 after a form —, a page of the facade's, or an
   * error page) and audited with the person and the client it concerns.
   */
  private async browserStep(
    req: NodeRequest,
    res: ServerResponse,
    method: string,
    work: BrowserStep,
    secure: boolean,
  ): Promise<void> {
    const startedAt = Date.now();
    const url = new URL(req.url ?? '/', 'http://as.invalid');
    const query = url.searchParams;
    const asked =
      method === 'oauth/authorize'
        ? { resource: query.getAll('resource'), scope: query.get('scope'), redirect_uri: query.get('redirect_uri') }
        : {};
    let clientId = query.get('client_id');
    try {
      await this.server!.requests?.admit(this.addresses.of(req));
      const form = req.method === 'POST' ? (await readParams(req)).form : undefined;
      const known = cookieOf(req.headers.cookie, this.cookie);
      const browser: FacadeBrowser = {
        id: known ?? newBrowserId(),
        fetchSite: header(req.headers['sec-fetch-site']),
        origin: header(req.headers.origin),
      };
      // Bound at the first step; a later step without the cookie is refused by the flow.
      if (!known)
        res.setHeader(
          'set-cookie',
          `${this.cookie}=${browser.id}; Path=/; HttpOnly; SameSite=Lax${secure ? '; Secure' : ''}`,
        );
      const answer = await work(browser, url, form);
      clientId = answer.clientId ?? clientId;
      const details = { ...asked, ...answer.details };
      const refusal =
        'redirect' in answer
          ? refusalIn(answer.redirect)
          : 'error' in answer
            ? new OAuthError(answer.error, answer.description, answer.status)
            : undefined;
      this.record(req, startedAt, method, clientId, answer.subject ?? null, details, refusal);
      if ('redirect' in answer) {
        res.writeHead(req.method === 'POST' ? 303 : 302, { location: answer.redirect, 'cache-control': 'no-store' });
        res.end();
      } else if ('page' in answer) {
        if (answer.page.kind === 'consent') sendConsentPage(res, answer.page);
        else sendConsentsPage(res, answer.page);
      } else sendErrorPage(res, answer.status, answer.error, answer.description);
    } catch (error) {
      this.fail(req, res, startedAt, method, clientId, asked, error, true);
    }
  }

  private async token(req: NodeRequest, res: ServerResponse): Promise<void> {
    const startedAt = Date.now();
    let clientId: string | null = null;
    let details: Record<string, unknown> = {};
    try {
      await this.server!.requests?.admit(this.addresses.of(req));
      const { form } = await readParams(req);
      clientId = form.get('client_id');
      details = { grant_type: form.get('grant_type'), resource: form.getAll('resource'), scope: form.get('scope') };
      const client = await this.server!.clients.authenticate(req.headers.authorization, form);
      clientId = client.clientId;
      const { tokens, subject, entitlement } = await this.server!.token(client, form);
      // A registration in use is kept; the tokens are the client's already, whatever the store says.
      await this.server!.clients.used(client).catch((error: unknown) =>
        this.logger.warn(`could not mark client ${client.clientId} as in use: ${(error as Error).message}`),
      );
      this.record(req, startedAt, 'oauth/token', clientId, subject, {
        ...details,
        ...(entitlement?.asked && { asked: entitlement.asked.join(' ') }),
        granted: tokens.scope ?? '',
        // What was asked or mapped and not granted: the narrowing an attempt to get more leaves.
        ...(entitlement && entitlement.withheld.length > 0 && { withheld: entitlement.withheld }),
      });
      sendJson(res, 200, tokens);
    } catch (error) {
      this.fail(req, res, startedAt, 'oauth/token', clientId, details, error);
    }
  }

  private async revoke(req: NodeRequest, res: ServerResponse): Promise<void> {
    const startedAt = Date.now();
    let clientId: string | null = null;
    try {
      await this.server!.requests?.admit(this.addresses.of(req));
      const { form } = await readParams(req);
      const client = await this.server!.clients.authenticate(req.headers.authorization, form);
      clientId = client.clientId;
      const subject = await this.server!.revokeToken(client, form.get('token'));
      this.record(req, startedAt, 'oauth/revoke', clientId, subject ?? null, {});
      res.writeHead(200, { 'cache-control': 'no-store' }).end();
    } catch (error) {
      this.fail(req, res, startedAt, 'oauth/revoke', clientId, {}, error);
    }
  }

  /** RFC 7591: counted against its address before the body is read, the body bounded whatever the platform parsed. */
  private async register(req: NodeRequest, res: ServerResponse): Promise<void> {
    const startedAt = Date.now();
    let details: Record<string, unknown> = {};
    try {
      await this.server!.clients.admit(this.addresses.of(req));
      const { json } = await readParams(req, REGISTRATION_BODY_BYTES);
      details = { client_name: typeof json.client_name === 'string' ? json.client_name.slice(0, 200) : null };
      const registered = await this.server!.clients.register(json);
      this.record(req, startedAt, 'oauth/register', String(registered.client_id), null, details);
      sendJson(res, 201, registered);
    } catch (error) {
      this.fail(req, res, startedAt, 'oauth/register', null, details, error);
    }
  }

  private record(
    req: NodeRequest,
    startedAt: number,
    method: string,
    clientId: string | null,
    subject: string | null,
    details: Record<string, unknown>,
    error?: OAuthError,
  ): void {
    this.audit.record({
      startedAt,
      method,
      clientId,
      subject,
      details,
      ...(error && { error: { error: error.error, description: error.description, status: error.status } }),
      remoteAddress: this.addresses.of(req) ?? null,
    });
  }

  private fail(
    req: NodeRequest,
    res: ServerResponse,
    startedAt: number,
    method: string,
    clientId: string | null,
    details: Record<string, unknown>,
    error: unknown,
    page = false,
  ): void {
    const refusal =
      error instanceof OAuthError
        ? error
        : error instanceof BodyTooLarge
          ? new OAuthError('invalid_request', error.message, 413)
          : new OAuthError('server_error', 'the authorization server could not answer; try again', 500);
    if (!(error instanceof OAuthError) && !(error instanceof BodyTooLarge))
      this.logger.error(`${method} failed: ${(error as Error)?.stack ?? String(error)}`);
    this.record(req, startedAt, method, clientId, refusal.subject ?? null, details, refusal);
    if (page) return sendErrorPage(res, refusal.status, refusal.error, refusal.description);
    sendJson(
      res,
      refusal.status,
      { error: refusal.error, error_description: refusal.description },
      { ...refusal.headers, ...(refusal.status === 401 && { 'www-authenticate': 'Basic realm="oauth"' }) },
    );
  }
}

/** A refusal a redirect carries back to the client (`error=`), if it does. */
function refusalIn(redirect: string): OAuthError | undefined {
  const params = new URL(redirect).searchParams;
  const error = params.get('error');
  return error ? new OAuthError(error, params.get('error_description') ?? '') : undefined;
}

function cookieOf(header: string | undefined, name: string): string | undefined {
  for (const part of (header ?? '').split(';')) {
    const [key, ...value] = part.trim().split('=');
    if (key === name && /^[\w-]{16,64}$/.test(value.join('='))) return value.join('=');
  }
  return undefined;
}

function header(value: string | string[] | undefined): string | null {
  return typeof value === 'string' ? value : null;
}

/** A fresh value for a browser's binding cookie. */
const newBrowserId = () => randomBytes(24).toString('base64url');
