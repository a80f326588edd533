import { createInterface } from 'node:readline';
import type { Readable } from 'node:stream';
import type { Logger } from '@nestjs/common';
import { OutboundPolicies, type OutboundPolicy } from '#libs/security';
import type { Client, StreamableHTTPClientTransport, Transport } from '@modelcontextprotocol/client';
import type { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import type { UpstreamOptions } from '../options/upstream.options';
import { CircuitBreaker } from '../resilience/circuit-breaker';
import { GatewayMessages } from '../messages/gateway.messages';
import { HttpJsonRpcChannel } from './http-json-rpc';
import { ChangeListener } from './change-listener';
import { createUpstreamClient, GATEWAY_CLIENT_INFO, RELAYED_CAPABILITIES } from './upstream-transport';

/** What a connection remembers of the revision it negotiated, to skip the probe when it reconnects. */
type PriorDiscovery = NonNullable<Parameters<Client['connect']>[1]>['prior'];

/** The lists an upstream can say changed. */
export type UpstreamListKind = 'tools' | 'prompts' | 'resources';

/** `connecting` until the first handshake, `connected`, `reconnecting` after it went away, `stopped`. */
export type UpstreamState = 'connecting' | 'connected' | 'reconnecting' | 'stopped';

/** What the connection tells its owner. */
export interface UpstreamConnectionEvents {
  /** The upstream (re)connected: its lists should be read again. */
  connected(): void;
  /** The upstream said a list changed. */
  listChanged(kind: UpstreamListKind): void;
  /** The upstream said a resource the gateway subscribed to changed (its upstream URI). */
  resourceUpdated(uri: string): void;
}

/** What the other parts of a connection do with each client the link makes. */
export interface UpstreamClientHooks {
  /** A new client, before it connects: the handlers of the upstream's requests to the client. */
  prepare(client: Client): void;
  /** The transport of a client that connected: its messages, to see progress first. */
  opened(transport: Transport): void;
}

/**
 * The link to one upstream, kept up: connects at start, and whenever the connection goes away
 * (a stdio process that exits, an HTTP server that stops answering or forgets the session)
 * reconnects in the background with exponential back-off, restarting a stdio process. It holds
 * the upstream's circuit breaker, which the requests consult, and what the link is now: the SDK
 * client, the gateway's own HTTP path on its session, a 2026-07-28 upstream's change stream.
 */
export class UpstreamLink {
  readonly breaker: CircuitBreaker;
  private current: Client | undefined;
  private http: HttpJsonRpcChannel | undefined;
  /** A 2026-07-28 upstream's change notifications. */
  private changes: ChangeListener | undefined;
  /** The revision the last connection negotiated (reused when reconnecting). */
  private prior: PriorDiscovery;
  private processId: number | undefined;
  private linkState: UpstreamState = 'connecting';
  private reconnections = 0;
  private attempt = 0;
  private timer: NodeJS.Timeout | undefined;
  private since: Date | undefined;
  private error: string | undefined;
  /** The client whose stdio transport ended the process for a line past `maxResponseBytes`. */
  private overflowedClient: Client | undefined;
  /** Where an HTTP upstream's connections may go (its own URLs are the operator's, unless given). */
  private readonly reach: OutboundPolicy;

  constructor(
    private readonly options: UpstreamOptions,
    private readonly events: UpstreamConnectionEvents,
    private readonly hooks: UpstreamClientHooks,
    private readonly logger: Logger,
  ) {
    this.breaker = new CircuitBreaker({ failureThreshold: options.failureThreshold, openMs: options.openMs });
    const { transport } = options;
    this.reach =
      options.reach ??
      OutboundPolicies.configured(
        transport.type === 'http' ? [transport.url, transport.oauth?.tokenUrl] : [],
        `the upstream ${options.name}`,
      );
  }

  /** The SDK client while connected. */
  get client(): Client | undefined {
    return this.current;
  }

  /** A 2025-era HTTP upstream's requests: the gateway's own path on the SDK client's session. */
  get channel(): HttpJsonRpcChannel | undefined {
    return this.http;
  }

  /** A 2026-07-28 upstream's change stream. */
  get listener(): ChangeListener | undefined {
    return this.changes;
  }

  /** Whether the upstream speaks 2026-07-28 (as last negotiated). */
  get modern(): boolean {
    return this.prior?.kind === 'modern';
  }

  get state(): UpstreamState {
    return this.linkState;
  }

  get pid(): number | undefined {
    return this.processId;
  }

  /** Times the connection was made again (and, for stdio, the process restarted). */
  get reconnects(): number {
    return this.reconnections;
  }

  get connectedAt(): Date | undefined {
    return this.since;
  }

  get lastError(): string | undefined {
    return this.error;
  }

  /** The client whose stdio process ended on a line past `maxResponseBytes`, if any. */
  get overflowed(): Client | undefined {
    return this.overflowedClient;
  }

  /** A request failed on the upstream: status shows why. */
  failed(message: string): void {
    this.error = message;
  }

  /** The connection went away: drop it and reconnect (once, however many requests saw it fail). */
  lost(client: Client, error: unknown): void {
    if (this.current !== client || this.linkState === 'stopped') return;
    this.current = undefined;
    this.linkState = 'reconnecting';
    this.error = (error as Error).message;
    client.onclose = undefined;
    void this.changes?.close();
    this.changes = undefined;
    void client.close().catch(() => undefined);
    this.logger.warn(GatewayMessages.lost(this.options.name, this.error, this.nextDelayMs()));
    this.scheduleReconnect();
  }

  /** Connects once; on failure, keeps trying in the background. Never throws. */
  async start(): Promise<void> {
    await this.connect();
  }

  /** Closes the connection (ending a stdio process) and stops reconnecting. */
  async stop(): Promise<void> {
    this.linkState = 'stopped';
    clearTimeout(this.timer);
    const client = this.current;
    this.current = undefined;
    this.http?.close();
    await this.changes?.close();
    await client?.close().catch(() => undefined);
  }

  private async connect(): Promise<void> {
    if (this.linkState === 'stopped') return;
    const { client, transport, http } = createUpstreamClient(this.options, this.reach);
    this.watch(client);
    this.hooks.prepare(client);
    client.onerror = (error) => this.transportFailed(client, error);
    const stderr = (transport as Partial<StdioClientTransport>).stderr;
    if (stderr) this.logLines(stderr as Readable);
    try {
      const timeout = this.options.timeoutMs;
      await client.connect(transport, { timeout, ...(this.prior && { prior: this.prior }) });
      // Connecting from a 2026-07-28 verdict asks the upstream nothing (a 2025 one still runs the
      // handshake): ask it, so that only an upstream that answers counts as connected. Otherwise a
      // dead upstream "reconnects" at once, resets the back-off and closes the circuit.
      if (this.prior?.kind === 'modern') await client.discover({ timeout });
    } catch (error) {
      // The upstream may have changed revision: the next attempt asks it again.
      this.prior = undefined;
      this.error = (error as Error).message;
      this.logger.warn(GatewayMessages.connectFailed(this.options.name, this.error, this.nextDelayMs()));
      await client.close().catch(() => undefined);
      this.scheduleReconnect();
      return;
    }
    // Stopped while the handshake ran.
    if ((this.linkState as UpstreamState) === 'stopped') {
      await client.close().catch(() => undefined);
      return;
    }
    client.onclose = () => this.lost(client, new Error('the connection closed'));
    this.hooks.opened(transport);
    this.current = client;
    const modern = client.getProtocolEra() === 'modern';
    const discover = client.getDiscoverResult();
    this.prior = modern && discover ? { kind: 'modern', discover } : { kind: 'legacy' };
    this.http?.close();
    void this.changes?.close();
    this.changes = modern ? new ChangeListener(client, this.options.timeoutMs, this.logger) : undefined;
    void this.changes?.listen();
    const { maxResponseBytes, maxConnections } = this.options.limits;
    this.http = http
      ? new HttpJsonRpcChannel(
          http.url,
          http.headers,
          () => {
            const { sessionId, protocolVersion } = transport as StreamableHTTPClientTransport;
            return { sessionId, protocolVersion };
          },
          (message) => transport.onmessage?.(message),
          {
            credentials: http.credentials,
            modern: modern
              ? {
                  protocolVersion: client.getNegotiatedProtocolVersion()!,
                  clientInfo: GATEWAY_CLIENT_INFO,
                  capabilities: RELAYED_CAPABILITIES,
                }
              : undefined,
            maxResponseBytes,
            maxConnections,
            reach: this.reach,
          },
        )
      : undefined;
    this.processId = (transport as Partial<StdioClientTransport>).pid ?? undefined;
    this.attempt = 0;
    this.linkState = 'connected';
    this.since = new Date();
    this.breaker.succeeded();
    const server = client.getServerVersion();
    this.logger.log(
      `connected to ${`${server?.name ?? 'the server'} ${server?.version ?? ''}`.trim()} (${client.getNegotiatedProtocolVersion()})`,
    );
    this.events.connected();
  }

  /** The upstream's change notifications, told to the owner. */
  private watch(client: Client): void {
    client.setNotificationHandler('notifications/tools/list_changed', () => this.events.listChanged('tools'));
    client.setNotificationHandler('notifications/prompts/list_changed', () => this.events.listChanged('prompts'));
    client.setNotificationHandler('notifications/resources/list_changed', () => this.events.listChanged('resources'));
    client.setNotificationHandler('notifications/resources/updated', ({ params }) =>
      this.events.resourceUpdated(params.uri),
    );
  }

  /**
   * What the SDK client's transport could not deliver: a message past `maxResponseBytes` is the
   * upstream's fault and said so (a stdio transport then ends the process); the rest (a stream
   * that dropped, and is opened again) is the connection's business.
   */
  private transportFailed(client: Client, error: Error): void {
    // The stdio transport's buffer limit, or the capped fetch's error inside the SDK's own message.
    const overflow = /ReadBuffer exceeded maximum size|limits\.maxResponseBytes/.test(error.message);
    if (!overflow) return void this.logger.debug(`transport: ${error.message}`);
    const stdio = this.options.transport.type === 'stdio';
    if (stdio) this.overflowedClient = client;
    this.logger.error(GatewayMessages.overflowed(this.options.limits.maxResponseBytes, stdio));
  }

  private scheduleReconnect(): void {
    if (this.linkState === 'stopped') return;
    const delay = this.nextDelayMs();
    this.attempt++;
    clearTimeout(this.timer);
    this.timer = setTimeout(() => {
      this.reconnections++;
      void this.connect();
    }, delay);
    this.timer.unref();
  }

  private nextDelayMs(): number {
    const { initialDelayMs, maxDelayMs } = this.options;
    return Math.min(maxDelayMs, initialDelayMs * 2 ** this.attempt);
  }

  /** A stdio upstream's stderr, one log line per line (what the server says of itself). */
  private logLines(stream: Readable): void {
    const lines = createInterface({ input: stream });
    lines.on('line', (line) => {
      if (line.trim()) this.logger.log(`stderr: ${line}`);
    });
  }
}
