import type { Logger } from '@nestjs/common';
import type {
  Client,
  JSONRPCMessage,
  Progress,
  RequestOptions,
  StandardSchemaV1,
  Transport,
} from '@modelcontextprotocol/client';
import { McpToolError, type McpCallContext } from '#libs/core';
import type { ToolHeaderParam } from '#libs/catalog';
import type { UpstreamOptions } from '../options/upstream.options';
import { GatewayMessages } from '../messages/gateway.messages';
import type { CallerRelay } from './caller-relay';
import type { HttpJsonRpcChannel, HttpJsonRpcOptions } from './http-json-rpc';
import { LatencyWindow } from './latency-window';
import { CLIENT_CAPABILITIES_META, LOG_LEVEL_META } from './modern-request';
import {
  CallerCredentialRefused,
  classifyUpstreamError,
  UpstreamLimitError,
  UpstreamRpcError,
  UpstreamTimeoutError,
} from './upstream-errors';
import type { UpstreamLink } from './upstream-link';

/** The result schema of a relayed request: what the upstream answered, as it is (the host maps it). */
const AS_ANSWERED: StandardSchemaV1<unknown, Record<string, unknown>> = {
  '~standard': {
    version: 1,
    vendor: 'nest-mcp-host',
    validate: (value) => ({ value: value as Record<string, unknown> }),
  },
};

/**
 * Who the upstream sees on a caller's call: the `Authorization` of the caller's identity there
 * (`undefined`: the gateway's own credential), and what to forget when the upstream refuses it.
 */
export interface CallerIdentity {
  authorization(context: McpCallContext): Promise<string | undefined>;
  refused(context: McpCallContext): void;
}

/** The request's `_meta` when it asks for no progress (never written to). */
const NO_META: { progressToken?: string } = Object.freeze({});

/** A result less the 2026 `resultType` (the host sets its own); copied only when it has one. */
function withoutResultType(answer: Record<string, unknown>): Record<string, unknown> {
  if (answer.resultType === undefined) return answer;
  const { resultType: _, ...result } = answer;
  return result;
}

/** The rounds of input one 2026-07-28 request may ask for before the gateway gives up on it. */
const MAX_INPUT_ROUNDS = 10;

/**
 * The requests to one upstream: each through the link's circuit breaker and the upstream's
 * timeout, cancelled with the caller's call, measured, and its progress handed to the caller.
 * A 2025-era HTTP upstream's take the gateway's own HTTP path; a 2026-07-28 upstream's input
 * rounds are answered by the caller, through the relay.
 */
export class UpstreamRequests {
  private readonly latency = new LatencyWindow(100);
  /** Progress listeners by the progress token the gateway gave the upstream request. */
  private readonly progress = new Map<string, (progress: Progress) => void>();
  private progressTokens = 0;
  private sent = 0;
  private failed = 0;

  constructor(
    private readonly options: UpstreamOptions,
    private readonly link: UpstreamLink,
    private readonly relay: CallerRelay,
    private readonly logger: Logger,
    private readonly identity?: CallerIdentity,
  ) {}

  /** Calls to the upstream so far. */
  get count(): number {
    return this.sent;
  }

  /** Of those, the ones the upstream failed: unreachable, timed out, or refused while it was down. */
  get failures(): number {
    return this.failed;
  }

  /** Median latency of the last requests, in ms. */
  latencyP50(): number | undefined {
    return this.latency.median();
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
  async call(
    method: string,
    params: Record<string, unknown>,
    context?: McpCallContext,
    onProgress?: (progress: Progress) => void,
    headerParams?: readonly ToolHeaderParam[],
  ): Promise<Record<string, unknown>> {
    // The caller's identity is worked out before the upstream is asked: a caller who cannot be
    // vouched for there is no failure of the upstream's.
    const authorization = context && this.identity ? await this.identity.authorization(context) : undefined;
    try {
      return await this.callAs(method, params, context, onProgress, headerParams, authorization);
    } catch (error) {
      if (error instanceof CallerCredentialRefused && context) this.identity?.refused(context);
      throw error;
    }
  }

  private callAs(
    method: string,
    params: Record<string, unknown>,
    context: McpCallContext | undefined,
    onProgress: ((progress: Progress) => void) | undefined,
    headerParams: readonly ToolHeaderParam[] | undefined,
    authorization: string | undefined,
  ): Promise<Record<string, unknown>> {
    return this.request(
      async (client, options, meta) => {
        const sent = meta.progressToken ? { ...params, _meta: { ...(params._meta as object), ...meta } } : params;
        const channel = this.link.channel;
        if (!channel) {
          // A 2026-07-28 upstream logs only what a request's envelope asks for: everything is asked,
          // and the caller's own level filters it on the way to the caller.
          const logged = this.link.listener
            ? { ...sent, _meta: { ...(sent._meta as object), [LOG_LEVEL_META]: 'debug' } }
            : sent;
          return withoutResultType(await client.request({ method, params: logged }, AS_ANSWERED, options));
        }
        const sendOptions = { timeoutMs: options.timeout!, signal: options.signal, headerParams, authorization };
        // A 2026-07-28 request says what its client can answer: what this call's caller can, of
        // what the gateway relays. So the upstream asks only what reaches a person (else it goes
        // on as with such a client: a confirmation waits for an approver).
        const asked =
          this.link.modern && context
            ? {
                ...sent,
                _meta: { ...(sent._meta as object), [CLIENT_CAPABILITIES_META]: this.relay.capabilitiesOf(context) },
              }
            : sent;
        let answer = await this.send(client, channel, method, asked, sendOptions);
        // A 2026-07-28 upstream asks for the client's input by answering `input_required`: the
        // relays get the answers, and the request goes again with them (a new request each round).
        for (let round = 1; answer.resultType === 'input_required'; round++) {
          if (round > MAX_INPUT_ROUNDS)
            throw new UpstreamRpcError(-32603, GatewayMessages.tooManyInputRounds(MAX_INPUT_ROUNDS));
          const { inputRequests, requestState } = answer as { inputRequests?: unknown; requestState?: unknown };
          const inputResponses = await this.relay.answer(inputRequests);
          answer = await this.send(
            client,
            channel,
            method,
            { ...asked, inputResponses, ...(requestState !== undefined && { requestState }) },
            sendOptions,
          );
        }
        return withoutResultType(answer);
      },
      context,
      onProgress,
    );
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
    const { breaker } = this.link;
    // Every call counts, and every call the upstream failed (refused while it is down included).
    this.sent++;
    if (!breaker.allow()) {
      this.failed++;
      throw new McpToolError(GatewayMessages.circuitOpen(name, Math.ceil(breaker.retryInMs() / 1000)));
    }
    const client = this.link.client;
    if (!client || this.link.state !== 'connected') {
      this.failed++;
      breaker.failed();
      throw new McpToolError(GatewayMessages.notConnected(name, this.link.lastError));
    }
    if (context) this.relay.begin(context);
    const progressToken = onProgress ? `${name}-${++this.progressTokens}` : undefined;
    if (progressToken) this.progress.set(progressToken, onProgress!);
    const started = performance.now();
    try {
      const options: RequestOptions = context ? { timeout: timeoutMs, signal: context.signal } : { timeout: timeoutMs };
      const result = await send(client, options, progressToken ? { progressToken } : NO_META);
      breaker.succeeded();
      this.latency.add(performance.now() - started);
      return result;
    } catch (error) {
      if (context?.signal.aborted) throw error;
      const { failure: reason, error: classified } = classifyUpstreamError(error);
      if (reason === 'answered') {
        // The upstream answered, with an error of its own or more than it may send: it is up.
        breaker.succeeded();
        if (classified instanceof UpstreamLimitError) {
          this.logger.error(classified.message);
          throw new McpToolError(GatewayMessages.tooLarge(name, classified.maxBytes));
        }
        throw classified;
      }
      this.failed++;
      breaker.failed();
      const message = (error as Error).message;
      this.link.failed(message);
      this.logger.warn(`${reason === 'timeout' ? 'timed out' : 'failed'}: ${message}`);
      if (reason === 'unreachable') this.link.lost(client, error);
      // A stdio upstream's line too long ended its process: the calls it broke say why.
      if (this.link.overflowed === client)
        throw new McpToolError(GatewayMessages.tooLarge(name, this.options.limits.maxResponseBytes));
      throw new McpToolError(
        reason === 'timeout' ? GatewayMessages.timedOut(name, timeoutMs) : GatewayMessages.unreachable(name),
      );
    } finally {
      if (context) this.relay.end(context);
      if (progressToken) this.progress.delete(progressToken);
    }
  }

  /**
   * Hands the upstream's progress notifications to their listeners as they arrive, ahead of the
   * SDK: it runs notification handlers a microtask late, so the last progress of a call, sent
   * just before its result, would find its listener already gone.
   */
  takeProgress(transport: Transport): void {
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
}
