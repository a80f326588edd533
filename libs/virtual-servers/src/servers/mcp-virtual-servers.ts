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
import { RestApiLoader, type McpRestApiOptions } from '#libs/rest';
import { InjectConfigChanges, type ConfigChanges } from '#libs/operations';
import { AuditTrail, canonicalJson, OutboundPolicies, type OutboundPolicy, type OutboundRefusal } from '#libs/security';
import { InjectVirtualServersOptions, type VirtualServersOptions } from '../options/virtual-servers.options';
import { DOCUMENT_NAME, EMPTY_DOCUMENT, type VirtualServersDocument } from '../document/virtual-servers.document';
import type { ComposedServer } from '../document/composed-server';
import { validateDocument } from '../validation/document.validator';
import type { ReservedPaths } from '../validation/server.validator';
import { keepApiSecrets, keepSecrets, redacted, redactedApi } from './secrets';

/** Who the `seed` option's changes are recorded as. */
const SEED_PRINCIPAL = 'virtualServers.seed';

/** Token of the host's `ReservedPaths` (bound by `McpModule` when it serves HTTP). @internal */
export const MCP_RESERVED_PATHS = Symbol('MCP:RESERVED_PATHS');

/** The three lists of the document a change edits. */
interface Parts {
  upstreams: McpUpstreamOptions[];
  servers: ComposedServer[];
  apis: McpRestApiOptions[];
}

/**
 * What a change does to the lists: the ones it replaces (`undefined`: its target is not there;
 * problems: it cannot be made as it is, 422).
 */
type Edit = (parts: Parts) => Partial<Parts> | McpDiagnostic[] | undefined;

/** How a change given with `[REDACTED]` credentials keeps the stored ones, per list. */
const KEEP: { [K in keyof Parts]: (given: unknown, stored: Parts[K][number] | undefined) => unknown } = {
  upstreams: (given, stored) => keepSecrets(given, stored as McpUpstreamOptions | undefined),
  servers: (given) => given,
  apis: (given, stored) => keepApiSecrets(given, stored as McpRestApiOptions | undefined),
};

/** What the admin API calls each list's entries in its answers. */
const ENTRY: { [K in keyof Parts]: string } = { upstreams: 'upstream', servers: 'composed server', apis: 'API' };

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
  /** Likewise per API, with the problems it had when it was applied. */
  private readonly appliedApis = new Map<string, { json: string; problems: string[] }>();
  /** Changes and reloads run one at a time. */
  private turn: Promise<unknown> = Promise.resolve();
  private stopListening: (() => void) | undefined;
  private timer: NodeJS.Timeout | undefined;
  private opened = false;
  /** Where the upstreams and APIs stored here may connect, checked at validation and at every connection. */
  private readonly reach: OutboundPolicy;
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
    @Optional() private readonly rest?: RestApiLoader,
  ) {
    this.reach = OutboundPolicies.runTime({
      allowHosts: options?.allowHosts ?? [],
      allowPrivateNetworks: options?.allowPrivateNetworks ?? false,
      ownPort: () => (this.adapterHost?.httpAdapter?.getHttpServer()?.address() as AddressInfo | null)?.port,
      onRefused: (refusal) => this.audited(refusal),
    });
  }

  /** A connection of a stored upstream or API that its policy refused (nothing connected): audited. */
  private audited(refusal: OutboundRefusal): void {
    this.audit?.record({
      startedAt: Date.now(),
      principal: null,
      transport: 'http',
      method: 'outbound/refused',
      target: `${refusal.host}:${refusal.port}`,
      arguments: { reach: refusal.reach, address: refusal.address, class: refusal.class, reason: refusal.reason },
      outcome: 'denied',
      error: refusal.problem,
      latencyMs: 0,
    });
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
  private async plant(seed: Partial<Pick<VirtualServersDocument, 'upstreams' | 'servers' | 'apis'>>): Promise<void> {
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
    const { upstreams, servers = [], apis = [] } = this.current;
    return { ...this.current, upstreams: upstreams.map(redacted), servers, apis: apis.map(redactedApi) };
  }

  /** Each API added at run time: the tools it serves here, and the problems it had when applied. */
  apiStates(): { name: string; tools: readonly string[]; problems: readonly string[] }[] {
    return (this.current.apis ?? []).map(({ name }) => ({
      name,
      tools: this.rest?.toolNames(name) ?? [],
      problems: this.appliedApis.get(name)?.problems ?? [],
    }));
  }

  /** Told of every document applied here (after its upstreams), with the document; returns how to stop. */
  onApplied(listener: (document: VirtualServersDocument) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Adds an upstream, or replaces the one of its name. */
  putUpstream(principal: string, upstream: unknown, expected?: number): Promise<VirtualServersChange> {
    return this.put('upstreams', principal, upstream, expected);
  }

  /** Removes an upstream: its entries leave the catalog, its clients hear `list_changed`. */
  removeUpstream(principal: string, name: string, expected?: number): Promise<VirtualServersChange> {
    return this.remove('upstreams', principal, name, expected);
  }

  /** Adds a composed server, or replaces the one of its name. */
  putServer(principal: string, server: unknown, expected?: number): Promise<VirtualServersChange> {
    return this.put('servers', principal, server, expected);
  }

  /** Removes a composed server: its path answers 404, its sessions end. */
  removeServer(principal: string, name: string, expected?: number): Promise<VirtualServersChange> {
    return this.remove('servers', principal, name, expected);
  }

  /** Adds a REST API (as `rest.apis` takes one, its document at an http(s) URL), or replaces the one of its name. */
  putApi(principal: string, api: unknown, expected?: number): Promise<VirtualServersChange> {
    return this.put('apis', principal, api, expected);
  }

  /** Removes a REST API: its tools leave the catalog, its clients hear `list_changed`. */
  removeApi(principal: string, name: string, expected?: number): Promise<VirtualServersChange> {
    return this.remove('apis', principal, name, expected);
  }

  /** Replaces the whole document (a GitOps import), with the same validation. */
  importDocument(principal: string, given: unknown): Promise<VirtualServersChange> {
    const document = given as Partial<VirtualServersDocument> | null;
    const imported = <K extends keyof Parts>(kind: K, parts: Parts): Parts[K] => {
      const list = document?.[kind];
      return (Array.isArray(list) ? list : []).map((item) =>
        KEEP[kind](
          item,
          parts[kind].find((old) => old.name === nameOf(item)),
        ),
      ) as Parts[K];
    };
    return this.change(
      principal,
      typeof document?.version === 'number' ? document.version : undefined,
      'import',
      null,
      (parts) => ({
        upstreams: imported('upstreams', parts),
        servers: imported('servers', parts),
        apis: imported('apis', parts),
      }),
      given,
    );
  }

  private put<K extends keyof Parts>(kind: K, principal: string, item: unknown, expected?: number) {
    const name = nameOf(item);
    return this.change(principal, expected, 'upsert', name, (parts) => {
      const list = [...parts[kind]] as Parts[K][number][];
      const at = list.findIndex((existing) => existing.name === name);
      const kept = KEEP[kind](item, at >= 0 ? list[at] : undefined) as Parts[K][number];
      if (at >= 0) list[at] = kept;
      else list.push(kept);
      return { [kind]: list };
    });
  }

  private remove<K extends keyof Parts>(kind: K, principal: string, name: string, expected?: number) {
    return this.change(
      principal,
      expected,
      'remove',
      name,
      (parts) => {
        const list = parts[kind] as Parts[K][number][];
        if (!list.some((item) => item.name === name)) return undefined;
        // An upstream or API a composed server selects stays while one does: said with the server.
        const selecting =
          kind === 'servers' ? [] : selectionsOf(parts.servers, kind === 'apis' ? 'api' : 'upstream', name);
        if (selecting.length > 0) return selecting;
        return { [kind]: list.filter((item) => item.name !== name) };
      },
      undefined,
      ENTRY[kind],
    );
  }

  private change(
    principal: string,
    expected: number | undefined,
    action: 'upsert' | 'remove' | 'import',
    target: string | null,
    edit: Edit,
    whole?: unknown,
    entry = 'virtual server',
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
      const before: Parts = { upstreams: stored.upstreams, servers: stored.servers ?? [], apis: stored.apis ?? [] };
      const edited = edit(before);
      if (!edited)
        return {
          ok: false,
          status: 404,
          problems: [
            {
              where: `"${target}"`,
              problem: `is not a${/^[aeiou]/i.test(entry) ? 'n' : ''} ${entry} here`,
              fix: 'list them with GET …/api/servers/document',
            },
          ],
        };
      if (Array.isArray(edited)) return { ok: false, status: 422, problems: edited };
      const { upstreams, servers, apis } = { ...before, ...edited };
      const validation = await validateDocument(
        { ...(whole as object), upstreams, servers, apis, version: stored.version },
        {
          fixedUpstreams: new Set(this.gatewayOptions.upstreams.map((upstream) => upstream.name)),
          policy: this.reach,
          reserved: this.reserved,
          rest: this.rest,
        },
      );
      if (!validation.ok) return { ok: false, status: 422, problems: validation.problems };
      const unreadable = await this.unreadableApis(apis, before.apis);
      if (unreadable.length > 0) return { ok: false, status: 422, problems: unreadable };
      const document: VirtualServersDocument = {
        version: stored.version + 1,
        updatedAt: new Date().toISOString(),
        updatedBy: principal,
        upstreams,
        servers,
        apis,
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
      const shown: Parts = action === 'remove' ? before : { upstreams, servers, apis };
      const named = (item: { name: string }) => target === null || item.name === target;
      this.audit?.record({
        startedAt: started,
        principal,
        transport: 'http',
        method: `admin/servers.${action}`,
        target,
        arguments: {
          version: document.version,
          // What is stored now of the target, or (a removal) what was.
          upstreams: shown.upstreams.filter(named).map(redacted),
          servers: shown.servers.filter(named),
          apis: shown.apis.filter(named).map(redactedApi),
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

  /**
   * The problems of the new and changed APIs of a change that only reading them shows (their
   * document cannot be fetched or read, it says no base URL): found before anything is stored.
   */
  private async unreadableApis(apis: McpRestApiOptions[], stored: McpRestApiOptions[]): Promise<McpDiagnostic[]> {
    const rest = this.rest;
    if (!rest || apis.length === 0) return [];
    const before = new Map(stored.map((api) => [api.name, canonicalJson(api)]));
    const resolved = rest.resolveApis(apis, () => undefined);
    const problems = await Promise.all(
      resolved.map((api, index) =>
        before.get(api.name) === canonicalJson(apis[index]) ? [] : rest.check(api, this.reach),
      ),
    );
    return problems
      .flat()
      .filter(({ severity }) => severity !== 'warning')
      .map(({ where, problem, fix }) => ({ where: where.replace(/^rest\.apis/, 'apis'), problem, fix }));
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
            await this.gateway.addUpstream({ required: false, ...upstream }, this.reach);
            this.applied.set(upstream.name, wanted.get(upstream.name)!);
          } catch (error) {
            this.logger.error(`Cannot apply upstream ${upstream.name}: ${(error as Error).message}`);
          }
        }),
    );
    await this.applyApis(document.apis ?? []);
    this.current = document;
    for (const listener of this.listeners) listener(document);
  }

  /** Makes the catalog's run-time APIs what `apis` says, as `apply` does for the upstreams. */
  private async applyApis(apis: readonly McpRestApiOptions[]): Promise<void> {
    const rest = this.rest;
    if (!rest) return;
    const wanted = new Map(apis.map((api) => [api.name, canonicalJson(api)]));
    for (const [name, { json }] of this.appliedApis) {
      if (wanted.get(name) === json) continue;
      rest.removeApi(name);
      this.appliedApis.delete(name);
    }
    const resolved = rest.resolveApis(
      apis.filter((api) => !this.appliedApis.has(api.name)),
      () => undefined, // validated before it was stored
    );
    await Promise.all(
      resolved.map(async (api) => {
        const problems = (await rest.addApi(api, this.reach))
          .filter(({ severity }) => severity !== 'warning')
          .map(({ where, problem }) => `${where.replace(/^rest\.apis\[\d+\]/, api.name)}: ${problem}`);
        for (const problem of problems) this.logger.error(`Cannot apply the API ${api.name}: ${problem}`);
        this.appliedApis.set(api.name, { json: wanted.get(api.name)!, problems });
      }),
    );
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

/** The selections of composed servers that name the upstream or API `name`, as problems of its removal. */
function selectionsOf(servers: readonly ComposedServer[], from: 'upstream' | 'api', name: string): McpDiagnostic[] {
  const what = from === 'api' ? 'API' : 'upstream';
  return servers.flatMap((server, index) =>
    server.select
      .map((item, at) => ({ item, at }))
      .filter(({ item }) => item.from === from && item.name === name)
      .map(({ at }) => ({
        where: `${what} "${name}"`,
        problem: `is selected by the composed server "${server.name}" (servers[${index}].select[${at}]), so it stays while that server selects it`,
        fix: `remove that selection from "${server.name}" first (POST …/api/servers/composed with the server without it), or remove the server (DELETE …/api/servers/composed/${server.name})`,
      })),
  );
}
