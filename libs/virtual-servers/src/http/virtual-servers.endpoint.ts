import { Injectable, Logger, type OnModuleInit } from '@nestjs/common';
import type { NodeRequest } from '#libs/core';
import { McpGateway } from '#libs/gateway';
import { AdminRoutes, type AdminAnswer, type AdminRequest } from '#libs/operations';
import { McpVirtualServers, type VirtualServersChange } from '../servers/mcp-virtual-servers';

/** What the API calls each part of the document, in its paths and in audit records. */
const KINDS = { upstreams: 'upstream', apis: 'api', composed: 'composed server' } as const;

/**
 * The virtual servers' admin API, beside the dashboard's (`<admin>/api/servers/…`), for
 * administrators only, through the admin route table (`AdminRoutes`: the Host/Origin policy, a
 * JSON body, an administrator; every change and every refusal audited):
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
 * problem, fix }] }`), 404, or 409 when the document changed meanwhile. A change made is recorded
 * by `McpVirtualServers` (`admin/servers.upsert|remove|import`, the stored item redacted); one
 * refused, by the route table under the same method.
 */
@Injectable()
export class VirtualServersEndpoint implements OnModuleInit {
  private readonly logger = new Logger('McpVirtualServers');

  constructor(
    private readonly routes: AdminRoutes,
    private readonly servers: McpVirtualServers,
    private readonly gateway: McpGateway,
  ) {}

  onModuleInit(): void {
    if (!this.servers.enabled || !this.routes.mounted) return;
    const base = '/api/servers';
    const read = (path: string, answer: () => unknown) =>
      this.routes.add({
        method: 'GET',
        path: `${base}/${path}`,
        surface: 'virtual servers API',
        handle: () => ({ status: 200, body: answer() }),
      });
    read('upstreams', () => this.list());
    read('document', () => this.servers.document());
    read('apis', () => this.apis());
    read('composed', () => {
      const { version, servers } = this.servers.document();
      return { version, servers };
    });
    const put = { upstreams: 'putUpstream', apis: 'putApi', composed: 'putServer' } as const;
    const remove = { upstreams: 'removeUpstream', apis: 'removeApi', composed: 'removeServer' } as const;
    for (const kind of ['upstreams', 'apis', 'composed'] as const) {
      this.change('POST', `${base}/${kind}`, 'admin/servers.upsert', ({ principal, req, body }) => ({
        target: nameOf(body),
        details: { kind: KINDS[kind], ...versionOf(req) },
        run: () => this.servers[put[kind]](principal.id, body, versionOf(req).version),
      }));
      this.change('DELETE', `${base}/${kind}/:name`, 'admin/servers.remove', ({ principal, req, params }) => ({
        target: params.name,
        details: { kind: KINDS[kind], ...versionOf(req) },
        run: () => this.servers[remove[kind]](principal.id, params.name, versionOf(req).version),
      }));
    }
    this.change('POST', `${base}/document`, 'admin/servers.import', ({ principal, body }) => ({
      target: null,
      details: { kind: 'document' },
      run: () => this.servers.importDocument(principal.id, body),
    }));
    this.logger.log(`Virtual servers API at ${this.routes.base}${base}/{upstreams,apis,composed,document}`);
  }

  /** A change's route: what it acts on (for the record of a refused one), and the change. */
  private change(
    method: 'POST' | 'DELETE',
    path: string,
    action: string,
    of: (request: AdminRequest) => {
      target: string | null;
      details: Record<string, unknown>;
      run: () => Promise<VirtualServersChange>;
    },
  ): void {
    this.routes.add({
      method,
      path,
      action,
      surface: 'virtual servers API',
      sends: 'the change',
      handle: async (request) => {
        const { target, details, run } = of(request);
        return answerOf(await run(), { target, details });
      },
    });
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
}

/** A change as the API answers it: a change made is recorded by the virtual servers themselves. */
function answerOf(change: VirtualServersChange, audit: NonNullable<AdminAnswer['audit']>): AdminAnswer {
  if (change.ok) return { status: 200, body: change.document, recorded: true };
  const error = change.status === 422 ? 'invalid' : change.status === 409 ? 'conflict' : 'not_found';
  return { status: change.status, body: { error, problems: change.problems }, audit };
}

/** The name of the item a body holds (never its credentials). */
function nameOf(body: unknown): string | null {
  const name = (body as { name?: unknown } | null)?.name;
  return typeof name === 'string' ? name : null;
}

/** `?version=N`: the version the change was made from. */
function versionOf(req: NodeRequest): { version?: number } {
  const given = new URL(req.url ?? '/', 'http://admin.invalid').searchParams.get('version');
  return given !== null && /^\d+$/.test(given) ? { version: Number(given) } : {};
}
