import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import { Injectable, Logger } from '@nestjs/common';
import { HttpAdapterHost } from '@nestjs/core';
import { httpPlatformOf, McpStartupError, type NodeRouteHandler, type RouteMethod } from '#libs/core';
import { InjectProtocolOptions, type ProtocolOptions } from '#libs/protocol';
import { InjectSecurityOptions, type SecurityOptions } from '#libs/security';
import { InjectHostingOptions, type HostingOptions } from '../options/hosting.options';
import { McpEndpoints } from '../endpoints/mcp-endpoints';
import {
  isProtectedResourceMetadataPath,
  protectedResourceMetadataUrl,
  PROTECTED_RESOURCE_METADATA_PATH,
  serveProtectedResourceMetadata,
} from './protected-resource-metadata';
import { StreamableHttpHandler } from './streamable-http.handler';
import { UnusedConnections } from './unused-connections';

type RequestListener = (req: IncomingMessage, res: ServerResponse) => void;

const ENDPOINT_METHODS: readonly RouteMethod[] = ['POST', 'GET', 'DELETE'];

/**
 * Puts the MCP endpoint on the Nest HTTP server. By default it answers the MCP path directly
 * on the underlying `node:http` server, in front of the framework (Express's router, body parser
 * and ETag hashing would cost most of the throughput; Fastify's routing, hooks and parser would
 * cost too), and passes every other request to the framework unchanged. The endpoint is also a route of the
 * framework (Express or Fastify): with `routeThroughExpress` that route serves every request, so
 * that the application's middleware sees them; otherwise it serves only what reaches the
 * framework without passing the server's listener (the servers Fastify adds when it listens on
 * `localhost`, `app.inject()`). With several endpoints in one application, the mounters chain:
 * each answers its own path and passes the rest to the listeners it found (the previous
 * endpoint's, then the framework's).
 */
@Injectable()
export class HttpEndpointMounter {
  private readonly logger = new Logger('McpHttp');
  private readonly unused = new UnusedConnections();

  constructor(
    @InjectHostingOptions() private readonly options: HostingOptions,
    @InjectProtocolOptions() private readonly protocol: ProtocolOptions,
    @InjectSecurityOptions() private readonly security: SecurityOptions,
    private readonly adapterHost: HttpAdapterHost,
    private readonly handler: StreamableHttpHandler,
    private readonly endpoints: McpEndpoints,
  ) {}

  /**
   * Without authentication the host may only listen on loopback: `listen()` on any other
   * address (or on all of them, the default) fails with a message that says what to do. It fails
   * as Node reports a failed listen (`EADDRINUSE`): an `error` event on the server, which Nest's
   * `app.listen()` and Fastify's turn into their rejection (Fastify calls `listen` from a callback,
   * where a throw would escape both).
   */
  private refusePublicBindWithoutAuth(server: Server): void {
    const { auth } = this.security;
    if (auth.mode !== 'none' || auth.allowPublicBind) return;
    const listen = server.listen.bind(server) as (...args: unknown[]) => Server;
    server.listen = ((...args: unknown[]) => {
      const host =
        typeof args[0] === 'object' && args[0] !== null
          ? (args[0] as { host?: string }).host
          : args.find((arg) => typeof arg === 'string');
      if (!isLoopback(host as string | undefined)) {
        const refusal = new McpStartupError([
          {
            where: 'McpModule option "auth"',
            problem: `authentication is off ('none') but the host would listen on ${host ?? 'every interface'}`,
            fix: "listen on 127.0.0.1 (app.listen(port, '127.0.0.1')), configure auth ('apiKey' or 'oauth'), or set auth: { mode: 'none', allowPublicBind: true } knowingly",
          },
        ]);
        process.nextTick(() => server.emit('error', refusal));
        return server;
      }
      return listen(...args);
    }) as Server['listen'];
  }

  /** Mounts the endpoint; returns false when the application has no HTTP server. */
  mount(): boolean {
    const adapter = this.adapterHost?.httpAdapter;
    const server = adapter?.getHttpServer() as Server | undefined;
    if (!adapter || !server) return false;
    // No route of the application advertises its framework (health probes, the dashboard, the app's own).
    (adapter.getInstance() as { disable?: (setting: string) => void } | undefined)?.disable?.('x-powered-by');
    const platform = httpPlatformOf(adapter);
    const { path } = this.options;
    const serve: RequestListener = (req, res) => this.handler.handle(req, res);
    const auth = this.security.auth;
    const metadataPath =
      auth.mode === 'oauth' ? new URL(protectedResourceMetadataUrl(auth.resource)).pathname : undefined;
    // The only OAuth endpoint answers every metadata path; with several, each answers its resource's own.
    const soleOAuth = this.endpoints.all().filter((endpoint) => endpoint.authMode === 'oauth').length <= 1;

    for (const method of ENDPOINT_METHODS) platform.route(method, path, serve, 'stream');
    if (auth.mode === 'oauth' && metadataPath !== undefined) {
      const serveMetadata: NodeRouteHandler = (req, res) => serveProtectedResourceMetadata(req, res, auth);
      const metadataPaths = new Set([metadataPath, ...(soleOAuth ? [PROTECTED_RESOURCE_METADATA_PATH] : [])]);
      for (const metadata of metadataPaths) platform.route('GET', metadata, serveMetadata);
    }

    if (!this.options.routeThroughExpress) {
      const withQuery = `${path}?`;
      const others = server.listeners('request') as RequestListener[];
      server.removeAllListeners('request');
      const servesMetadata = (url: string) =>
        metadataPath !== undefined && (url === metadataPath || (soleOAuth && isProtectedResourceMetadataPath(url)));
      server.on('request', (req: IncomingMessage, res: ServerResponse) => {
        const url = req.url!;
        if (url === path || url.startsWith(withQuery)) serve(req, res);
        else if (auth.mode === 'oauth' && servesMetadata(url.split('?')[0]))
          serveProtectedResourceMetadata(req, res, auth);
        else for (const listener of others) listener.call(server, req, res);
      });
    }
    this.refusePublicBindWithoutAuth(server);
    // A browser's preconnect would hold the server's close a minute.
    this.unused.watch(server);
    this.logger.log(
      `Streamable HTTP endpoint at ${path} (${this.protocol.mode}${this.options.routeThroughExpress ? `, through ${platform.type}` : ''})`,
    );
    return true;
  }
}

function isLoopback(host: string | undefined): boolean {
  return (
    host !== undefined &&
    (host === 'localhost' || host === '::1' || host === '[::1]' || /^127\.\d+\.\d+\.\d+$/.test(host))
  );
}
