import { Injectable, Logger, Optional, type OnApplicationShutdown, type OnApplicationBootstrap } from '@nestjs/common';
import { McpStartupError, type McpCallContext, type McpDiagnostic } from '#libs/core';
import { McpCatalog } from '#libs/catalog';
import { DependencyHealth, McpMetrics } from '#libs/operations';
import { McpResourceNotifier } from '#libs/resources';
import { DownstreamIdentity, type DownstreamTarget } from '#libs/downstream-identity';
import { CatalogPins } from '#libs/governance';
import type { OutboundPolicy } from '#libs/security';
import { InjectGatewayOptions, resolveUpstreams, type GatewayOptions } from './options/gateway.options';
import type { McpUpstreamOptions, UpstreamOptions } from './options/upstream.options';
import { UpstreamConnection, type UpstreamStatus } from './upstream/upstream-connection';
import { UpstreamCatalog } from './catalog/upstream-catalog';

interface RunningUpstream {
  readonly connection: UpstreamConnection;
  readonly entries: UpstreamCatalog;
  /** Resolves when the lists read after the latest connection are in the catalog. */
  ready: Promise<void>;
  readonly unregisterHealth?: () => void;
}

/**
 * The gateway: connects the upstream MCP servers of the `gateway` option when the application
 * starts, keeps their entries in the catalog, and stops them (ending stdio processes) when it
 * shuts down. Inject it to add or remove upstreams at run time, or to read their state (it is in
 * the module with a `gateway` option, `gateway: {}` for none at start-up, or composed servers).
 * Each upstream is a readiness check (`upstream:<name>`), required unless `required: false`.
 *
 * @example
 * ```ts
 * constructor(private readonly gateway: McpGateway) {}
 *
 * async connectTenant(tenant: string, url: string) {
 *   await this.gateway.addUpstream({ name: tenant, transport: { type: 'http', url }, required: false });
 * }
 * ```
 */
@Injectable()
export class McpGateway implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger('McpGateway');
  private readonly running = new Map<string, RunningUpstream>();

  constructor(
    private readonly catalog: McpCatalog,
    @InjectGatewayOptions() private readonly options: GatewayOptions,
    private readonly notifier: McpResourceNotifier,
    @Optional() private readonly health?: DependencyHealth,
    @Optional() private readonly downstream?: DownstreamIdentity,
    @Optional() metrics?: McpMetrics,
    @Optional() private readonly pins?: CatalogPins,
  ) {
    // Read when scraped: each upstream's state for the rules (docker/prometheus/mcp-rules.yml).
    const each = (read: (status: UpstreamStatus) => number) => (): [Record<string, string>, number][] =>
      this.status().map((status) => [{ upstream: status.name }, read(status)]);
    metrics?.addGauge(
      'mcp_upstream_up',
      'Whether the upstream MCP server is connected (1) or not (0).',
      ['upstream'],
      each((s) => (s.state === 'connected' ? 1 : 0)),
    );
    metrics?.addGauge(
      'mcp_upstream_circuit_open',
      "Whether the upstream's circuit breaker is open (1): calls to it are refused.",
      ['upstream'],
      each((s) => (s.circuit === 'open' ? 1 : 0)),
    );
    metrics?.addGauge(
      'mcp_upstream_latency_p50_seconds',
      "Median latency of the upstream's latest requests.",
      ['upstream'],
      each((s) => (s.latencyP50Ms ?? 0) / 1000),
    );
  }

  async onApplicationBootstrap(): Promise<void> {
    await Promise.all(this.options.upstreams.map((upstream) => this.start(upstream)));
  }

  /** After the host's drain (its `beforeApplicationShutdown`): relayed calls in flight keep their upstreams. */
  async onApplicationShutdown(): Promise<void> {
    await Promise.all([...this.running.keys()].map((name) => this.removeUpstream(name)));
  }

  /**
   * Adds an upstream while the host runs: validated as the `gateway.upstreams` option is, then
   * connected; resolves once its entries are in the catalog (or its first connection failed, in
   * which case it keeps trying in the background).
   * @param reach where its connections may go; by default, as the operator's configured URLs may
   *   (so check a URL a user gave before adding it). Virtual servers give their run-time policy.
   * @throws McpStartupError naming every problem of the options, with its fix
   */
  async addUpstream(options: McpUpstreamOptions, reach?: OutboundPolicy): Promise<void> {
    const problems: McpDiagnostic[] = [];
    const [upstream] = resolveUpstreams(
      [options],
      'upstream',
      (option, problem, fix) => problems.push({ where: `McpGateway.addUpstream: "${option}"`, problem, fix }),
      new Set(this.running.keys()),
    );
    if (upstream?.pin && !this.pins)
      problems.push({
        where: 'McpGateway.addUpstream: "upstream.pin"',
        problem: 'pins the upstream, but this host has no governance (pinning is part of it)',
        fix: 'give McpModule the governance option (governance: {}), or leave pin out',
      });
    if (problems.length > 0 || !upstream) throw new McpStartupError(problems, 'Cannot add the upstream MCP server');
    await this.start(reach ? { ...upstream, reach } : upstream);
  }

  /** Disconnects an upstream and removes its entries from the catalog. @returns false if there was none */
  async removeUpstream(name: string): Promise<boolean> {
    const running = this.running.get(name);
    if (!running) return false;
    this.running.delete(name);
    running.unregisterHealth?.();
    running.entries.clear();
    await running.connection.stop();
    return true;
  }

  /** Each upstream's state, latency and error counts, as readiness and the dashboard show them. */
  status(): UpstreamStatus[] {
    return [...this.running.values()].map(({ connection }) => connection.status());
  }

  private async start(upstream: UpstreamOptions): Promise<void> {
    const target: DownstreamTarget = { kind: 'upstream', name: upstream.name, credential: upstream.credential };
    this.downstream?.register(target);
    const downstream = this.downstream;
    const identity =
      downstream && upstream.credential.mode !== 'service'
        ? {
            authorization: (context: McpCallContext) => downstream.authorization(target, context),
            refused: (context: McpCallContext) => downstream.refused(target, context),
          }
        : undefined;
    // The events fire once `start()` runs, after everything below is in place.
    const connection = new UpstreamConnection(
      upstream,
      {
        connected: () => {
          running.ready = entries.sync();
          entries.resubscribe();
        },
        listChanged: (kind) => void entries.sync([kind]),
        resourceUpdated: (uri) => entries.resourceUpdated(uri),
      },
      identity,
    );
    const entries = new UpstreamCatalog(connection, this.catalog, this.notifier, upstream.pin ? this.pins : undefined);
    const running: RunningUpstream = {
      connection,
      entries,
      ready: Promise.resolve(),
      unregisterHealth: this.health?.register({
        name: `upstream:${upstream.name}`,
        required: upstream.required,
        check: () => upstreamHealth(connection.status()),
      }),
    };
    this.running.set(upstream.name, running);
    await connection.start();
    await running.ready;
    this.logger.log(`upstream ${upstream.name} (${upstream.transport.type}): ${connection.status().state}`);
  }
}

/** An upstream's readiness: up while connected with its circuit not open; the error says why not. */
function upstreamHealth(status: UpstreamStatus): Record<string, unknown> {
  if (status.state !== 'connected' || status.circuit === 'open')
    throw new Error(`${status.state}, circuit ${status.circuit}${status.lastError ? `: ${status.lastError}` : ''}`);
  const { transport, circuit, latencyP50Ms, requests, failures, reconnects } = status;
  return { transport, circuit, latencyP50Ms, requests, failures, reconnects };
}
