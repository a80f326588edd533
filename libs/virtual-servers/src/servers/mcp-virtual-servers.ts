import {
  Inject,
  Injectable,
  Logger,
  Optional,
  type OnApplicationBootstrap,
  type OnApplicationShutdown,
} from '@nestjs/common';
import { HttpAdapterHost } from '@nestjs/core';
import type { AddressInfo } from 'node:net';
import { McpStartupError, type McpDiagnostic } from '#libs/core';
import { InjectGatewayOptions, McpGateway, type GatewayOptions, type McpUpstreamOptions } from '#libs/gateway';
import { InjectConfigChanges, type ConfigChanges } from '#libs/operations';
import { AuditTrail, canonicalJson } from '#libs/security';
import { InjectVirtualServersOptions, type VirtualServersOptions } from '../options/virtual-servers.options';
import {
  DOCUMENT_NAME,
  EMPTY_DOCUMENT,
  REDACTED,
  type VirtualServersDocument,
} from '../document/virtual-servers.document';
import type { ComposedServer } from '../document/composed-server';
import { validateDocument } from '../validation/document.validator';
import type { ReservedPaths } from '../validation/server.validator';
import type { UpstreamTargetPolicy } from '../validation/upstream-target.policy';

/** Who the `seed` option's changes are recorded as. */
const SEED_PRINCIPAL = 'virtualServers.seed';

/** Token of the host's `ReservedPaths` (bound by `McpModule` when it serves HTTP). @internal */
export const MCP_RESERVED_PATHS = Symbol('MCP:RESERVED_PATHS');

/** What a change edits: the upstreams and the composed servers (`undefined`: the target is not there). */
type Edit = (
  document: Pick<VirtualServersDocument, 'upstreams' | 'servers'>,
) => { upstreams: McpUpstreamOptions[]; servers: ComposedServer[] } | undefined;

/** The outcome of a change: applied (with the new document), or refused with why. */
export type VirtualServersChange =
  { ok: true; document: VirtualServersDocument } | { ok: false; status: 404 | 409 | 422; problems: McpDiagnostic[] };

/**
 * The virtual servers of this host: the upstreams stored at run time, applied through the
 * gateway. A change is validated (every problem at once), stored over the version it was made
 * from, applied here, announced to the other replicas (which read the store and apply it too),
 * and audited with who made it and what it was. At start-up, and every `resyncMs` after, the
 * stored document is read and applied, so a replica that missed a word catches up.
 */
@Injectable()
export class McpVirtualServers implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger('McpVirtualServers');
  private current: VirtualServersDocument = EMPTY_DOCUMENT;
  /** What is applied, per upstream name: its canonical JSON (a change of any field applies it again). */
  private readonly applied = new Map<string, string>();
  /** Changes and reloads run one at a time. */
  private turn: Promise<unknown> = Promise.resolve();
  private stopListening: (() => void) | undefined;
  private timer: NodeJS.Timeout | undefined;
  private opened = false;
  private readonly policy: UpstreamTargetPolicy;
  private readonly listeners = new Set<(document: VirtualServersDocument) => void>();

  constructor(
    /** `undefined` without the `virtualServers` option: then this does nothing. */
    @Optional() @InjectVirtualServersOptions() private readonly options: VirtualServersOptions | undefined,
    @InjectGatewayOptions() private readonly gatewayOptions: GatewayOptions,
    private readonly gateway: McpGateway,
    @InjectConfigChanges() private readonly changes: ConfigChanges,
    @Optional() private readonly audit?: AuditTrail,
    @Optional() private readonly adapterHost?: HttpAdapterHost,
    @Optional() @Inject(MCP_RESERVED_PATHS) private readonly reserved?: ReservedPaths,
  ) {
    this.policy = {
      allowHosts: options?.allowHosts ?? [],
      allowPrivateNetworks: options?.allowPrivateNetworks ?? false,
      ownPort: () => (this.adapterHost?.httpAdapter?.getHttpServer()?.address() as AddressInfo | null)?.port,
    };
  }

  /** Whether the `virtualServers` option is on. */
  get enabled(): boolean {
    return this.options !== undefined;
  }

  /** Reads and applies the stored document; a store that cannot be read yet does not stop the host (the resync tries again). */
  async onApplicationBootstrap(): Promise<void> {
    if (!this.options) return;
    await this.reload();
    if (this.current.version === 0 && this.options.seed) await this.plant(this.options.seed);
    this.stopListening = this.changes.onChange((document, version) => {
      if (document === DOCUMENT_NAME && version > this.current.version) void this.reload();
    });
    this.timer = setInterval(() => void this.reload(), this.options.resyncMs);
    this.timer.unref();
  }

  /** A first start: the `seed` option stored as an import (another replica may have stored it first). */
  private async plant(seed: Partial<Pick<VirtualServersDocument, 'upstreams' | 'servers'>>): Promise<void> {
    const planted = await this.importDocument(SEED_PRINCIPAL, { ...seed, upstreams: seed.upstreams ?? [], version: 0 });
    if (planted.ok) return;
    if (planted.status === 409) return void (await this.reload());
    throw new McpStartupError(
      planted.problems.map((problem) => ({ ...problem, where: `virtualServers.seed: ${problem.where}` })),
    );
  }

  async onApplicationShutdown(): Promise<void> {
    this.stopListening?.();
    clearInterval(this.timer);
    await this.turn.catch(() => undefined);
    await this.options?.store.close?.();
  }

  /** The document as applied here, its secrets shown as `[REDACTED]`. */
  document(): VirtualServersDocument {
    return { ...this.current, upstreams: this.current.upstreams.map(redacted), servers: this.current.servers ?? [] };
  }

  /** Told of every document applied here (after its upstreams), with the document; returns how to stop. */
  onApplied(listener: (document: VirtualServersDocument) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Adds a composed server, or replaces the one of its name. */
  putServer(principal: string, server: unknown, expected?: number): Promise<VirtualServersChange> {
    const name = nameOf(server);
    return this.change(principal, expected, 'upsert', name, ({ upstreams, servers = [] }) => {
      const at = servers.findIndex((existing) => existing.name === name);
      const next = [...servers];
      if (at >= 0) next[at] = server as ComposedServer;
      else next.push(server as ComposedServer);
      return { upstreams, servers: next };
    });
  }

  /** Removes a composed server: its path answers 404, its sessions end. */
  removeServer(principal: string, name: string, expected?: number): Promise<VirtualServersChange> {
    return this.change(principal, expected, 'remove', name, ({ upstreams, servers = [] }) =>
      servers.some((server) => server.name === name)
        ? { upstreams, servers: servers.filter((server) => server.name !== name) }
        : undefined,
    );
  }

  /** Adds an upstream, or replaces the one of its name. */
  putUpstream(principal: string, upstream: unknown, expected?: number): Promise<VirtualServersChange> {
    return this.change(principal, expected, 'upsert', nameOf(upstream), ({ upstreams, servers = [] }) => {
      const name = nameOf(upstream);
      const at = upstreams.findIndex((existing) => existing.name === name);
      const next = [...upstreams];
      if (at >= 0) next[at] = keepSecrets(upstream, upstreams[at]) as McpUpstreamOptions;
      else next.push(upstream as McpUpstreamOptions);
      return { upstreams: next, servers };
    });
  }

  /** Removes an upstream: its entries leave the catalog, its clients hear `list_changed`. */
  removeUpstream(principal: string, name: string, expected?: number): Promise<VirtualServersChange> {
    return this.change(principal, expected, 'remove', name, ({ upstreams, servers = [] }) =>
      upstreams.some((upstream) => upstream.name === name)
        ? { upstreams: upstreams.filter((upstream) => upstream.name !== name), servers }
        : undefined,
    );
  }

  /** Replaces the whole document (a GitOps import), with the same validation. */
  importDocument(principal: string, given: unknown): Promise<VirtualServersChange> {
    const document = given as Partial<VirtualServersDocument> | null;
    return this.change(
      principal,
      typeof document?.version === 'number' ? document.version : undefined,
      'import',
      null,
      ({ upstreams }) => {
        const list = Array.isArray(document?.upstreams) ? document.upstreams : [];
        return {
          upstreams: list.map(
            (upstream) =>
              keepSecrets(
                upstream,
                upstreams.find((old) => old.name === nameOf(upstream)),
              ) as McpUpstreamOptions,
          ),
          servers: (document?.servers ?? []) as ComposedServer[],
        };
      },
      given,
    );
  }

  private change(
    principal: string,
    expected: number | undefined,
    action: 'upsert' | 'remove' | 'import',
    target: string | null,
    edit: Edit,
    whole?: unknown,
  ): Promise<VirtualServersChange> {
    const options = this.options;
    if (!options) throw new Error('Virtual servers are off: set the virtualServers option of McpModule');
    const run = async (): Promise<VirtualServersChange> => {
      const started = Date.now();
      if (!this.opened) {
        await options.store.open?.();
        this.opened = true;
      }
      const stored = (await options.store.load()) ?? EMPTY_DOCUMENT;
      if (expected !== undefined && expected !== stored.version)
        return conflict(
          `the change was made from version ${expected}; the stored version is ${stored.version}: read them again`,
        );
      const edited = edit(stored);
      if (!edited)
        return {
          ok: false,
          status: 404,
          problems: [
            {
              where: `"${target}"`,
              problem: 'is not a virtual server',
              fix: 'list them with GET …/api/servers/document',
            },
          ],
        };
      const { upstreams, servers } = edited;
      const validation = await validateDocument(
        { ...(whole as object), upstreams, servers, version: stored.version },
        new Set(this.gatewayOptions.upstreams.map((upstream) => upstream.name)),
        this.policy,
        this.reserved,
      );
      if (!validation.ok) return { ok: false, status: 422, problems: validation.problems };
      const document: VirtualServersDocument = {
        version: stored.version + 1,
        updatedAt: new Date().toISOString(),
        updatedBy: principal,
        upstreams,
        servers,
      };
      try {
        await options.store.save(document, stored.version);
      } catch (error) {
        if ((error as Error).name === 'VersionConflictError') return conflict((error as Error).message);
        throw error;
      }
      await this.apply(document);
      this.changes
        .announce(DOCUMENT_NAME, document.version)
        .catch((error: Error) =>
          this.logger.warn(
            `The other replicas were not told of version ${document.version} (${error.message}); they read it within ${options.resyncMs} ms`,
          ),
        );
      this.audit?.record({
        startedAt: started,
        principal,
        transport: 'http',
        method: `admin/servers.${action}`,
        target,
        arguments: {
          version: document.version,
          upstreams: upstreams.filter((u) => target === null || u.name === target).map(redacted),
          servers: servers.filter((server) => target === null || server.name === target),
        },
        outcome: 'ok',
        latencyMs: Date.now() - started,
      });
      this.logger.log(
        `${principal} ${action === 'upsert' ? 'stored' : action === 'remove' ? 'removed' : 'imported'} ${target ?? 'the virtual servers'} (version ${document.version})`,
      );
      return { ok: true, document: this.document() };
    };
    const result = this.turn.then(run, run);
    this.turn = result.catch(() => undefined);
    return result;
  }

  /** Reads the store and applies what changed (start-up, a word from another replica, the periodic read). */
  private reload(): Promise<void> {
    const options = this.options!;
    const run = async () => {
      try {
        if (!this.opened) {
          await options.store.open?.();
          this.opened = true;
        }
        const stored = await options.store.load();
        if (stored && stored.version !== this.current.version) await this.apply(stored);
      } catch (error) {
        this.logger.warn(
          `Cannot read the virtual servers from the ${options.store.name} store: ${(error as Error).message}`,
        );
      }
    };
    const result = this.turn.then(run, run);
    this.turn = result;
    return result;
  }

  /** Makes the gateway's upstreams what `document` says: removed and changed ones go, new and changed ones come. */
  private async apply(document: VirtualServersDocument): Promise<void> {
    const wanted = new Map(document.upstreams.map((upstream) => [upstream.name, canonicalJson(upstream)]));
    for (const [name, json] of this.applied) {
      if (wanted.get(name) === json) continue;
      await this.gateway.removeUpstream(name);
      this.applied.delete(name);
    }
    await Promise.all(
      document.upstreams
        .filter((upstream) => !this.applied.has(upstream.name))
        .map(async (upstream) => {
          try {
            await this.gateway.addUpstream({ required: false, ...upstream });
            this.applied.set(upstream.name, wanted.get(upstream.name)!);
          } catch (error) {
            this.logger.error(`Cannot apply upstream ${upstream.name}: ${(error as Error).message}`);
          }
        }),
    );
    this.current = document;
    for (const listener of this.listeners) listener(document);
  }
}

const conflict = (message: string): VirtualServersChange => ({
  ok: false,
  status: 409,
  problems: [{ where: 'version', problem: message, fix: 'GET …/api/servers, then send the change with its version' }],
});

const nameOf = (upstream: unknown): string =>
  typeof upstream === 'object' && upstream !== null && typeof (upstream as { name?: unknown }).name === 'string'
    ? (upstream as { name: string }).name
    : '';

/** The upstream with its credentials (bearer, header values, OAuth client secret) shown as `[REDACTED]`. */
function redacted(upstream: McpUpstreamOptions): McpUpstreamOptions {
  const transport = upstream.transport;
  if (transport.type !== 'http') return upstream;
  return {
    ...upstream,
    transport: {
      ...transport,
      ...(transport.bearer !== undefined && { bearer: REDACTED }),
      ...(transport.headers && {
        headers: Object.fromEntries(Object.keys(transport.headers).map((key) => [key, REDACTED])),
      }),
      ...(transport.oauth && { oauth: { ...transport.oauth, clientSecret: REDACTED } }),
    },
  };
}

/** A `[REDACTED]` credential in an import or a change keeps the stored one of the same upstream. */
function keepSecrets(given: unknown, stored: McpUpstreamOptions | undefined): unknown {
  const transport = (given as { transport?: Record<string, unknown> } | null)?.transport;
  const old = stored?.transport;
  if (!transport || old?.type !== 'http') return given;
  const next = { ...transport };
  if (next.bearer === REDACTED) next.bearer = old.bearer;
  if (typeof next.headers === 'object' && next.headers !== null)
    next.headers = Object.fromEntries(
      Object.entries(next.headers as Record<string, string>).map(([key, value]) => [
        key,
        value === REDACTED ? old.headers?.[key] : value,
      ]),
    );
  if (
    typeof next.oauth === 'object' &&
    next.oauth !== null &&
    (next.oauth as { clientSecret?: unknown }).clientSecret === REDACTED
  )
    next.oauth = { ...(next.oauth as object), clientSecret: old.oauth?.clientSecret };
  return { ...(given as object), transport: next };
}
