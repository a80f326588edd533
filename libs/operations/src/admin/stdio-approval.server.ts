import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Injectable, Logger, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import { ToolRegistry } from '#libs/catalog';
import { ApprovalPageLocator, needsConfirmation } from '#libs/invocation';
import { InjectProtocolOptions, type ProtocolOptions } from '#libs/protocol';
import { checkOriginAndHost, type OriginHostOptions } from '#libs/security';
import { AdminAssets } from './admin-assets';
import { PAGE_CSP, sendDashboard, sendDashboardAsset, sendDashboardJson } from './admin-http';
import { renderAdminPage } from './admin-page';
import { InjectOperationsOptions, type OperationsOptions } from '../options/operations.options';
import { ApprovalsHttpApi } from './approvals-http.api';

/** It listens on loopback only: no other machine reaches it, and no other `Host` names it. */
const LOOPBACK = '127.0.0.1';
const POLICY: OriginHostOptions = {
  allowedHosts: new Set(['127.0.0.1', 'localhost']),
  allowedOrigins: undefined,
  cors: undefined,
};
/** A decision is `{ "reason": "…" }` (500 characters kept): more is refused unread. */
const MAX_BODY_BYTES = 16 * 1024;
const REFRESH_MS = 5_000;
const PAGE_HEADERS = { 'content-security-policy': PAGE_CSP };

/**
 * The approval page of a host that serves stdio without HTTP, which has no admin dashboard to
 * send anyone to: a listener of its own on 127.0.0.1 (any free port, or `approvals.stdioPage.port`)
 * serving the dashboard's page, script and style sheet at the admin path and the approvals API
 * (`ApprovalsHttpApi`) under it — nothing else of the admin API. A client that supports URL-mode
 * elicitation is sent there (`ApprovalPageLocator`); the address is logged (on stderr) for an
 * operator at the machine.
 *
 * Who decides there is who decides on an HTTP host: an approver, authenticated by the host's
 * `auth` (API key or token), who is not the stdio principal whose call waits (unless
 * `approvals.allowSelfApproval`). The program on stdio holds no approver key; with
 * `auth: { mode: 'none' }` every loopback caller is the one local operator.
 *
 * It listens at bootstrap when a tool needs confirmation (or always, with `stdioPage: true` or a
 * port), and closes when the application shuts down, after the calls were drained.
 */
@Injectable()
export class StdioApprovalServer implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger('McpApprovals');
  private server: Server | undefined;

  constructor(
    @InjectOperationsOptions() private readonly options: OperationsOptions,
    @InjectProtocolOptions() private readonly protocol: ProtocolOptions,
    private readonly tools: ToolRegistry,
    private readonly api: ApprovalsHttpApi,
    private readonly pages: ApprovalPageLocator,
  ) {}

  /** Where the page is (`http://127.0.0.1:<port><admin path>`), while it listens. */
  get url(): string | undefined {
    const address = this.server?.address() as AddressInfo | null | undefined;
    return address ? `http://${LOOPBACK}:${address.port}${this.base}` : undefined;
  }

  async onApplicationBootstrap(): Promise<void> {
    const page = this.options.approvals.stdioPage;
    if (!page) return;
    const confirmDestructive = this.protocol.tools.confirmDestructive;
    if (!page.always && !this.tools.all().some((tool) => needsConfirmation(tool, confirmDestructive))) return;
    const assets = AdminAssets.load();
    const html = renderAdminPage(assets.pageTemplate, {
      base: this.base,
      hostName: this.protocol.server.title ?? this.protocol.server.name,
      refreshMs: REFRESH_MS,
    });
    const routes = new Map<string, (req: IncomingMessage, res: ServerResponse) => void>([
      [this.base, (_req, res) => sendDashboard(res, 200, 'text/html; charset=utf-8', html, PAGE_HEADERS)],
      [`${this.base}/app.js`, (req, res) => sendDashboardAsset(req, res, assets.script)],
      [`${this.base}/app.css`, (req, res) => sendDashboardAsset(req, res, assets.style)],
    ]);
    const server = createServer((req, res) => void this.handle(req, res, routes));
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(page.port, LOOPBACK, () => {
        server.off('error', reject);
        resolve();
      });
    }).catch((error: NodeJS.ErrnoException) => {
      throw new Error(
        `The approval page of this stdio host cannot listen on ${LOOPBACK}:${page.port} (${error.code ?? error.message}): ` +
          'choose another approvals.stdioPage.port, or leave it out for any free port',
      );
    });
    this.server = server;
    this.pages.servedAt(this.url);
    this.logger.log(
      `Approval page for stdio calls at ${this.url} (approvers sign in with their own key or token; ` +
        `a request's link is ${this.url}#approval=<id>)`,
    );
  }

  async onApplicationShutdown(): Promise<void> {
    const server = this.server;
    if (!server) return;
    this.server = undefined;
    this.pages.servedAt(undefined);
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }

  private get base(): string {
    return this.options.admin?.path ?? '/admin';
  }

  private async handle(
    req: IncomingMessage,
    res: ServerResponse,
    routes: ReadonlyMap<string, (req: IncomingMessage, res: ServerResponse) => void>,
  ): Promise<void> {
    try {
      const refusal = checkOriginAndHost(req, POLICY);
      if (refusal) return sendDashboardJson(res, refusal[0], { error: 'forbidden', message: refusal[2] });
      const path = new URL(req.url ?? '/', 'http://approvals.invalid').pathname;
      const route = req.method === 'GET' ? routes.get(path) : undefined;
      if (route) return route(req, res);
      if (path === `${this.base}/api/approvals` || path.startsWith(`${this.base}/api/approvals/`)) {
        // Only JSON is read: anything else is refused (415) by the API, unread.
        const json = String(req.headers['content-type'] ?? '').startsWith('application/json');
        const body = req.method === 'POST' && json ? await readJson(req) : undefined;
        if (body instanceof Error) return sendDashboardJson(res, 400, { error: 'invalid', message: body.message });
        const { status, body: answer, headers } = await this.api.answer(req, req.url ?? '/', body);
        return sendDashboardJson(res, status, answer, headers);
      }
      // The page asks for the rest of the dashboard's API: there is none here, as for a principal
      // who is no administrator (the page then shows the approvals alone).
      if (path.startsWith(`${this.base}/api/`))
        return sendDashboardJson(res, 403, {
          error: 'forbidden',
          message: 'This stdio host serves approval requests only (there is no admin dashboard without HTTP).',
        });
      sendDashboardJson(res, 404, { error: 'not_found', message: `Nothing at ${path}; the page is at ${this.base}` });
    } catch (error) {
      this.logger.error(`Approval page failure: ${(error as Error)?.message}`, (error as Error)?.stack);
      if (!res.headersSent)
        sendDashboardJson(res, 500, { error: 'internal', message: 'Internal error; see the host log' });
      else res.end();
    }
  }
}

/** A request's JSON body (empty: `{}`), or the error to answer 400 with. */
async function readJson(req: IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > MAX_BODY_BYTES) return new Error(`The body is longer than ${MAX_BODY_BYTES} bytes`);
    chunks.push(chunk);
  }
  const text = Buffer.concat(chunks).toString('utf8').trim();
  if (!text) return {};
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return new Error('The body is not valid JSON: send { "reason": "…" } or nothing');
  }
}
