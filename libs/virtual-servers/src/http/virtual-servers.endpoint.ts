import type { ServerResponse } from 'node:http';
import { Injectable, Logger, type OnModuleInit } from '@nestjs/common';
import { HttpAdapterHost } from '@nestjs/core';
import { httpPlatformOf, type NodeRequest } from '#libs/core';
import { McpGateway } from '#libs/gateway';
import {
  AdminAccess,
  InjectOperationsOptions,
  refusalHeaders,
  sendDashboardJson,
  type OperationsOptions,
} from '#libs/operations';
import { checkOriginAndHost, InjectSecurityOptions, type SecurityOptions } from '#libs/security';
import { McpVirtualServers, type VirtualServersChange } from '../servers/mcp-virtual-servers';

type Handler = (req: NodeRequest, res: ServerResponse) => Promise<void>;

/**
 * The virtual servers' admin API, beside the dashboard's (`<admin>/api/servers/…`), for
 * administrators only (`AdminAccess`: every refusal audited), behind the Host/Origin policy:
 *
 * - `GET upstreams`: each upstream stored at run time, its credentials redacted, with its state;
 * - `POST upstreams` (`application/json`, an upstream as the `gateway` option takes it; `?version=N`
 *   refuses it if the document changed since version N): adds it, or replaces the one of its name;
 * - `DELETE upstreams/:name`: removes it;
 * - `GET apis`, `POST apis`, `DELETE apis/:name`: REST APIs as `rest.apis` takes them, likewise;
 * - `GET composed`, `POST composed`, `DELETE composed/:name`: the composed virtual servers, likewise
 *   (each an MCP endpoint of its own at its path: docs/virtual-servers.md);
 * - `GET document`: the whole document (export); `POST document`: replaces it (import).
 *
 * A change answers 200 with the new document, 422 with every problem (`{ problems: [{ where,
 * problem, fix }] }`), 404, or 409 when the document changed meanwhile.
 */
@Injectable()
export class VirtualServersEndpoint implements OnModuleInit {
  private readonly logger = new Logger('McpVirtualServers');

  constructor(
    @InjectOperationsOptions() private readonly operations: OperationsOptions,
    @InjectSecurityOptions() private readonly security: SecurityOptions,
    private readonly adapterHost: HttpAdapterHost,
    private readonly access: AdminAccess,
    private readonly servers: McpVirtualServers,
    private readonly gateway: McpGateway,
  ) {}

  onModuleInit(): void {
    const admin = this.operations.admin;
    const adapter = this.adapterHost?.httpAdapter;
    if (!this.servers.enabled || !admin || !this.operations.http || !adapter?.getHttpServer()) return;
    const base = `${admin.path}/api/servers`;
    const platform = httpPlatformOf(adapter);
    const route = (method: 'GET' | 'POST' | 'DELETE', path: string, handler: Handler) =>
      platform.route(method, path, (req, res) => void this.serve(req, res, handler));
    route('GET', `${base}/upstreams`, async (_req, res) => this.json(res, 200, this.list()));
    route('GET', `${base}/document`, async (_req, res) => this.json(res, 200, this.servers.document()));
    route('POST', `${base}/upstreams`, async (req, res, principal = this.principalOf(req)) =>
      this.answer(res, await this.servers.putUpstream(principal, req.body, versionOf(req))),
    );
    route('DELETE', `${base}/upstreams/:name`, async (req, res, principal = this.principalOf(req)) =>
      this.answer(res, await this.servers.removeUpstream(principal, lastSegment(req), versionOf(req))),
    );
    route('GET', `${base}/apis`, async (_req, res) => this.json(res, 200, this.apis()));
    route('POST', `${base}/apis`, async (req, res, principal = this.principalOf(req)) =>
      this.answer(res, await this.servers.putApi(principal, req.body, versionOf(req))),
    );
    route('DELETE', `${base}/apis/:name`, async (req, res, principal = this.principalOf(req)) =>
      this.answer(res, await this.servers.removeApi(principal, lastSegment(req), versionOf(req))),
    );
    route('GET', `${base}/composed`, async (_req, res) => {
      const { version, servers } = this.servers.document();
      this.json(res, 200, { version, servers });
    });
    route('POST', `${base}/composed`, async (req, res, principal = this.principalOf(req)) =>
      this.answer(res, await this.servers.putServer(principal, req.body, versionOf(req))),
    );
    route('DELETE', `${base}/composed/:name`, async (req, res, principal = this.principalOf(req)) =>
      this.answer(res, await this.servers.removeServer(principal, lastSegment(req), versionOf(req))),
    );
    route('POST', `${base}/document`, async (req, res, principal = this.principalOf(req)) =>
      this.answer(res, await this.servers.importDocument(principal, req.body)),
    );
    this.logger.log(`Virtual servers API at ${base}/{upstreams,apis,composed,document}`);
  }

  /** Each stored API (redacted) with the tools it serves here and the problems it had. */
  private apis() {
    const { version, apis = [] } = this.servers.document();
    const states = new Map(this.servers.apiStates().map((state) => [state.name, state]));
    return {
      version,
      apis: apis.map((api) => {
        const state = states.get(api.name);
        return { ...api, status: { tools: state?.tools ?? [], problems: state?.problems ?? [] } };
      }),
    };
  }

  /** Each stored upstream (redacted) with the gateway's state of it. */
  private list() {
    const document = this.servers.document();
    const status = new Map(this.gateway.status().map((upstream) => [upstream.name, upstream]));
    return {
      version: document.version,
      updatedAt: document.updatedAt,
      updatedBy: document.updatedBy,
      upstreams: document.upstreams.map((upstream) => ({ ...upstream, status: status.get(upstream.name) ?? null })),
    };
  }

  private readonly principals = new WeakMap<NodeRequest, string>();

  private principalOf(req: NodeRequest): string {
    return this.principals.get(req) ?? 'unknown';
  }

  /** The Host/Origin policy, JSON only for changes, an administrator, then the handler; a failure is logged, not shown. */
  private async serve(req: NodeRequest, res: ServerResponse, handler: Handler): Promise<void> {
    try {
      const refusal = checkOriginAndHost(req, this.security.originHost);
      if (refusal)
        return this.json(res, refusal[0], { error: 'forbidden', message: refusal[2] }, { connection: 'close' });
      if (req.method === 'POST' && !String(req.headers['content-type'] ?? '').startsWith('application/json'))
        return this.json(res, 415, {
          error: 'unsupported_media_type',
          message: 'Send the change as Content-Type: application/json',
        });
      const access = await this.access.check(req, 'virtual servers API');
      if (!access.ok)
        return this.json(
          res,
          access.status,
          { error: access.error, message: access.message },
          refusalHeaders(access, 'mcp-admin'),
        );
      this.principals.set(req, access.principal.id);
      await handler(req, res);
    } catch (error) {
      this.logger.error(`Virtual servers API failure: ${(error as Error)?.message}`, (error as Error)?.stack);
      if (!res.headersSent) this.json(res, 500, { error: 'internal', message: 'Internal error; see the host log' });
      else res.end();
    }
  }

  private answer(res: ServerResponse, change: VirtualServersChange): void {
    if (change.ok) return this.json(res, 200, change.document);
    const error = change.status === 422 ? 'invalid' : change.status === 409 ? 'conflict' : 'not_found';
    this.json(res, change.status, { error, problems: change.problems });
  }

  private json(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
    sendDashboardJson(res, status, body, headers);
  }
}

/** The name at the end of the path (`…/upstreams/:name`). */
const lastSegment = (req: NodeRequest): string =>
  decodeURIComponent(new URL(req.url ?? '/', 'http://admin.invalid').pathname.split('/').pop() ?? '');

/** `?version=N`: the version the change was made from. */
function versionOf(req: NodeRequest): number | undefined {
  const given = new URL(req.url ?? '/', 'http://admin.invalid').searchParams.get('version');
  return given !== null && /^\d+$/.test(given) ? Number(given) : undefined;
}
