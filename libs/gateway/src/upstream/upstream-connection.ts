import { createInterface } from 'node:readline';
import type { Readable } from 'node:stream';
import { Logger } from '@nestjs/common';
import type {
  Client,
  JSONRPCMessage,
  Progress,
  RequestOptions,
  StandardSchemaV1,
  StreamableHTTPClientTransport,
  Transport,
} from '@modelcontextprotocol/client';
import type { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { McpToolError, type McpCallContext } from '#libs/core';
import type { UpstreamOptions } from '../options/upstream.options';
import { CircuitBreaker, type CircuitState } from '../resilience/circuit-breaker';
import { createUpstreamClient } from './upstream-transport';
import { GatewayMessages } from '../messages/gateway.messages';
import { LatencyWindow } from './latency-window';
import { HttpJsonRpcChannel, type HttpJsonRpcOptions } from './http-json-rpc';
import { ChangeListener } from './change-listener';
import {
  classifyUpstreamError,
  clientSdk,
  UpstreamLimitError,
  UpstreamRpcError,
  UpstreamTimeoutError,
} from './upstream-errors';
import type { ToolHeaderParam } from '#libs/catalog';
import { CLIENT_CAPABILITIES_META, LOG_LEVEL_META } from './modern-request';
import { RELAYED_CAPABILITIES, GATEWAY_CLIENT_INFO } from './upstream-transport';

/** The result schema of a relayed request: what the upstream answered, as it is (the host maps it). */
const AS_ANSWERED: StandardSchemaV1<unknown, Record<string, unknown>> = {
  '~standard': {
    version: 1,
    vendor: 'nest-mcp-host',
    validate: (value) => ({ value: value as Record<string, unknown> }),
  },
};

/** The rounds of input one 2026-07-28 request may ask for before the gateway gives up on it. */
const MAX_INPUT_ROUNDS = 10;

/** What a connection remembers of the revision it negotiated, to skip the probe when it reconnects. */
type PriorDiscovery = NonNullable<Parameters<Client['connect']>[1]>['prior'];

/** The upstream's requests to the client the gateway relays, and the capability each needs. */
const RELAYED_CAPABILITY = {
  'elicitation/create': 'elicitation',
  'sampling/createMessage': 'sampling',
  'roots/list': 'roots',
} as const;
type RelayedMethod = keyof typeof RELAYED_CAPABILITY;

/** Of what the gateway relays to its callers, what this call's caller declared it can answer. */
function relayable(context: McpCallContext): Record<string, unknown> {
  const capabilities: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(RELAYED_CAPABILITIES))
    if (context.clientCapabilities[key]) capabilities[key] = value;
  return capabilities;
}

/** The lists an upstream can say changed. */
export type UpstreamListKind = 'tools' | 'prompts' | 'resources';

/** `connecting` until the first handshake, `connected`, `reconnecting` after it went away, `stopped`. */
export type UpstreamState = 'connecting' | 'connected' | 'reconnecting' | 'stopped';

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

/** What the connection tells its owner. */
export interface UpstreamConnectionEvents {
  /** The upstream (re)connected: its lists should be read again. */
  connected(): void;
  /** The upstream said a list changed. */
  listChanged(kind: UpstreamListKind): void;
  /** The upstream said a resource the gateway subscribed to changed (its upstream URI). */
  resourceUpdated(uri: string): void;
}

/**
 * One upstream MCP server, kept connected: connects at start, and whenever the connection goes
 * away (a stdio process that exits, an HTTP server that stops answering or forgets the session)
 * reconnects in the background with exponential back-off, restarting a stdio process. Every
 * request goes through the upstream's circuit breaker and timeout, and is measured. The
 * upstream's requests to the client (elicitation, sampling, roots) are relayed to the caller of
 * the call they serve, when that caller can be told; otherwise they are refused.
 */
export class UpstreamConnection {
  private readonly logger: Logger;
  private readonly breaker: CircuitBreaker;
  private readonly latency = new LatencyWindow(100);
  private client: Client | undefined;
  private channel: HttpJsonRpcChannel | undefined;
  /** A 2026-07-28 upstream's change notifications. */
  private listener: ChangeListener | undefined;
  /** The revision the last connection negotiated (reused when reconnecting). */
  private prior: PriorDiscovery;
  private pid: number | undefined;
  private state: UpstreamState = 'connecting';
  private reconnects = 0;
  private attempt = 0;
  private timer: NodeJS.Timeout | undefined;
  private connectedAt: Date | undefined;
  private requests = 0;
  private failures = 0;
  private lastError: string | undefined;
  /** The client whose stdio transport ended the process for a line past `maxResponseBytes`. */
  private overflowed: Client | undefined;
  /** The calls in flight, newest last: whom an upstream's request to the client is for. */
  private readonly inFlight = new Set<McpCallContext>();
  /** Progress listeners by the progress token the gateway gave the upstream request. */
  private readonly progress = new Map<string, (progress: Progress) => void>();
  private progressTokens = 0;

  constructor(
    readonly options: UpstreamOptions,
    private readonly events: UpstreamConnectionEvents,
  ) {
    this.logger = new Logger(`McpGateway:${options.name}`);
    this.breaker = new CircuitBreaker({ failureThreshold: options.failureThreshold, openMs: options.openMs });
  }

  /** Connects once; on failure, keeps trying in the background. Never throws. */
  async start(): Promise<void> {
    await this.connect();
  }

  /** Closes the connection (ending a stdio process) and stops reconnecting. */
  async stop(): Promise<void> {
    this.state = 'stopped';
    clearTimeout(this.timer);
    const client = this.client;
    this.client = undefined;
    this.channel?.close();
    await this.listener?.close();
    await client?.close().catch(() => undefined);
  }

  /**
   * Asks the upstream to tell of changes to `uri`: `resources/subscribe` on a 2025 connection,
   * the URI added to the change stream on a 2026-07-28 one.
   * @throws as `call` does (2025 era only)
   */
  async subscribeResource(uri: string): Promise<void> {
    if (this.listener) return this.listener.listen(uri);
    await this.call('resources/subscribe', { uri });
  }

  /** What the upstream said it offers when it connected; `undefined` while it is not connected. */
  serverCapabilities(): ReturnType<Client['getServerCapabilities']> {
    return this.client?.getServerCapabilities();
  }

  status(): UpstreamStatus {
    const server = this.client?.getServerVersion();
    const protocolVersion = this.client?.getNegotiatedProtocolVersion();
    const p50 = this.latency.median();
    return {
      name: this.options.name,
      transport: this.options.transport.type,
      state: this.state,
      circuit: this.breaker.state,
      required: this.options.required,
      ...(server && { server: { name: server.name, version: server.version } }),
      ...(protocolVersion && { protocolVersion }),
      ...(this.connectedAt && { connectedAt: this.connectedAt.toISOString() }),
      ...(this.client && this.pid !== undefined && { pid: this.pid }),
      reconnects: this.reconnects,
      requests: this.requests,
      failures: this.failures,
      ...(p50 !== undefined && { latencyP50Ms: p50 }),
      ...(this.lastError !== undefined && { lastError: this.lastError }),
    };
  }

  /**
   * Sends a JSON-RPC request to the upstream and resolves with its result, through `request`
   * (circuit, timeout, cancellation, measures). A 2025-era HTTP upstream's requests take the
   * gateway's own request path (`HttpJsonRpcChannel`) on the SDK client's session; the others
   * go through the SDK client, which on 2026-07-28 adds the request envelope and answers the
   * upstream's `input_required` rounds through the relays. Results are passed on as the
   * upstream gave them (less the 2026 `resultType`, which the host sets for its own clients).
   * @throws as `request` does
   */
  call(
    method: string,
    params: Record<string, unknown>,
    context?: McpCallContext,
    onProgress?: (progress: Progress) => void,
    headerParams?: readonly ToolHeaderParam[],
  ): Promise<Record<string, unknown>> {
    return this.request(
      async (client, options, meta) => {
        const sent = meta.progressToken ? { ...params, _meta: { ...(params._meta as object), ...meta } } : params;
        const channel = this.channel;
        if (!channel) {
          // A 2026-07-28 upstream logs only what a request's envelope asks for: everything is asked,
          // and the caller's own level filters it on the way to the caller.
          const logged = this.listener
            ? { ...sent, _meta: { ...(sent._meta as object), [LOG_LEVEL_META]: 'debug' } }
            : sent;
          const { resultType: _, ...result } = await client.request({ method, params: logged }, AS_ANSWERED, options);
          return result;
        }
        const sendOptions = { timeoutMs: options.timeout!, signal: options.signal, headerParams };
        // A 2026-07-28 request says what its client can answer: what this call's caller can, of
        // what the gateway relays. So the upstream asks only what reaches a person (else it goes
        // on as with such a client: a confirmation waits for an approver).
        const asked =
          this.prior?.kind === 'modern' && context
            ? { ...sent, _meta: { ...(sent._meta as object), [CLIENT_CAPABILITIES_META]: relayable(context) } }
            : sent;
        let answer = await this.send(client, channel, method, asked, sendOptions);
        // A 2026-07-28 upstream asks for the client's input by answering `input_required`: the
        // relays get the answers, and the request goes again with them (a new request each round).
        for (let round = 1; answer.resultType === 'input_required'; round++) {
          if (round > MAX_INPUT_ROUNDS)
            throw new UpstreamRpcError(-32603, GatewayMessages.tooManyInputRounds(MAX_INPUT_ROUNDS));
          const { inputRequests, requestState } = answer as { inputRequests?: unknown; requestState?: unknown };
          const inputResponses = await this.fulfil(inputRequests);
          answer = await this.send(
            client,
            channel,
            method,
            { ...asked, inputResponses, ...(requestState !== undefined && { requestState }) },
            sendOptions,
          );
        }
        const { resultType: _, ...result } = answer;
        return result;
      },
      context,
      onProgress,
    );
  }

  /** One request on the gateway's own HTTP path; one given up on is cancelled upstream, as the SDK does on its own. */
  private async send(
    client: Client,
    channel: HttpJsonRpcChannel,
    method: string,
    params: Record<string, unknown>,
    options: HttpJsonRpcOptions,
  ): Promise<Record<string, unknown>> {
    let id: string | undefined;
    try {
      return await channel.request(method, params, options, (sentId) => (id = sentId));
    } catch (error) {
      const timedOut = error instanceof UpstreamTimeoutError;
      if (id && (options.signal?.aborted || timedOut))
        void client
          .notification({
            method: 'notifications/cancelled',
            params: { requestId: id, reason: timedOut ? 'timeout' : 'cancelled' },
          })
          .catch(() => undefined);
      throw error;
    }
  }

  /** The answers to a 2026-07-28 upstream's input requests, each asked of the caller through its relay. */
  private async fulfil(requests: unknown): Promise<Record<string, unknown>> {
    const answers: Record<string, unknown> = {};
    const entries = typeof requests === 'object' && requests !== null ? Object.entries(requests) : [];
    for (const [key, request] of entries) {
      const { method, params } = request as { method?: string; params?: Record<string, unknown> };
      if (method === 'elicitation/create') answers[key] = await this.relayTarget(method).elicit(params as never);
      else if (method === 'sampling/createMessage')
        answers[key] = await this.relayTarget(method).sample(params as never);
      else if (method === 'roots/list') answers[key] = { roots: await this.relayTarget(method).roots() };
      else throw new UpstreamRpcError(-32602, GatewayMessages.unknownInputRequest(String(method)));
    }
    return answers;
  }

  /**
   * Sends one request to the upstream for a caller: refused at once while the circuit is open
   * or the upstream is not connected; cancelled with the caller's call; timed out after the
   * upstream's `timeoutMs`. The caller's context receives what the upstream asks of the client
   * meanwhile.
   * @throws McpToolError naming the upstream when it cannot be reached, times out or is open
   * @throws UpstreamRpcError the upstream's own JSON-RPC error
   */
  async request<T>(
    send: (client: Client, options: RequestOptions, meta: { progressToken?: string }) => Promise<T>,
    context?: McpCallContext,
    onProgress?: (progress: Progress) => void,
  ): Promise<T> {
    const { name, timeoutMs } = this.options;
    // Every call counts, and every call the upstream failed (refused while it is down included).
    this.requests++;
    if (!this.breaker.allow()) {
      this.failures++;
      throw new McpToolError(GatewayMessages.circuitOpen(name, Math.ceil(this.breaker.retryInMs() / 1000)));
    }
    const client = this.client;
    if (!client || this.state !== 'connected') {
      this.failures++;
      this.breaker.failed();
      throw new McpToolError(GatewayMessages.notConnected(name, this.lastError));
    }
    if (context) this.inFlight.add(context);
    const progressToken = onProgress ? `${name}-${++this.progressTokens}` : undefined;
    if (progressToken) this.progress.set(progressToken, onProgress!);
    const started = performance.now();
    try {
      const options = { timeout: timeoutMs, ...(context && { signal: context.signal }) };
      const result = await send(client, options, progressToken ? { progressToken } : {});
      this.breaker.succeeded();
      this.latency.add(performance.now() - started);
      return result;
    } catch (error) {
      if (context?.signal.aborted) throw error;
      const { failure: reason, error: classified } = classifyUpstreamError(error);
      if (reason === 'answered') {
        // The upstream answered, with an error of its own or more than it may send: it is up.
        this.breaker.succeeded();
        if (classified instanceof UpstreamLimitError) {
          this.logger.error(classified.message);
          throw new McpToolError(GatewayMessages.tooLarge(name, classified.maxBytes));
        }
        throw classified;
      }
      this.failures++;
      this.breaker.failed();
      this.lastError = (error as Error).message;
      this.logger.warn(`${reason === 'timeout' ? 'timed out' : 'failed'}: ${this.lastError}`);
      if (reason === 'unreachable') this.lost(client, error);
      // A stdio upstream's line too long ended its process: the calls it broke say why.
      if (this.overflowed === client)
        throw new McpToolError(GatewayMessages.tooLarge(name, this.options.limits.maxResponseBytes));
      throw new McpToolError(
        reason === 'timeout' ? GatewayMessages.timedOut(name, timeoutMs) : GatewayMessages.unreachable(name),
      );
    } finally {
      if (context) this.inFlight.delete(context);
      if (progressToken) this.progress.delete(progressToken);
    }
  }

  /**
   * Hands the upstream's progress notifications to their listeners as they arrive, ahead of the
   * SDK: it runs notification handlers a microtask late, so the last progress of a call, sent
   * just before its result, would find its listener already gone.
   */
  private takeProgress(transport: Transport): void {
    const deliver = transport.onmessage!;
    transport.onmessage = (message: JSONRPCMessage, extra?: unknown) => {
      const notification = message as { method?: string; params?: Progress & { progressToken?: unknown } };
      if (notification.method === 'notifications/progress' && notification.params) {
        const { progressToken, ...progress } = notification.params;
        const listener = typeof progressToken === 'string' ? this.progress.get(progressToken) : undefined;
        if (listener) return listener(progress);
      }
      (deliver as (message: JSONRPCMessage, extra?: unknown) => void)(message, extra);
    };
  }

  private async connect(): Promise<void> {
    if (this.state === 'stopped') return;
    const { client, transport, http } = createUpstreamClient(this.options);
    this.installRelays(client);
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
      this.lastError = (error as Error).message;
      this.logger.warn(GatewayMessages.connectFailed(this.options.name, this.lastError, this.nextDelayMs()));
      await client.close().catch(() => undefined);
      this.scheduleReconnect();
      return;
    }
    // Stopped while the handshake ran.
    if ((this.state as UpstreamState) === 'stopped') {
      await client.close().catch(() => undefined);
      return;
    }
    client.onclose = () => this.lost(client, new Error('the connection closed'));
    this.takeProgress(transport);
    this.client = client;
    const modern = client.getProtocolEra() === 'modern';
    const discover = client.getDiscoverResult();
    this.prior = modern && discover ? { kind: 'modern', discover } : { kind: 'legacy' };
    this.channel?.close();
    void this.listener?.close();
    this.listener = modern ? new ChangeListener(client, this.options.timeoutMs, this.logger) : undefined;
    void this.listener?.listen();
    const { maxResponseBytes, maxConnections } = this.options.limits;
    this.channel = http
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
          },
        )
      : undefined;
    this.pid = (transport as Partial<StdioClientTransport>).pid ?? undefined;
    this.attempt = 0;
    this.state = 'connected';
    this.connectedAt = new Date();
    this.breaker.succeeded();
    const server = client.getServerVersion();
    this.logger.log(
      `connected to ${`${server?.name ?? 'the server'} ${server?.version ?? ''}`.trim()} (${client.getNegotiatedProtocolVersion()})`,
    );
    this.events.connected();
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
    if (stdio) this.overflowed = client;
    this.logger.error(GatewayMessages.overflowed(this.options.limits.maxResponseBytes, stdio));
  }

  /** The connection went away: drop it and reconnect (once, however many requests saw it fail). */
  private lost(client: Client, error: unknown): void {
    if (this.client !== client || this.state === 'stopped') return;
    this.client = undefined;
    this.state = 'reconnecting';
    this.lastError = (error as Error).message;
    client.onclose = undefined;
    void this.listener?.close();
    this.listener = undefined;
    void client.close().catch(() => undefined);
    this.logger.warn(GatewayMessages.lost(this.options.name, this.lastError, this.nextDelayMs()));
    this.scheduleReconnect();
  }

  private scheduleReconnect(): void {
    if (this.state === 'stopped') return;
    const delay = this.nextDelayMs();
    this.attempt++;
    clearTimeout(this.timer);
    this.timer = setTimeout(() => {
      this.reconnects++;
      void this.connect();
    }, delay);
    this.timer.unref();
  }

  private nextDelayMs(): number {
    const { initialDelayMs, maxDelayMs } = this.options;
    return Math.min(maxDelayMs, initialDelayMs * 2 ** this.attempt);
  }

  private installRelays(client: Client): void {
    client.setNotificationHandler('notifications/tools/list_changed', () => this.events.listChanged('tools'));
    client.setNotificationHandler('notifications/prompts/list_changed', () => this.events.listChanged('prompts'));
    client.setNotificationHandler('notifications/resources/list_changed', () => this.events.listChanged('resources'));
    client.setNotificationHandler('notifications/resources/updated', ({ params }) =>
      this.events.resourceUpdated(params.uri),
    );
    // What the upstream logs while one client's calls are in flight is that client's to read;
    // otherwise it goes to the gateway's own log.
    client.setNotificationHandler('notifications/message', ({ params }) => {
      const call = this.soleCaller();
      if (call) call.log.log(params.level, params.data);
      else this.logger.debug(`log (${params.level}): ${JSON.stringify(params.data)}`);
    });
    // Asked directly (2025) or within an `input_required` round of the call (2026-07-28), the
    // relayed request ends with the call it serves (its context's own cancellation).
    client.setRequestHandler('elicitation/create', (request) =>
      this.relayTarget('elicitation/create').elicit(request.params as never),
    );
    client.setRequestHandler(
      'sampling/createMessage',
      (request) => this.relayTarget('sampling/createMessage').sample(request.params as never) as never,
    );
    client.setRequestHandler('roots/list', async () => ({
      roots: await this.relayTarget('roots/list').roots(),
    }));
  }

  /**
   * The caller an upstream's request is for. The upstream's connection is shared, and its
   * requests do not say which call they serve: they are relayed only while every call in flight
   * is one client's (one session), so that no user is ever asked on another's behalf.
   */
  private relayTarget(method: RelayedMethod): McpCallContext {
    const call = this.soleCaller();
    const { ProtocolError, ProtocolErrorCode } = clientSdk();
    if (!call) {
      this.logger.debug(GatewayMessages.relayRefusedLog(method, this.inFlight.size));
      throw new ProtocolError(ProtocolErrorCode.InvalidRequest, GatewayMessages.relayRefused(method));
    }
    // Asked of a client that cannot answer, the question would end the caller's request (a
    // 2026-07-28 client gets -32021): the upstream is told, as a client that has no such method
    // answers (-32601), and goes on as with such a client (a confirmation waits for an approver).
    if (!call.clientCapabilities[RELAYED_CAPABILITY[method]])
      throw new ProtocolError(ProtocolErrorCode.MethodNotFound, GatewayMessages.relayUnsupported(method));
    return call;
  }

  /** The newest call in flight, when every call in flight is one client's (one session); else `undefined`. */
  private soleCaller(): McpCallContext | undefined {
    const calls = [...this.inFlight];
    const sessions = new Set(calls.map((call) => call.sessionId ?? call.requestId));
    return calls.length > 0 && sessions.size === 1 ? calls[calls.length - 1] : undefined;
  }

  /** A stdio upstream's stderr, one log line per line (what the server says of itself). */
  private logLines(stream: Readable): void {
    const lines = createInterface({ input: stream });
    lines.on('line', (line) => {
      if (line.trim()) this.logger.log(`stderr: ${line}`);
    });
  }
}
