import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import {
  Inject,
  Injectable,
  Logger,
  Optional,
  type OnApplicationBootstrap,
  type OnApplicationShutdown,
} from '@nestjs/common';
import { HttpAdapterHost } from '@nestjs/core';
import { ThrottlerStorage } from '@nestjs/throttler';
import type { McpPrincipal, McpServerSelection } from '#libs/core';
import { ToolRegistry } from '#libs/catalog';
import { ChangeNotifications, SessionStore } from '#libs/protocol';
import {
  AuthFailureLimiter,
  Authenticator,
  ClientAddresses,
  InjectSecurityOptions,
  keyDigest,
  sameDigest,
  storedDigest,
  type SecurityOptions,
} from '#libs/security';
import type { ComposedServer } from '../document/composed-server';
import type { VirtualServersDocument } from '../document/virtual-servers.document';
import { MCP_HTTP_SERVING, type McpHttpServing } from '../composed/mcp-http-serving';
import { serverSelection } from '../composed/server-selection';
import { McpVirtualServers } from '../servers/mcp-virtual-servers';

type RequestListener = (req: IncomingMessage, res: ServerResponse) => void;

/** RFC 9728's well-known prefix: a composed server's metadata is at it followed by the server's path. */
const METADATA_PREFIX = '/.well-known/oauth-protected-resource';
type Refuse = (status: number, message: string, headers?: Record<string, string>) => void;

/** A composed server as served: its definition, its compiled selection, its keys' digests. */
interface Served {
  readonly server: ComposedServer;
  readonly selection: McpServerSelection;
  readonly keys: readonly { principal: McpPrincipal; digest: Buffer }[] | undefined;
  /** The JSON it was applied from: a change of any field serves it anew. */
  readonly json: string;
}

/**
 * Serves each composed virtual server at its own path, through the host's Streamable HTTP
 * transport (`McpHttpServing`): the same Host/Origin policy, eras, sessions, admission,
 * approvals, throttling, audit and drain as the MCP path. What differs is decided here per
 * request: who may connect (the host's authentication narrowed to the server's scopes and roles,
 * or its own API keys), its limit of calls per caller, and the caller's view (`McpPrincipal.server`:
 * only what the server selects, its name in `initialize` and in the audit records).
 *
 * Its paths are answered on the `node:http` server in front of the framework, as the MCP path
 * is, so a server added at run time needs no route of Express or Fastify. A server removed: its
 * path is no longer answered (404) and the sessions opened through it end; a server changed:
 * every session hears `notifications/tools/list_changed`.
 */
@Injectable()
export class ComposedServersEndpoint implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger('McpVirtualServers');
  private readonly byPath = new Map<string, Served>();
  /** The servers with an OAuth resource of their own, by the path of their RFC 9728 metadata. */
  private readonly byMetadataPath = new Map<string, Served>();
  /** The sessions seen through each server's path, on this replica (ended when it goes). */
  private readonly sessions = new Map<string, Set<string>>();
  /** Calls per server, caller and minute, on this replica. */
  private readonly counts = new Map<string, { window: number; count: number }>();
  private stopListening: (() => void) | undefined;

  constructor(
    private readonly servers: McpVirtualServers,
    private readonly store: SessionStore,
    private readonly notifications: ChangeNotifications,
    private readonly tools: ToolRegistry,
    @InjectSecurityOptions() private readonly security: SecurityOptions,
    private readonly authenticator: Authenticator,
    private readonly failures: AuthFailureLimiter,
    private readonly addresses: ClientAddresses,
    @Optional() @Inject(MCP_HTTP_SERVING) private readonly serving?: McpHttpServing,
    @Optional() private readonly adapterHost?: HttpAdapterHost,
    /** The application's throttler storage (`ThrottlerModule`, global): shared by the replicas when it is on Redis. */
    @Optional() @Inject(ThrottlerStorage) private readonly storage?: ThrottlerStorage,
  ) {}

  /** After the MCP path is mounted: in front of it, its own paths. */
  onApplicationBootstrap(): void {
    const server = this.adapterHost?.httpAdapter?.getHttpServer() as Server | undefined;
    if (!this.servers.enabled || !this.serving || !server) return;
    const others = server.listeners('request') as RequestListener[];
    server.removeAllListeners('request');
    server.on('request', (req: IncomingMessage, res: ServerResponse) => {
      const path = this.byPath.size > 0 ? pathOf(req.url!) : undefined;
      const served = path === undefined ? undefined : this.byPath.get(path);
      const described = path === undefined ? undefined : this.byMetadataPath.get(path);
      if (served) this.serve(served, req, res);
      else if (described) this.describe(described, req, res);
      else for (const listener of others) listener.call(server, req, res);
    });
    this.store.onClose((session) => {
      for (const ids of this.sessions.values()) if (session.id) ids.delete(session.id);
    });
    this.apply(this.servers.document());
    this.stopListening = this.servers.onApplied((document) => this.apply(document));
  }

  onApplicationShutdown(): void {
    this.stopListening?.();
  }

  private serve(served: Served, req: IncomingMessage, res: ServerResponse): void {
    this.serving!.handle(req, res, async (_req, _res, authenticate, refuse) => {
      const resource = served.server.credentials?.resource;
      const caller = served.keys
        ? this.keyHolder(served, req, refuse)
        : resource !== undefined
          ? await this.tokenHolder(served, resource, req, refuse)
          : await authenticate();
      if (!caller || !this.admits(served, caller, refuse) || !(await this.withinLimit(served, caller, req, refuse)))
        return undefined;
      const session = req.headers['mcp-session-id'];
      if (typeof session === 'string') this.sessionsOf(served.server.name).add(session);
      return { ...caller, server: served.selection };
    });
  }

  /** The principal of one of the server's own keys (`Authorization: Bearer` or `X-API-Key`), compared in constant time. */
  private keyHolder(served: Served, req: IncomingMessage, refuse: Refuse): McpPrincipal | undefined {
    const bearer = /^Bearer\s+(\S+)$/i.exec(req.headers.authorization ?? '')?.[1];
    const given = bearer ?? (typeof req.headers['x-api-key'] === 'string' ? req.headers['x-api-key'] : undefined);
    const digest = given === undefined ? undefined : keyDigest(given);
    const found = digest && served.keys!.find((key) => sameDigest(key.digest, digest));
    if (found) return found.principal;
    refuse(
      401,
      `Unauthorized: ${given === undefined ? 'no API key: send Authorization: Bearer <key> or X-API-Key: <key>' : `not a key of ${served.server.name}`}`,
      {
        'www-authenticate': `Bearer realm="mcp"${given === undefined ? '' : ', error="invalid_token"'}`,
      },
    );
    return undefined;
  }

  /**
   * The caller of a token whose audience is the server's own resource (RFC 8707), refused as the
   * MCP path refuses (401 with where its RFC 9728 metadata is; the same lock-out of an address
   * after repeated bad credentials).
   */
  private async tokenHolder(
    served: Served,
    resource: string,
    req: IncomingMessage,
    refuse: Refuse,
  ): Promise<McpPrincipal | undefined> {
    const auth = await this.authenticator.authenticate(req.headers, resource);
    if (auth.ok) return auth.principal;
    const address = this.addresses.of(req) ?? 'unknown';
    const wait = this.failures.retryAfter(address);
    if (wait > 0) {
      refuse(429, `Too many failed authentications: wait ${wait} s`, { 'retry-after': String(wait) });
      return undefined;
    }
    if (auth.error === 'invalid_token') this.failures.fail(address);
    const params = [
      `resource_metadata="${metadataUrlOf(resource)}"`,
      ...(auth.error ? [`error="${auth.error}"`, `error_description="${auth.description.replace(/"/g, "'")}"`] : []),
      ...(served.server.credentials?.scopes?.length ? [`scope="${served.server.credentials.scopes.join(' ')}"`] : []),
    ];
    refuse(auth.status, `${auth.status === 401 ? 'Unauthorized' : 'Forbidden'}: ${auth.description}`, {
      'www-authenticate': `Bearer ${params.join(', ')}`,
    });
    return undefined;
  }

  /** RFC 9728: the protected resource metadata of a server with an OAuth resource of its own. */
  private describe(served: Served, req: IncomingMessage, res: ServerResponse): void {
    if (req.method !== 'GET') {
      res.writeHead(405, { allow: 'GET' }).end();
      return;
    }
    const auth = this.security.auth;
    const scopes = served.server.credentials?.scopes;
    const body = JSON.stringify({
      resource: served.server.credentials!.resource,
      authorization_servers: auth.mode === 'oauth' ? [auth.issuer] : [],
      bearer_methods_supported: ['header'],
      ...(scopes?.length && { scopes_supported: scopes }),
      resource_name: served.server.title ?? served.server.name,
    });
    res.writeHead(200, { 'content-type': 'application/json', 'cache-control': 'max-age=300' }).end(body);
  }

  /** The server's own scopes (all) and roles (one), beyond the host's authentication. */
  private admits(served: Served, caller: McpPrincipal, refuse: Refuse): boolean {
    const { scopes = [], roles = [] } = served.server.credentials ?? {};
    const missing = scopes.filter((scope) => !caller.scopes.includes(scope));
    if (missing.length === 0 && (roles.length === 0 || roles.some((role) => caller.roles.includes(role)))) return true;
    refuse(
      403,
      `Forbidden: ${served.server.name} needs ${missing.length > 0 ? `the scopes ${missing.join(' ')}` : `one of the roles ${roles.join(', ')}`}`,
      {
        'www-authenticate': `Bearer realm="mcp", error="insufficient_scope"${missing.length > 0 ? `, scope="${scopes.join(' ')}"` : ''}`,
      },
    );
    return false;
  }

  /**
   * `limits.callsPerMinute`: POST requests per caller and minute through this server, counted by
   * the application's throttler storage (on Redis, across the replicas), or on this replica.
   */
  private async withinLimit(
    served: Served,
    caller: McpPrincipal,
    req: IncomingMessage,
    refuse: Refuse,
  ): Promise<boolean> {
    const limit = served.server.limits?.callsPerMinute;
    if (limit === undefined || req.method !== 'POST') return true;
    const message = `Too many requests: ${served.server.name} takes ${limit} per minute from each caller`;
    if (this.storage) {
      const hits = await this.storage.increment(
        `${served.server.name}:${caller.id}`,
        60_000,
        limit,
        0,
        'virtual-server',
      );
      if (!hits.isBlocked) return true;
      refuse(429, message, { 'retry-after': String(hits.timeToBlockExpire || hits.timeToExpire || 1) });
      return false;
    }
    const now = Date.now();
    const window = Math.floor(now / 60_000);
    const key = `${served.server.name}\u0000${caller.id}`;
    const count = this.counts.get(key);
    if (!count || count.window !== window) {
      if (this.counts.size > 10_000) this.counts.clear();
      this.counts.set(key, { window, count: 1 });
      return true;
    }
    if (++count.count <= limit) return true;
    const wait = Math.ceil(((window + 1) * 60_000 - now) / 1000);
    refuse(429, message, { 'retry-after': String(wait) });
    return false;
  }

  /** Serves what `document` says: new and changed servers at their paths, the removed ones' sessions ended. */
  private apply(document: VirtualServersDocument): void {
    const wanted = new Map((document.servers ?? []).map((server) => [server.name, server]));
    const before = new Map([...this.byPath.values()].map((served) => [served.server.name, served]));
    this.byPath.clear();
    this.byMetadataPath.clear();
    let changed = false;
    for (const server of wanted.values()) {
      const json = JSON.stringify(server);
      const old = before.get(server.name);
      const served = old?.json === json ? old : this.compile(server, json);
      if (served !== old) changed = true;
      this.byPath.set(server.path, served);
      if (server.credentials?.resource !== undefined)
        this.byMetadataPath.set(`${METADATA_PREFIX}${server.path}`, served);
    }
    for (const [name, old] of before) {
      if (wanted.get(name)?.path === old.server.path) continue;
      changed = true;
      // Gone (or moved): the sessions opened through its path end; their next request gets 404.
      for (const id of this.sessions.get(name) ?? []) void this.store.end(id, `virtual server ${name} removed`);
      this.sessions.delete(name);
    }
    if (changed) this.notifications.listChanged('tools', this.tools.all());
  }

  private compile(server: ComposedServer, json: string): Served {
    const keys = server.credentials?.apiKeys?.map((key) => ({
      principal: { id: key.principal, scopes: key.scopes ?? [], roles: key.roles ?? [], claims: {} },
      digest: storedDigest(key.hash),
    }));
    this.logger.log(`Composed virtual server ${server.name} at ${server.path}`);
    return { server, selection: serverSelection(server), keys, json };
  }

  private sessionsOf(name: string): Set<string> {
    let ids = this.sessions.get(name);
    if (!ids) this.sessions.set(name, (ids = new Set()));
    return ids;
  }
}

/** Where RFC 9728 puts the metadata of `resource`: the well-known prefix before its path. */
const metadataUrlOf = (resource: string): string => {
  const url = new URL(resource);
  return `${url.origin}${METADATA_PREFIX}${url.pathname}`;
};

const pathOf = (url: string): string => {
  const query = url.indexOf('?');
  return query < 0 ? url : url.slice(0, query);
};
