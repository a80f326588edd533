import { Logger } from '@nestjs/common';
import type { Client, Progress } from '@modelcontextprotocol/client';
import type { McpCallContext } from '#libs/core';
import type { ToolHeaderParam } from '#libs/catalog';
import type { UpstreamOptions } from '../options/upstream.options';
import type { CircuitState } from '../resilience/circuit-breaker';
import { CallerRelay } from './caller-relay';
import { UpstreamLink, type UpstreamConnectionEvents, type UpstreamState } from './upstream-link';
import { UpstreamRequests, type CallerIdentity } from './upstream-requests';

/** An upstream as readiness, the dashboard and `McpGateway.status()` show it. */
export interface UpstreamStatus {
  readonly name: string;
  readonly transport: 'http' | 'stdio';
  readonly state: UpstreamState;
  readonly circuit: CircuitState;
  readonly required: boolean;
  /** What the upstream says it is, once connected. */
  readonly server?: { name: string; version: string };
  /** The protocol revision spoken with it, once connected. */
  readonly protocolVersion?: string;
  readonly connectedAt?: string;
  /** The process id of a stdio upstream while it runs. */
  readonly pid?: number;
  /** Times the connection was made again (and, for stdio, the process restarted). */
  readonly reconnects: number;
  /** Calls to the upstream so far. */
  readonly requests: number;
  /** Of those, the ones the upstream failed: unreachable, timed out, or refused while it was down. */
  readonly failures: number;
  /** Median latency of the last requests, in ms. */
  readonly latencyP50Ms?: number;
  readonly lastError?: string;
}

/**
 * One upstream MCP server, as the gateway uses it: three parts, one concern each. The link
 * (`UpstreamLink`) keeps it connected — reconnection with back-off, a stdio process restarted,
 * the circuit breaker. The requests (`UpstreamRequests`) go through that circuit and the
 * upstream's timeout, and are measured; a 2025-era HTTP upstream's take the gateway's own HTTP
 * path, a 2026-07-28 upstream's input rounds are answered by the caller. The caller relay
 * (`CallerRelay`) hands the upstream's requests to the client (elicitation, sampling, roots)
 * to the caller of the call they serve, when that caller can be told; otherwise they are refused.
 */
export class UpstreamConnection {
  private readonly link: UpstreamLink;
  private readonly requests: UpstreamRequests;

  constructor(
    readonly options: UpstreamOptions,
    events: UpstreamConnectionEvents,
    identity?: CallerIdentity,
  ) {
    const logger = new Logger(`McpGateway:${options.name}`);
    const relay = new CallerRelay(logger);
    this.link = new UpstreamLink(
      options,
      events,
      { prepare: (client) => relay.install(client), opened: (transport) => this.requests.takeProgress(transport) },
      logger,
    );
    this.requests = new UpstreamRequests(options, this.link, relay, logger, identity);
  }

  /** Connects once; on failure, keeps trying in the background. Never throws. */
  start(): Promise<void> {
    return this.link.start();
  }

  /** Closes the connection (ending a stdio process) and stops reconnecting. */
  stop(): Promise<void> {
    return this.link.stop();
  }

  /**
   * Sends a JSON-RPC request to the upstream and resolves with its result, as the upstream gave
   * it (less the 2026 `resultType`): see `UpstreamRequests.call`.
   * @throws McpToolError naming the upstream when it cannot be reached, times out or is open
   * @throws UpstreamRpcError the upstream's own JSON-RPC error
   */
  call(
    method: string,
    params: Record<string, unknown>,
    context?: McpCallContext,
    onProgress?: (progress: Progress) => void,
    headerParams?: readonly ToolHeaderParam[],
  ): Promise<Record<string, unknown>> {
    return this.requests.call(method, params, context, onProgress, headerParams);
  }

  /**
   * Asks the upstream to tell of changes to `uri`: `resources/subscribe` on a 2025 connection,
   * the URI added to the change stream on a 2026-07-28 one.
   * @throws as `call` does (2025 era only)
   */
  async subscribeResource(uri: string): Promise<void> {
    const listener = this.link.listener;
    if (listener) return listener.listen(uri);
    await this.call('resources/subscribe', { uri });
  }

  /** What the upstream said it offers when it connected; `undefined` while it is not connected. */
  serverCapabilities(): ReturnType<Client['getServerCapabilities']> {
    return this.link.client?.getServerCapabilities();
  }

  status(): UpstreamStatus {
    const { client, connectedAt, pid, lastError } = this.link;
    const server = client?.getServerVersion();
    const protocolVersion = client?.getNegotiatedProtocolVersion();
    const p50 = this.requests.latencyP50();
    return {
      name: this.options.name,
      transport: this.options.transport.type,
      state: this.link.state,
      circuit: this.link.breaker.state,
      required: this.options.required,
      ...(server && { server: { name: server.name, version: server.version } }),
      ...(protocolVersion && { protocolVersion }),
      ...(connectedAt && { connectedAt: connectedAt.toISOString() }),
      ...(client && pid !== undefined && { pid }),
      reconnects: this.link.reconnects,
      requests: this.requests.count,
      failures: this.requests.failures,
      ...(p50 !== undefined && { latencyP50Ms: p50 }),
      ...(lastError !== undefined && { lastError }),
    };
  }
}
