import { createHash, timingSafeEqual } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import {
  Injectable,
  Logger,
  type OnApplicationBootstrap,
  type OnApplicationShutdown,
  type OnModuleInit,
} from '@nestjs/common';
import { HttpAdapterHost } from '@nestjs/core';
import { httpPlatformOf } from '#libs/core';
import { AdminAccess, refusalHeaders } from '../access/admin-access';
import { API_SECURITY_HEADERS, checkOriginAndHost } from '#libs/security';
import { InjectOperationsOptions, type OperationsOptions } from '../options/operations.options';
import { InjectSecurityOptions, type SecurityOptions } from '#libs/security';
import { McpMetrics } from './mcp-metrics';

/** What refusals call the endpoint. */
const SURFACE = 'metrics endpoint';
const COMMON_HEADERS = API_SECURITY_HEADERS;

/**
 * Serves `McpMetrics` in the Prometheus text format: at `metrics.path` on the application's HTTP
 * server (a route of the HTTP adapter, added when the module initializes, as the admin dashboard's
 * are), or, with `metrics.port`, on a `node:http` listener of its own at `metrics.host:port`.
 *
 * Access is the admin API's (`AdminAccess`): a principal with the role `admin` or the scope
 * `mcp:admin`, or loopback callers when authentication is off; and `Authorization: Bearer <token>`
 * when `metrics.token` is set. On the main server the Host/Origin policy applies first, as on every
 * endpoint there. On the listener of its own it applies only to callers let in without a credential
 * (loopback, authentication off), where it stops DNS rebinding: Prometheus addresses targets by IP
 * and port, which `allowedHosts` cannot know in advance.
 */
@Injectable()
export class McpMetricsEndpoint implements OnModuleInit, OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger('McpMetrics');
  private server: Server | undefined;
  private readonly tokenDigest: Buffer | undefined;

  constructor(
    @InjectOperationsOptions() private readonly options: OperationsOptions,
    @InjectSecurityOptions() private readonly security: SecurityOptions,
    private readonly adapterHost: HttpAdapterHost,
    private readonly metrics: McpMetrics,
    private readonly access: AdminAccess,
  ) {
    const token = options.metrics?.token;
    this.tokenDigest = token === undefined ? undefined : createHash('sha256').update(token).digest();
  }

  onModuleInit(): void {
    const metrics = this.options.metrics;
    const adapter = this.adapterHost?.httpAdapter;
    if (!metrics || metrics.port !== undefined || !this.options.http || !adapter?.getHttpServer()) return;
    httpPlatformOf(adapter).route('GET', metrics.path, (req, res) => void this.serve(req, res, true));
    this.logger.log(`Prometheus metrics at ${metrics.path}`);
  }

  async onApplicationBootstrap(): Promise<void> {
    const metrics = this.options.metrics;
    if (metrics?.port === undefined) return;
    const server = createServer((req, res) => this.serveOwnPort(req, res));
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(metrics.port, metrics.host, () => {
        server.off('error', reject);
        resolve();
      });
    });
    this.server = server;
    this.logger.log(
      `Prometheus metrics at http://${metrics.host.includes(':') ? `[${metrics.host}]` : metrics.host}:${metrics.port}${metrics.path}`,
    );
  }

  async onApplicationShutdown(): Promise<void> {
    const server = this.server;
    if (!server) return;
    this.server = undefined;
    await new Promise<void>((resolve) => {
      server.close(() => resolve());
      server.closeAllConnections();
    });
  }

  private serveOwnPort(req: IncomingMessage, res: ServerResponse): void {
    const path = this.options.metrics!.path;
    const url = req.url ?? '/';
    const query = url.indexOf('?');
    if ((query < 0 ? url : url.slice(0, query)) !== path) {
      return this.json(res, 404, { error: 'not_found', message: `Nothing here; the metrics are at ${path}.` });
    }
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      return this.json(res, 405, { error: 'method_not_allowed', message: 'Use GET.' }, { allow: 'GET, HEAD' });
    }
    void this.serve(req, res, false);
  }

  private async serve(req: IncomingMessage, res: ServerResponse, mainServer: boolean): Promise<void> {
    try {
      const byToken = this.presentsToken(req);
      if (mainServer || (!byToken && this.security.auth.mode === 'none')) {
        const refusal = checkOriginAndHost(req, this.security.originHost);
        if (refusal)
          return this.json(res, refusal[0], { error: 'forbidden', message: refusal[2] }, { connection: 'close' });
      }
      if (!byToken) {
        const access = await this.access.check(req, SURFACE);
        if (!access.ok)
          return this.json(
            res,
            access.status,
            { error: access.error, message: access.message },
            refusalHeaders(access, 'mcp-metrics'),
          );
      }
      const body = await this.metrics.metrics();
      res.removeHeader('x-powered-by');
      res
        .writeHead(200, {
          ...COMMON_HEADERS,
          'content-type': this.metrics.contentType,
          'content-length': Buffer.byteLength(body),
        })
        .end(body);
    } catch (error) {
      this.logger.error(`Metrics failure: ${(error as Error)?.message ?? String(error)}`, (error as Error)?.stack);
      if (!res.headersSent) this.json(res, 500, { error: 'internal', message: 'Internal error; see the host log' });
      else res.end();
    }
  }

  /** `Authorization: Bearer <metrics.token>` (compared in constant time). */
  private presentsToken(req: IncomingMessage): boolean {
    const header = req.headers.authorization;
    if (!this.tokenDigest || typeof header !== 'string' || !/^bearer /i.test(header)) return false;
    return timingSafeEqual(createHash('sha256').update(header.slice(7).trim()).digest(), this.tokenDigest);
  }

  private json(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
    const text = JSON.stringify(body);
    res.removeHeader('x-powered-by');
    res
      .writeHead(status, {
        ...COMMON_HEADERS,
        ...headers,
        'content-type': 'application/json; charset=utf-8',
        'content-length': Buffer.byteLength(text),
      })
      .end(text);
  }
}
