import type { Logger } from '@nestjs/common';
import type { Client } from '@modelcontextprotocol/client';
import type { McpCallContext } from '#libs/core';
import { GatewayMessages } from '../messages/gateway.messages';
import { clientSdk, UpstreamRpcError } from './upstream-errors';
import { RELAYED_CAPABILITIES } from './upstream-transport';

/** The upstream's requests to the client the gateway relays, and the capability each needs. */
const RELAYED_CAPABILITY = {
  'elicitation/create': 'elicitation',
  'sampling/createMessage': 'sampling',
  'roots/list': 'roots',
} as const;
type RelayedMethod = keyof typeof RELAYED_CAPABILITY;

/**
 * The upstream's requests to the client (elicitation, sampling, roots) and its log messages,
 * relayed to the caller of the calls they serve, when that caller can be told; otherwise they
 * are refused (its log goes to the gateway's). The requests learn of each call in flight
 * (`begin`, `end`).
 */
export class CallerRelay {
  /** The calls in flight, newest last: whom an upstream's request to the client is for. */
  private readonly inFlight = new Set<McpCallContext>();

  constructor(private readonly logger: Logger) {}

  /** A call to the upstream began for `context`. */
  begin(context: McpCallContext): void {
    this.inFlight.add(context);
  }

  /** The call of `context` ended. */
  end(context: McpCallContext): void {
    this.inFlight.delete(context);
  }

  /**
   * Of what the gateway relays to its callers, what this call's caller declared it can answer
   * (of the extensions, those the caller declared).
   */
  capabilitiesOf(context: McpCallContext): Record<string, unknown> {
    const capabilities: Record<string, unknown> = {};
    for (const [key, value] of Object.entries(RELAYED_CAPABILITIES)) {
      if (key === 'extensions') {
        const declared = context.clientCapabilities.extensions as Record<string, unknown> | undefined;
        const relayed = Object.entries(value).filter(([id]) => declared?.[id] !== undefined);
        if (relayed.length > 0) capabilities.extensions = Object.fromEntries(relayed);
      } else if (context.clientCapabilities[key]) capabilities[key] = value;
    }
    return capabilities;
  }

  /** Relays what a new client is asked and told by the upstream. */
  install(client: Client): void {
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

  /** The answers to a 2026-07-28 upstream's input requests, each asked of the caller through its relay. */
  async answer(requests: unknown): Promise<Record<string, unknown>> {
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
}
