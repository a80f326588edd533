import type { ServerResponse } from 'node:http';
import { Inject, Injectable, Logger, Optional, type OnApplicationShutdown, type OnModuleInit } from '@nestjs/common';
import { HttpAdapterHost } from '@nestjs/core';
import { httpPlatformOf, type NodeRequest } from '#libs/core';
import { AuditTrail, ClientAddresses } from '#libs/security';
import { McpAuthorizationServer } from '../mcp-authorization-server';
import { REGISTRATION_BODY_BYTES } from '../clients/registration-metadata';
import { OAuthError } from '../errors/oauth-error';
import { OAuthAudit } from './oauth-audit';
import { BodyTooLarge, readParams, sendErrorPage, sendJson } from './oauth-http';

/**
 * The authorization server on the application's HTTP server: its metadata at the RFC 8414
 * well-known path, and `authorize`, `callback`, `token`, `register`, `revoke`, `jwks` under
 * `<issuer>/oauth/`. The routes go through the framework like the admin dashboard's (not a hot
 * path). Every step is audited (`OAuthAudit`); an unexpected failure answers `server_error`
 * with no detail and is logged.
 */
@Injectable()
export class AuthorizationServerEndpoint implements OnModuleInit, OnApplicationShutdown {
  private readonly logger = new Logger('McpAuthorizationServer');
  private readonly audit: OAuthAudit;

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
    const path = (url: string) => new URL(url).pathname;
    const platform = httpPlatformOf(adapter);
    platform.route('GET', path(endpoints.metadata), (_req, res) =>
      sendJson(res, 200, server.metadata(), { 'cache-control': 'max-age=300' }),
    );
    platform.route('GET', path(endpoints.jwks), (_req, res) =>
      sendJson(res, 200, server.keys.jwks(), { 'cache-control': 'max-age=60' }),
    );
    platform.route('GET', path(endpoints.authorize), (req, res) => void this.authorize(req, res));
    platform.route('GET', path(endpoints.callback), (req, res) => void this.callback(req, res));
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

  private async authorize(req: NodeRequest, res: ServerResponse): Promise<void> {
    const startedAt = Date.now();
    const query = new URL(req.url ?? '/', 'http://as.invalid').searchParams;
    const details = {
      resource: query.getAll('resource'),
      scope: query.get('scope'),
      redirect_uri: query.get('redirect_uri'),
    };
    const clientId = query.get('client_id');
    try {
      const answer = await this.server!.authorize(query);
      if ('redirect' in answer) {
        const refused = new URL(answer.redirect).searchParams.get('error');
        if (refused)
          this.record(
            req,
            startedAt,
            'oauth/authorize',
            clientId,
            null,
            details,
            new OAuthError(refused, new URL(answer.redirect).searchParams.get('error_description') ?? ''),
          );
        res.writeHead(302, { location: answer.redirect, 'cache-control': 'no-store' }).end();
        return;
      }
      this.record(
        req,
        startedAt,
        'oauth/authorize',
        clientId,
        null,
        details,
        new OAuthError(answer.error, answer.description, answer.status),
      );
      sendErrorPage(res, answer.status, answer.error, answer.description);
    } catch (error) {
      this.fail(req, res, startedAt, 'oauth/authorize', clientId, details, error, true);
    }
  }

  private async callback(req: NodeRequest, res: ServerResponse): Promise<void> {
    const startedAt = Date.now();
    const url = new URL(req.url ?? '/', 'http://as.invalid');
    try {
      const answer = await this.server!.callback(url.searchParams, url.search);
      if ('redirect' in answer) {
        const refused = new URL(answer.redirect).searchParams;
        const error = refused.get('error');
        this.record(
          req,
          startedAt,
          'oauth/callback',
          answer.clientId ?? null,
          answer.subject ?? null,
          {},
          error ? new OAuthError(error, refused.get('error_description') ?? '') : undefined,
        );
        res.writeHead(302, { location: answer.redirect, 'cache-control': 'no-store' }).end();
        return;
      }
      this.record(
        req,
        startedAt,
        'oauth/callback',
        null,
        null,
        {},
        new OAuthError(answer.error, answer.description, answer.status),
      );
      sendErrorPage(res, answer.status, answer.error, answer.description);
    } catch (error) {
      this.fail(req, res, startedAt, 'oauth/callback', null, {}, error, true);
    }
  }

  private async token(req: NodeRequest, res: ServerResponse): Promise<void> {
    const startedAt = Date.now();
    let clientId: string | null = null;
    let details: Record<string, unknown> = {};
    try {
      const { form } = await readParams(req);
      clientId = form.get('client_id');
      details = { grant_type: form.get('grant_type'), resource: form.getAll('resource'), scope: form.get('scope') };
      const client = await this.server!.clients.authenticate(req.headers.authorization, form);
      clientId = client.clientId;
      const { tokens, subject } = await this.server!.token(client, form);
      // A registration in use is kept; the tokens are the client's already, whatever the store says.
      await this.server!.clients.used(client).catch((error: unknown) =>
        this.logger.warn(`could not mark client ${client.clientId} as in use: ${(error as Error).message}`),
      );
      this.record(req, startedAt, 'oauth/token', clientId, subject, { ...details, granted: tokens.scope ?? '' });
      sendJson(res, 200, tokens);
    } catch (error) {
      this.fail(req, res, startedAt, 'oauth/token', clientId, details, error);
    }
  }

  private async revoke(req: NodeRequest, res: ServerResponse): Promise<void> {
    const startedAt = Date.now();
    let clientId: string | null = null;
    try {
      const { form } = await readParams(req);
      const client = await this.server!.clients.authenticate(req.headers.authorization, form);
      clientId = client.clientId;
      await this.server!.revokeToken(client, form.get('token'));
      this.record(req, startedAt, 'oauth/revoke', clientId, null, {});
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
    this.record(req, startedAt, method, clientId, null, details, refusal);
    if (page) return sendErrorPage(res, refusal.status, refusal.error, refusal.description);
    sendJson(
      res,
      refusal.status,
      { error: refusal.error, error_description: refusal.description },
      { ...refusal.headers, ...(refusal.status === 401 && { 'www-authenticate': 'Basic realm="oauth"' }) },
    );
  }
}
